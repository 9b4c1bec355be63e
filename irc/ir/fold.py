"""What ops compute on constants: the `fold` functions the op table attaches to its rows.

Why here and not in a pass: constant folding (`irc.passes.constfold`), the TMA constant evaluator
(`irc.analysis.tma_facts.const_int`) and any later reader must agree on what `mulhi(a, b)` or
`redux.min` of a constant is, so each op's value on constants is defined once, next to its row.

A fold function gets `(vals, rtype, attrs, otypes)`: the operand values (Python ints / floats / bools, as
`const` ops hold them), the result type, the op's attributes and the operand types. It returns the result
value, or None when the op must not be folded (division by zero, shifts past the width, a float result
that is not finite, a type it does not know). Integer results are returned unwrapped; the caller wraps
them to the result type (two's complement). f32 arithmetic runs in numpy float32, so the folded value is
the value the GPU computes.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from irc.ir.types import ScalarType, Type

FoldFn = Callable[[Sequence[Any], Type, Mapping[str, Any], Sequence[Type]], Any]

__all__ = ["FoldFn", "as_signed", "int_binary", "float_binary", "binary", "unary", "mulwide", "cmp", "cvt"]


def _scalar(t: Type) -> ScalarType | None:
    return t if isinstance(t, ScalarType) else None


def as_signed(a: int, t: ScalarType) -> int:
    """`a` read as a value of `t` (bit patterns of signed types become negative)."""
    bits = t.bits
    a &= (1 << bits) - 1
    if t.is_signed and a >= 1 << (bits - 1):
        a -= 1 << bits
    return a


def _float(fn: Callable[..., Any]) -> FoldFn:
    def fold(vals: Sequence[Any], rt: Type, attrs: Mapping[str, Any], ots: Sequence[Type]) -> Any:
        import numpy as np  # only a float fold needs it; most compiles and checks never get here

        t = _scalar(rt)
        f = (
            np.float32
            if t is not None and t.name == "f32"
            else np.float64
            if t is not None and t.name == "f64"
            else None
        )
        if f is None:
            return None
        with np.errstate(all="ignore"):
            v = float(fn(*(f(x) for x in vals)))
        return v if math.isfinite(v) else None

    return fold


def binary(
    int_fn: Callable[[int, int, ScalarType], int | None] | None,
    float_fn: Callable[[Any, Any], Any] | None = None,
    bool_fn: Callable[[bool, bool], bool] | None = None,
) -> FoldFn:
    """A two-operand fold with one rule per type kind (a missing rule: not folded for that kind)."""
    ff = _float(float_fn) if float_fn is not None else None

    def fold(vals: Sequence[Any], rt: Type, attrs: Mapping[str, Any], ots: Sequence[Type]) -> Any:
        t = _scalar(rt)
        if t is None or len(vals) != 2:
            return None
        if t.is_bool:
            return bool_fn(bool(vals[0]), bool(vals[1])) if bool_fn is not None else None
        if t.is_int:
            return int_fn(int(vals[0]), int(vals[1]), t) if int_fn is not None else None
        if t.is_float:
            return ff(vals, rt, attrs, ots) if ff is not None else None
        return None

    return fold


def unary(
    int_fn: Callable[[int, ScalarType], int | None] | None,
    float_fn: Callable[[Any], Any] | None = None,
    bool_fn: Callable[[bool], bool] | None = None,
) -> FoldFn:
    """A one-operand fold with one rule per type kind."""
    ff = _float(float_fn) if float_fn is not None else None

    def fold(vals: Sequence[Any], rt: Type, attrs: Mapping[str, Any], ots: Sequence[Type]) -> Any:
        t = _scalar(rt)
        if t is None or len(vals) != 1:
            return None
        if t.is_bool:
            return bool_fn(bool(vals[0])) if bool_fn is not None else None
        if t.is_int:
            return int_fn(int(vals[0]), t) if int_fn is not None else None
        if t.is_float:
            return ff(vals, rt, attrs, ots) if ff is not None else None
        return None

    return fold


def int_binary(fn: Callable[[int, int], int]) -> FoldFn:
    return binary(lambda a, b, t: fn(a, b))


def float_binary(fn: Callable[[Any, Any], Any]) -> FoldFn:
    return binary(None, fn)


def _divrem(want_rem: bool) -> Callable[[int, int, ScalarType], int | None]:
    def f(a: int, b: int, t: ScalarType) -> int | None:
        if b == 0:
            return None
        q = abs(a) // abs(b)
        if (a < 0) != (b < 0):
            q = -q
        return a - q * b if want_rem else q

    return f


def _shl(a: int, b: int, t: ScalarType) -> int | None:
    return a << b if 0 <= b < t.bits else None


def _shr(a: int, b: int, t: ScalarType) -> int | None:
    if not 0 <= b < t.bits:
        return None
    return a >> b if t.is_signed else (a & ((1 << t.bits) - 1)) >> b


div = binary(_divrem(False))
rem = binary(_divrem(True))
shl = binary(_shl)
shr = binary(_shr)


def mulwide(vals: Sequence[Any], rt: Type, attrs: Mapping[str, Any], ots: Sequence[Type]) -> Any:
    """The full product (`mul.wide`): operands read at their own (narrow) type."""
    t = _scalar(ots[0]) if ots else None
    if t is None or not t.is_int or len(vals) != 2:
        return None
    return as_signed(int(vals[0]), t) * as_signed(int(vals[1]), t)


_CMP: dict[str, Callable[[Any, Any], bool]] = {
    "eq": lambda a, b: a == b,
    "ne": lambda a, b: a != b,
    "lt": lambda a, b: a < b,
    "le": lambda a, b: a <= b,
    "gt": lambda a, b: a > b,
    "ge": lambda a, b: a >= b,
}


def cmp(vals: Sequence[Any], rt: Type, attrs: Mapping[str, Any], ots: Sequence[Type]) -> Any:
    """`cmp` with an ordered predicate; never folds a NaN operand or a PTX-only (`ltu`, `num`) predicate."""
    ot = _scalar(ots[0]) if ots else None
    pred = str(attrs.get("pred"))
    if ot is None or ot.is_bool or pred not in _CMP or len(vals) != 2:
        return None
    if ot.is_float and any(isinstance(v, float) and math.isnan(v) for v in vals):
        return None
    return bool(_CMP[pred](vals[0], vals[1]))


def cvt(vals: Sequence[Any], rt: Type, attrs: Mapping[str, Any], ots: Sequence[Type]) -> Any:
    """Integer-to-integer conversions (the caller wraps to the result type); others are not folded."""
    t, s = _scalar(rt), _scalar(ots[0]) if ots else None
    if t is None or s is None or not (t.is_int and s.is_int):
        return None
    return int(vals[0])


# -- the arithmetic rows ------------------------------------------------------------------------------
add = binary(lambda a, b, t: a + b, lambda x, y: x + y)
sub = binary(lambda a, b, t: a - b, lambda x, y: x - y)
mul = binary(lambda a, b, t: a * b, lambda x, y: x * y)
and_ = binary(lambda a, b, t: a & b, None, lambda a, b: a and b)
or_ = binary(lambda a, b, t: a | b, None, lambda a, b: a or b)
xor = binary(lambda a, b, t: a ^ b, None, lambda a, b: a != b)
min_ = binary(lambda a, b, t: min(as_signed(a, t), as_signed(b, t)))
max_ = binary(lambda a, b, t: max(as_signed(a, t), as_signed(b, t)))
neg = unary(lambda a, t: -a, lambda x: -x)
not_ = unary(lambda a, t: ~a, None, lambda a: not a)
