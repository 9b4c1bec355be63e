"""Wide multiplication for address arithmetic: a 32-bit index widened and then scaled

    shl (cvt x : u64), k      -> mulwide x, 2^k : u64        (x: u32 or i32, 2^k within x's range)
    mul (cvt x : u64), c      -> mulwide x, c   : u64        (c a constant within x's range)
    mul (cvt x), (cvt y)      -> mulwide x, y                (x, y of one 32-bit type)

`cvt` zero-extends an unsigned source and sign-extends a signed one, exactly as `mul.wide.u32` /
`mul.wide.s32` read their operands, and the full 32x32 product cannot wrap in 64 bits, so both sides are
equal for every input. Why: ptxas fuses `mul.wide` + the pointer `add` into one IMAD.WIDE per access; the
`cvt` + `shl.b64` + `add.u64` chain costs a 64-bit shift pair and a carry pair instead (issue 15).
"""

from __future__ import annotations

from irc.ir.builder import Builder
from irc.ir.core import Module, Op, OpResult, Value
from irc.ir.types import ScalarType
from irc.passes.manager import Pass, PassContext
from irc.passes.util import const_value


def _narrow_source(v: Value) -> Value | None:
    """`x` when `v` is `cvt x` widening a 32-bit integer to 64 bits, else None."""
    if not (isinstance(v, OpResult) and v.op.name == "cvt" and len(v.op.operands) == 1):
        return None
    x = v.op.operands[0]
    src, dst = x.type, v.type
    if not (isinstance(src, ScalarType) and isinstance(dst, ScalarType)):
        return None
    if not (src.is_int and dst.is_int and src.bits == 32 and dst.bits == 64) or v.op.attrs:
        return None
    return x


def _fits(c: object, t: ScalarType) -> bool:
    """A non-negative constant representable in `t` (so `mul.wide` reads it back unchanged)."""
    if isinstance(c, bool) or not isinstance(c, int):
        return False
    return 0 <= c < (1 << (t.bits - 1 if t.is_signed else t.bits))


class WideMul(Pass):
    """Needs: verified IR (strength reduction has turned multiplications by powers of two into shifts).
    Establishes: no 64-bit `shl`/`mul` of a widened 32-bit integer by a constant (or of two widened
    integers of one type) remains: each is a `mulwide`."""

    name = "widemul"

    def run(self, module: Module, ctx: PassContext) -> None:
        for fn in module.functions:
            for op in list(fn.ops()):
                if op.name in ("shl", "mul") and op.block is not None:
                    self.rewrite(op)

    def rewrite(self, op: Op) -> None:
        rt = op.result.type
        if not (isinstance(rt, ScalarType) and rt.is_int and rt.bits == 64):
            return
        a, b = op.operands
        x = _narrow_source(a)
        if x is None and op.name == "mul":
            a, b = b, a
            x = _narrow_source(a)
        if x is None:
            return
        xt: ScalarType = x.type  # type: ignore[assignment]
        bld = Builder(op.block, op.span).before(op)
        c = const_value(b)
        if op.name == "shl":
            if isinstance(c, bool) or not isinstance(c, int) or not 0 <= c < 63 or not _fits(1 << c, xt):
                return
            other: Value = bld.const(1 << c, xt)
        elif _fits(c, xt):
            other = bld.const(c, xt)
        else:
            y = _narrow_source(b)
            if y is None or y.type != xt:
                return
            other = y
        wide = bld.value("mulwide", [x, other], rt)
        op.result.replace_all_uses_with(wide)
        op.erase()
