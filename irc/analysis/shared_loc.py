"""Shared-memory locations for the uniformity solver's broadcast rule, tracked per byte range.

Why: "a shared load at a uniform address after a barrier is uniform" needs that nobody writes *that
location* in the load's barrier interval. Tracking whole allocations made a flag kept inside a larger
`extern __shared__` array (`smem[0]` is the flag, `smem[1..]` the per-thread data that is written in the
same interval) look racy. A location is (allocation, first byte, end byte) when the address is the
allocation's base plus constant offsets (through `ptradd`, copies and the ops' `offset` attribute) and the
access width is known; anything else is the whole allocation, so the rule only gets more precise where
both byte ranges are known and disjoint. Offsets with thread indices are bounded by `value_range`
(`smem[1 + tid.x]` never touches byte 0..3).
"""

from __future__ import annotations

from irc.analysis.uniformity_base import const_value
from irc.ir.core import Op, OpResult, Value
from irc.ir.types import ScalarType, bit_width

Loc = tuple[str, int | None, int | None]  # (symbol, first byte, end byte); None: anywhere in it


def _const(v: Value) -> int | None:
    c = const_value(v)
    return c if isinstance(c, int) and not isinstance(c, bool) else None


_TID_MAX = 1023  # a thread index is below 1024 (the largest block)
_SREG_RANGE = {
    **{f"tid.{a}": (0, _TID_MAX) for a in "xyz"},
    **{f"ntid.{a}": (1, _TID_MAX + 1) for a in "xyz"},
    "laneid": (0, 31),
}


