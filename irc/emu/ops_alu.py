"""Integer, logic, comparison, conversion and floating-point instruction semantics.

Why numpy dtypes carry the semantics: `add.u32` on uint32 arrays wraps exactly like hardware, float32
arithmetic rounds to nearest even exactly like `.rn`, so most handlers are one ufunc over typed views;
only the odd cases (mul.hi, bfe, prmt, shifts past the width, saturating cvt) need explicit code.
"""

from __future__ import annotations

import numpy as np

from irc.emu import dtypes as D
from irc.emu.errors import UnsupportedInstructionError
from irc.emu.registry import op
from irc.ptxisa.facts import PRMT_MODES
from irc.ptxisa.model import Instr, Pair, Vec

M32 = np.uint64(0xFFFFFFFF)
S32 = np.uint64(32)


def typ(ins: Instr) -> str:
    for mo in reversed(ins.mods):
        if mo in D.TYPE_NAMES:
            return mo
    raise UnsupportedInstructionError(f"no type suffix on {ins.opcode}", line=ins.line)


def types(ins: Instr) -> list[str]:
    return [mo for mo in ins.mods if mo in D.TYPE_NAMES]


def _unary(m, ins, fn, t=None):
    t = t or typ(ins)
    d, a = m.write(ins.operands[0], t), m.read(ins.operands[1], t)
    return lambda idx: d(idx, fn(a(idx)))


def _binary(m, ins, fn, t=None, tb=None):
    t = t or typ(ins)
    d = m.write(ins.operands[0], t)
    a, b = m.read(ins.operands[1], t), m.read(ins.operands[2], tb or t)
    return lambda idx: d(idx, fn(a(idx), b(idx)))


def _ternary(m, ins, fn, t=None, tc=None):
    t = t or typ(ins)
    d = m.write(ins.operands[0], t)
    a, b, c = (m.read(ins.operands[1], t), m.read(ins.operands[2], t), m.read(ins.operands[3], tc or t))
    return lambda idx: d(idx, fn(a(idx), b(idx), c(idx)))


# ---------------------------------------------------------------------------- packed half types
def _unpack16(x, t):
    x = np.asarray(x, dtype=np.uint32)
    lo, hi = (x & np.uint32(0xFFFF)).astype(np.uint16), (x >> np.uint32(16)).astype(np.uint16)
    if t == "bf16x2":
        return D.bf16_to_f32(lo), D.bf16_to_f32(hi)
    return lo.view(np.float16).astype(np.float32), hi.view(np.float16).astype(np.float32)


def _pack16(lo, hi, t):
    if t == "bf16x2":
        lb, hb = D.f32_to_bf16(lo), D.f32_to_bf16(hi)
    else:
        lb = np.asarray(lo, dtype=np.float32).astype(np.float16).view(np.uint16)
        hb = np.asarray(hi, dtype=np.float32).astype(np.float16).view(np.uint16)
    return lb.astype(np.uint32) | (hb.astype(np.uint32) << np.uint32(16))


def _float_fn(t, fn, nargs):
    """Wrap a float32 function so it works on f16x2/bf16x2 (lane-wise) and bf16 (via f32)."""
    if t in ("f16x2", "bf16x2"):

        def packed(*xs):
            parts = [_unpack16(x, t) for x in xs]
            lo = fn(*[p[0] for p in parts])
            hi = fn(*[p[1] for p in parts])
            return _pack16(lo, hi, t)

        return packed
    if t == "bf16":
        return lambda *xs: D.f32_to_bf16(fn(*[D.bf16_to_f32(x) for x in xs]))
    if t == "f16":
        return lambda *xs: np.asarray(fn(*[np.asarray(x, np.float32) for x in xs]), np.float32).astype(
            np.float16
        )
    return fn


FLOATY = ("f16", "f32", "f64", "bf16", "f16x2", "bf16x2")


def _sat01(x):
    return np.where(np.isnan(x), 0, np.clip(x, 0, 1)).astype(np.asarray(x).dtype)


# ---------------------------------------------------------------------------- add/sub/mul/mad
@op("add", "sub")
def _addsub(m, ins):
    t = typ(ins)
    sub = ins.base == "sub"
    mods = ins.mods
    if t in FLOATY:
        f = np.subtract if sub else np.add
        fn = _float_fn(t, f, 2)
        if "sat" in mods:
            g = fn
            fn = lambda a, b: _sat01(g(a, b))  # noqa: E731
        return _binary(m, ins, fn, t)
    if "sat" in mods:  # s32 only

        def sat(a, b):
            r = a.astype(np.int64) - b if sub else np.asarray(a, np.int64) + np.asarray(b, np.int64)
            return np.clip(r, -(1 << 31), (1 << 31) - 1).astype(np.int32)

        return _binary(m, ins, sat, t)
    if "cc" in mods or ins.base in ("addc", "subc"):
        return _carry(m, ins, t, sub)
    return _binary(m, ins, np.subtract if sub else np.add, t)


