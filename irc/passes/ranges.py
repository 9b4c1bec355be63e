"""Upper bounds of unsigned 32-bit values from their possible bits: a helper of the address passes, not
a pass. Thread and lane indices come from the kernel's `@launch` block size (else the hardware limits),
masks, shifts, sums without overlapping bits and products are followed; anything else may be any u32.
"""

from __future__ import annotations

from irc.ir.core import Function, OpResult, Value
from irc.ir.types import ScalarType
from irc.passes.util import const_value

FULL = 0xFFFFFFFF
_HW = {"laneid": 31, "warpid": 1023, "ctaid.x": (1 << 31) - 1, "ctaid.y": 65535, "ctaid.z": 65535,
       "nctaid.x": (1 << 31) - 1, "nctaid.y": 65535, "nctaid.z": 65535}  # fmt: skip


def _smear(n: int) -> int:
    """All bits up to the highest set bit of n (a mask covering every value <= n), capped at 32 bits."""
    return min(FULL, (1 << n.bit_length()) - 1)


class Ranges:
    """`maybe(v)`: a mask holding every bit `v` may have set; `max_u32(v)`: so an upper bound."""

    def __init__(self, fn: Function):
        launch = fn.attrs.get("launch")
        dims = list(launch) if isinstance(launch, (list, tuple)) and len(launch) == 3 else None
        self.sreg: dict[str, int] = dict(_HW)
        for i, axis in enumerate("xyz"):
            n = int(dims[i]) if dims else 1024 if axis != "z" else 64
            self.sreg[f"tid.{axis}"] = _smear(max(n - 1, 0))
            self.sreg[f"ntid.{axis}"] = _smear(n)
        self.memo: dict[int, int] = {}

    def max_u32(self, v: Value) -> int:
        return self.maybe(v)

    def maybe(self, v: Value) -> int:
        got = self.memo.get(id(v))
        if got is None:
            got = self._maybe(v)
            self.memo[id(v)] = got
        return got

    def _maybe(self, v: Value) -> int:
        t = v.type
        if not (isinstance(t, ScalarType) and t.is_int and not t.is_signed and t.bits == 32):
            return FULL
        c = const_value(v)
        if isinstance(c, int) and not isinstance(c, bool):
            return c & FULL
        if not isinstance(v, OpResult):
            return FULL
        op = v.op
        n = op.name
        if n == "sreg":
            return self.sreg.get(str(op.attrs.get("name")), FULL)
        if len(op.operands) != 2 or any(x.type != t for x in op.operands):
            return FULL
        a, b = op.operands
        if n == "and":
            return self.maybe(a) & self.maybe(b)
        if n in ("or", "xor"):
            return self.maybe(a) | self.maybe(b)
        k = const_value(b)
        shift = isinstance(k, int) and not isinstance(k, bool) and 0 <= k < 32
        if n == "shl" and shift:
            return (self.maybe(a) << k) & FULL  # type: ignore[operator]
        if n == "shr" and shift:
            return self.maybe(a) >> k  # type: ignore[operator]
        if n == "add":
            ma, mb = self.maybe(a), self.maybe(b)
            return ma | mb if not ma & mb else _smear(ma + mb)
        if n == "mul":
            return _smear(self.maybe(a) * self.maybe(b))
        # bounds, not bit sets, below: smear them back into masks
        if n == "rem":
            return _smear(min(self.maybe(a), max(self.maybe(b) - 1, 0)))
        if n == "div":
            return _smear(self.maybe(a))
        if n == "min":
            return _smear(min(self.maybe(a), self.maybe(b)))
        if n == "max":
            return self.maybe(a) | self.maybe(b)  # one of the two
        return FULL
