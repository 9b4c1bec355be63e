"""Constant folding: ops whose operands are all constants become constants.

What an op computes on constants is its op-table row's `fold` (`irc.ir.fold`); ops without one are not
folded. Integer results wrap to their type (two's complement); division and remainder truncate toward zero
like C and are not folded when the divisor is zero (the runtime behaviour is the target's). f32 arithmetic
is folded in single precision (numpy float32) so the folded value is the value the GPU computes. A folded
op that is not pure (a warp collective whose value is determined, like `redux` of a constant under a
constant mask) keeps executing; only its users take the constant.
"""

from __future__ import annotations

from irc.ir.builder import Builder
from irc.ir.core import Module, Op
from irc.ir.optable import OPS
from irc.ir.types import ScalarType
from irc.passes.manager import Pass, PassContext
from irc.passes.util import const_value, is_const, wrap


class ConstFold(Pass):
    """Folds constant expressions, `cmp` of constants and `select` / `cbr` conditions' selects.

    Needs: verified IR. Establishes: no foldable pure arithmetic on constants remains (one sweep in
    block order reaches a fixpoint because operands are folded before their users in dominance order)."""

    name = "constfold"

    def run(self, module: Module, ctx: PassContext) -> None:
        for fn in module.functions:
            for b in fn.blocks:
                for op in list(b.ops):
                    if op.block is not None:
                        self.fold(op)

    def fold(self, op: Op) -> bool:
        n = op.name
        if n == "select" and is_const(op.operands[0]):
            pick = op.operands[1] if const_value(op.operands[0]) else op.operands[2]
            op.result.replace_all_uses_with(pick)
            op.erase()
            return True
        if len(op.results) != 1 or not op.operands or not all(is_const(v) for v in op.operands):
            return False
        d = OPS.get(n)
        if d is None or d.sem is None or not (op.has_trait("pure") or op.result.uses):
            return False
        t = op.result.type
        vals = [const_value(v) for v in op.operands]
        res = d.fold(vals, t, op.attrs, [v.type for v in op.operands])
        if res is None:
            return False
        if isinstance(t, ScalarType) and t.is_int:
            res = wrap(int(res), t)
        c = Builder(op.block, op.span).before(op).const(res, t)  # type: ignore[arg-type]
        op.result.replace_all_uses_with(c)
        if op.has_trait("pure"):
            op.erase()
        # else (a warp collective such as `redux` with a determined value): its users take the constant,
        # the op itself stays, so the analyzer still sees the collective and its control
        return True
