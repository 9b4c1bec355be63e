"""IR types. Types are immutable and interned by value (dataclass equality), so `t == I32` works.

The textual spelling is the .kdsl spelling (`i32`, `*global f32`, `tensormap<f16; 64, 64>`), so IR dumps
read like the source language. `b16/b32/b64` are untyped bit containers used by lifted PTX.
"""

from __future__ import annotations

from irc.records import record


class Type:
    """Base of all IR types."""

    @property
    def is_int(self) -> bool:
        return False

    @property
    def is_float(self) -> bool:
        return False

    @property
    def is_ptr(self) -> bool:
        return False


_BITS: dict[str, int] = {}  # scalar type name -> width in bits


@record(frozen=True)
class ScalarType(Type):
    name: str

    @property
    def is_int(self) -> bool:
        return self.name[0] in "iub" and self.name not in ("bool", "bf16")

    @property
    def is_signed(self) -> bool:
        return self.name.startswith("i")

    @property
    def is_float(self) -> bool:
        return self.name in ("f16", "bf16", "f32", "f64")

    @property
    def is_bool(self) -> bool:
        return self.name == "bool"

    @property
    def bits(self) -> int:
        b = _BITS.get(self.name)
        if b is None:  # (asked for every value in most passes: parse each name once)
            b = 1 if self.name == "bool" else int("".join(c for c in self.name if c.isdigit()))
            _BITS[self.name] = b
        return b

    def __str__(self) -> str:
        return self.name


@record(frozen=True)
class PtrType(Type):
    """A pointer; `space` is "global" (64-bit generic/global address) or "shared" (32-bit shared window)."""

    space: str
    elem: Type

    @property
    def is_ptr(self) -> bool:
        return True

    @property
    def bits(self) -> int:
        return 32 if self.space == "shared" else 64

    def __str__(self) -> str:
        return f"*{self.space} {self.elem}"


@record(frozen=True)
class ArrayType(Type):
    """A register array `[T; N]` or a shared array shape `[T; 16, 128]` (dims outermost first)."""

    elem: Type
    dims: tuple[int, ...]

    @property
    def count(self) -> int:
        n = 1
        for d in self.dims:
            n *= d
        return n

    def __str__(self) -> str:
        return f"[{self.elem}; {', '.join(str(d) for d in self.dims)}]"


@record(frozen=True)
class TensorMapType(Type):
    """A TMA descriptor whose box has element type `elem` and extents `box` (outermost first)."""

    elem: Type
    box: tuple[int, ...]

    def __str__(self) -> str:
        return f"tensormap<{self.elem}; {', '.join(str(b) for b in self.box)}>"


@record(frozen=True)
class MBarrierType(Type):
    def __str__(self) -> str:
        return "mbarrier"


BOOL = ScalarType("bool")
I8, U8, B8 = ScalarType("i8"), ScalarType("u8"), ScalarType("b8")
I16, U16, B16 = ScalarType("i16"), ScalarType("u16"), ScalarType("b16")
I32, U32, B32 = ScalarType("i32"), ScalarType("u32"), ScalarType("b32")
I64, U64, B64 = ScalarType("i64"), ScalarType("u64"), ScalarType("b64")
F16, BF16, F32, F64 = ScalarType("f16"), ScalarType("bf16"), ScalarType("f32"), ScalarType("f64")
MBARRIER = MBarrierType()

SCALARS: dict[str, ScalarType] = {
    t.name: t for t in (BOOL, I8, U8, B8, I16, U16, B16, I32, U32, B32, I64, U64, B64, F16, BF16, F32, F64)
}


def ptr(space: str, elem: Type) -> PtrType:
    return PtrType(space, elem)


def bit_width(t: Type) -> int:
    """Width in bits of a value of type `t` held in registers (pointers by their address size; a tensormap
    value is the 64-bit address of its descriptor)."""
    if isinstance(t, (ScalarType, PtrType)):
        return t.bits
    if isinstance(t, (MBarrierType, TensorMapType)):
        return 64
    raise TypeError(f"type {t} has no register width")


def size_of(t: Type) -> int:
    """Size in bytes in memory."""
    if isinstance(t, ScalarType):
        return max(1, t.bits // 8)
    if isinstance(t, PtrType):
        return t.bits // 8
    if isinstance(t, MBarrierType):
        return 8
    if isinstance(t, ArrayType):
        return t.count * size_of(t.elem)
    if isinstance(t, TensorMapType):
        return 128
    raise TypeError(f"type {t} has no size")
