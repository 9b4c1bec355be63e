"""Front-end types of .kdsl (spec section 2).

Values: `Scalar` (bool, integers, floats), `Ptr` (global or shared), `RegArray` (register array `[T; N]`).
Memory objects that are not values: `SharedArray` (a `shared` declaration's shape), `MBarrier`, and
`TensorMap` (a kernel parameter only usable by the TMA intrinsics). `Void` is "no value" (a call to a
function without a result). `UntypedInt` / `UntypedFloat` are the types of unsuffixed literals (and of
constants and unrolled loop variables that adapt like literals) before context fixes them.

Types are frozen dataclasses, so they compare and hash structurally; `str()` gives the source spelling
used in diagnostics ("mismatched types: `f32` and `i32`").
"""

from __future__ import annotations

import sys

from irc.floatbits import F32_MAX, round_bf16, round_f16, round_f32
from irc.records import record


class Type:
    """Base of every front-end type."""

    @property
    def is_value(self) -> bool:
        """Can it live in registers (be bound by let/var, passed, returned)?"""
        return isinstance(self, (Scalar, Ptr, RegArray))


_BITS: dict[str, int] = {}  # scalar type name -> width in bits


@record(frozen=True)
class Scalar(Type):
    name: str  # bool i32 u32 i64 u64 f16 bf16 f32 f64

    @property
    def is_bool(self) -> bool:
        return self.name == "bool"

    @property
    def is_int(self) -> bool:
        return self.name[0] in "iu"

    @property
    def is_signed(self) -> bool:
        return self.name[0] == "i"

    @property
    def is_float(self) -> bool:
        return self.name[0] in "fb" and self.name != "bool"

    @property
    def bits(self) -> int:
        b = _BITS.get(self.name)
        if b is None:  # (asked for every constant and operator: each name parsed once)
            b = _BITS[self.name] = 1 if self.name == "bool" else int(self.name.lstrip("biuf"))
        return b

    @property
    def size(self) -> int:
        """Size in bytes in memory (bool is stored as one byte)."""
        return max(1, self.bits // 8)

    def __str__(self) -> str:
        return self.name


@record(frozen=True)
class Ptr(Type):
    space: str  # "global" | "shared"
    elem: Type  # Scalar or MBarrier
    readonly: bool = False  # `*global readonly T`: read-only for the kernel's lifetime (ld.global.nc)

    def __str__(self) -> str:
        return f"*{self.space} {'readonly ' if self.readonly else ''}{self.elem}"


@record(frozen=True)
class RegArray(Type):
    """`[T; N]`, or with `cols` a two-dimensional `[T; R, C]` (n = R*C elements, row-major)."""

    elem: Scalar
    n: int
    cols: int = 0  # 0: one-dimensional

    @property
    def row(self) -> RegArray:
        """The type of one row of a two-dimensional array (`a[i]`)."""
        return RegArray(self.elem, self.cols)

    def __str__(self) -> str:
        if self.cols:
            return f"[{self.elem}; {self.n // self.cols}, {self.cols}]"
        return f"[{self.elem}; {self.n}]"


@record(frozen=True)
class SharedArray(Type):
    elem: Type  # Scalar or MBarrier
    shape: tuple[int, ...]
    align: int | None = None
    dynamic: bool = False  # `shared x: [T] dynamic;`: shape is (0,), the length is set at launch

    @property
    def size(self) -> int:
        n = 1
        for d in self.shape:
            n *= d
        return n * (8 if isinstance(self.elem, MBarrier) else self.elem.size)  # type: ignore[attr-defined]

    def __str__(self) -> str:
        if self.dynamic:
            return f"[{self.elem}] dynamic"
        return f"[{self.elem}; {', '.join(map(str, self.shape))}]"


@record(frozen=True)
class TensorMap(Type):
    elem: Scalar
    box: tuple[int, ...]

    def __str__(self) -> str:
        return f"tensormap<{self.elem}; {', '.join(map(str, self.box))}>"


@record(frozen=True)
class MBarrier(Type):
    def __str__(self) -> str:
        return "mbarrier"


@record(frozen=True)
class Void(Type):
    def __str__(self) -> str:
        return "()"


@record(frozen=True)
class UntypedInt(Type):
    def __str__(self) -> str:
        return "integer literal"


@record(frozen=True)
class UntypedFloat(Type):
    def __str__(self) -> str:
        return "float literal"


BOOL = Scalar("bool")
I32, U32, I64, U64 = Scalar("i32"), Scalar("u32"), Scalar("i64"), Scalar("u64")
F16, BF16, F32, F64 = Scalar("f16"), Scalar("bf16"), Scalar("f32"), Scalar("f64")
SCALARS: dict[str, Scalar] = {t.name: t for t in (BOOL, I32, U32, I64, U64, F16, BF16, F32, F64)}
INTS = (I32, U32, I64, U64)
FLOATS = (F16, BF16, F32, F64)
MBARRIER = MBarrier()
VOID = Void()
UNTYPED_INT = UntypedInt()
UNTYPED_FLOAT = UntypedFloat()


def is_untyped(t: Type) -> bool:
    return isinstance(t, (UntypedInt, UntypedFloat))


def is_int(t: Type) -> bool:
    return isinstance(t, Scalar) and t.is_int


def is_float(t: Type) -> bool:
    return isinstance(t, Scalar) and t.is_float


def int_range(t: Scalar) -> tuple[int, int]:
    r = _RANGES.get(t.name)
    if r is None:
        bits = t.bits
        r = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if t.is_signed else (0, (1 << bits) - 1)
        _RANGES[t.name] = r
    return r


_RANGES: dict[str, tuple[int, int]] = {}  # integer type name -> its value range


FLOAT_MAX = {
    "f16": 65504.0,
    "bf16": 3.3895313892515355e38,
    "f32": F32_MAX,
    "f64": sys.float_info.max,
}


def fits(value: int | float | bool, t: Scalar) -> bool:
    """Can the constant `value` be represented in `t` (floats: finite values within the finite range;
    inf and nan fit every float type)?"""
    if t.is_bool:
        return isinstance(value, bool)
    if t.is_int:
        lo, hi = int_range(t)
        return isinstance(value, int) and not isinstance(value, bool) and lo <= value <= hi
    if isinstance(value, bool):
        return False
    v = float(value)
    if v != v or v in (float("inf"), float("-inf")):
        return True
    return abs(v) <= FLOAT_MAX[t.name] * (
        1 + 2 ** -(11 if t.name == "f16" else 8 if t.name == "bf16" else 24)
    )


def round_to(value: float, t: Scalar) -> float:
    """Round a float constant to the precision of `t` (round to nearest even; overflow gives inf)."""
    if t.name == "f32":
        return round_f32(value)
    if t.name == "f16":
        return round_f16(value)
    if t.name == "bf16":
        return round_bf16(value)
    return float(value)


def wrap_int(value: int, t: Scalar) -> int:
    """Two's-complement wrap of `value` into `t` (what the hardware does on overflow)."""
    bits = t.bits
    value &= (1 << bits) - 1
    if t.is_signed and value >> (bits - 1):
        value -= 1 << bits
    return value


@record(frozen=True)
class ErrorType(Type):
    """The type of an expression that already produced a diagnostic: everything built on it is silently
    an error too, so one mistake yields one diagnostic, not a cascade."""

    def __str__(self) -> str:
        return "{error}"


ERROR = ErrorType()
