"""Strength reduction of integer mul / div / rem by constant powers of two.

    x * 2^k          -> x << k                       (any integer type: wrap-around is identical)
    x / 2^k unsigned -> x >> k (logical)
    x % 2^k unsigned -> x & (2^k - 1)
    x / 2^k signed   -> (x + bias) >> k (arithmetic), bias = (x >> (w-1)) >>> (w-k)  (= 2^k-1 if x < 0)
    x % 2^k signed   -> x - ((x / 2^k) << k)
Signed division truncates toward zero (C semantics), which a plain arithmetic shift does not do for
negative x: the bias rounds negative dividends up first. `>>>` is a logical shift, spelled as `shr` on
the unsigned type between two `bitcast`s. Multiplication / division by 1 is the identity.
"""

from __future__ import annotations

from irc.ir.builder import Builder
from irc.ir.core import Block, Module, Op, Value
from irc.ir.types import SCALARS, ScalarType
from irc.passes.manager import Pass, PassContext
from irc.passes.util import const_value, int_type, rewrite_ops


def _log2(v: object) -> int | None:
    if isinstance(v, bool) or not isinstance(v, int) or v <= 0 or v & (v - 1):
        return None
    return v.bit_length() - 1


class StrengthReduce(Pass):
    """Needs: verified IR. Establishes: no integer mul/div/rem by a constant power of two."""

    name = "strength-reduce"

    def run(self, module: Module, ctx: PassContext) -> None:
        for fn in module.functions:
            rewrite_ops(fn, _candidate, self.reduce)

    def reduce(self, op: Op, scratch: Block) -> bool:
        """Build the replacement of `op` at the end of `scratch` and redirect its uses; False (nothing
        built) when `op` does not reduce."""
        x, c = op.operands
        if op.name == "mul" and _log2(const_value(x)) is not None and _log2(const_value(c)) is None:
            x, c = c, x
        k = _log2(const_value(c))
        if k is None:
            return False
        t: ScalarType = op.result.type  # type: ignore[assignment]
        w = t.bits
        if k >= w:
            return False
        b = Builder(scratch, op.span)
        out: Value
        if k == 0:
            if op.name == "rem":
                out = b.const(0, t)
            else:
                out = x
        elif op.name == "mul":
            out = b.value("shl", [x, b.const(k, t)], t)
        elif not t.is_signed:
            if op.name == "div":
                out = b.value("shr", [x, b.const(k, t)], t)
            else:
                out = b.value("and", [x, b.const((1 << k) - 1, t)], t)
        else:
            ut = SCALARS["u" + t.name[1:]]
            sign = b.value("shr", [x, b.const(w - 1, t)], t)
            us = b.value("bitcast", [sign], ut)
            ub = b.value("shr", [us, b.const(w - k, ut)], ut)
            bias = b.value("bitcast", [ub], t)
            biased = b.value("add", [x, bias], t)
            q = b.value("shr", [biased, b.const(k, t)], t)
            if op.name == "div":
                out = q
            else:
                out = b.value("sub", [x, b.value("shl", [q, b.const(k, t)], t)], t)
        op.result.replace_all_uses_with(out)
        return True


def _candidate(op: Op) -> bool:
    return op.name in ("mul", "div", "rem") and int_type(op.result.type)