def _carry(m, ins, t, sub, use_carry=False, set_carry=True):
    T = D.np_type(t)
    U = D.UNSIGNED[T.itemsize]
    w = 8 * T.itemsize
    d = m.write(ins.operands[0], t)
    a, b = m.read(ins.operands[1], t), m.read(ins.operands[2], t)
    carry = m.carry

    def h(idx):
        x = (
            np.asarray(a(idx)).view(U).astype(object)
            if w == 64
            else np.asarray(a(idx)).view(U).astype(np.int64)
        )
        y = (
            np.asarray(b(idx)).view(U).astype(object)
            if w == 64
            else np.asarray(b(idx)).view(U).astype(np.int64)
        )
        cin = carry[idx].astype(np.int64) if use_carry else 0
        if sub:
            r = x - y - cin
            cout = r < 0
        else:
            r = x + y + cin
            cout = (r >> w) != 0
        res = np.asarray(r & ((1 << w) - 1)).astype(np.uint64).astype(U).view(T)
        d(idx, np.broadcast_to(res, (m.count(idx),)))
        if set_carry:
            carry[idx] = np.broadcast_to(np.asarray(cout, dtype=np.uint8), (m.count(idx),))

    return h


@op("addc", "subc")
def _addc(m, ins):
    return _carry(m, ins, typ(ins), ins.base == "subc", use_carry=True, set_carry="cc" in ins.mods)


def mulhi_u64(a, b):
    a, b = np.asarray(a, np.uint64), np.asarray(b, np.uint64)
    al, ah, bl, bh = a & M32, a >> S32, b & M32, b >> S32
    p0, p1, p2, p3 = al * bl, al * bh, ah * bl, ah * bh
    mid = (p0 >> S32) + (p1 & M32) + (p2 & M32)
    return p3 + (p1 >> S32) + (p2 >> S32) + (mid >> S32)


def mulhi_s64(a, b):
    a, b = np.asarray(a, np.int64), np.asarray(b, np.int64)
    h = mulhi_u64(a.view(np.uint64), b.view(np.uint64))
    h = (
        h
        - np.where(a < 0, b.view(np.uint64), np.uint64(0))
        - np.where(b < 0, a.view(np.uint64), np.uint64(0))
    )
    return h.view(np.int64)


def _mul_fn(mode: str, t: str):
    T = D.np_type(t)
    if mode == "wide":
        W = (D.SIGNED if T.kind == "i" else D.UNSIGNED)[T.itemsize * 2]
        return lambda a, b: np.asarray(a).astype(W) * np.asarray(b).astype(W), D.np_type(
            ("s" if T.kind == "i" else "u") + str(T.itemsize * 16)
        )
    if mode == "hi":
        if T.itemsize == 8:
            return (mulhi_s64 if T.kind == "i" else mulhi_u64), T
        W = (D.SIGNED if T.kind == "i" else D.UNSIGNED)[T.itemsize * 2]
        sh = 8 * T.itemsize
        return lambda a, b: ((np.asarray(a).astype(W) * np.asarray(b).astype(W)) >> W.type(sh)).astype(T), T
    return np.multiply, T


@op("mul")
def _mul(m, ins):
    t = typ(ins)
    if t in FLOATY:
        fn = _float_fn(t, np.multiply, 2)
        if "sat" in ins.mods:
            g = fn
            fn = lambda a, b: _sat01(g(a, b))  # noqa: E731
        return _binary(m, ins, fn, t)
    mode = "wide" if "wide" in ins.mods else "hi" if "hi" in ins.mods else "lo"
    fn, R = _mul_fn(mode, t)
    rt = {v: k for k, v in D.TYPES.items() if k[0] in "us" and k[1:].isdigit()}[R] if mode == "wide" else t
    d = m.write(ins.operands[0], rt)
    a, b = m.read(ins.operands[1], t), m.read(ins.operands[2], t)
    return lambda idx: d(idx, fn(a(idx), b(idx)))


def _fma32(a, b, c):
    return (np.asarray(a, np.float64) * np.asarray(b, np.float64) + np.asarray(c, np.float64)).astype(
        np.float32
    )


def fma_fn(t):
    if t == "f32":
        return _fma32
    if t == "f64":
        return lambda a, b, c: a * b + c
    return _float_fn(t, lambda a, b, c: _fma32(a, b, c), 3)


@op("fma")
def _fma(m, ins):
    t = typ(ins)
    fn = fma_fn(t)
    if "sat" in ins.mods:
        g = fn
        fn = lambda a, b, c: _sat01(g(a, b, c))  # noqa: E731
    if "relu" in ins.mods:
        g2 = fn
        fn = lambda a, b, c: np.maximum(g2(a, b, c), 0).astype(np.asarray(g2(a, b, c)).dtype)  # noqa: E731
    return _ternary(m, ins, fn, t)


