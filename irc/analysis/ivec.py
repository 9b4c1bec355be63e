"""Per-thread integer vectors over Python lists: the subset of numpy's API that `irc.analysis.races`
evaluates shared-memory addresses with, for blocks small enough that numpy does not pay for itself.

Why: importing numpy costs ~55 ms, more than the whole compile of most kernels, and `irc compile` /
`irc check` are short processes (issue 15). The race evaluation of a kernel typically touches a dozen
values of a 128- or 256-thread block, which plain lists do in well under a millisecond.

Semantics are numpy's int64 arithmetic, bit for bit: results of `+ - * << neg abs` wrap to signed 64
bits (numpy wraps silently under `errstate(all="ignore")`, which races.py uses); `>>` is arithmetic;
`//` and `%` are only used on non-negative operands (races.py checks first), where Python and numpy
agree. Comparisons give bool vectors; `astype(int64)` makes them 0/1. `~` is integer complement (races.py
never inverts a bool vector with it). `tests/test_ivec.py` runs both backends on the same inputs.

`lib` is the module-like object races.py calls (`xp.where`, `xp.full`, ...), as it calls `numpy`.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import Any

_TOP = 1 << 63
_MASK = (1 << 64) - 1


def _wrap64(r: list) -> list:
    """Signed 64-bit wrap-around, numpy int64's overflow behaviour (a no-op scan when nothing overflows)."""
    if r and (max(r) >= _TOP or min(r) < -_TOP):
        return [((x + _TOP) & _MASK) - _TOP for x in r]
    return r


def _vals(x: Any, n: int) -> list:
    return x.v if isinstance(x, IVec) else [x] * n


def _elementwise(f: Callable[[Any, Any], Any], *, wrap: bool = False, reflected: bool = False):  # type: ignore[no-untyped-def]
    """The `IVec` method applying the binary operator `f` element by element to a vector and a vector or
    scalar (`reflected`: the scalar or other vector on the left); `wrap`: the int64 wrap-around."""

    def method(self: IVec, o: Any) -> IVec:
        other = _vals(o, len(self.v))
        r = list(map(f, other, self.v) if reflected else map(f, self.v, other))
        return IVec(_wrap64(r) if wrap else r)

    return method


class IVec:
    """A 1-D vector of Python ints (or bools, for masks)."""

    __slots__ = ("v",)

    def __init__(self, v: list) -> None:
        self.v = v

    # ---------------------------------------------------------------- operators (see `_elementwise`)
    __add__ = __radd__ = _elementwise(operator.add, wrap=True)
    __sub__ = _elementwise(operator.sub, wrap=True)
    __rsub__ = _elementwise(operator.sub, wrap=True, reflected=True)
    __mul__ = __rmul__ = _elementwise(operator.mul, wrap=True)
    __lshift__ = _elementwise(operator.lshift, wrap=True)
    __rshift__ = _elementwise(operator.rshift)
    __floordiv__ = _elementwise(operator.floordiv)
    __mod__ = _elementwise(operator.mod)
    __and__ = __rand__ = _elementwise(operator.and_)
    __or__ = __ror__ = _elementwise(operator.or_)
    __xor__ = _elementwise(operator.xor)
    __eq__ = _elementwise(operator.eq)  # type: ignore[assignment]
    __ne__ = _elementwise(operator.ne)  # type: ignore[assignment]
    __lt__ = _elementwise(operator.lt)
    __le__ = _elementwise(operator.le)
    __gt__ = _elementwise(operator.gt)
    __ge__ = _elementwise(operator.ge)

    def __iand__(self, o: Any) -> IVec:
        self.v = (self & o).v
        return self

    def __ior__(self, o: Any) -> IVec:
        self.v = (self | o).v
        return self

    def __neg__(self) -> IVec:
        return IVec(_wrap64([-a for a in self.v]))

    def __invert__(self) -> IVec:
        return IVec([~a for a in self.v])

    __hash__ = None  # type: ignore[assignment]

    # ---------------------------------------------------------------- the rest numpy arrays offer
    def astype(self, _dtype: Any) -> IVec:
        return IVec([int(a) for a in self.v])

    def copy(self) -> IVec:
        return IVec(list(self.v))

    def any(self) -> bool:
        return any(self.v)

    def all(self) -> bool:
        return all(self.v)

    def min(self) -> int:
        return min(self.v)

    def max(self) -> int:
        return max(self.v)

    def __len__(self) -> int:
        return len(self.v)

    def __iter__(self) -> Iterator:
        return iter(self.v)

    def __getitem__(self, i: Any) -> Any:
        if isinstance(i, IVec):  # gather by an index vector (races.py never indexes by a mask)
            v = self.v
            return IVec([v[j] for j in i.v])
        return self.v[i]

    def __repr__(self) -> str:
        return f"IVec({self.v!r})"


class _Lib:
    """The numpy functions races.py uses, over `IVec`."""

    int64 = int
    bool_ = bool

    @staticmethod
    def arange(n: int, dtype: Any = None) -> IVec:
        return IVec(list(range(n)))

    @staticmethod
    def full(n: int, c: int, dtype: Any = None) -> IVec:
        return IVec([bool(c) if dtype is bool else int(c)] * n)

    @staticmethod
    def zeros(n: int, dtype: Any = None) -> IVec:
        return IVec([False if dtype is bool else 0] * n)

    @staticmethod
    def ones(n: int, dtype: Any = None) -> IVec:
        return IVec([True if dtype is bool else 1] * n)

    @staticmethod
    def where(c: IVec, a: Any, b: Any) -> IVec:
        n = len(c.v)
        return IVec([x if k else y for k, x, y in zip(c.v, _vals(a, n), _vals(b, n))])

    @staticmethod
    def clip(x: IVec, lo: int, hi: int) -> IVec:
        return IVec([lo if a < lo else hi if a > hi else a for a in x.v])

    @staticmethod
    def minimum(a: IVec, b: Any) -> IVec:
        return IVec([min(x, y) for x, y in zip(a.v, _vals(b, len(a.v)))])

    @staticmethod
    def maximum(a: IVec, b: Any) -> IVec:
        return IVec([max(x, y) for x, y in zip(a.v, _vals(b, len(a.v)))])

    @staticmethod
    def abs(a: IVec) -> IVec:
        return IVec(_wrap64([abs(x) for x in a.v]))

    @staticmethod
    def array_equal(a: IVec, b: IVec) -> bool:
        return a.v == b.v

    @staticmethod
    def flatnonzero(a: IVec) -> IVec:
        return IVec([i for i, x in enumerate(a.v) if x])

    @staticmethod
    def concatenate(parts: Iterable[IVec]) -> IVec:
        out: list = []
        for p in parts:
            out.extend(p.v)
        return IVec(out)

    @staticmethod
    def equal(a: IVec, b: Any) -> IVec:
        return a == b

    @staticmethod
    def not_equal(a: IVec, b: Any) -> IVec:
        return a != b

    @staticmethod
    def less(a: IVec, b: Any) -> IVec:
        return a < b

    @staticmethod
    def less_equal(a: IVec, b: Any) -> IVec:
        return a <= b

    @staticmethod
    def greater(a: IVec, b: Any) -> IVec:
        return a > b

    @staticmethod
    def greater_equal(a: IVec, b: Any) -> IVec:
        return a >= b

    @staticmethod
    @contextmanager
    def errstate(**_kw: Any) -> Iterator[None]:
        yield


lib = _Lib()
