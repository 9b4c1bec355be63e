"""Warp collectives and `bar.arrive` (the barrier waits and their release are in `irc.emu.barriers`).

Why these checks live here: a barrier is released only when every live thread of the CTA has reached a
barrier with the same id; anything else (threads exited, threads at a different barrier id, threads
blocked elsewhere) can never resolve and is reported instead of hanging. A warp collective runs over the
lanes of each warp that execute it together; a member mask naming a lane that is not executing is a
reported error (on hardware: undefined behaviour or a hang).
"""

from __future__ import annotations

import numpy as np

from irc.emu import dtypes as D
from irc.emu.errors import CollectiveMaskError
from irc.emu.ops_alu import typ
from irc.emu.registry import op
from irc.ptxisa.model import Instr, Pair


@op("bar.arrive", "barrier.arrive", "bar.cta.arrive", "barrier.cta.arrive")
def _bar_arrive(m, ins):
    rid = m.read(ins.operands[0], "u32")

    def h(idx):
        ids = m.ids(idx)
        bid = np.broadcast_to(np.asarray(rid(idx), np.int64) & 15, (len(ids),))
        np.add.at(m.bar_arrivals, (m.cta[ids], bid), 1)

    return h


# ---------------------------------------------------------------------------- warp collectives
def present_mask(m, ids: np.ndarray) -> np.ndarray:
    """Per warp: the bitmask of lanes executing now."""
    wts = np.ldexp(1.0, m.lane[ids].astype(np.int32))
    return np.bincount(m.gwarp[ids], weights=wts, minlength=m.nwarps).astype(np.uint64).astype(np.uint32)


def check_mask(m, ins: Instr, ids: np.ndarray, mask, present: np.ndarray) -> None:
    """The member mask against the lanes that execute the collective together: every lane it names must be
    executing it, and every executing lane must be in its own mask (PTX ISA: otherwise undefined; on a GPU
    a hang or values from lanes that never arrive)."""
    gw = m.gwarp[ids]
    mk = np.broadcast_to(np.asarray(mask, np.uint32), (len(ids),))
    missing = mk & ~present[gw]
    if missing.any():
        bad = missing != 0
        lanes = [i for i in range(32) if int(missing[bad][0]) >> i & 1]
        absent = int(missing[bad][0]) & ~int(m.warp_exist[gw[bad][0]])
        why = " (lanes past the end of the block, which do not exist)" if absent else ""
        raise m.error(
            CollectiveMaskError,
            f"{ins.opcode} member mask {int(mk[bad][0]):#010x} names lanes "
            f"{lanes[:8]} that are not executing it{why}",
            ids[bad],
        )
    own = (mk >> m.lane[ids]) & np.uint32(1)
    if (own == 0).any():
        bad = own == 0
        lanes = sorted(set(int(x) for x in m.lane[ids][bad].tolist()))
        raise m.error(
            CollectiveMaskError,
            f"{ins.opcode} is executed by lanes {lanes[:8]}{' ...' if len(lanes) > 8 else ''} that its member "
            f"mask {int(mk[bad][0]):#010x} leaves out: every lane that executes a `.sync` collective must be in "
            "its mask (use the mask of the lanes that take this path, e.g. `__activemask()` or a "
            "branch-specific mask)",
            ids[bad],
        )


def coll_prologue(m, ins, idx, maskr):
    ids = m.ids(idx)
    pres = present_mask(m, ids)
    mask = maskr(idx) if maskr is not None else np.uint32(0xFFFFFFFF)
    check_mask(m, ins, ids, mask, pres)
    return ids, pres, np.broadcast_to(np.asarray(mask, np.uint32), (len(ids),))


@op("shfl")
def _shfl(m, ins):
    mode = next(mo for mo in ins.mods if mo in ("up", "down", "bfly", "idx"))
    t = typ(ins)
    dst = ins.operands[0]
    dd, dp = (dst.first, dst.second) if isinstance(dst, Pair) else (dst, None)
    wd = m.write(dd, t)
    wp = m.write(dp, "pred") if dp is not None else None
    a, b, c = m.read(ins.operands[1], t), m.read(ins.operands[2], "u32"), m.read(ins.operands[3], "u32")
    maskr = m.read(ins.operands[4], "u32") if len(ins.operands) > 4 else None
    T = D.np_type(t)

    def h(idx):
        ids, _, _ = coll_prologue(m, ins, idx, maskr)
        n = len(ids)
        table = np.zeros(m.nwarps * 32, T)
        table[m.slot[ids]] = a(idx)
        lane = m.lane[ids].astype(np.int64)
        bv = np.broadcast_to(np.asarray(b(idx), np.int64) & 0x1F, (n,))  # shfl reads b[4:0] only
        cv = np.broadcast_to(np.asarray(c(idx), np.int64), (n,))
        seg = (cv >> 8) & 0x1F
        maxl = (lane & seg) | (cv & 0x1F & ~seg)
        minl = lane & seg
        if mode == "up":
            j = lane - bv
            ok = j >= maxl
        elif mode == "down":
            j = lane + bv
            ok = j <= maxl
        elif mode == "bfly":
            j = lane ^ bv
            ok = j <= maxl
        else:
            j = minl | (bv & ~seg)
            ok = j <= maxl
        j = np.where(ok, j, lane)
        wd(idx, table[m.gwarp[ids] * 32 + j])
        if wp is not None:
            wp(idx, ok)

    return h