@op("mad")
def _mad(m, ins):
    t = typ(ins)
    if t in FLOATY:
        return _fma(m, ins)
    mode = "wide" if "wide" in ins.mods else "hi" if "hi" in ins.mods else "lo"
    fn, R = _mul_fn(mode, t)
    rt = t
    if mode == "wide":
        rt = ("s" if R.kind == "i" else "u") + str(R.itemsize * 8)
    d = m.write(ins.operands[0], rt)
    a, b, c = m.read(ins.operands[1], t), m.read(ins.operands[2], t), m.read(ins.operands[3], rt)
    if "cc" in ins.mods or ins.base == "madc":
        raise UnsupportedInstructionError("mad.cc / madc are not supported", line=ins.line)
    return lambda idx: d(idx, fn(a(idx), b(idx)) + c(idx))


@op("mul24", "mad24")
def _mul24(m, ins):
    t = typ(ins)
    signed = t.startswith("s")
    hi = "hi" in ins.mods
    d = m.write(ins.operands[0], t)
    a, b = m.read(ins.operands[1], t), m.read(ins.operands[2], t)
    c = m.read(ins.operands[3], t) if ins.base == "mad24" else None

    def ext(x):
        x = np.asarray(x).astype(np.int64) & 0xFFFFFF
        return np.where(x & 0x800000, x - 0x1000000, x) if signed else x

    def h(idx):
        p = ext(a(idx)) * ext(b(idx))
        r = (p >> 16) if hi else p
        r = (r & 0xFFFFFFFF).astype(np.uint32).view(D.np_type(t))
        if c is not None:
            r = r + c(idx)
        d(idx, r)

    return h


@op("dp4a", "dp2a")
def _dp4a(m, ins):
    ta, tb = types(ins)[:2]
    d = m.write(ins.operands[0], "s32" if "s32" in (ta, tb) else "u32")
    a, b = m.read(ins.operands[1], "u32"), m.read(ins.operands[2], "u32")
    c = m.read(ins.operands[3], "s32" if "s32" in (ta, tb) else "u32")

    def bytes_of(x, signed):
        x = np.asarray(x, np.uint32)
        out = [(x >> np.uint32(8 * k)) & np.uint32(0xFF) for k in range(4)]
        out = [o.astype(np.int64) for o in out]
        return [np.where(o >= 128, o - 256, o) if signed else o for o in out]

    def h(idx):
        xa, xb = bytes_of(a(idx), ta == "s32"), bytes_of(b(idx), tb == "s32")
        s = sum(xa[k] * xb[k] for k in range(4)) + np.asarray(c(idx)).astype(np.int64)
        d(idx, (s & 0xFFFFFFFF).astype(np.uint32).view(np.int32 if "s32" in (ta, tb) else np.uint32))

    return h


# ---------------------------------------------------------------------------- div/rem/abs/neg/min/max
def _int_div(a, b, T):
    a, b = np.asarray(a), np.asarray(b)
    zero = b == 0
    bb = np.where(zero, 1, b).astype(T)
    if T.kind == "u":
        q = a // bb
        return np.where(zero, T.type(-1 & ((1 << (8 * T.itemsize)) - 1)), q).astype(T)
    q = np.floor_divide(a, bb)
    fix = ((a % bb) != 0) & ((a < 0) != (bb < 0))
    q = (q + fix.astype(T)).astype(T)
    return np.where(zero, T.type(-1), q).astype(T)


@op("div")
def _div(m, ins):
    t = typ(ins)
    if t in FLOATY:
        return _binary(m, ins, _float_fn(t, np.divide, 2), t)
    T = D.np_type(t)
    return _binary(m, ins, lambda a, b: _int_div(a, b, T), t)


@op("rem")
def _rem(m, ins):
    t = typ(ins)
    T = D.np_type(t)

    def rem(a, b):  # x % 0 gives x (what a - (a / 0) * 0 would)
        zero = np.asarray(b) == 0
        bb = np.where(zero, 1, b).astype(T)
        return np.where(zero, a, np.fmod(a, bb)).astype(T)

    return _binary(m, ins, rem, t)


@op("abs")
def _abs(m, ins):
    t = typ(ins)
    return _unary(m, ins, _float_fn(t, np.abs, 1) if t in FLOATY else np.abs, t)


@op("neg")
def _neg(m, ins):
    t = typ(ins)
    return _unary(m, ins, _float_fn(t, np.negative, 1) if t in FLOATY else np.negative, t)


def _signed_zeros(f, is_max):
    """PTX orders -0.0 below +0.0 in `min` / `max` (numpy returns either zero)."""

    def g(a, b):
        r = f(a, b)
        zero = (a == 0) & (b == 0)
        if not np.any(zero):
            return r
        neg = np.signbit(a) & np.signbit(b) if is_max else np.signbit(a) | np.signbit(b)
        return np.where(zero, np.where(neg, -np.abs(r), np.abs(r)), r).astype(np.asarray(r).dtype)

    return g


