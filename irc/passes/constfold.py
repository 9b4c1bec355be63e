"""Constant folding: pure ops whose operands are all constants become constants.

Integer results wrap to their type (two's complement); division and remainder truncate toward zero like
C and are not folded when the divisor is zero (the runtime behaviour is the target's). f32 arithmetic is
folded in single precision (numpy float32) so the folded value is the value the GPU computes.
"""

from __future__ import annotations

import math

import numpy as np

from irc.ir.builder import Builder
from irc.ir.core import Module, Op
from irc.ir.types import ScalarType
from irc.passes.manager import Pass, PassContext
from irc.passes.util import const_value, is_const, wrap

_CMP = {
    "eq": lambda a, b: a == b,
    "ne": lambda a, b: a != b,
    "lt": lambda a, b: a < b,
    "le": lambda a, b: a <= b,
    "gt": lambda a, b: a > b,
    "ge": lambda a, b: a >= b,
}


def _fold_int(name: str, a: int, b: int | None, t: ScalarType) -> int | None:
    if name == "add":
        return a + b
    if name == "sub":
        return a - b
    if name == "mul":
        return a * b
    if name in ("div", "rem"):
        if b == 0:
            return None
        q = abs(a) // abs(b)
        if (a < 0) != (b < 0):
            q = -q
        return q if name == "div" else a - q * b
    if name == "and":
        return a & b
    if name == "or":
        return a | b
    if name == "xor":
        return a ^ b
    if name == "min":
        return min(a, b)
    if name == "max":
        return max(a, b)
    if name == "shl":
        return a << b if 0 <= b < t.bits else None
    if name == "shr":
        if not 0 <= b < t.bits:
            return None
        return a >> b if t.is_signed else (a & ((1 << t.bits) - 1)) >> b
    if name == "neg":
        return -a
    if name == "not":
        return ~a
    return None


def _fold_float(name: str, a: float, b: float | None, t: ScalarType) -> float | None:
    f = np.float32 if t.name == "f32" else np.float64 if t.name == "f64" else None
    if f is None:
        return None
    with np.errstate(all="ignore"):
        x = f(a)
        y = f(b) if b is not None else None
        r = {"add": lambda: x + y, "sub": lambda: x - y, "mul": lambda: x * y, "neg": lambda: -x}.get(name)
        if r is None:
            return None
        v = float(r())
    return v if math.isfinite(v) else None


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
        if not op.has_trait("pure") or n == "const":
            return False
        t = op.result.type
        vals = [const_value(v) for v in op.operands]
        if n == "cmp":
            ot = op.operands[0].type
            if not isinstance(ot, ScalarType) or ot.is_bool:
                return False
            pred = str(op.attrs.get("pred"))
            if pred not in _CMP or (
                ot.is_float and any(isinstance(v, float) and math.isnan(v) for v in vals)
            ):
                return False
            res: object = bool(_CMP[pred](vals[0], vals[1]))
        elif n == "cvt" and isinstance(t, ScalarType) and t.is_int:
            st = op.operands[0].type
            if not (isinstance(st, ScalarType) and st.is_int):
                return False
            res = wrap(int(vals[0]), t)
        elif isinstance(t, ScalarType) and t.is_int and len(vals) in (1, 2):
            r = _fold_int(n, int(vals[0]), int(vals[1]) if len(vals) == 2 else None, t)
            if r is None:
                return False
            res = wrap(r, t)
        elif isinstance(t, ScalarType) and t.is_float and len(vals) in (1, 2):
            r = _fold_float(n, float(vals[0]), float(vals[1]) if len(vals) == 2 else None, t)
            if r is None:
                return False
            res = r
        elif isinstance(t, ScalarType) and t.is_bool and n in ("and", "or", "xor", "not"):
            a = bool(vals[0])
            b2 = bool(vals[1]) if len(vals) == 2 else False
            res = {"and": a and b2, "or": a or b2, "xor": a != b2, "not": not a}[n]
        else:
            return False
        c = Builder(op.block, op.span).before(op).const(res, t)  # type: ignore[arg-type]
        op.result.replace_all_uses_with(c)
        op.erase()
        return True
