"""Per-thread domains for the op table's semantics (`irc.ir.semantics`): one value per thread of a block.

Why: the race evaluator (`irc.analysis.races`) computes a shared-memory address for every thread at
once. It used to carry its own arithmetic table, which disagreed with constant folding (a saturating add
was a wrapping one there, `shr` by 40 was arithmetic on unsigned values). Now it runs each op's one
semantics on these domains, so it computes exactly what folding and the emulator compute.

Two implementations of the same primitives: `ListLanes` over Python lists of ints (any width; used for
small blocks, where numpy's import would cost more than the work) and `NumpyLanes` over numpy `uint64`
arrays (bit-vectors of at most 64 bits; a wider intermediate, as in `mulhi` of 64-bit values, is
`Unknown` there). Values are bit patterns in [0, 2**w); `to_lanes` / `from_lanes` convert from and to the
race evaluator's representation (each value read at its type: negative for signed types). Floats are
not evaluated per thread (`Unknown`).
"""

from __future__ import annotations

from typing import Any

from irc.ir.semantics import Unknown, signed, width
from irc.ir.types import Type

__all__ = ["ListLanes", "NumpyLanes", "domain_for"]


def _m(w: int) -> int:
    return (1 << w) - 1


class _NoFloats:
    """Float primitives: addresses and guards never need them."""

    def _float(self, *args: Any) -> Any:
        raise Unknown("floats are not evaluated per thread")

    fconst = fadd = fsub = fmul = fdiv = fneg = fabs = fmin = fmax = fcmp = fbits = ffrombits = _float


