"""The facts the uniformity analysis and its rule modules share (`collectives`, `linear_tid`,
`shared_loc`): the lattice, the reasons, constant look-through. They live below `uniformity` so that the
rule modules and the solver import them without importing each other."""

from __future__ import annotations

from enum import IntEnum

from irc.ir.core import Block, Op, OpResult, Value
from irc.records import record

__all__ = [
    "Level",
    "Reason",
    "WhyStep",
    "const_value",
    "has_trait",
    "int_const",
    "is_block_barrier",
    "is_named_barrier",
    "shared_base",
]


class Level(IntEnum):
    """Uniformity lattice; larger is more uniform. `min` is the meet."""

    THREAD = 0
    WARP = 1
    BLOCK = 2
    GRID = 3

    @property
    def phrase(self) -> str:
        return {
            Level.THREAD: "varies per thread",
            Level.WARP: "uniform per warp",
            Level.BLOCK: "uniform per block",
            Level.GRID: "uniform across the grid",
        }[self]


_TRAITS: dict[str, dict[str, bool]] = {}


def has_trait(op: Op, trait: str) -> bool:
    """`op.has_trait(trait)`, memoized per op name (the op table is fixed once imported; this is on the
    analyzer's hot path)."""
    tab = _TRAITS.get(trait)
    if tab is None:
        tab = _TRAITS[trait] = {}
    r = tab.get(op.name)
    if r is None:
        r = tab[op.name] = op.has_trait(trait)
    return r


def is_block_barrier(op: Op) -> bool:
    """A block-wide barrier: `barrier` without a thread count (bar.sync id / barrier.sync id)."""
    return has_trait(op, "barrier") and "count" not in op.attrs and len(op.operands) < 2


def is_named_barrier(op: Op) -> bool:
    """A barrier with a thread count: only the participating warps synchronize."""
    return has_trait(op, "barrier") and ("count" in op.attrs or len(op.operands) >= 2)


@record(frozen=True)
class Reason:
    """Why a value got its level. kind: seed | operand | sync | temporal | control."""

    kind: str
    text: str = ""
    value: Value | None = None
    block: Block | None = None  # the divergent branch (sync) or loop header (temporal)


@record(frozen=True)
class WhyStep:
    """One link of an explanation chain: `value` (defined by `op`, None for block arguments) and `text`."""

    value: Value
    op: Op | None
    level: Level
    text: str


def shared_base(v: Value) -> str | None:
    """The shared allocation a shared pointer points into (through ptradd/copy/bitcast), or None."""
    seen = 0
    while isinstance(v, OpResult) and seen < 64:
        op = v.op
        if op.name == "shared_addr":
            return str(op.attrs.get("sym"))
        if op.name in ("ptradd", "copy", "bitcast", "cvt") and op.operands:
            v = op.operands[0]
            seen += 1
            continue
        return None
    return None


def const_value(v: Value) -> int | float | bool | None:
    """The constant a value provably holds (a `const`, through copies and same-width bitcasts)."""
    seen = 0
    while isinstance(v, OpResult) and seen < 64:
        op = v.op
        if op.name == "const":
            return op.attrs.get("value")
        if op.name in ("copy", "bitcast") and op.operands:
            v = op.operands[0]
            seen += 1
            continue
        return None
    return None


def int_const(v: Value) -> int | None:
    c = const_value(v)
    if isinstance(c, bool) or not isinstance(c, int):
        return None
    return c
