"""What each IR op computes, written once over an abstract domain.

Why one definition over a domain: constant folding (`irc.passes.constfold`), the TMA constant evaluator
(`irc.analysis.tma_facts`), the per-thread address evaluator of the race check (`irc.analysis.races`) and a
symbolic encoding (z3 bit-vectors) must agree on what `add.sat`, `shr` by 40 or `prmt.b4e` compute. Each
had its own arithmetic table, and they disagreed. Here every op's meaning is one function
`sem(D, xs, rt, attrs, ots)` that only calls the primitives of a domain `D` (the operand values `xs` are
domain values; `rt` the result type, `ots` the operand types). A domain decides what a value is:

* `irc.ir.fold.Concrete`: Python ints (bit patterns) and floats, one value (constant folding, TMA);
* `irc.analysis.lanes`: one value per thread, on lists or numpy (the race evaluator);
* a z3 domain (issue 26): bit-vector terms; its primitives are SMT-LIB's `bvadd`, `bvlshr`, `ite`, ...

The primitives are those of SMT-LIB's QF_BV theory with explicit widths (a symbolic domain may ignore the
width arguments), plus IEEE float operations on a type name:

    const(k, w)                        the w-bit pattern of the integer k (mod 2**w)
    add sub mul and_ or_ xor (a, b, w) not_ neg (a, w)
    shl lshr ashr (a, s, w)            amount s as a w-bit value; s >= w gives 0 (ashr: the sign)
    udiv urem sdiv srem (a, b, w)      only where `defined` holds (the semantics asserts it first)
    eq ult slt (a, b, w)               a 1-bit result
    ite(c, a, b, w)                    c is a 1-bit value
    zext sext trunc (a, w, to)         width changes
    popc(a, w)                         population count (w bits)
    defined(c)                         c (1 bit) must hold, else the op's value is undefined: a concrete
                                       domain raises `Unknown`, a symbolic one records the condition
    fadd fsub fmul fdiv (a, b, t) fneg fabs (a, t) fmin fmax (a, b, t) fcmp(pred, a, b, t) -> 1 bit
    fconst(x, t)                       float operations on type name t ("f32", "f64"); IEEE round to
                                       nearest even; PTX `min`/`max` rules (NaN loses, -0.0 < +0.0)

Integers and pointers are bit-vectors of their width; `bool` is one bit. Signedness is a property of the
type, so `min` of `i32` is `ite(slt(a, b), a, b)` and of `u32` `ite(ult(a, b), a, b)`.

A semantics raises `Unknown` for a case it does not define (a float type a domain cannot compute, an
unmodelled attribute); callers treat that as "no value" (not folded, not analysed), never as a guess.
Each `Sem` also lists the attributes it reads with their closed value sets and the type kinds it defines,
so `tests/test_fold_vs_emulator.py` can generate its cases from the table alone.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from irc.ir.types import PtrType, ScalarType, Type
from irc.ptxisa.facts import PRMT_MODES
from irc.records import field, record

__all__ = ["Unknown", "Sem", "SemFn", "width", "signed", "kind", "INT_PREDS", "FLOAT_PREDS", "PRMT_MODES"]


class Unknown(Exception):
    """The op has no value here: undefined (division by zero), or not computable by this domain."""


SemFn = Callable[[Any, Sequence[Any], Type, Mapping[str, Any], Sequence[Type]], Any]


@record(frozen=True)
class Sem:
    """One op's meaning: `fn(D, xs, rt, attrs, ots)`, the attributes it reads (name -> closed set of
    values; an absent attribute is the op's default) and the type kinds it is defined on."""

    fn: SemFn
    kinds: frozenset[str] = frozenset({"int"})  # "int" (and pointers), "bool", "float"
    attrs: dict[str, tuple] = field(default_factory=dict)

    def __call__(
        self, D: Any, xs: Sequence[Any], rt: Type, attrs: Mapping[str, Any], ots: Sequence[Type]
    ) -> Any:
        for name, value in attrs.items():
            allowed = self.attrs.get(name)
            if allowed is not None and value not in allowed:
                raise Unknown(f"attribute {name}={value!r} is not modelled")
        return self.fn(D, xs, rt, attrs, ots)


def width(t: Type) -> int:
    """Bits of an integer, bool or pointer type (a bool is one bit)."""
    if isinstance(t, ScalarType):
        return t.bits
    if isinstance(t, PtrType):
        return t.bits
    raise Unknown(f"no bit-vector width for {t}")


