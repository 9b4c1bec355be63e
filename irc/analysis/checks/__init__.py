"""The analyzer's checks: one module each, all with the signature `check(ctx) -> list[Diagnostic]`.

`CHECKS` maps the stable check name (spec section 8) to the function; `UNIFORMITY_CHECKS` need the
uniformity facts, which only make sense for kernels (device functions have no launch context).
"""

from __future__ import annotations

from collections.abc import Callable

from irc.analysis.checks.barrier import check_barrier_divergence
from irc.analysis.checks.common import FunctionContext
from irc.analysis.checks.self_cancel import check_self_cancel
from irc.analysis.checks.tma import check_mbarrier_tx, check_tma_misaligned
from irc.analysis.checks.uninit import check_uninitialized
from irc.analysis.checks.warp_sync import check_warp_sync_divergence
from irc.diagnostics import Diagnostic

CheckFn = Callable[[FunctionContext], list[Diagnostic]]

CHECKS: dict[str, CheckFn] = {
    "barrier-divergence": check_barrier_divergence,
    "warp-sync-divergence": check_warp_sync_divergence,
    "self-cancel": check_self_cancel,
    "uninitialized": check_uninitialized,
    "tma-misaligned": check_tma_misaligned,
    "mbarrier-tx-mismatch": check_mbarrier_tx,
}
#: Checks that need the launch context, so they run on kernels only: the divergence checks need the
#: uniformity facts; the TMA checks follow a kernel's barriers and tensormap parameters.
UNIFORMITY_CHECKS = frozenset({"barrier-divergence", "warp-sync-divergence"})
KERNEL_ONLY_CHECKS = UNIFORMITY_CHECKS | {"tma-misaligned", "mbarrier-tx-mismatch"}

__all__ = ["CHECKS", "KERNEL_ONLY_CHECKS", "UNIFORMITY_CHECKS", "CheckFn", "FunctionContext"]