@op("min", "max")
def _minmax(m, ins):
    t = typ(ins)
    mx = ins.base == "max"
    if t in FLOATY:
        f = (np.maximum if mx else np.minimum) if "NaN" in ins.mods else (np.fmax if mx else np.fmin)
        fn = _float_fn(t, _signed_zeros(f, mx), 2)
    else:
        fn = np.maximum if mx else np.minimum
    if "relu" in ins.mods:
        g = fn
        fn = lambda a, b: np.maximum(g(a, b), 0).astype(np.asarray(g(a, b)).dtype)  # noqa: E731
    if len(ins.operands) == 4:  # three-input min/max
        return _ternary(m, ins, lambda a, b, c: fn(fn(a, b), c), t)
    return _binary(m, ins, fn, t)


@op("copysign")
def _copysign(m, ins):
    return _binary(m, ins, lambda a, b: np.copysign(b, a), typ(ins))


# ---------------------------------------------------------------------------- logic / shifts / bits
@op("and", "or", "xor")
def _logic(m, ins):
    f = {"and": np.bitwise_and, "or": np.bitwise_or, "xor": np.bitwise_xor}[ins.base]
    return _binary(m, ins, f, typ(ins))


@op("not")
def _not(m, ins):
    return _unary(m, ins, np.invert, typ(ins))


@op("cnot")
def _cnot(m, ins):
    t = typ(ins)
    T = D.np_type(t)
    return _unary(m, ins, lambda a: (np.asarray(a) == 0).astype(T), t)


@op("shl", "shr")
def _shift(m, ins):
    t = typ(ins)
    T = D.np_type(t)
    w = 8 * T.itemsize
    left = ins.base == "shl"
    d = m.write(ins.operands[0], t)
    a, b = m.read(ins.operands[1], t), m.read(ins.operands[2], "u32")

    def h(idx):
        x, n = np.asarray(a(idx)), np.asarray(b(idx))
        big = n >= w
        nn = np.minimum(n, w - 1).astype(T)
        if left:
            r = np.where(big, T.type(0), x << nn)
        elif T.kind == "i":
            r = x >> nn
        else:
            r = np.where(big, T.type(0), x >> nn)
        d(idx, r.astype(T))

    return h


@op("shf")
def _shf(m, ins):
    left = "l" in ins.mods
    wrap = "wrap" in ins.mods
    d = m.write(ins.operands[0], "b32")
    a, b, c = (m.read(ins.operands[i], "u32") for i in (1, 2, 3))

    def h(idx):
        lo, hi, n = (np.asarray(x).astype(np.uint64) for x in (a(idx), b(idx), c(idx)))
        n = n & np.uint64(31) if wrap else np.minimum(n, np.uint64(32))
        x = (hi << S32) | lo
        r = ((x << n) >> S32) if left else (x >> n)
        d(idx, (r & M32).astype(np.uint32))

    return h


def _mask64(n):
    n = np.asarray(n, np.uint64)
    return np.where(
        n >= 64, np.uint64(0xFFFFFFFFFFFFFFFF), (np.uint64(1) << np.minimum(n, np.uint64(63))) - np.uint64(1)
    )


@op("bfe")
def _bfe(m, ins):
    t = typ(ins)
    T = D.np_type(t)
    w = 8 * T.itemsize
    d = m.write(ins.operands[0], t)
    a = m.read(ins.operands[1], t)
    b, c = m.read(ins.operands[2], "u32"), m.read(ins.operands[3], "u32")
    U = D.UNSIGNED[T.itemsize]

    def h(idx):
        x = (
            np.asarray(a(idx)).view(U).astype(np.uint64)
            if np.ndim(a(idx))
            else np.uint64(np.asarray(a(idx)).view(U))
        )
        pos = np.asarray(b(idx), np.uint64) & np.uint64(0xFF)
        ln = np.asarray(c(idx), np.uint64) & np.uint64(0xFF)
        field = np.where(pos >= w, np.uint64(0), x >> np.minimum(pos, np.uint64(63))) & _mask64(ln)
        if T.kind == "i":
            sbit_pos = np.minimum(pos + ln - np.uint64(1), np.uint64(w - 1))
            sbit = (x >> sbit_pos) & np.uint64(1)
            sbit = np.where(ln == 0, np.uint64(0), sbit)
            ext = np.where(sbit == 1, ~_mask64(ln), np.uint64(0))
            field = np.where(ln == 0, np.uint64(0), field | ext)
        d(idx, field.astype(U).view(T))

    return h


