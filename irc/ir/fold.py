"""What ops compute on constants: the op table's semantics (`irc.ir.semantics`) on one concrete value.

Why here: constant folding (`irc.passes.constfold`) and the TMA constant evaluator
(`irc.analysis.tma_facts.const_int`) ask "what is `mulhi(a, b)` of these constants?"; the answer is the op
row's `sem` evaluated in the `Concrete` domain below, so both agree with each other and with the race
evaluator, which runs the same `sem` on per-thread vectors (`irc.analysis.lanes`).

Values: an integer, pointer or bool is its bit pattern (a Python int in [0, 2**w)); a float is a Python
float holding the value of its type (f32 values are doubles that are exactly representable in f32).
f32 arithmetic is computed in double precision and rounded once to f32, which is the correctly rounded
f32 result for `+ - * /` (double has more than twice f32's precision), so it needs no numpy. A float
result that is NaN is not folded (its payload is the hardware's choice); f16 / bf16 are not folded.

`fold(sem, vals, rtype, attrs, otypes)` takes operand values as `const` ops hold them (signed integers may
be negative, bools are bools) and returns the result in the same form, or None (undefined, not
computable, not modelled).
"""

from __future__ import annotations

import math
import struct
from collections.abc import Mapping, Sequence
from typing import Any

from irc.floatbits import round_f32
from irc.ir.semantics import Sem, Unknown, kind, width
from irc.ir.types import ScalarType, Type

__all__ = ["Concrete", "CONCRETE", "fold", "to_bits", "from_bits"]


def _m(w: int) -> int:
    return (1 << w) - 1


def _s(a: int, w: int) -> int:
    """The bit pattern `a` of width w read as two's complement."""
    return a - (1 << w) if a >> (w - 1) & 1 else a


def _round(x: float, t: str) -> float:
    if t == "f32":
        return round_f32(x)
    if t == "f64":
        return x
    raise Unknown(f"{t} arithmetic is not folded")


def _result(x: float, t: str) -> float:
    r = _round(x, t)
    if r != r:
        raise Unknown("a NaN result")
    return r


def _fbinop(op: str, a: float, b: float) -> float:
    if op == "add":
        return a + b
    if op == "sub":
        return a - b
    if op == "mul":
        return a * b
    if b == 0.0:  # IEEE division by zero (Python raises ZeroDivisionError)
        if a != a or a == 0.0:
            return math.nan
        return math.copysign(math.inf, a) * math.copysign(1.0, b)
    return a / b


