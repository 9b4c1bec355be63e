"""Comparisons decided by value ranges: `tid.x < 128` under `@launch(block = 128)`, `laneid < 32`,
`(tid.x & 7) <= 7` are always true, their negations always false (unsigned 32-bit comparisons with a
constant; bounds from `irc.passes.ranges`). The condition becomes a constant and SimplifyCFG drops the
provably taken guard. Why: kernels guard with facts the launch bounds already guarantee (issue 15).
"""

from __future__ import annotations

from irc.ir.builder import Builder
from irc.ir.core import Module, Op
from irc.ir.types import BOOL, ScalarType
from irc.passes.manager import Pass, PassContext
from irc.passes.ranges import Ranges
from irc.passes.util import const_value

_FLIP = {"lt": "gt", "le": "ge", "gt": "lt", "ge": "le", "eq": "eq", "ne": "ne"}


def decide(pred: str, hi: int, c: int) -> bool | None:
    """The value of `x pred c` for every x in [0, hi], or None when it depends on x."""
    if pred == "lt":
        return True if hi < c else False if c == 0 else None
    if pred == "le":
        return True if hi <= c else None
    if pred == "gt":
        return False if hi <= c else None
    if pred == "ge":
        return False if hi < c else True if c == 0 else None
    if pred == "eq":
        return False if hi < c else None
    if pred == "ne":
        return True if hi < c else None
    return None


class RangeFold(Pass):
    """Needs: verified IR after strength reduction (so divisions by powers of two are shifts and masks).
    Establishes: no unsigned 32-bit `cmp` against a constant whose outcome follows from the operand's
    range."""

    name = "rangefold"

    def run(self, module: Module, ctx: PassContext) -> None:
        for fn in module.functions:
            ranges = Ranges(fn)
            for op in list(fn.ops()):
                if op.name == "cmp" and op.block is not None:
                    self.fold(op, ranges)

    def fold(self, op: Op, ranges: Ranges) -> None:
        x, y = op.operands
        pred = str(op.attrs.get("pred"))
        t = x.type
        if (
            not (isinstance(t, ScalarType) and t.is_int and not t.is_signed and t.bits == 32)
            or pred not in _FLIP
        ):
            return
        c = const_value(y)
        if c is None:
            c, x, pred = const_value(x), y, _FLIP[pred]
        if isinstance(c, bool) or not isinstance(c, int) or const_value(x) is not None:
            return
        got = decide(pred, ranges.max_u32(x), c & 0xFFFFFFFF)
        if got is None:
            return
        out = Builder(op.block, op.span).before(op).const(got, BOOL)
        op.result.replace_all_uses_with(out)
        op.erase()