def value_range(v: Value, depth: int = 0) -> tuple[int, int] | None:
    """A [lo, hi] bound of a non-negative integer expression (thread indices, constants and the
    arithmetic nvcc and the .kdsl front end use for shared offsets), or None when unknown."""
    if depth > 24 or not isinstance(v, OpResult):
        return None
    op = v.op
    n = op.name
    if n == "const":
        c = _const(v)
        return (c, c) if c is not None and c >= 0 else None
    if n == "sreg":
        return _SREG_RANGE.get(str(op.attrs.get("name")))
    t = v.type
    if not (isinstance(t, ScalarType) and t.is_int):
        return None
    if n in ("copy", "bitcast", "cvt") and op.operands:
        r = value_range(op.operands[0], depth + 1)
        return r if r is not None and r[1] < (1 << (t.bits - 1)) else None
    if n == "shfl" and op.operands:  # every mode returns some lane's copy of operand 0 (or its own)
        return value_range(op.operands[0], depth + 1)
    if len(op.operands) != 2:
        return None
    a, b = (value_range(o, depth + 1) for o in op.operands)
    if n == "and":  # a mask bounds the result even when the other side is unknown
        ms = [r for r in (a, b) if r is not None and r[0] == r[1]]
        if ms:
            return (0, ms[0][1])
    if a is None or b is None:
        return None
    if n == "add":
        r = (a[0] + b[0], a[1] + b[1])
    elif n == "mul":
        r = (a[0] * b[0], a[1] * b[1])
    elif n == "shl" and b[0] == b[1] and b[0] < 32:
        r = (a[0] << b[0], a[1] << b[0])
    elif n == "shr" and b[0] == b[1]:
        r = (a[0] >> b[0], a[1] >> b[0])
    elif n in ("div",) and b[0] > 0:
        r = (a[0] // b[1], a[1] // b[0])
    elif n == "rem" and b[0] > 0:
        r = (0, min(a[1], b[1] - 1))
    elif n in ("xor", "or"):
        hi = (1 << max(a[1], b[1]).bit_length()) - 1
        r = (0, hi)
    elif n == "sub" and a[0] >= b[1]:
        r = (a[0] - b[1], a[1] - b[0])
    else:
        return None
    return r if r[1] < (1 << (t.bits - 1)) else None


def address(v: Value) -> tuple[str, int | None, int | None] | None:
    """(shared symbol, lowest and highest byte offset or None) of pointer `v`, or None when not a shared
    symbol."""
    lo: int | None = 0
    hi: int | None = 0
    for _ in range(64):
        if not isinstance(v, OpResult):
            return None
        op = v.op
        if op.name == "shared_addr":
            return str(op.attrs.get("sym")), lo, hi
        if op.name in ("copy", "bitcast", "cvt") and op.operands:
            v = op.operands[0]
            continue
        if op.name == "ptradd" and len(op.operands) == 2:
            r = value_range(op.operands[1])
            if r is None or lo is None or hi is None:
                lo = hi = None
            else:
                lo, hi = lo + r[0], hi + r[1]
            v = op.operands[0]
            continue
        if op.name == "add" and len(op.operands) == 2:  # PTX: 32-bit shared addresses are integers
            a, b = op.operands
            ca, cb = _const(a), _const(b)
            if cb is not None or ca is not None:
                c = cb if cb is not None else ca
                lo = None if lo is None else lo + c  # type: ignore[operator]
                hi = None if hi is None else hi + c  # type: ignore[operator]
                v = a if cb is not None else b
                continue
            # base + varying index: the symbol is whichever side leads to one
            for side, other in ((a, b), (b, a)):
                inner = address(side)
                if inner is not None:
                    r = value_range(other)
                    if r is None or None in (lo, hi, inner[1], inner[2]):
                        return inner[0], None, None
                    return inner[0], lo + inner[1] + r[0], hi + inner[2] + r[1]  # type: ignore[operator]
            return None
        return None
    return None


def symbol(v: Value) -> str | None:
    """The shared symbol pointer `v` points into, also through integer address arithmetic (PTX's 32-bit
    shared addresses: `mov %r, sym; add %r2, %r, %off`)."""
    a = address(v)
    return a[0] if a is not None else None


def access_bytes(op: Op) -> int | None:
    """The bytes a `load`/`store`/`load_vec`/`store_vec` moves: its `bytes` attribute when the PTX lifter
    set one (`st.shared.b8 [p], %r` of a 32-bit register writes one byte, not four), else the size of its
    values' types. None when a type has no size."""
    from irc.ir.types import size_of

    b = op.attrs.get("bytes")
    if isinstance(b, int) and b > 0:
        return b
    vals = op.results if op.name in ("load", "load_vec") else op.operands[1:]
    try:
        return sum(size_of(x.type) for x in vals) or None
    except (TypeError, AttributeError):
        return None


def ldmatrix_x4(op: Op) -> bool:
    """`ldmatrix.sync.aligned.m8n8.x4[.trans].shared.b16 {...}, [p]` (a lifted collective): each of the 32
    lanes gives the address of one 16-byte row and the warp reads it, so per thread it is a 16-byte shared
    read at its own address (`p` plus the op's `offset`). The .x1 and .x2 forms take the addresses of lanes
    0..7 / 0..15 only (the other lanes' operands are not addresses) and are not read this way."""
    t = str(op.attrs.get("text", ""))
    return op.name == "ptx_collective" and t.startswith("ldmatrix.") and ".x4" in t and bool(op.operands)


def _width(op: Op, value: Value | None) -> int | None:
    b = op.attrs.get("bytes")
    if isinstance(b, int) and b > 0 and op.name in ("load", "store", "load_vec", "store_vec"):
        return b
    if op.name in ("load_vec", "store_vec"):
        vals = op.results if op.name == "load_vec" else op.operands[1:]
        ws = [bit_width(x.type) for x in vals]
        return sum(ws) // 8 if all(ws) else None
    t = value.type if value is not None else None
    if isinstance(t, ScalarType):
        w = bit_width(t)
        return max(w // 8, 1) if w else None
    return None


def location(op: Op) -> Loc | None:
    """The shared location a load/store touches, or None when its pointer is not a known shared symbol."""
    if not op.operands:
        return None
    a = address(op.operands[0])
    if a is None:
        return None
    sym, lo, hi = a
    extra = op.attrs.get("offset")
    if lo is not None and hi is not None and isinstance(extra, int):
        lo, hi = lo + extra, hi + extra
    value = op.results[0] if op.name in ("load", "load_vec") and op.results else None
    if op.name == "store" and len(op.operands) > 1:
        value = op.operands[1]
    w = _width(op, value)
    if lo is None or hi is None or w is None:
        return sym, None, None
    return sym, lo, hi + w


def overlap(a: Loc, b: Loc) -> bool:
    """Whether two locations may share a byte."""
    if a[0] != b[0]:
        return False
    if a[1] is None or b[1] is None or a[2] is None or b[2] is None:
        return True
    return a[1] < b[2] and b[1] < a[2]
