"""CTA barriers: the waiting half (a barrier ends a block; its threads park) and the one release path.

Why these checks live here: a barrier is released only when every live thread of the CTA has reached a
barrier with the same id; anything else (threads exited, threads at a different barrier id, threads
blocked elsewhere) can never resolve and is reported instead of hanging. `release` is the machine's only
way to wake parked threads: mbarrier waiters when a phase changed, else complete CTA barrier groups.
"""

from __future__ import annotations

import numpy as np

from irc.emu.errors import BarrierError, EmuError
from irc.emu.state import BIG, W_BAR, W_MBAR, W_NONE
from irc.ptxisa.model import Instr


def release(m) -> bool:
    """Wake parked threads that can continue: mbarrier waiters after a phase change first (they re-run
    their wait), else every complete CTA barrier group. False when nothing could be released."""
    if m.mbar_changed:
        m.mbar_changed = False
        w = np.flatnonzero(m.wait == W_MBAR)
        if len(w):
            m.wait[w] = W_NONE
            m.sched[w] = m.pc[w]
            return True
    if m.asyncq is None or not m.asyncq.pending:
        return release_barriers(m)
    try:
        if release_barriers(m):
            return True
    except EmuError:
        pass  # a barrier that cannot complete yet: pending asynchronous work may still unblock it
    return m.asyncq.drain_one()  # nothing can run: one pending asynchronous operation completes


# ---------------------------------------------------------------------------- CTA barriers
def bar_operands(ins: Instr):
    """(dest, id operand, count operand or None, pred operand or None, reduction op) for bar/barrier."""
    mods = ins.mods
    ops = list(ins.operands)
    red = next((mo for mo in mods if mo in ("popc", "and", "or")), None) if "red" in mods else None
    dest = ops.pop(0) if red else None
    pred = ops.pop() if red else None
    bid = ops[0] if ops else None
    cnt = ops[1] if len(ops) > 1 else None
    return dest, bid, cnt, pred, red


def barrier_terminator(m, ins: Instr, bi: int, nxt, fall):
    dest, bid, cnt, pred, red = bar_operands(ins)
    cluster = ins.opcode.startswith("barrier.cluster")  # cluster of one CTA: a CTA-wide barrier, id 15
    if cluster:
        bid = None
    rid = m.read(bid, "u32") if bid is not None else (lambda idx: np.uint32(15 if cluster else 0))
    rcnt = m.read(cnt, "u32") if cnt is not None else None
    rpred = m.read(pred, "pred") if pred is not None else None
    hid = len(m.release_cbs) + 1
    # `bar.sync` / `bar.red` are `barrier.sync.aligned`: every thread of a warp must run the same one
    m.release_cbs[hid] = None
    if ins.base == "bar" or "aligned" in ins.mods:
        m.extra.setdefault("aligned_hids", set()).add(hid)
    if red:
        vals = m.extra.setdefault("bar_val", np.zeros(m.N, dtype=np.bool_))
        wd = m.write(dest, "u32" if red == "popc" else "pred")

        def on_release(ids):
            cta = m.cta[ids]
            v = vals[ids]
            tot = np.bincount(cta, weights=v.astype(np.float64), minlength=m.ncta)
            num = np.bincount(cta, minlength=m.ncta)
            if red == "popc":
                wd(ids, tot[cta].astype(np.uint32))
            elif red == "and":
                wd(ids, tot[cta] == num[cta])
            else:
                wd(ids, tot[cta] > 0)

        m.release_cbs[hid] = on_release

    def term(idx):
        t, f = m._split(ins, idx)
        if f is not None:
            fall(f)
        ids = m.ids(t)
        if len(ids) == 0:
            return
        m.pc[ids] = nxt
        m.sched[ids] = BIG
        m.wait[ids] = W_BAR
        m.wait_bar[ids] = np.broadcast_to(np.asarray(rid(t), np.int64) & 15, (len(ids),))
        m.wait_cnt[ids] = 0 if rcnt is None else np.broadcast_to(np.asarray(rcnt(t), np.int64), (len(ids),))
        m.wait_line[ids] = ins.line
        m.wait_hid[ids] = hid
        if red:
            m.extra["bar_val"][ids] = np.broadcast_to(rpred(t), (len(ids),))

    return term