@op("bfi")
def _bfi(m, ins):
    t = typ(ins)
    T = D.np_type(t)
    w = 8 * T.itemsize
    U = D.UNSIGNED[T.itemsize]
    d = m.write(ins.operands[0], t)
    f, b = m.read(ins.operands[1], t), m.read(ins.operands[2], t)
    c, e = m.read(ins.operands[3], "u32"), m.read(ins.operands[4], "u32")

    def h(idx):
        fv = np.asarray(f(idx)).view(U).astype(np.uint64)
        bv = np.asarray(b(idx)).view(U).astype(np.uint64)
        pos = np.asarray(c(idx), np.uint64) & np.uint64(0xFF)
        ln = np.asarray(e(idx), np.uint64) & np.uint64(0xFF)
        ps = np.minimum(pos, np.uint64(63))
        mask = (_mask64(ln) << ps) & _mask64(np.uint64(w))
        r = np.where(pos >= w, bv, (bv & ~mask) | ((fv << ps) & mask))
        d(idx, r.astype(U).view(T))

    return h


def bit_length(x: np.ndarray) -> np.ndarray:
    x = np.asarray(x, np.uint64).copy()
    n = np.zeros(x.shape, np.uint32)
    for s in (32, 16, 8, 4, 2, 1):
        big = x >= (np.uint64(1) << np.uint64(s))
        n = n + np.where(big, np.uint32(s), np.uint32(0))
        x = np.where(big, x >> np.uint64(s), x)
    return n + (x > 0).astype(np.uint32)


@op("popc")
def _popc(m, ins):
    t = typ(ins)
    d, a = m.write(ins.operands[0], "u32"), m.read(ins.operands[1], t)
    return lambda idx: d(idx, np.bitwise_count(np.asarray(a(idx))).astype(np.uint32))


