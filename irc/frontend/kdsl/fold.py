"""Compile-time evaluation of operators on constants, with the run-time semantics of each type.

Untyped (literal) integers are exact (Python ints) and only their final value must fit the type that context
gives them, as with Go's untyped constants. Typed integer `+ - *` that overflow, shifts by at least the bit
width, and integer division by zero raise `FoldError` (they are `const-error`s: a constant expression that
overflows is almost always a bug); bitwise operators and `<<` wrap like the hardware. Typed floats are
computed in double precision and rounded once to the type, which equals the hardware's correctly rounded
result for `+ - * /` (double has more than twice the bits of every narrower float format).
"""

from __future__ import annotations

import math

from irc import limits

from .types import BOOL, Scalar, Type, UntypedFloat, UntypedInt, fits, int_range, round_to, wrap_int

Value = int | float | bool


class FoldError(Exception):
    """A constant expression that has no value (overflow, division by zero, shift too far)."""

    check = "const-error"


class FoldLimitError(FoldError):
    """An untyped constant beyond `max_const_bits` (docs/limits.md)."""

    check = "limit-error"


def _cdiv(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def _crem(a: int, b: int) -> int:
    return a - b * _cdiv(a, b)


def _check_int(v: int, t: Type, what: str) -> int:
    if isinstance(t, Scalar) and not fits(v, t):
        lo, hi = int_range(t)
        raise FoldError(f"{what} overflows `{t}` (the result {v} is outside {lo}..{hi})")
    return v


def bound(v: Value, t: Type) -> Value:
    """Keep untyped integer constants within `max_const_bits` (docs/limits.md): they are exact Python
    ints, so without a bound `1 << 4000000000` would build a 500 MB integer. Every untyped result passes
    through here; typed results are already bounded by their type."""
    if isinstance(v, int) and not isinstance(v, bool) and not isinstance(t, Scalar):
        if v.bit_length() > limits.get("max_const_bits"):
            raise FoldLimitError(
                f"the untyped constant {'-' if v < 0 else ''}0x{abs(v):x} needs {v.bit_length()} bits; the limit is "
                f"{limits.get('max_const_bits')} (`max_const_bits`, docs/limits.md)"
            )
    return v


def trip_count(a: int, b: int, step: int) -> int:
    """`len(range(a, b, step))` for `step > 0` without building the range (huge bounds do not fit a C
    ssize_t)."""
    return max(0, (b - a + step - 1) // step)


def _float(v: float, t: Type) -> float:
    return round_to(v, t) if isinstance(t, Scalar) else v


def unary(op: str, v: Value, t: Type) -> Value:
    return bound(_unary(op, v, t), t)


def _unary(op: str, v: Value, t: Type) -> Value:
    if op == "!":
        return not v
    if op == "~":
        return wrap_int(~v, t) if isinstance(t, Scalar) else ~v
    # "-"
    if isinstance(v, float):
        return -v
    return _check_int(-v, t, "negation")


def binary(op: str, a: Value, b: Value, t: Type) -> Value:
    """`a op b` where both operands have type `t` (for shifts: the left operand's type)."""
    return bound(_binary(op, a, b, t), t)


def _binary(op: str, a: Value, b: Value, t: Type) -> Value:
    if op in ("&&", "||"):
        return (a and b) if op == "&&" else (a or b)
    if op in ("==", "!=", "<", "<=", ">", ">="):
        return {"==": a == b, "!=": a != b, "<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b}[op]
    if isinstance(t, Scalar) and t == BOOL:
        return {"&": a and b, "|": a or b, "^": a != b}[op]
    is_float = isinstance(t, UntypedFloat) or (isinstance(t, Scalar) and t.is_float)
    if is_float:
        a, b = float(a), float(b)
        if op == "+":
            r = a + b
        elif op == "-":
            r = a - b
        elif op == "*":
            r = a * b
        elif op == "/":
            if b == 0.0:
                r = math.nan if a == 0.0 or a != a else math.copysign(math.inf, a) * math.copysign(1.0, b)
            else:
                r = a / b
        else:
            raise FoldError(f"`{op}` is not defined on floats")
        return _float(r, t)
    a, b = int(a), int(b)
    bits = t.bits if isinstance(t, Scalar) else None
    if op in ("+", "-", "*"):
        r = a + b if op == "+" else a - b if op == "-" else a * b
        return _check_int(r, t, f"`{op}`")
    if op in ("/", "%"):
        if b == 0:
            raise FoldError("division by zero in a constant expression")
        r = _cdiv(a, b) if op == "/" else _crem(a, b)
        return _check_int(r, t, f"`{op}`")
    if op in ("<<", ">>"):
        if b < 0 or (bits is not None and b >= bits):
            raise FoldError(f"shift by {b} is out of range" + (f" for `{t}`" if bits else ""))
        if op == ">>":
            return a >> b
        if bits is None and a != 0 and b > limits.get("max_const_bits"):  # refuse before building it
            raise FoldLimitError(
                f"`{a} << {b}` needs more than {b} bits; untyped constants are limited to "
                f"{limits.get('max_const_bits')} bits (`max_const_bits`, docs/limits.md)"
            )
        return wrap_int(a << b, t) if isinstance(t, Scalar) else a << b
    r = {"&": a & b, "|": a | b, "^": a ^ b}[op]
    return wrap_int(r, t) if isinstance(t, Scalar) else r


def cast(v: Value, src: Type, dst: Scalar) -> Value:
    """`v as dst` with the conversions of spec section 2."""
    if dst.is_bool:
        return bool(v)
    if dst.is_int:
        if isinstance(v, bool):
            return int(v)
        if (
            isinstance(v, float)
            or isinstance(src, UntypedFloat)
            or (isinstance(src, Scalar) and src.is_float)
        ):
            f = float(v)
            if f != f:
                return 0
            lo, hi = int_range(dst)
            if math.isinf(f):
                return hi if f > 0 else lo
            return min(max(int(f), lo), hi)  # round toward zero, saturating (cvt.rzi.sat)
        return wrap_int(int(v), dst)
    try:
        return round_to(float(v), dst)
    except OverflowError:  # only untyped ints beyond f64 (bounded by `max_const_bits` above 1024)
        return round_to(math.copysign(math.inf, v), dst)


def untyped_kind(v: Value) -> Type:
    return UntypedFloat() if isinstance(v, float) else UntypedInt()


# struct formats of the scalar types (bf16 has none: its constants are not folded through bitcast)
_STRUCT = {"i32": "<i", "u32": "<I", "i64": "<q", "u64": "<Q", "f16": "<e", "f32": "<f", "f64": "<d"}


def bitcast(value: Value, src: Scalar, dst: Scalar) -> Value | None:
    """`bitcast<dst>(value)` of a constant (same width), or None for bf16."""
    import struct  # local: keeps this module's import block as it is for other branches

    if src.name not in _STRUCT or dst.name not in _STRUCT:
        return None
    if src.is_float:
        raw = struct.pack(_STRUCT[src.name], float(value))
    else:
        raw = struct.pack(_STRUCT[src.name], int(value))
    return struct.unpack(_STRUCT[dst.name], raw)[0]