def signed(t: Type) -> bool:
    return isinstance(t, ScalarType) and t.is_signed


def kind(t: Type) -> str:
    """ "int" (integers and pointers), "bool", "float" or "other"."""
    if isinstance(t, PtrType):
        return "int"
    if isinstance(t, ScalarType):
        if t.is_bool:
            return "bool"
        if t.is_float:
            return "float"
        if t.is_int:
            return "int"
    return "other"


def _fname(t: Type) -> str:
    return t.name if isinstance(t, ScalarType) else str(t)


def _sem(kinds: str = "int", **attrs: tuple) -> Callable[[SemFn], Sem]:
    def wrap(fn: SemFn) -> Sem:
        return Sem(fn, frozenset(kinds.split()), dict(attrs))

    return wrap


# ---------------------------------------------------------------------------------------- helpers
def _resize(D: Any, x: Any, frm: Type, to: int) -> Any:
    """`x` of type `frm` at `to` bits: truncated, or extended by `frm`'s signedness."""
    w = width(frm)
    if to == w:
        return x
    if to < w:
        return D.trunc(x, w, to)
    return D.sext(x, w, to) if signed(frm) else D.zext(x, w, to)


def _smin(w: int) -> int:
    return 1 << (w - 1)


def _lt(D: Any, a: Any, b: Any, t: Type) -> Any:
    return D.slt(a, b, width(t)) if signed(t) else D.ult(a, b, width(t))


def _shift_amount(D: Any, s: Any, st: Type) -> Any:
    """The shift amount as PTX reads it: converted to u32 (docs/language.md, "Shifts")."""
    return _resize(D, s, st, 32)


def _shift(D: Any, how: str, a: Any, s: Any, t: Type, st: Type) -> Any:
    """`a` shifted by `s` (of type `st`): the amount is read as u32 and clamped to the width."""
    w = width(t)
    s32 = _shift_amount(D, s, st)
    prim = getattr(D, how)
    if w >= 32:
        return prim(a, D.zext(s32, 32, w) if w > 32 else s32, w)
    big = D.not_(D.ult(s32, D.const(w, 32), 32), 1)  # s >= w: what the primitive gives for w exactly
    return D.ite(big, prim(a, D.const(w - 1, w), w) if how == "ashr" else D.const(0, w),
                 prim(a, D.trunc(s32, 32, w), w), w)  # fmt: skip


def _not_zero(D: Any, b: Any, w: int) -> Any:
    return D.not_(D.eq(b, D.const(0, w), w), 1)


# ---------------------------------------------------------------------------------------- values
@_sem("int bool float")
def copy(D, xs, rt, attrs, ots):  # type: ignore[no-untyped-def]
    return xs[0]


@_sem("int bool float")
def bitcast(D, xs, rt, attrs, ots):  # type: ignore[no-untyped-def]
    """Reinterpret the bits: integers and pointers of one width are the same bit-vector; a float <-> int
    bitcast asks the domain (`fbits` / `ffrombits`)."""
    sk, rk = kind(ots[0]), kind(rt)
    if sk == rk == "int" and width(ots[0]) == width(rt):
        return xs[0]
    if sk == "float" and rk == "int" and width(rt) == ots[0].bits:  # type: ignore[attr-defined]
        return D.fbits(xs[0], _fname(ots[0]))
    if sk == "int" and rk == "float" and width(ots[0]) == rt.bits:  # type: ignore[attr-defined]
        return D.ffrombits(xs[0], _fname(rt))
    raise Unknown("bitcast between these types")


@_sem("int bool", sat=(True, False))
def cvt(D, xs, rt, attrs, ots):  # type: ignore[no-untyped-def]
    """Integer (and bool -> integer) conversions: truncate or extend by the source's signedness; `sat`
    clamps to the destination's range. Conversions from or to floats are not defined here (the front end
    folds its constant `as` casts itself)."""
    st = ots[0]
    if "rnd" in attrs or "cvta" in attrs or kind(rt) != "int" or kind(st) not in ("int", "bool"):
        raise Unknown("conversion not modelled")
    x = xs[0]
    if kind(st) == "bool":
        return D.zext(x, 1, width(rt))
    if not attrs.get("sat"):
        return _resize(D, x, st, width(rt))
    # saturate: compare in a width that holds both ranges exactly
    ws, wd = width(st), width(rt)
    big = max(ws, wd) + 1
    xe = _resize(D, x, st, big)
    lo = -_smin(wd) if signed(rt) else 0
    hi = _smin(wd) - 1 if signed(rt) else (1 << wd) - 1
    klo, khi = D.const(lo, big), D.const(hi, big)
    y = D.ite(D.slt(xe, klo, big), klo, D.ite(D.slt(khi, xe, big), khi, xe, big), big)
    return D.trunc(y, big, wd)