@op("clz")
def _clz(m, ins):
    t = typ(ins)
    w = 8 * D.np_type(t).itemsize
    U = D.UNSIGNED[w // 8]
    d, a = m.write(ins.operands[0], "u32"), m.read(ins.operands[1], t)
    return lambda idx: d(idx, (np.uint32(w) - bit_length(np.asarray(a(idx)).view(U))).astype(np.uint32))


@op("brev")
def _brev(m, ins):
    t = typ(ins)
    w = 8 * D.np_type(t).itemsize
    U = D.UNSIGNED[w // 8]
    d, a = m.write(ins.operands[0], t), m.read(ins.operands[1], t)

    def h(idx):
        x = np.asarray(a(idx)).view(U)
        by = x.reshape(-1, 1).view(np.uint8) if x.ndim else np.asarray([x]).view(np.uint8)
        bits = np.unpackbits(by.reshape(-1, w // 8), axis=1, bitorder="little")[:, ::-1]
        r = np.packbits(bits, axis=1, bitorder="little").view(U).reshape(-1)
        d(idx, r.view(D.np_type(t)) if x.ndim else r[0].view(D.np_type(t)))

    return h


@op("fns")
def _fns(m, ins):
    raise UnsupportedInstructionError("fns is not supported", line=ins.line)


_PRMT_MODES = PRMT_MODES  # (irc.ptxisa.facts: one table for the emulator and the op semantics)


@op("prmt")
def _prmt(m, ins):
    mode = next((mo for mo in ins.mods if mo in _PRMT_MODES), None)
    d = m.write(ins.operands[0], "b32")
    a, b, c = (m.read(ins.operands[i], "u32") for i in (1, 2, 3))
    table = np.array(_PRMT_MODES[mode], dtype=np.uint64) if mode else None

    def h(idx):
        n = m.count(idx)
        x = (np.broadcast_to(np.asarray(b(idx), np.uint64), (n,)) << S32) | np.asarray(a(idx), np.uint64)
        cv = np.broadcast_to(np.asarray(c(idx), np.uint64), (n,))
        r = np.zeros(n, np.uint64)
        for k in range(4):
            if table is None:
                sel = (cv >> np.uint64(4 * k)) & np.uint64(0xF)
                src = sel & np.uint64(7)
                byte = (x >> (src * np.uint64(8))) & np.uint64(0xFF)
                byte = np.where(
                    sel & np.uint64(8), np.where(byte & np.uint64(0x80), np.uint64(0xFF), np.uint64(0)), byte
                )
            else:
                src = table[(cv & np.uint64(3)).astype(np.int64), k]
                byte = (x >> (src * np.uint64(8))) & np.uint64(0xFF)
            r |= byte << np.uint64(8 * k)
        d(idx, r.astype(np.uint32))

    return h


@op("lop3")
def _lop3(m, ins):
    if isinstance(ins.operands[0], Pair):
        raise UnsupportedInstructionError("lop3 with predicate output is not supported", line=ins.line)
    d = m.write(ins.operands[0], "b32")
    a, b, c = (m.read(ins.operands[i], "u32") for i in (1, 2, 3))
    lut = int(ins.operands[4].value)

    def h(idx):
        x, y, z = np.asarray(a(idx)), np.asarray(b(idx)), np.asarray(c(idx))
        r = np.zeros(np.broadcast(x, y, z).shape, np.uint32)
        for i in range(8):
            if lut >> i & 1:
                r |= (x if i & 4 else ~x) & (y if i & 2 else ~y) & (z if i & 1 else ~z)
        d(idx, r)

    return h


@op("bmsk")
def _bmsk(m, ins):
    clamp = "clamp" in ins.mods
    d = m.write(ins.operands[0], "b32")
    a, b = m.read(ins.operands[1], "u32"), m.read(ins.operands[2], "u32")

    def h(idx):
        pos, ln = np.asarray(a(idx), np.uint64), np.asarray(b(idx), np.uint64)
        if clamp:
            pos, ln = np.minimum(pos, np.uint64(32)), np.minimum(ln, np.uint64(32))
        else:
            pos, ln = pos & np.uint64(31), ln & np.uint64(31)
        r = (_mask64(ln) << pos) & M32
        d(idx, r.astype(np.uint32))

    return h


# ---------------------------------------------------------------------------- compare / select
def _cmp(opn: str, t: str):
    flt = t in ("f16", "f32", "f64", "bf16")
    base = {
        "eq": np.equal,
        "ne": np.not_equal,
        "lt": np.less,
        "le": np.less_equal,
        "gt": np.greater,
        "ge": np.greater_equal,
        "lo": np.less,
        "ls": np.less_equal,
        "hi": np.greater,
        "hs": np.greater_equal,
    }
    if opn in base:
        f = base[opn]
        if flt and opn == "ne":
            return lambda a, b: (a != b) & ~np.isnan(a) & ~np.isnan(b)
        return f
    if opn in ("equ", "neu", "ltu", "leu", "gtu", "geu"):
        f = base[opn[:2]]
        return lambda a, b: f(a, b) | np.isnan(a) | np.isnan(b)
    if opn == "num":
        return lambda a, b: ~np.isnan(a) & ~np.isnan(b)
    if opn == "nan":
        return lambda a, b: np.isnan(a) | np.isnan(b)
    raise UnsupportedInstructionError(f"unknown comparison {opn}")


def _cmp_reader(m, o, t):
    r = m.read(o, t)
    if t == "bf16":
        return lambda idx: D.bf16_to_f32(r(idx))
    return r


_BOOL = {"and": np.logical_and, "or": np.logical_or, "xor": np.logical_xor}


@op("setp")
def _setp(m, ins):
    t = typ(ins)
    cmpop = ins.mods[0]
    f = _cmp(cmpop, t)
    bop = next((_BOOL[mo] for mo in ins.mods[1:] if mo in _BOOL), None)
    dst = ins.operands[0]
    dp, dq = (dst.first, dst.second) if isinstance(dst, Pair) else (dst, None)
    wp = m.write(dp, "pred")
    wq = m.write(dq, "pred") if dq is not None else None
    a, b = _cmp_reader(m, ins.operands[1], t), _cmp_reader(m, ins.operands[2], t)
    c = m.read(ins.operands[3], "pred") if bop is not None else None
    n = m.count

    def h(idx):
        r = np.broadcast_to(f(a(idx), b(idx)), (n(idx),))
        if c is not None:
            cv = c(idx)
            p, q = bop(r, cv), bop(~r, cv)
        else:
            p, q = r, ~r
        wp(idx, p)
        if wq is not None:
            wq(idx, q)

    return h


@op("set")
def _set(m, ins):
    dt, st = types(ins)[-2:]
    f = _cmp(ins.mods[0], st)
    bop = next((_BOOL[mo] for mo in ins.mods[1:] if mo in _BOOL), None)
    d = m.write(ins.operands[0], dt)
    a, b = _cmp_reader(m, ins.operands[1], st), _cmp_reader(m, ins.operands[2], st)
    c = m.read(ins.operands[3], "pred") if bop is not None else None
    T = D.np_type(dt)
    one = T.type(1.0) if T.kind == "f" else D.const(-1, dt)

    def h(idx):
        r = f(a(idx), b(idx))
        if c is not None:
            r = bop(r, c(idx))
        d(idx, np.where(r, one, T.type(0)).astype(T))

    return h


@op("selp")
def _selp(m, ins):
    t = typ(ins)
    T = D.np_type(t)
    d = m.write(ins.operands[0], t)
    a, b = m.read(ins.operands[1], t), m.read(ins.operands[2], t)
    c = m.read(ins.operands[3], "pred")
    return lambda idx: d(idx, np.where(c(idx), a(idx), b(idx)).astype(T))


@op("slct")
def _slct(m, ins):
    dt, ct = types(ins)[-2:]
    T = D.np_type(dt)
    d = m.write(ins.operands[0], dt)
    a, b, c = m.read(ins.operands[1], dt), m.read(ins.operands[2], dt), m.read(ins.operands[3], ct)
    return lambda idx: d(idx, np.where(c(idx) >= 0, a(idx), b(idx)).astype(T))


# ---------------------------------------------------------------------------- float math
_UNARY = {
    "sqrt": np.sqrt,
    "rsqrt": lambda x: 1 / np.sqrt(x),
    "rcp": lambda x: 1 / x,
    "ex2": np.exp2,
    "lg2": np.log2,
    "sin": np.sin,
    "cos": np.cos,
    "tanh": np.tanh,
}


@op(*_UNARY)
def _funary(m, ins):
    t = typ(ins)
    f = _UNARY[ins.base]
    T = D.np_type(t)
    if t in ("f32", "f64"):
        return _unary(m, ins, lambda x: np.asarray(f(x)).astype(T), t)
    return _unary(m, ins, _float_fn(t, lambda x: np.asarray(f(np.asarray(x, np.float32)), np.float32), 1), t)


@op("testp")
def _testp(m, ins):
    t = typ(ins)
    kind = ins.mods[0]
    T = D.np_type(t)
    tiny = np.finfo(T).tiny
    fns = {
        "finite": np.isfinite,
        "infinite": np.isinf,
        "number": lambda x: ~np.isnan(x),
        "notanumber": np.isnan,
        "normal": lambda x: np.isfinite(x) & (np.abs(x) >= tiny),
        "subnormal": lambda x: (np.abs(x) < tiny) & (x != 0),
    }
    f = fns[kind]
    d, a = m.write(ins.operands[0], "pred"), m.read(ins.operands[1], t)
    return lambda idx: d(idx, np.broadcast_to(f(a(idx)), (m.count(idx),)))


# ---------------------------------------------------------------------------- cvt
_INT_RANGE = {
    k: (int(np.iinfo(v).min), int(np.iinfo(v).max))
    for k, v in D.TYPES.items()
    if v.kind in "iu" and k[0] in "us"
}


def _round(x, mode):
    if mode in ("rni",):
        return np.rint(x)
    if mode in ("rmi",):
        return np.floor(x)
    if mode in ("rpi",):
        return np.ceil(x)
    return np.trunc(x)


def cvt_fn(dt: str, st: str, mods: list[str]):
    """The conversion function from values of PTX type st to values of PTX type dt."""
    rmode = next(
        (mo for mo in mods if mo in ("rn", "rz", "rm", "rp", "rni", "rzi", "rmi", "rpi", "rna")), None
    )
    sat = "sat" in mods
    Dt = D.np_type(dt) if dt in D.TYPES else None
    sf, df = st in ("f16", "f32", "f64", "bf16"), dt in ("f16", "f32", "f64", "bf16")

    def src(x):
        return D.bf16_to_f32(x) if st == "bf16" else x

    if dt == "tf32":

        def tf32(x):
            b = np.asarray(x, np.float32).view(np.uint32)
            return ((b + np.uint32(0x1000)) & np.uint32(0xFFFFE000)).astype(np.uint32)

        return tf32
    if sf and df:

        def ff(x):
            v = src(x)
            if rmode in ("rni", "rzi", "rmi", "rpi"):
                v = _round(v, rmode)
            if dt == "bf16":
                r = D.f64_to_bf16(v) if st == "f64" else D.f32_to_bf16(np.asarray(v, np.float32))
            else:
                r = np.asarray(v).astype(Dt)
            if sat and dt != "bf16":
                r = _sat01(r)
            return r

        return ff
    if sf and not df:
        lo, hi = _INT_RANGE[dt]

        def fi(x):
            v = np.asarray(src(x), np.float64)
            v = _round(v, rmode or "rzi")
            v = np.where(np.isnan(v), 0, np.clip(v, lo, hi))
            if Dt.itemsize == 8:
                # float64 cannot hold 2^63 - 1 / 2^64 - 1: the clipped top value reads as 2^63 / 2^64 and
                # would wrap when cast; saturate it explicitly.
                top = 2.0**63 if dt[0] == "s" else 2.0**64
                big = v >= top
                v = np.where(big, 0, v)
                r = (
                    v.astype(np.int64)
                    if dt[0] == "s"
                    else np.where(
                        v >= 2.0**63,
                        (v - 2.0**63).astype(np.uint64) + np.uint64(1 << 63),
                        np.maximum(v, 0).astype(np.uint64),
                    )
                ).astype(Dt)
                return np.where(big, Dt.type(hi), r)
            return (
                v.astype(np.int64 if dt[0] == "s" or Dt.itemsize < 8 else np.uint64).astype(Dt)
                if Dt.itemsize < 8
                else (
                    v.astype(np.int64)
                    if dt[0] == "s"
                    else np.where(
                        v >= 2.0**63,
                        (v - 2.0**63).astype(np.uint64) + np.uint64(1 << 63),
                        np.maximum(v, 0).astype(np.uint64),
                    )
                ).astype(Dt)
            )

        return fi
    if not sf and df:

        def i_f(x):
            if dt == "bf16":  # one rounding: exact through float64 for |x| < 2^53
                return D.int_to_bf16(x)
            r = np.asarray(x).astype(np.float64).astype(Dt) if dt != "f64" else np.asarray(x).astype(Dt)
            return _sat01(r) if sat else r

        return i_f
    lo, hi = _INT_RANGE[dt]

    def ii(x):
        x = np.asarray(x)
        if sat:
            if x.dtype.kind == "u" and x.dtype.itemsize == 8:
                x = np.minimum(x, np.uint64(hi))
            else:
                x = np.clip(x.astype(np.int64) if x.dtype.itemsize < 8 else x, lo, hi)
        return x.astype(Dt)

    return ii


@op("cvt")
def _cvt(m, ins):
    tys = types(ins)
    dt, st = tys[-2], tys[-1]
    if dt in ("f16x2", "bf16x2"):
        half = "bf16" if dt == "bf16x2" else "f16"
        f = cvt_fn(half, st, ins.mods)
        d = m.write(ins.operands[0], "b32")
        a, b = m.read(ins.operands[1], st), m.read(ins.operands[2], st)

        def pack(idx):
            hi = np.asarray(f(a(idx))).view(np.uint16).astype(np.uint32)
            lo = np.asarray(f(b(idx))).view(np.uint16).astype(np.uint32)
            d(idx, (hi << np.uint32(16)) | lo)

        return pack
    f = cvt_fn(dt, st, ins.mods)
    d = m.write(ins.operands[0], "b32" if dt == "tf32" else dt)
    a = m.read(ins.operands[1], st)
    return lambda idx: d(idx, f(a(idx)))


# ---------------------------------------------------------------------------- mov
@op("mov")
def _mov(m, ins):
    t = typ(ins)
    dst, srcop = ins.operands[0], ins.operands[1]
    T = D.np_type(t)
    if isinstance(srcop, Vec) or isinstance(dst, Vec):
        vec = srcop if isinstance(srcop, Vec) else dst
        k = len(vec.items)
        esz = T.itemsize // k
        et = {1: "b8", 2: "b16", 4: "b32"}[esz]
        U = D.UNSIGNED[T.itemsize]
        if isinstance(srcop, Vec):
            rs = [m.read(o, et) for o in srcop.items]
            d = m.write(dst, t)

            def pack(idx):
                acc = np.zeros(m.count(idx), U)
                for i, r in enumerate(rs):
                    acc |= np.asarray(r(idx)).astype(U) << U.type(8 * esz * i)
                d(idx, acc.view(T))

            return pack
        a = m.read(srcop, t)
        ws = [m.write(o, et) for o in dst.items]
        E = D.UNSIGNED[esz]

        def unpack(idx):
            x = np.broadcast_to(np.asarray(a(idx)).view(U), (m.count(idx),))
            for i, w in enumerate(ws):
                w(idx, ((x >> U.type(8 * esz * i)) & U.type((1 << (8 * esz)) - 1)).astype(E))

        return unpack
    d = m.write(dst, t)
    a = m.read(srcop, t)
    n = m.count
    return lambda idx: d(idx, np.broadcast_to(a(idx), (n(idx),)))


@op(
    "nop",
    "membar",
    "fence",
    "nanosleep",
    "prefetch",
    "prefetchu",
    "pmevent",
    "griddepcontrol",
    "setmaxnreg",
    "discard",
    "applypriority",
    "createpolicy",
)
def _nop(m, ins):
    if ins.base in ("membar", "fence") and m.race is not None:
        return lambda idx: None  # no effect, but the race checker orders the fencing thread's accesses
    if ins.base == "createpolicy":
        d = m.write(ins.operands[0], "b64")
        return lambda idx: d(idx, np.zeros(m.count(idx), np.uint64))
    return None


@op("bfind")
def _bfind(m, ins):
    t = typ(ins)
    T = D.np_type(t)
    w = 8 * T.itemsize
    U = D.UNSIGNED[T.itemsize]
    shiftamt = "shiftamt" in ins.mods
    d, a = m.write(ins.operands[0], "u32"), m.read(ins.operands[1], t)

    def h(idx):
        x = np.asarray(a(idx))
        if T.kind == "i":
            x = np.where(x < 0, ~x, x)
        bl = bit_length(np.asarray(x).view(U) if np.ndim(x) else np.asarray([x]).view(U)).astype(np.int64)
        pos = bl - 1
        r = np.where(bl == 0, 0xFFFFFFFF, (w - 1 - pos) if shiftamt else pos)
        d(idx, np.broadcast_to(r.astype(np.uint32), (m.count(idx),)))

    return h
