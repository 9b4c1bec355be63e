"""Compatibility re-export: the TMA facts live in `irc.analysis.tma_facts`, the checks in
`irc.analysis.checks.tma`. New code imports those modules."""

from irc.analysis.checks.tma import check_mbarrier_tx, check_tma, check_tma_misaligned
from irc.analysis.tma_facts import (
    CHECK_ALIGN,
    CHECK_TX,
    TMA_ALIGN,
    TMA_INNER_BYTES,
    TMA_MAX_BOX,
    TMA_MAX_DIMS,
    BarrierKey,
    Divisor,
    PointerOrigin,
    barrier_key,
    box_problems,
    int_divisors,
    pointer_origin,
)

__all__ = [
    "CHECK_ALIGN",
    "CHECK_TX",
    "TMA_ALIGN",
    "TMA_INNER_BYTES",
    "TMA_MAX_BOX",
    "TMA_MAX_DIMS",
    "BarrierKey",
    "Divisor",
    "PointerOrigin",
    "barrier_key",
    "box_problems",
    "check_mbarrier_tx",
    "check_tma",
    "check_tma_misaligned",
    "int_divisors",
    "pointer_origin",
]
