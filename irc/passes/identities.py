"""Integer identities: `x + 0`, `0 + x`, `x - 0`, `x | 0`, `x ^ 0`, `x << 0`, `x >> 0`, `x * 1`, `1 * x` and
`ptradd p, 0` are `x` (or `p`); `(x << a) << b` is `x << (a + b)` while `a + b` is below the width, and
`(x + a) + b` is `x + (a + b)` (integer addition wraps, so reassociating constants is exact).

Why: unrolled index arithmetic leaves these (`lanes + S_COL` with `S_COL = 0`, `(row * 8 + e % 8) * 2`
with `e % 8 = 0` after strength reduction). Each kept a register of its own and hid equal values from
GVN: three names for one shared-memory base across the softmax loop of `examples/fmha_sm100.kdsl`, and
`lanes + O_COL + 16 cc` (parsed `(lanes + O_COL) + 16 cc`) one chain per column chunk.
Floats are left alone (`-0.0 + 0.0` is `+0.0`).
"""

from __future__ import annotations

from irc.ir.builder import Builder
from irc.ir.core import Block, Module, Op, OpResult, Value
from irc.ir.types import ScalarType
from irc.passes.manager import Pass, PassContext
from irc.passes.util import const_value, int_type, is_const, rewrite_ops, wrap

_RIGHT_ZERO = frozenset({"add", "sub", "or", "xor", "shl", "shr"})
_LEFT_ZERO = frozenset({"add", "or", "xor"})
_NAMES = _RIGHT_ZERO | _LEFT_ZERO | {"mul"}  # every op a rule below rewrites (besides ptradd)


def _candidate(op: Op) -> bool:
    """An op `simplify` may change (it leaves every other op alone)."""
    return (op.name in _NAMES or op.name == "ptradd") and len(op.results) == 1 and op.has_trait("pure")


def _is(v: Value, k: int) -> bool:
    c = const_value(v) if is_const(v) else None
    return c is not None and not isinstance(c, bool) and isinstance(c, int) and c == k


class Identities(Pass):
    """Needs: verified IR. Establishes: no integer op listed above whose result is one of its operands,
    no `shl` of a `shl` by constants whose sum is below the width, no `add` of a constant to an `add` of a
    constant."""

    name = "identities"

    def run(self, module: Module, ctx: PassContext) -> None:
        for fn in module.functions:
            rewrite_ops(fn, _candidate, self.simplify)

    def simplify(self, op: Op, scratch: Block) -> bool:
        """Simplify `op` (a new constant goes at the end of `scratch`); True when `op` is replaced by one
        of its operands and goes away."""
        n, t = op.name, op.result.type
        if n == "ptradd":
            p, off = op.operands
            if _is(off, 0) and p.type == t:
                return self._replace(op, p)
            return False
        if n not in _NAMES:
            return False  # (nothing below applies: most ops leave here)
        if (
            not int_type(t)
            or len(op.operands) != 2
            or any(v.type is not t and v.type != t for v in op.operands)
        ):
            return False
        a, b = op.operands
        if (n in _RIGHT_ZERO and _is(b, 0)) or (n == "mul" and _is(b, 1)):
            return self._replace(op, a)
        if (n in _LEFT_ZERO and _is(a, 0)) or (n == "mul" and _is(a, 1)):
            return self._replace(op, b)
        if n == "add" and is_const(b) and isinstance(a, OpResult) and a.op.name == "add":
            x, k = a.op.operands
            if is_const(k) and not is_const(x) and x.type == t and k.type == t:
                total = wrap(int(const_value(k)) + int(const_value(b)), t)  # type: ignore[arg-type]
                c = Builder(scratch, op.span).const(total, t)
                op.set_operand(0, x)
                op.set_operand(1, c)
        elif n == "shl" and is_const(b) and isinstance(a, OpResult) and a.op.name == "shl":
            inner = a.op
            x, k = inner.operands
            if not is_const(k) or x.type != t or k.type != t:
                return False
            s1, s2 = int(const_value(k)), int(const_value(b))  # type: ignore[arg-type]
            assert isinstance(t, ScalarType)
            if s1 >= 0 and s2 >= 0 and s1 + s2 < t.bits:
                total = s1 + s2
                c = Builder(scratch, op.span).const(total, t)
                op.set_operand(0, x)
                op.set_operand(1, c)
        return False

    @staticmethod
    def _replace(op: Op, v: Value) -> bool:
        op.result.replace_all_uses_with(v)
        return True