class Concrete:
    """One value: ints are bit patterns, floats Python floats (see the module docstring)."""

    # -- bit-vectors ------------------------------------------------------------------------------
    def const(self, k: int, w: int) -> int:
        return k & _m(w)

    def add(self, a: int, b: int, w: int) -> int:
        return (a + b) & _m(w)

    def sub(self, a: int, b: int, w: int) -> int:
        return (a - b) & _m(w)

    def mul(self, a: int, b: int, w: int) -> int:
        return (a * b) & _m(w)

    def and_(self, a: int, b: int, w: int) -> int:
        return a & b

    def or_(self, a: int, b: int, w: int) -> int:
        return a | b

    def xor(self, a: int, b: int, w: int) -> int:
        return a ^ b

    def not_(self, a: int, w: int) -> int:
        return ~a & _m(w)

    def neg(self, a: int, w: int) -> int:
        return -a & _m(w)

    def shl(self, a: int, s: int, w: int) -> int:
        return (a << s) & _m(w) if s < w else 0

    def lshr(self, a: int, s: int, w: int) -> int:
        return a >> s if s < w else 0

    def ashr(self, a: int, s: int, w: int) -> int:
        return (_s(a, w) >> min(s, w - 1)) & _m(w)

    def udiv(self, a: int, b: int, w: int) -> int:
        return a // b

    def urem(self, a: int, b: int, w: int) -> int:
        return a % b

    def sdiv(self, a: int, b: int, w: int) -> int:
        x, y = _s(a, w), _s(b, w)
        q = abs(x) // abs(y)
        return (q if (x < 0) == (y < 0) else -q) & _m(w)

    def srem(self, a: int, b: int, w: int) -> int:
        x, y = _s(a, w), _s(b, w)
        r = abs(x) % abs(y)
        return (-r if x < 0 else r) & _m(w)

    def eq(self, a: int, b: int, w: int) -> int:
        return int(a == b)

    def ult(self, a: int, b: int, w: int) -> int:
        return int(a < b)

    def slt(self, a: int, b: int, w: int) -> int:
        return int(_s(a, w) < _s(b, w))

    def ite(self, c: int, a: Any, b: Any, w: int) -> Any:
        return a if c else b

    def zext(self, a: int, w: int, to: int) -> int:
        return a

    def sext(self, a: int, w: int, to: int) -> int:
        return _s(a, w) & _m(to)

    def trunc(self, a: int, w: int, to: int) -> int:
        return a & _m(to)

    def popc(self, a: int, w: int) -> int:
        return bin(a).count("1")

    def defined(self, c: int) -> None:
        if not c:
            raise Unknown("undefined")

    # -- floats -----------------------------------------------------------------------------------
    def fconst(self, x: float, t: str) -> float:
        return _round(float(x), t)

    def fadd(self, a: float, b: float, t: str) -> float:
        return _result(_fbinop("add", a, b), t)

    def fsub(self, a: float, b: float, t: str) -> float:
        return _result(_fbinop("sub", a, b), t)

    def fmul(self, a: float, b: float, t: str) -> float:
        return _result(_fbinop("mul", a, b), t)

    def fdiv(self, a: float, b: float, t: str) -> float:
        return _result(_fbinop("div", a, b), t)

    def fneg(self, a: float, t: str) -> float:
        return _result(-a, t)

    def fabs(self, a: float, t: str) -> float:
        return _result(abs(a), t)

    def _fminmax(self, a: float, b: float, t: str, is_max: bool) -> float:
        if a != a:
            return _result(b, t)
        if b != b:
            return _result(a, t)
        if a == b == 0.0:  # PTX: -0.0 < +0.0
            neg_a = math.copysign(1.0, a) < 0
            return (b if neg_a else a) if is_max else (a if neg_a else b)
        return (a if a > b else b) if is_max else (a if a < b else b)

    def fmin(self, a: float, b: float, t: str) -> float:
        return self._fminmax(a, b, t, False)

    def fmax(self, a: float, b: float, t: str) -> float:
        return self._fminmax(a, b, t, True)

    def fcmp(self, pred: str, a: float, b: float, t: str) -> int:
        _round(0.0, t)  # (a type this domain does not compute raises)
        nan = a != a or b != b
        if pred == "num":
            return int(not nan)
        if pred == "nan":
            return int(nan)
        if pred == "ne":  # unordered: true on NaN
            return int(nan or a != b)
        if pred == "one":
            return int(not nan and a != b)
        unordered = pred.endswith("u")
        base = pred[:-1] if unordered else pred
        if nan:
            return int(unordered)
        return int({"eq": a == b, "lt": a < b, "le": a <= b, "gt": a > b, "ge": a >= b}[base])

    def fbits(self, a: float, t: str) -> int:
        if t == "f32":
            return struct.unpack("<I", struct.pack("<f", a))[0]
        if t == "f64":
            return struct.unpack("<Q", struct.pack("<d", a))[0]
        raise Unknown(f"{t} bits")

    def ffrombits(self, a: int, t: str) -> float:
        if t == "f32":
            x = struct.unpack("<f", struct.pack("<I", a))[0]
        elif t == "f64":
            x = struct.unpack("<d", struct.pack("<Q", a))[0]
        else:
            raise Unknown(f"{t} bits")
        if x != x:
            raise Unknown("a NaN result")  # a NaN's payload may not survive a Python float
        return x


CONCRETE = Concrete()


def to_bits(v: Any, t: Type) -> Any:
    """A `const` value of type `t` as the concrete domain holds it."""
    k = kind(t)
    if k == "float":
        return float(v)
    if k in ("int", "bool"):
        if isinstance(v, float):
            raise Unknown("a float constant of an integer type")
        return int(v) & _m(width(t))
    raise Unknown(f"no value of type {t}")


def from_bits(v: Any, t: Type) -> Any:
    """A concrete-domain value of type `t` as a `const` op holds it."""
    k = kind(t)
    if k == "bool":
        return bool(v)
    if k == "int" and isinstance(t, ScalarType) and t.is_signed:
        return _s(v, t.bits)
    return v


def fold(
    sem: Sem | None, vals: Sequence[Any], rt: Type, attrs: Mapping[str, Any], ots: Sequence[Type]
) -> Any:
    """The value of an op with semantics `sem` on constant operands, or None (see the module docstring)."""
    if sem is None or kind(rt) not in sem.kinds:
        return None
    try:
        xs = [to_bits(v, t) for v, t in zip(vals, ots)]
        r = from_bits(sem(CONCRETE, xs, rt, attrs, ots), rt)
    except Unknown:
        return None
    return None if isinstance(r, float) and r != r else r  # (a NaN, even one passed through: see above)
