"""Loads, stores, atomics, address conversion and cp.async.

Why atomics run in "rounds": lanes hitting the same address must see each other's updates in some serial
order, and each must get the old value its own update saw. Lanes are ranked within their address group
(in lane order) and rank r of every group is applied in one vectorized step, so a conflict-free atomic is
one gather/scatter and a histogram costs (max conflicts) small steps. Integer adds use a segmented prefix
sum instead.
"""

from __future__ import annotations

import numpy as np

from irc.emu import dtypes as D
from irc.emu.atomics import atomic
from irc.emu.errors import UnsupportedInstructionError
from irc.emu.memory import load, store
from irc.emu.ops_alu import typ
from irc.emu.ops_mbar import cp_async_mbarrier_arrive
from irc.emu.registry import op
from irc.emu.state import LWIN, PWIN, SHWIN
from irc.ptxisa.model import Instr, Vec

SPACES = ("global", "shared", "local", "param", "const")


def space_of(ins: Instr) -> str:
    for mo in ins.mods:
        s = mo.split("::")[0]
        if s in SPACES:
            return s
    return "generic"


def vec_n(ins: Instr) -> int:
    for mo in ins.mods:
        if mo in ("v2", "v4", "v8"):
            return int(mo[1:])
    return 1


def _items(o) -> list:
    return list(o.items) if isinstance(o, Vec) else [o]


def _mem_type(t: str) -> tuple[str, np.dtype]:
    if t == "b128":
        return "b64", np.dtype(np.uint64)
    return t, D.np_type(t)


@op("ld", "ldu")
def _ld(m, ins):
    t, T = _mem_type(typ(ins))
    sp = space_of(ins)
    dst = _items(ins.operands[0])
    n = len(dst)
    if typ(ins) == "b128":
        raise UnsupportedInstructionError("128-bit loads are not supported", line=ins.line)
    ws = [m.write(o, t) for o in dst]
    ad = m.addr(ins.operands[1])

    def h(idx):
        ids = m.ids(idx)
        vals = load(m, sp, ad(idx), ids, T, n)
        for w, v in zip(ws, vals):
            w(idx, v)

    return h


@op("st")
def _st(m, ins):
    t, T = _mem_type(typ(ins))
    sp = space_of(ins)
    src = _items(ins.operands[1])
    rs = [m.read(o, t) for o in src]
    ad = m.addr(ins.operands[0])

    def h(idx):
        ids = m.ids(idx)
        store(m, sp, ad(idx), ids, T, [r(idx) for r in rs])

    return h


# ---------------------------------------------------------------------------- atomics
_ATOM_OPS = ("add", "min", "max", "inc", "dec", "and", "or", "xor", "exch", "cas")


@op("atom", "red")
def _atom(m, ins):
    t = typ(ins)
    if t in ("f16", "bf16", "f16x2", "bf16x2") or vec_n(ins) > 1:
        raise UnsupportedInstructionError(f"{ins.opcode} is not supported", line=ins.line)
    T = D.np_type(t)
    sp = space_of(ins)
    opn = next(mo for mo in ins.mods if mo in _ATOM_OPS)
    ops = list(ins.operands)
    d = None
    if ins.base == "atom":
        d = m.write(ops.pop(0), t)
    ad = m.addr(ops[0])
    b = m.read(ops[1], t)
    c = m.read(ops[2], t) if opn == "cas" else None

    def h(idx):
        ids = m.ids(idx)
        old = atomic(m, sp, ad(idx), ids, T, opn, b(idx), c(idx) if c is not None else None)
        if d is not None:
            d(idx, old)

    return h


# ---------------------------------------------------------------------------- address conversion
_WIN = {"shared": SHWIN, "local": LWIN, "param": PWIN, "global": 0, "const": 0}


@op("cvta")
def _cvta(m, ins):
    t = typ(ins)
    to = "to" in ins.mods
    sp = next(mo.split("::")[0] for mo in ins.mods if mo.split("::")[0] in _WIN)
    win = np.uint64(_WIN[sp])
    d, a = m.write(ins.operands[0], t), m.read(ins.operands[1], "u64")
    T = D.np_type(t)

    def h(idx):
        v = np.asarray(a(idx), np.uint64)
        if to:
            r = np.where(v >= win, v - win, v) if win else v
        else:
            r = v + win
        d(idx, np.broadcast_to(r.astype(T), (m.count(idx),)))

    return h


@op("isspacep")
def _isspacep(m, ins):
    sp = ins.mods[0].split("::")[0]
    d, a = m.write(ins.operands[0], "pred"), m.read(ins.operands[1], "u64")

    def h(idx):
        v = np.asarray(a(idx), np.uint64)
        if sp == "shared":
            r = (v >= np.uint64(SHWIN)) & (v < np.uint64(SHWIN + m.shsize))
        elif sp == "local":
            r = (v >= np.uint64(LWIN)) & (v < np.uint64(LWIN + m.lsize))
        elif sp == "param":
            r = (v >= np.uint64(PWIN)) & (v < np.uint64(PWIN + m.pbuf.size))
        else:
            r = v < np.uint64(PWIN)
        d(idx, np.broadcast_to(r, (m.count(idx),)))

    return h


# ---------------------------------------------------------------------------- cp.async (Ampere)
@op("cp.async")
def _cp_async(m, ins):
    mods = ins.mods
    if mods[1] in ("commit_group", "wait_group", "wait_all"):
        return None
    if mods[1] == "mbarrier":
        return cp_async_mbarrier_arrive(m, ins)
    ops = list(ins.operands)
    dst, src = m.addr(ops[0]), m.addr(ops[1])
    size = int(ops[2].value)
    srcsz = None
    ignore = None
    if len(ops) > 3:
        o = ops[3]
        if _is_pred(m, o):
            ignore = m.read(o, "pred")
        else:
            srcsz = m.read(o, "u32")
    if len(ops) > 4 and _is_pred(m, ops[4]):
        ignore = m.read(ops[4], "pred")
    E = {4: np.dtype(np.uint32), 8: np.dtype(np.uint64), 16: np.dtype(np.uint32)}[size]
    nv = 4 if size == 16 else 1

    def h(idx):
        ids = m.ids(idx)
        n = len(ids)
        sa = src(idx)
        da = dst(idx)
        full = np.ones(n, bool)
        if srcsz is not None:
            full = np.broadcast_to(np.asarray(srcsz(idx), np.int64), (n,)) >= size
        if ignore is not None:
            full = full & ~np.broadcast_to(ignore(idx), (n,))
        if full.all():
            vals = load(m, "global", sa, ids, E, nv)
            store(m, "shared", da, ids, E, vals)
            return
        nb = (
            np.broadcast_to(np.asarray(srcsz(idx), np.int64), (n,)) if srcsz is not None else np.full(n, size)
        )
        if ignore is not None:
            nb = np.where(np.broadcast_to(ignore(idx), (n,)), 0, nb)
        u8 = np.dtype(np.uint8)
        for k in range(size):
            has = nb > k
            v = np.zeros(n, np.uint8)
            if has.any():
                v[has] = load(m, "global", sa[has] + np.uint64(k), ids[has], u8, 1)[0]
            store(m, "shared", da + np.uint64(k), ids, u8, [v])

    return h


def _is_pred(m, o) -> bool:
    name = getattr(o, "name", None)
    return name is not None and name in m.regs and m.regs[name].dtype == np.bool_
