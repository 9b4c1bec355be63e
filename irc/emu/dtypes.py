"""PTX type <-> numpy dtype helpers, immediates, and bf16 bit conversions.

Why here: registers are untyped bit containers (uint16/uint32/uint64 storage, bool for predicates); every
typed operation reinterprets those bits through these tables, so they must agree across all op modules.
"""

from __future__ import annotations

import struct

import numpy as np

from irc.ptxisa.model import Imm

TYPES = {
    "pred": np.dtype(np.bool_),
    "b8": np.dtype(np.uint8),
    "u8": np.dtype(np.uint8),
    "s8": np.dtype(np.int8),
    "b16": np.dtype(np.uint16),
    "u16": np.dtype(np.uint16),
    "s16": np.dtype(np.int16),
    "f16": np.dtype(np.float16),
    "bf16": np.dtype(np.uint16),
    "b32": np.dtype(np.uint32),
    "u32": np.dtype(np.uint32),
    "s32": np.dtype(np.int32),
    "f32": np.dtype(np.float32),
    "f16x2": np.dtype(np.uint32),
    "bf16x2": np.dtype(np.uint32),
    "tf32": np.dtype(np.uint32),
    "b64": np.dtype(np.uint64),
    "u64": np.dtype(np.uint64),
    "s64": np.dtype(np.int64),
    "f64": np.dtype(np.float64),
}
TYPE_NAMES = frozenset(TYPES) | {"b128"}

UNSIGNED = {1: np.dtype(np.uint8), 2: np.dtype(np.uint16), 4: np.dtype(np.uint32), 8: np.dtype(np.uint64)}
SIGNED = {1: np.dtype(np.int8), 2: np.dtype(np.int16), 4: np.dtype(np.int32), 8: np.dtype(np.int64)}
FLOATS = {2: np.dtype(np.float16), 4: np.dtype(np.float32), 8: np.dtype(np.float64)}


def np_type(t: str) -> np.dtype:
    return TYPES[t.lstrip(".")]


def storage_dtype(decl_type: str) -> np.dtype:
    """Storage for a register declared with `decl_type`: bool for .pred, else an unsigned container."""
    t = decl_type.lstrip(".")
    if t == "pred":
        return TYPES["pred"]
    size = TYPES[t].itemsize
    return UNSIGNED[max(size, 2)]


def is_float(t: str) -> bool:
    return t in ("f16", "f32", "f64", "bf16")


def is_signed(t: str) -> bool:
    return t.startswith("s")


def imm_value(op: Imm, t: str):
    """The immediate as a numpy scalar of PTX type `t` (0f/0d hex floats decoded from their bits)."""
    dt = np_type(t)
    text = op.text.strip().lower()
    neg = text.startswith("-")
    body = text[1:] if neg else text
    val: int | float
    if body.startswith("0f") and len(body) == 10:
        val = struct.unpack("<f", struct.pack("<I", int(body[2:], 16)))[0]
    elif body.startswith("0d") and len(body) == 18:
        val = struct.unpack("<d", struct.pack("<Q", int(body[2:], 16)))[0]
    else:
        val = op.value
    if neg and isinstance(val, float) and body.startswith(("0f", "0d")):
        val = -val
    if t == "bf16":
        return f32_to_bf16(np.asarray(np.float32(val))).reshape(())[()]
    if dt.kind == "f":
        return dt.type(val)
    if dt.kind == "b":
        return np.bool_(bool(val))
    if isinstance(val, float):
        if val.is_integer():
            val = int(val)
        else:  # a float immediate used as bits
            bits = (
                struct.unpack("<I", struct.pack("<f", val))[0]
                if dt.itemsize == 4
                else struct.unpack("<Q", struct.pack("<d", val))[0]
            )
            return np.asarray(bits, dtype=UNSIGNED[dt.itemsize]).view(dt)[()]
    mask = (1 << (8 * dt.itemsize)) - 1
    return np.asarray(int(val) & mask, dtype=UNSIGNED[dt.itemsize]).view(dt)[()]


def const(value: int, t: str):
    """A Python int as a numpy scalar of PTX type `t` (wrapping)."""
    dt = np_type(t)
    mask = (1 << (8 * dt.itemsize)) - 1
    return np.asarray(int(value) & mask, dtype=UNSIGNED[dt.itemsize]).view(dt)[()]


def bf16_to_f32(bits: np.ndarray) -> np.ndarray:
    return (np.asarray(bits).astype(np.uint32) << np.uint32(16)).view(np.float32)


def f32_to_bf16(x: np.ndarray) -> np.ndarray:
    """Round-to-nearest-even float32 -> bf16 bits (uint16); NaN stays a quiet NaN."""
    x = np.asarray(x, dtype=np.float32)
    b = x.view(np.uint32)
    rounding = ((b >> np.uint32(16)) & np.uint32(1)) + np.uint32(0x7FFF)
    out = ((b + rounding) >> np.uint32(16)).astype(np.uint16)
    return np.where(np.isnan(x), np.uint16(0x7FC0), out)


def f64_to_bf16(x: np.ndarray) -> np.ndarray:
    """Round-to-nearest-even float64 -> bf16 bits with a single rounding (as `cvt.rn.bf16.f64` does).

    Going through float32 with round-to-nearest would round twice (wrong on ties such as 1 + 2^-8 + 2^-30);
    rounding to float32 toward zero and setting the sticky lowest bit when inexact (round-to-odd) keeps
    the second rounding exact."""
    x = np.asarray(x, np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        t = x.astype(np.float32)
        over = np.abs(t.astype(np.float64)) > np.abs(x)
        t = np.where(over, np.nextafter(t, np.float32(0)), t).astype(np.float32)
        inexact = (t.astype(np.float64) != x) & np.isfinite(x)
    bits = t.view(np.uint32) | inexact.astype(np.uint32)
    return f32_to_bf16(bits.view(np.float32))


def _int_to_bf16_bits(v: int) -> int:
    """Exact round-to-nearest-even of a Python int to bf16 bits (8 significant bits)."""
    sign = 0x8000 if v < 0 else 0
    m = -v if v < 0 else v
    if m == 0:
        return sign
    e = m.bit_length() - 1  # value = m, leading bit at 2^e
    if e > 7:
        shift = e - 7
        q, r = m >> shift, m & ((1 << shift) - 1)
        half = 1 << (shift - 1)
        if r > half or (r == half and q & 1):
            q += 1
        if q >> 8:  # carried into a new leading bit
            q >>= 1
            e += 1
    else:
        q = m << (7 - e)
    if e > 127:
        return sign | 0x7F80
    return sign | ((e + 127) << 7) | (q & 0x7F)


def int_to_bf16(x: np.ndarray) -> np.ndarray:
    """Integers -> bf16 bits with one rounding: exact through float64 below 2^53, per lane above."""
    x = np.asarray(x)
    out = f64_to_bf16(x.astype(np.float64))
    if x.dtype.itemsize == 8:
        big = (x > (1 << 53)) if x.dtype.kind == "u" else ((x > (1 << 53)) | (x < -(1 << 53)))
        for i in np.flatnonzero(big):
            out.flat[i] = _int_to_bf16_bits(int(x.flat[i]))
    return out


def to_float(bits_or_vals: np.ndarray, t: str) -> np.ndarray:
    """Values of float type t as float32/float64 arrays (bf16 bits decoded)."""
    if t == "bf16":
        return bf16_to_f32(bits_or_vals)
    return bits_or_vals


def from_f32(vals: np.ndarray, t: str) -> np.ndarray:
    if t == "bf16":
        return f32_to_bf16(vals)
    return np.asarray(vals).astype(np_type(t))