# ---------------------------------------------------------------------------------------- arithmetic
def _int_or_float(
    int_fn: Callable[..., Any], float_op: str | None, kinds: str = "int float", **attrs: tuple
) -> Sem:
    def fn(D, xs, rt, attrs, ots):  # type: ignore[no-untyped-def]
        if kind(rt) == "float":
            if float_op is None:
                raise Unknown("not defined on floats")
            return getattr(D, float_op)(*xs, _fname(rt))
        if "rnd" in attrs:
            raise Unknown("a rounding mode on integers")
        return int_fn(D, *xs, width(rt))

    return Sem(fn, frozenset(kinds.split()), dict(attrs))


#: `rnd = "rn"`: PTX's default float rounding spelled out (`add.rn.f32`, no contraction into an fma);
#: the value is the same. Other rounding modes are not modelled (such instructions lift as `ptx_pure`).
add = _int_or_float(lambda D, a, b, w: D.add(a, b, w), "fadd", rnd=("rn",))
sub = _int_or_float(lambda D, a, b, w: D.sub(a, b, w), "fsub", rnd=("rn",))
mul = _int_or_float(lambda D, a, b, w: D.mul(a, b, w), "fmul", rnd=("rn",))
and_ = _int_or_float(lambda D, a, b, w: D.and_(a, b, w), None, "int bool")
or_ = _int_or_float(lambda D, a, b, w: D.or_(a, b, w), None, "int bool")
xor = _int_or_float(lambda D, a, b, w: D.xor(a, b, w), None, "int bool")
not_ = _int_or_float(lambda D, a, w: D.not_(a, w), None, "int bool")
neg = _int_or_float(lambda D, a, w: D.neg(a, w), "fneg")


@_sem("int float")
def abs_(D, xs, rt, attrs, ots):  # type: ignore[no-untyped-def]
    """Signed integers and floats (the most negative integer stays itself, as `abs.s32` gives). Not defined
    on unsigned types: the front end turns `abs` of an unsigned value into the value itself."""
    if kind(rt) == "float":
        return D.fabs(xs[0], _fname(rt))
    if not signed(rt):
        raise Unknown("abs of an unsigned type")
    w = width(rt)
    a = xs[0]
    return D.ite(D.slt(a, D.const(0, w), w), D.neg(a, w), a, w)


def _minmax(is_max: bool, relu: bool = False) -> SemFn:
    def fn(D, xs, rt, attrs, ots):  # type: ignore[no-untyped-def]
        a, b = xs
        if kind(rt) == "float":
            return (D.fmax if is_max else D.fmin)(a, b, _fname(rt))
        w = width(rt)
        pick_a = _lt(D, b, a, rt) if is_max else _lt(D, a, b, rt)
        r = D.ite(pick_a, a, b, w)
        if relu:  # PTX `.relu`: a negative result is 0 (s32 only)
            r = D.ite(D.slt(r, D.const(0, w), w), D.const(0, w), r, w)
        return r

    return fn


min_ = Sem(_minmax(False), frozenset({"int", "float"}))
max_ = Sem(_minmax(True), frozenset({"int", "float"}))
minrelu = Sem(_minmax(False, relu=True))
maxrelu = Sem(_minmax(True, relu=True))


def _saturating(op: str) -> SemFn:
    """`add.sat.s32` / `sub.sat.s32`: the exact sum or difference clamped to the signed range."""

    def fn(D, xs, rt, attrs, ots):  # type: ignore[no-untyped-def]
        w = width(rt)
        big = w + 1
        a, b = (D.sext(x, w, big) for x in xs)
        r = getattr(D, op)(a, b, big)
        lo, hi = D.const(-_smin(w), big), D.const(_smin(w) - 1, big)
        r = D.ite(D.slt(r, lo, big), lo, D.ite(D.slt(hi, r, big), hi, r, big), big)
        return D.trunc(r, big, w)

    return fn


addsat = Sem(_saturating("add"))
subsat = Sem(_saturating("sub"))


