"""Rounding Python floats to the GPU's narrower float formats, and their bit patterns, with `struct`.

Why not numpy: importing it costs about 0.1 s per process, and `irc compile` / `irc check` only need to
round a few constants. `struct`'s `f` and `e` formats round to nearest even exactly like a conversion to
numpy's float32 / float16; a value past the format's range raises OverflowError there, which becomes the
infinity of that sign here (numpy's result with overflow warnings ignored).
"""

from __future__ import annotations

import math
import struct

__all__ = [
    "F32_MAX",
    "round_f32",
    "round_f16",
    "round_bf16",
    "f32_bits",
    "f16_bits",
    "bf16_bits_truncated",
    "double_bits",
    "value_key",
]

F32_MAX = 3.4028234663852886e38


def _pack(fmt: str, value: float) -> bytes:
    try:
        return struct.pack(fmt, value)
    except OverflowError:
        return struct.pack(fmt, math.copysign(math.inf, value))


def round_f32(value: float) -> float:
    """`value` rounded to the nearest float32 (ties to even; past the range: infinity)."""
    return struct.unpack("<f", _pack("<f", value))[0]


def round_f16(value: float) -> float:
    """`value` rounded to the nearest float16 (ties to even; past the range: infinity)."""
    return struct.unpack("<e", _pack("<e", value))[0]


def f32_bits(value: float) -> int:
    """The float32 bit pattern of `value` rounded to float32."""
    return struct.unpack("<I", _pack("<f", value))[0]


def f16_bits(value: float) -> int:
    """The float16 bit pattern of `value` rounded to float16."""
    return struct.unpack("<H", _pack("<e", value))[0]


def round_bf16(value: float) -> float:
    """`value` rounded to float32, then to the nearest bfloat16 (ties to even); NaN stays NaN."""
    if value != value:
        return value
    b = f32_bits(value)
    b = (b + 0x7FFF + ((b >> 16) & 1)) & 0xFFFF0000
    return struct.unpack("<f", struct.pack("<I", b))[0]


def bf16_bits_truncated(value: float) -> int:
    """The upper half of the float32 bit pattern of `value` (bfloat16 by truncation)."""
    return f32_bits(value) >> 16


def double_bits(value: float) -> int:
    """The IEEE double bit pattern of `value` (NaN sign and payload included)."""
    return struct.unpack("<Q", struct.pack("<d", value))[0]


def value_key(value: object) -> object:
    """A key under which two constants are equal exactly when they are the same bits: floats compare
    bitwise (`-0.0` is not `0.0`, `-nan` is not `nan`, NaN payloads differ), everything else by `==`.
    Why: Python's `==` makes `-0.0 == 0.0` and `nan != nan`, and `repr` prints every NaN as `nan`; value
    numbering that used either merged `select(c, -nan, nan)` into one NaN."""
    if isinstance(value, float):
        return ("f", double_bits(value))
    if isinstance(value, (list, tuple)):
        return tuple(value_key(x) for x in value)
    return value
