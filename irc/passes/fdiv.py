"""Exact rewrites of float division (`div` is `div.rn`: a correctly rounded quotient, and on sm_80+
an FCHK test plus a slow-path subroutine in SASS):

    x / c    -> x * (1 / c)     when c = +-2^k and 1 / c is a normal number of the type
    1.0 / x  -> rcp(x)          (`rcp.rn`: the correctly rounded reciprocal)

Both sides are the correctly rounded value of the same real number (x / 2^k = x * 2^-k exactly, 1 / x
is 1 / x), so every input - subnormals, infinities, NaN, signed zeros - gives the same bits. Why: `x /
4096.0` cost a division with its slow path where one multiply is exact (issue 15).
"""

from __future__ import annotations

import math

from irc.ir.builder import Builder
from irc.ir.core import Module, Op
from irc.ir.types import ScalarType
from irc.passes.manager import Pass, PassContext
from irc.passes.util import const_value

# (smallest, largest) exponent k with 2^k a normal number of the type
_NORMAL = {"f32": (-126, 127), "f64": (-1022, 1023)}


def _pow2_exponent(c: object) -> int | None:
    if isinstance(c, bool) or not isinstance(c, (int, float)) or c == 0 or not math.isfinite(c):
        return None
    m, e = math.frexp(abs(float(c)))
    return e - 1 if m == 0.5 else None


class FloatDiv(Pass):
    """Needs: verified IR. Establishes: no f32/f64 `div` by a power of two whose reciprocal is normal,
    and no f32/f64 `div` of the constant 1.0."""

    name = "fdiv"

    def run(self, module: Module, ctx: PassContext) -> None:
        for fn in module.functions:
            for op in list(fn.ops()):
                if op.name == "div" and op.block is not None:
                    self.rewrite(op)

    def rewrite(self, op: Op) -> None:
        t = op.result.type
        if not (isinstance(t, ScalarType) and t.name in _NORMAL) or op.attrs:
            return
        x, c = op.operands
        lo, hi = _NORMAL[t.name]
        bld = Builder(op.block, op.span).before(op)
        k = _pow2_exponent(const_value(c))
        if k is not None and lo <= -k <= hi:
            inv = math.ldexp(1.0, -k) * (1.0 if float(const_value(c)) > 0 else -1.0)  # type: ignore[arg-type]
            out = bld.value("mul", [x, bld.const(inv, t)], t)
        elif const_value(x) == 1.0 and not isinstance(const_value(x), bool):
            out = bld.value("rcp", [c], t)
        else:
            return
        op.result.replace_all_uses_with(out)
        op.erase()
