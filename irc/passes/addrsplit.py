"""Base + constant-offset addressing: the constant part of a memory access's byte offset moves into the
instruction's immediate (`ld [%rd + 8]`), so accesses that differ by a constant share one base address.

    ptradd p, ((y + c) << k)            -> ptradd (ptradd p, y << k), c << k      (then AddrFold: [.. + imm])
    ptradd p, mul.wide(y + c, s)        -> ptradd (ptradd p, mul.wide(y, s)), c * s   if y + c cannot wrap

Offsets of the pointer's own width are exact modulo 2^width (add, shl and mul distribute), so constants
leave them freely. Widening a 32-bit index (`cvt`, `mul.wide`) is exact only when `y + c` does not wrap
in 32 bits: `ranges.max_u32` bounds `y` from its bits (thread and lane indices from `@launch` and the
hardware limits, masks, shifts) - the `(q0 + r) * 16 + c0 + e` of a tile copy, whose low bits are known
zero, is the case that matters. Why: each guarded load of an unrolled copy recomputed its 64-bit address
(issue 15); nvcc uses one base and immediates.
"""

from __future__ import annotations

from irc.ir.builder import Builder
from irc.ir.core import Block, Function, Module, Op, OpResult, Value
from irc.ir.types import PtrType, ScalarType
from irc.passes.manager import Pass, PassContext
from irc.passes.ranges import Ranges
from irc.passes.util import const_value, rewrite_ops

_MEM = ("load", "store", "load_vec", "store_vec")


def _ptr_bits(t: object) -> int:
    return 32 if isinstance(t, PtrType) and t.space == "shared" else 64


class _Splitter:
    """Split an integer offset into (variable part or None, constant) with the same value."""

    def __init__(self, bld: Builder, ranges: Ranges):
        self.bld = bld
        self.ranges = ranges

    def split(self, v: Value) -> tuple[Value | None, int]:
        c = const_value(v)
        t = v.type
        if isinstance(c, int) and not isinstance(c, bool):
            return None, c
        if not (isinstance(v, OpResult) and isinstance(t, ScalarType) and t.is_int):
            return v, 0
        op = v.op
        b = self.bld
        if op.name == "add" and op.operands[0].type == t and op.operands[1].type == t:
            va, ca = self.split(op.operands[0])
            vb, cb = self.split(op.operands[1])
            if ca == 0 and cb == 0:
                return v, 0
            if va is None or vb is None:
                return (vb if va is None else va), ca + cb
            return b.value("add", [va, vb], t), ca + cb
        if op.name in ("shl", "mul"):
            k = const_value(op.operands[1])
            if not isinstance(k, int) or isinstance(k, bool) or k < 0 or (op.name == "shl" and k >= t.bits):
                return v, 0
            va, ca = self.split(op.operands[0])
            if ca == 0 or va is None:
                return v, 0
            scale = (1 << k) if op.name == "shl" else k
            return b.value(op.name, [va, op.operands[1]], t), ca * scale
        if op.name in ("cvt", "mulwide") and not op.attrs:
            x = op.operands[0]
            xt = x.type
            if not (isinstance(xt, ScalarType) and xt.is_int and not xt.is_signed and xt.bits == 32):
                return v, 0
            if t.bits != 64:
                return v, 0
            s = 1
            if op.name == "mulwide":
                s = const_value(op.operands[1])
                if not isinstance(s, int) or isinstance(s, bool) or s < 0:
                    return v, 0
            vx, cx = self.split(x)
            cx &= 0xFFFFFFFF
            if cx == 0 or vx is None or self.ranges.max_u32(vx) + cx >= 1 << 32:
                return v, 0
            if op.name == "cvt":
                return b.value("cvt", [vx], t), cx
            return b.value("mulwide", [vx, op.operands[1]], t), cx * s
        return v, 0


class AddrSplit(Pass):
    """Needs: verified IR after WideMul (address products are `mulwide`). Establishes: no load/store
    address is a `ptradd` whose offset has a constant part that could be an immediate (within the
    signed 32-bit range); that part is a `ptradd` of a constant, which AddrFold folds."""

    name = "addrsplit"

    def run(self, module: Module, ctx: PassContext) -> None:
        for fn in module.functions:
            self.split_function(fn)

    def split_function(self, fn: Function) -> None:
        ranges = Ranges(fn)

        def split(op: Op, scratch: Block) -> bool:
            self.rewrite(op, ranges, scratch)
            return False  # the access stays; only its address changes

        rewrite_ops(fn, lambda op: op.name in _MEM, split)

    def rewrite(self, op: Op, ranges: Ranges, scratch: Block) -> None:
        """Build the split address at the end of `scratch` (spliced in before `op` by `rewrite_ops`)."""
        p = op.operands[0]
        if not (isinstance(p, OpResult) and p.op.name == "ptradd"):
            return
        base, off = p.op.operands
        ot = off.type
        bits = _ptr_bits(p.type)
        if not (isinstance(ot, ScalarType) and ot.is_int and ot.bits == bits):
            return
        bld = Builder(scratch, op.span)
        var, c = _Splitter(bld, ranges).split(off)
        c &= (1 << bits) - 1
        if c >= 1 << (bits - 1):
            c -= 1 << bits
        if c == 0 or not -(1 << 31) <= c < (1 << 31):
            return  # (ops the splitter created stay unused: DCE removes them)
        q = bld.value("ptradd", [base, var], p.type) if var is not None else base
        op.set_operand(0, bld.value("ptradd", [q, bld.const(c, ot)], p.type))