def _divrem(want_rem: bool) -> SemFn:
    def fn(D, xs, rt, attrs, ots):  # type: ignore[no-untyped-def]
        a, b = xs
        if kind(rt) == "float":
            if want_rem:
                raise Unknown("float remainder")
            return D.fdiv(a, b, _fname(rt))
        w = width(rt)
        D.defined(_not_zero(D, b, w))  # PTX: division by zero gives an unspecified value
        if signed(rt):
            overflow = D.and_(D.eq(a, D.const(_smin(w), w), w), D.eq(b, D.const(-1, w), w), 1)
            D.defined(D.not_(overflow, 1))  # the quotient does not fit
            return (D.srem if want_rem else D.sdiv)(a, b, w)
        return (D.urem if want_rem else D.udiv)(a, b, w)

    return fn


div = Sem(_divrem(False), frozenset({"int", "float"}))
rem = Sem(_divrem(True))


@_sem()
def shl(D, xs, rt, attrs, ots):  # type: ignore[no-untyped-def]
    return _shift(D, "shl", xs[0], xs[1], rt, ots[1])


@_sem()
def shr(D, xs, rt, attrs, ots):  # type: ignore[no-untyped-def]
    return _shift(D, "ashr" if signed(rt) else "lshr", xs[0], xs[1], rt, ots[1])


@_sem()
def mulhi(D, xs, rt, attrs, ots):  # type: ignore[no-untyped-def]
    """The high half of the full product, operands read at the type's signedness."""
    w = width(rt)
    a, b = (_resize(D, x, rt, 2 * w) for x in xs)
    p = D.mul(a, b, 2 * w)
    return D.trunc(D.lshr(p, D.const(w, 2 * w), 2 * w), 2 * w, w)


@_sem()
def mulwide(D, xs, rt, attrs, ots):  # type: ignore[no-untyped-def]
    """The full product (`mul.wide`): operands extended by their own type's signedness."""
    w = width(rt)
    a, b = (_resize(D, x, t, w) for x, t in zip(xs, ots))
    return D.mul(a, b, w)


@_sem()
def ptradd(D, xs, rt, attrs, ots):  # type: ignore[no-untyped-def]
    """Pointer plus a byte offset; the offset is resized to the pointer width by its own signedness."""
    w = width(rt)
    return D.add(xs[0], _resize(D, xs[1], ots[1], w), w)


@_sem("int bool float")
def select(D, xs, rt, attrs, ots):  # type: ignore[no-untyped-def]
    c, a, b = xs
    return D.ite(c, a, b, width(rt) if kind(rt) != "float" else 0)


# ---------------------------------------------------------------------------------------- compares
#: Integer predicates (signedness from the operand type); the PTX unsigned spellings are lifted to these.
INT_PREDS = ("eq", "ne", "lt", "le", "gt", "ge")
#: Float predicates: `eq lt le gt ge` are ordered (false on NaN), `ne` is unordered (true on NaN: `!=` of
#: .kdsl, PTX `neu`); `one` is PTX's ordered `ne`; the `u` forms are unordered; `num` / `nan` test NaN.
FLOAT_PREDS = ("eq", "ne", "lt", "le", "gt", "ge", "one", "equ", "ltu", "leu", "gtu", "geu", "num", "nan")


@_sem("int bool float", pred=tuple(dict.fromkeys(INT_PREDS + FLOAT_PREDS)))
def cmp(D, xs, rt, attrs, ots):  # type: ignore[no-untyped-def]
    a, b = xs
    t = ots[0]
    pred = str(attrs.get("pred"))
    if kind(t) == "float":
        if pred not in FLOAT_PREDS:
            raise Unknown(f"float predicate {pred}")
        return D.fcmp(pred, a, b, _fname(t))
    if pred not in INT_PREDS:
        raise Unknown(f"integer predicate {pred}")
    w = width(t)
    if pred in ("eq", "ne"):
        e = D.eq(a, b, w)
        return e if pred == "eq" else D.not_(e, 1)
    if pred in ("lt", "ge"):
        r = _lt(D, a, b, t)
    else:  # gt, le: swap
        r = _lt(D, b, a, t)
    return r if pred in ("lt", "gt") else D.not_(r, 1)