class ListLanes(_NoFloats):
    """Lists of Python ints, one per thread (`n` threads)."""

    def __init__(self, n: int) -> None:
        self.n = n

    def to_lanes(self, x: Any, t: Type) -> list:
        """An `IVec` of values read at type `t` -> bit patterns."""
        m = _m(width(t))
        return [v & m for v in x.v]

    def from_lanes(self, y: list, t: Type) -> Any:
        """Bit patterns -> an `IVec` of values read at type `t`."""
        from irc.analysis.ivec import IVec

        if signed(t):
            top = 1 << (width(t) - 1)
            return IVec([v - (v & top) * 2 for v in y])
        return IVec(y)

    def const(self, k: int, w: int) -> list[int]:
        return [k & _m(w)] * self.n

    def add(self, a: list, b: list, w: int) -> list:
        m = _m(w)
        return [(x + y) & m for x, y in zip(a, b)]

    def sub(self, a: list, b: list, w: int) -> list:
        m = _m(w)
        return [(x - y) & m for x, y in zip(a, b)]

    def mul(self, a: list, b: list, w: int) -> list:
        m = _m(w)
        return [(x * y) & m for x, y in zip(a, b)]

    def and_(self, a: list, b: list, w: int) -> list:
        return [x & y for x, y in zip(a, b)]

    def or_(self, a: list, b: list, w: int) -> list:
        return [x | y for x, y in zip(a, b)]

    def xor(self, a: list, b: list, w: int) -> list:
        return [x ^ y for x, y in zip(a, b)]

    def not_(self, a: list, w: int) -> list:
        m = _m(w)
        return [x ^ m for x in a]

    def neg(self, a: list, w: int) -> list:
        m = _m(w)
        return [-x & m for x in a]

    def shl(self, a: list, s: list, w: int) -> list:
        m = _m(w)
        return [(x << y) & m if y < w else 0 for x, y in zip(a, s)]

    def lshr(self, a: list, s: list, w: int) -> list:
        return [x >> y if y < w else 0 for x, y in zip(a, s)]

    def ashr(self, a: list, s: list, w: int) -> list:
        m, top = _m(w), 1 << (w - 1)
        return [((x - (x & top) * 2) >> min(y, w - 1)) & m for x, y in zip(a, s)]

    def udiv(self, a: list, b: list, w: int) -> list:
        return [x // y for x, y in zip(a, b)]

    def urem(self, a: list, b: list, w: int) -> list:
        return [x % y for x, y in zip(a, b)]

    def _signed(self, a: list, w: int) -> list:
        top = 1 << (w - 1)
        return [x - (x & top) * 2 for x in a]

    def sdiv(self, a: list, b: list, w: int) -> list:
        m = _m(w)
        out = []
        for x, y in zip(self._signed(a, w), self._signed(b, w)):
            q = abs(x) // abs(y)
            out.append((q if (x < 0) == (y < 0) else -q) & m)
        return out

    def srem(self, a: list, b: list, w: int) -> list:
        m = _m(w)
        return [(-(abs(x) % abs(y)) if x < 0 else abs(x) % abs(y)) & m
                for x, y in zip(self._signed(a, w), self._signed(b, w))]  # fmt: skip

    def eq(self, a: list, b: list, w: int) -> list:
        return [int(x == y) for x, y in zip(a, b)]

    def ult(self, a: list, b: list, w: int) -> list:
        return [int(x < y) for x, y in zip(a, b)]

    def slt(self, a: list, b: list, w: int) -> list:
        return [int(x < y) for x, y in zip(self._signed(a, w), self._signed(b, w))]

    def ite(self, c: list, a: list, b: list, w: int) -> list:
        return [x if k else y for k, x, y in zip(c, a, b)]

    def zext(self, a: list, w: int, to: int) -> list:
        return a

    def sext(self, a: list, w: int, to: int) -> list:
        m = _m(to)
        return [x & m for x in self._signed(a, w)]

    def trunc(self, a: list, w: int, to: int) -> list:
        m = _m(to)
        return [x & m for x in a]

    def popc(self, a: list, w: int) -> list:
        return [bin(x).count("1") for x in a]

    def defined(self, c: list) -> None:
        if not all(c):
            raise Unknown("undefined in some thread")


class NumpyLanes(_NoFloats):
    """numpy `uint64` arrays, one element per thread (bit-vectors of at most 64 bits)."""

    def __init__(self, np: Any, n: int) -> None:
        self.np, self.n = np, n
        self.u = np.uint64

    def to_lanes(self, x: Any, t: Type) -> Any:
        """An int64 array of values read at type `t` -> uint64 bit patterns."""
        return self._mask(self.np.asarray(x).astype(self.u), width(t))

    def from_lanes(self, y: Any, t: Type) -> Any:
        """uint64 bit patterns -> int64 values read at type `t` (u64 past 2**63 wrap, as int64 does)."""
        w = width(t)
        return self._signed(y, w) if signed(t) else y.view(self.np.int64)

    def _k(self, k: int) -> Any:
        return self.u(k)

    def _w(self, w: int) -> int:
        if w > 64:
            raise Unknown("wider than 64 bits")
        return w

    def _mask(self, x: Any, w: int) -> Any:
        return x if self._w(w) == 64 else x & self._k(_m(w))

    def const(self, k: int, w: int) -> Any:
        return self.np.full(self.n, k & _m(self._w(w)), dtype=self.u)

    def add(self, a: Any, b: Any, w: int) -> Any:
        return self._mask(a + b, w)

    def sub(self, a: Any, b: Any, w: int) -> Any:
        return self._mask(a - b, w)

    def mul(self, a: Any, b: Any, w: int) -> Any:
        return self._mask(a * b, w)

    def and_(self, a: Any, b: Any, w: int) -> Any:
        return a & b

    def or_(self, a: Any, b: Any, w: int) -> Any:
        return a | b

    def xor(self, a: Any, b: Any, w: int) -> Any:
        return a ^ b

    def not_(self, a: Any, w: int) -> Any:
        return a ^ self._k(_m(self._w(w)))

    def neg(self, a: Any, w: int) -> Any:
        return self._mask(self._k(0) - a, w)

    def shl(self, a: Any, s: Any, w: int) -> Any:
        np = self.np
        return np.where(s < self._k(w), self._mask(a << np.minimum(s, self._k(w - 1)), w), self._k(0))

    def lshr(self, a: Any, s: Any, w: int) -> Any:
        np = self.np
        return np.where(s < self._k(w), a >> np.minimum(s, self._k(w - 1)), self._k(0))

    def ashr(self, a: Any, s: Any, w: int) -> Any:
        np = self.np
        m = self._k(_m(self._w(w)))
        sh = np.minimum(s, self._k(w - 1))
        fill = m ^ (m >> sh)  # the top `sh` bits of the width
        neg = ((a >> self._k(w - 1)) & self._k(1)) != 0
        return np.where(neg, (a >> sh) | fill, a >> sh)

    def udiv(self, a: Any, b: Any, w: int) -> Any:
        return a // b

    def urem(self, a: Any, b: Any, w: int) -> Any:
        return a % b

    def _signed(self, a: Any, w: int) -> Any:
        top = self._k(1 << (self._w(w) - 1))
        return ((a ^ top) - top).view(self.np.int64) if w < 64 else a.view(self.np.int64)

    def _magnitude(self, a: Any, w: int) -> tuple[Any, Any]:
        """(|a| as uint64, a < 0) of w-bit patterns read as signed (|INT64_MIN| = 2**63 fits uint64)."""
        x = self._signed(a, w).view(self.u)
        neg = self._signed(a, w) < 0
        return self.np.where(neg, self._k(0) - x, x), neg

    def sdiv(self, a: Any, b: Any, w: int) -> Any:
        (ma, na), (mb, nb) = self._magnitude(a, w), self._magnitude(b, w)
        q = ma // mb
        return self._mask(self.np.where(na != nb, self._k(0) - q, q), w)

    def srem(self, a: Any, b: Any, w: int) -> Any:
        (ma, na), (mb, _) = self._magnitude(a, w), self._magnitude(b, w)
        r = ma % mb
        return self._mask(self.np.where(na, self._k(0) - r, r), w)

    def _bit(self, c: Any) -> Any:
        return c.astype(self.u)

    def eq(self, a: Any, b: Any, w: int) -> Any:
        return self._bit(a == b)

    def ult(self, a: Any, b: Any, w: int) -> Any:
        return self._bit(a < b)

    def slt(self, a: Any, b: Any, w: int) -> Any:
        return self._bit(self._signed(a, w) < self._signed(b, w))

    def ite(self, c: Any, a: Any, b: Any, w: int) -> Any:
        return self.np.where(c != 0, a, b)

    def zext(self, a: Any, w: int, to: int) -> Any:
        self._w(to)
        return a

    def sext(self, a: Any, w: int, to: int) -> Any:
        return self._mask(self._signed(a, w).view(self.u), to) if w < to else a

    def trunc(self, a: Any, w: int, to: int) -> Any:
        return self._mask(a, to)

    def popc(self, a: Any, w: int) -> Any:
        np = self.np
        out = np.zeros(self.n, dtype=self.u)
        x = a.copy()
        for _ in range(self._w(w)):
            out += x & self._k(1)
            x >>= self._k(1)
        return out

    def defined(self, c: Any) -> None:
        if not bool(self.np.all(c != 0)):
            raise Unknown("undefined in some thread")


def domain_for(xp: Any, n: int) -> Any:
    """The lanes domain matching a race-evaluator backend (`irc.analysis.ivec.lib` or numpy)."""
    from irc.analysis.ivec import lib

    return ListLanes(n) if xp is lib else NumpyLanes(xp, n)