def _ballot(m, ids, pv):
    wts = np.where(pv, np.ldexp(1.0, m.lane[ids].astype(np.int32)), 0.0)
    return np.bincount(m.gwarp[ids], weights=wts, minlength=m.nwarps).astype(np.uint64).astype(np.uint32)


@op("vote")
def _vote(m, ins):
    mode = next(mo for mo in ins.mods if mo in ("all", "any", "uni", "ballot"))
    sync = "sync" in ins.mods
    d = m.write(ins.operands[0], "b32" if mode == "ballot" else "pred")
    p = m.read(ins.operands[1], "pred")
    maskr = m.read(ins.operands[2], "u32") if sync and len(ins.operands) > 2 else None

    def h(idx):
        ids, pres, mask = coll_prologue(m, ins, idx, maskr)
        gw = m.gwarp[ids]
        pv = np.broadcast_to(p(idx), (len(ids),))
        ball = _ballot(m, ids, pv)[gw] & mask
        part = pres[gw] & mask
        if mode == "ballot":
            d(idx, ball)
        elif mode == "any":
            d(idx, ball != 0)
        elif mode == "all":
            d(idx, ball == part)
        else:
            d(idx, (ball == part) | (ball == 0))

    return h


@op("activemask")
def _activemask(m, ins):
    d = m.write(ins.operands[0], "b32")

    def h(idx):
        ids = m.ids(idx)
        d(idx, present_mask(m, ids)[m.gwarp[ids]])

    return h


@op("elect")
def _elect(m, ins):
    dst = ins.operands[0]
    dd, dp = (dst.first, dst.second) if isinstance(dst, Pair) else (dst, None)
    wd = m.write(dd, "b32")
    wp = m.write(dp, "pred") if dp is not None else None
    maskr = m.read(ins.operands[1], "u32")

    def h(idx):
        ids, pres, mask = coll_prologue(m, ins, idx, maskr)
        eligible = pres[m.gwarp[ids]] & mask
        low = np.bitwise_count((eligible & (~eligible + np.uint32(1))) - np.uint32(1)).astype(np.uint32)
        wd(idx, low)
        if wp is not None:
            wp(idx, (m.lane[ids] == low) & (eligible != 0))

    return h


@op("redux")
def _redux(m, ins):
    kind = next(mo for mo in ins.mods if mo in ("add", "min", "max", "and", "or", "xor"))
    t = typ(ins)
    T = D.np_type(t)
    d, a = m.write(ins.operands[0], t), m.read(ins.operands[1], t)
    maskr = m.read(ins.operands[2], "u32")
    ufn = {
        "min": np.minimum,
        "max": np.maximum,
        "and": np.bitwise_and,
        "or": np.bitwise_or,
        "xor": np.bitwise_xor,
    }

    def h(idx):
        ids, pres, mask = coll_prologue(m, ins, idx, maskr)
        gw = m.gwarp[ids]
        v = np.broadcast_to(np.asarray(a(idx), T), (len(ids),))
        if kind == "add":
            acc = np.zeros(m.nwarps, np.uint64)
            np.add.at(acc, gw, v.view(D.UNSIGNED[4]).astype(np.uint64))
            res = (acc & np.uint64(0xFFFFFFFF)).astype(np.uint32).view(T)
        else:
            f = ufn[kind]
            init = {
                "min": np.iinfo(T).max,
                "max": np.iinfo(T).min,
                "and": -1 if T.kind == "i" else np.iinfo(T).max,
                "or": 0,
                "xor": 0,
            }[kind]
            res = np.full(m.nwarps, init, T)
            f.at(res, gw, v)
        d(idx, res[gw])

    return h


@op("match")
def _match(m, ins):
    t = typ(ins)
    T = D.np_type(t)
    alls = "all" in ins.mods
    dst = ins.operands[0]
    dd, dp = (dst.first, dst.second) if isinstance(dst, Pair) else (dst, None)
    wd = m.write(dd, "b32")
    wp = m.write(dp, "pred") if dp is not None else None
    a = m.read(ins.operands[1], t)
    maskr = m.read(ins.operands[2], "u32")

    def h(idx):
        ids, pres, mask = coll_prologue(m, ins, idx, maskr)
        gw = m.gwarp[ids]
        v = np.broadcast_to(np.asarray(a(idx), T), (len(ids),))
        table = np.zeros(m.nwarps * 32, T)
        table[m.slot[ids]] = v
        part = pres[gw] & mask
        res = np.zeros(len(ids), np.uint32)
        for j in range(32):
            same = (table[gw * 32 + j] == v) & ((part >> np.uint32(j)) & np.uint32(1)).astype(bool)
            res |= np.where(same, np.uint32(1 << j), np.uint32(0))
        if alls:
            eq = res == part
            wd(idx, np.where(eq, part, np.uint32(0)))
            if wp is not None:
                wp(idx, eq)
        else:
            wd(idx, res)

    return h


@op("barrier.cluster.arrive", "mapa")
def _cluster_one(m, ins):
    """Launches are clusters of one CTA: cluster arrive is subsumed by the wait; mapa maps to itself."""
    if ins.base == "mapa":
        t = ins.mods[-1]
        d, a = m.write(ins.operands[0], t), m.read(ins.operands[1], t)
        return lambda idx: d(idx, np.broadcast_to(a(idx), (m.count(idx),)))
    return None


@op("bar.warp", "bar.warp.sync")
def _bar_warp(m, ins):
    maskr = m.read(ins.operands[0], "u32")

    def h(idx):
        coll_prologue(m, ins, idx, maskr)

    return h