# ---------------------------------------------------------------------------------------- bytes
@_sem(mode=tuple(PRMT_MODES))
def prmt(D, xs, rt, attrs, ots):  # type: ignore[no-untyped-def]
    """`prmt.b32{.mode} d, a, b, c`: four bytes picked from the eight of {b, a}. Without a mode, nibble k
    of c selects byte k (bit 3 of the nibble: replicate the byte's sign); with one, c & 3 picks a row."""
    a, b, c = xs
    x = D.or_(D.shl(D.zext(b, 32, 64), D.const(32, 64), 64), D.zext(a, 32, 64), 64)

    def byte(sel: Any) -> Any:  # byte `sel` (a 64-bit value 0..7) of x, as 32 bits
        v = D.lshr(x, D.mul(sel, D.const(8, 64), 64), 64)
        return D.trunc(D.and_(v, D.const(0xFF, 64), 64), 64, 32)

    mode = attrs.get("mode")
    out = D.const(0, 32)
    for k in range(4):
        if mode is None:
            nib = D.and_(D.lshr(c, D.const(4 * k, 32), 32), D.const(0xF, 32), 32)
            v = byte(D.zext(D.and_(nib, D.const(7, 32), 32), 32, 64))
            sign = D.not_(D.eq(D.and_(v, D.const(0x80, 32), 32), D.const(0, 32), 32), 1)
            rep = D.not_(D.eq(D.and_(nib, D.const(8, 32), 32), D.const(0, 32), 32), 1)
            v = D.ite(rep, D.ite(sign, D.const(0xFF, 32), D.const(0, 32), 32), v, 32)
        else:
            rows = PRMT_MODES[str(mode)]
            sel = D.and_(c, D.const(3, 32), 32)
            v = byte(D.const(rows[3][k], 64))
            for r in (2, 1, 0):
                v = D.ite(D.eq(sel, D.const(r, 32), 32), byte(D.const(rows[r][k], 64)), v, 32)
        out = D.or_(out, D.shl(v, D.const(8 * k, 32), 32), 32)
    return out


@_sem()
def bfe(D, xs, rt, attrs, ots):  # type: ignore[no-untyped-def]
    """`bfe.u32 d, a, b, c` (and .u64): the field of `a` at bit `b & 0xff`, `c & 0xff` bits long,
    zero-extended; bits past the top are 0 (a position past the top, or a length of 0, gives 0). The
    signed forms replicate the field's top bit and are not modelled here (lifted as `ptx_pure`)."""
    a, b, c = xs
    w = width(rt)
    pos = _resize(D, D.and_(b, D.const(0xFF, 32), 32), ots[1], w)
    n = _resize(D, D.and_(c, D.const(0xFF, 32), 32), ots[2], w)
    mask = D.sub(D.shl(D.const(1, w), n, w), D.const(1, w), w)  # shl by >= w gives 0: all ones
    return D.and_(D.lshr(a, pos, w), mask, w)


@_sem()
def bfi(D, xs, rt, attrs, ots):  # type: ignore[no-untyped-def]
    """`bfi.b32 d, f, b, c, e` (and .b64): `b` with the field at bit `c & 0xff`, `e & 0xff` bits long,
    replaced by the low bits of `f`; bits past the top are dropped, and a position past the top leaves `b`
    (nvcc builds packed indices with it: `(tid >> 6) * 64 + (tid & 63)` is one `bfi`)."""
    f, b, c, e = xs
    w = width(rt)
    pos = _resize(D, D.and_(c, D.const(0xFF, 32), 32), ots[2], w)
    n = _resize(D, D.and_(e, D.const(0xFF, 32), 32), ots[3], w)
    field = D.sub(D.shl(D.const(1, w), n, w), D.const(1, w), w)  # a length of w or more: all ones
    mask = D.shl(field, pos, w)  # a position of w or more: no bit, so `b` unchanged
    return D.or_(D.and_(b, D.not_(mask, w), w), D.and_(D.shl(f, pos, w), mask, w), w)


# ---------------------------------------------------------------------------------------- collectives
@_sem(kind=("add", "min", "max", "and", "or", "xor"))
def redux(D, xs, rt, attrs, ots):  # type: ignore[no-untyped-def]
    """redux.sync of `v` under `mask`: every lane of the mask executes it (PTX), so it reduces
    popcount(mask) copies of the same value when `v` is the same in all of them (the caller's concern:
    only constant folding and the per-lane evaluators of uniform values use it)."""
    v, mask = xs
    w = width(rt)
    n = D.popc(mask, 32)
    D.defined(_not_zero(D, n, 32))
    k = attrs.get("kind")
    if k == "add":
        return D.mul(v, _resize(D, n, ots[1], w), w)
    if k == "xor":
        odd = D.not_(D.eq(D.and_(n, D.const(1, 32), 32), D.const(0, 32), 32), 1)
        return D.ite(odd, v, D.const(0, w), w)
    if k in ("min", "max", "and", "or"):
        return v
    raise Unknown(f"redux kind {k}")