def _check_aligned(m, rel: np.ndarray) -> None:
    """A barrier generation about to be released whose threads of one warp wait at different `.aligned`
    barrier instructions (`__syncthreads()` in code only some lanes run, with another `__syncthreads()`
    completing it): on a GPU undefined, typically a hang or a barrier that releases at the wrong place.
    Named here, at the barrier whose participants diverged, not at a later one that then hangs."""
    al = m.extra.get("aligned_hids")
    if not al:
        return
    wl = m.wait_line[rel]
    if (wl == wl[0]).all():  # the common case: one barrier instruction
        return
    hid = m.wait_hid[rel]
    sel = np.isin(hid, list(al))
    if not sel.any():
        return
    # by PTX line: the inlined copies of one callee's barrier (irc/emu/inline.py) are one instruction
    r = rel[sel]
    key = m.gwarp[r].astype(np.int64) * (1 << 32) + m.wait_line[r].astype(np.int64)
    gw_of_key = np.unique(key) >> 32
    dup = np.unique(gw_of_key[np.flatnonzero(np.diff(gw_of_key) == 0)])
    if len(dup) == 0:
        return
    w0 = int(dup[0])
    mine = r[m.gwarp[r] == w0]
    lines = sorted(set(int(x) for x in m.wait_line[mine]))
    counts = {ln: int((m.wait_line[mine] == ln).sum()) for ln in lines}
    few = min(lines, key=lambda ln: (counts[ln], ln))  # the barrier fewer lanes reached: the divergent one
    others = ", ".join(f"line {ln} ({counts[ln]} lane(s))" for ln in lines if ln != few)
    raise m.error(
        BarrierError,
        f"lanes of one warp reach different barriers that complete together: the barrier at line {few} "
        f"({counts[few]} lane(s)) and {others}; `bar.sync` (`__syncthreads()`) is `.aligned`: every thread of "
        f"a warp must execute the same one, so the barrier at line {few} sits in code that depends on the "
        "thread (hoist it out of the branch)",
        mine[m.wait_line[mine] == few],
        few,
    )


def release_barriers(m) -> bool:
    """Release every complete barrier group; report a barrier that can never complete."""
    w = np.flatnonzero(m.wait == W_BAR)
    if len(w) == 0:
        return False
    cta = m.cta[w]
    key = cta * 16 + m.wait_bar[w]
    uk, first, inv, counts = np.unique(key, return_index=True, return_inverse=True, return_counts=True)
    uc, ub = uk // 16, uk % 16
    expected = m.wait_cnt[w[first]].astype(np.int64)
    expected = np.where(expected == 0, m.tpc, expected)
    arrivals = counts + m.bar_arrivals[uc, ub]
    ok = arrivals >= expected
    if ok.any():
        rel = w[ok[inv]]
        _check_aligned(m, rel)
        m.bar_arrivals[uc[ok], ub[ok]] = 0
        m.wait[rel] = W_NONE
        m.sched[rel] = m.pc[rel]
        m.sync_clock += 1
        m.rel_epoch[rel] = m.sync_clock
        if m.proxy is not None:
            m.proxy.on_release(rel)
        if m.race is not None:
            m.race.on_release(rel)
        for hid in np.unique(m.wait_hid[rel]):
            cb = m.release_cbs.get(int(hid))
            if cb is not None:
                sel = rel[m.wait_hid[rel] == hid]
                cb(sel)
        return True
    # nothing can be released: explain the first stuck CTA
    c0 = int(uc[0])
    in_cta = np.flatnonzero(m.cta == c0)
    live = in_cta[m.pc[in_cta] >= 0]
    exited = in_cta[m.pc[in_cta] < 0]
    waiting = in_cta[m.wait[in_cta] == W_BAR]
    ids_here = np.unique(m.wait_bar[waiting])
    line = int(m.wait_line[waiting[0]])
    if len(ids_here) > 1:
        lines = sorted({(int(m.wait_bar[t]), int(m.wait_line[t])) for t in waiting})
        a = waiting[m.wait_bar[waiting] == ids_here[0]][:2]
        b = waiting[m.wait_bar[waiting] == ids_here[1]][:2]
        raise m.error(
            BarrierError,
            "threads of one block wait at different barriers "
            + ", ".join(f"id {i} (line {ln})" for i, ln in lines),
            np.concatenate([a, b]),
            line,
        )
    if len(exited) and len(waiting) == len(live):
        raise m.error(
            BarrierError,
            f"barrier at line {line} is not reachable by {len(exited)} thread(s) of the "
            f"block that already exited (e.g. threads listed)",
            exited,
            line,
        )
    others = np.setdiff1d(live, waiting)
    mb = others[m.wait[others] == W_MBAR] if len(others) else others
    if len(mb):  # the real hang is at the mbarrier: report its state, not this barrier
        from irc.emu.async_engine import mbarrier_hang

        raise mbarrier_hang(m, mb)
    if len(others):
        raise m.error(
            BarrierError,
            f"barrier at line {line} waits for threads that are blocked elsewhere "
            f"(e.g. at an mbarrier wait, line {int(m.wait_line[others[0]])})",
            others,
            line,
        )
    raise m.error(
        BarrierError,
        f"barrier at line {line} expects {int(expected[0])} threads but only {int(arrivals[0])} arrive",
        waiting,
        line,
    )
