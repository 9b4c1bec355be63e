"""mbarrier objects, cp.async.mbarrier.arrive, and TMA (cp.async.bulk.tensor / cp.async.bulk).

Why state lives in a side table: the 8-byte mbarrier in shared memory is opaque to the program, so the
emulator keeps {phase, pending arrivals, expected arrivals, tx-count} per (CTA, shared offset), marking the
bytes written for poison tracking. Async copies complete immediately and then do their complete_tx.
A wait whose phase is not complete parks the thread (cfg.py makes the wait start its block); it is woken
whenever any phase completes, and a park that nothing can ever complete is reported as a deadlock.
"""

from __future__ import annotations

import numpy as np

from irc.emu.errors import EmuError, UnsupportedInstructionError
from irc.emu.memory import load, locate, mark_written, store
from irc.emu.registry import op
from irc.emu.state import BIG, PWIN, W_MBAR
from irc.emu.tensormap import decode_tensormap
from irc.ptxisa.model import Instr


def mbar_keys(m, ad, idx, ids):
    ((_, bidx, _, _),) = locate(m, "shared", ad(idx), ids, 8)
    return bidx  # global smem byte index = cta * shsize + offset: unique per (CTA, barrier)


def _get(m, key: int, ids) -> list[int]:
    st = m.mbar.get(int(key))
    if st is None:
        raise m.error(
            EmuError,
            f"mbarrier at shared offset {int(key) % m.shsize:#x} used before mbarrier.init",
            ids,
            kind="mbarrier-uninit",
        )
    return st


def mbar_arrive(m, key: int, count: int, tx: int, ids) -> int:
    """Apply `count` arrivals and `tx` expected bytes; return the phase before (the state token)."""
    st = _get(m, key, ids)
    phase = st[0]
    st[3] += tx
    st[1] -= count
    if st[1] < 0:
        raise m.error(
            EmuError,
            f"mbarrier received more arrivals than expected ({st[2]})",
            ids,
            kind="mbarrier-overflow",
        )
    _maybe_complete(m, st)
    return phase


def _maybe_complete(m, st: list[int]) -> None:
    if st[1] == 0 and st[3] == 0:
        st[0] += 1
        st[1] = st[2]
        m.mbar_changed = True
        if m.race is not None:
            m.race.on_phase()


def complete_tx(m, key: int, nbytes: int, ids) -> None:
    if m.asyncq is not None and m.asyncq.capture is not None:  # an async copy: completes later
        m.asyncq.defer(lambda: complete_tx(m, key, nbytes, ids))
        return
    st = _get(m, key, ids)
    st[3] -= nbytes
    _maybe_complete(m, st)


@op("mbarrier")
def _mbarrier(m, ins: Instr):
    kind = ins.mods[0]
    if kind == "init":
        return _init(m, ins)
    if kind in ("arrive", "arrive_drop"):
        return _arrive_op(m, ins)
    if kind == "expect_tx":
        ad, tx = m.addr(ins.operands[0]), m.read(ins.operands[1], "u32")

        def expect(idx):
            ids = m.ids(idx)
            keys = mbar_keys(m, ad, idx, ids)
            txs = np.broadcast_to(np.asarray(tx(idx), np.int64), (len(ids),))
            for k, t in zip(keys.tolist(), txs.tolist()):
                _get(m, k, ids)[3] += t

        return expect
    if kind == "complete_tx":
        ad, tx = m.addr(ins.operands[0]), m.read(ins.operands[1], "u32")

        def ctx(idx):
            ids = m.ids(idx)
            for k, t in zip(
                mbar_keys(m, ad, idx, ids).tolist(),
                np.broadcast_to(np.asarray(tx(idx), np.int64), (len(ids),)).tolist(),
            ):
                complete_tx(m, k, t, ids)

        return ctx
    if kind in ("test_wait", "try_wait"):
        return _wait(m, ins)
    if kind == "inval":
        ad = m.addr(ins.operands[0])

        def inval(idx):
            ids = m.ids(idx)
            for k in np.unique(mbar_keys(m, ad, idx, ids)).tolist():
                m.mbar.pop(int(k), None)

        return inval
    if kind == "pending_count":
        d, s = m.write(ins.operands[0], "u32"), m.read(ins.operands[1], "u64")
        return lambda idx: d(idx, (np.asarray(s(idx), np.uint64) >> np.uint64(32)).astype(np.uint32))
    raise UnsupportedInstructionError(f"{ins.opcode} is not supported", line=ins.line)


def _init(m, ins):
    ad, cnt = m.addr(ins.operands[0]), m.read(ins.operands[1], "u32")

    def init(idx):
        ids = m.ids(idx)
        keys = mbar_keys(m, ad, idx, ids)
        cnts = np.broadcast_to(np.asarray(cnt(idx), np.int64), (len(ids),))
        for k, c in zip(keys.tolist(), cnts.tolist()):
            m.mbar[int(k)] = [0, int(c), int(c), 0]
        mark_written(m, keys, 8)

    return init


def _arrive_op(m, ins):
    ops = list(ins.operands)
    dest = ops.pop(0) if not _is_addr(ops[0]) else None
    ad = m.addr(ops[0])
    expect_tx = "expect_tx" in ins.mods
    drop = ins.mods[0] == "arrive_drop"
    extra = m.read(ops[1], "u32") if len(ops) > 1 else None
    wd = m.write(dest, "b64") if dest is not None else None

    def arrive(idx):
        ids = m.ids(idx)
        n = len(ids)
        keys = mbar_keys(m, ad, idx, ids)
        ex = np.broadcast_to(np.asarray(extra(idx), np.int64), (n,)) if extra is not None else None
        tok = np.zeros(n, np.uint64)
        for i, k in enumerate(keys.tolist()):
            cnt, tx = 1, 0
            if ex is not None:
                if expect_tx:
                    tx = int(ex[i])
                else:
                    cnt = int(ex[i])
            if drop:
                _get(m, k, ids[i : i + 1])[2] -= cnt
            tok[i] = mbar_arrive(m, k, cnt, tx, ids[i : i + 1])
        if wd is not None:
            wd(idx, tok)

    return arrive


def _is_addr(o) -> bool:
    from irc.ptxisa.model import Addr

    return isinstance(o, Addr)


def _wait(m, ins):
    """try_wait/test_wait: threads whose phase is complete continue with p=true; others park here."""
    parity = "parity" in ins.mods
    dp = m.write(ins.operands[0], "pred")
    ad = m.addr(ins.operands[1])
    tok = m.read(ins.operands[2], "u64")

    def wait(idx):
        ids = m.ids(idx)
        keys = mbar_keys(m, ad, idx, ids)
        t = np.broadcast_to(np.asarray(tok(idx), np.uint64), (len(ids),))
        done = np.zeros(len(ids), bool)
        for i, k in enumerate(keys.tolist()):
            phase = _get(m, k, ids[i : i + 1])[0]
            if parity:
                done[i] = (phase & 1) != (int(t[i]) & 1)
            else:
                done[i] = phase > int(t[i])
        if done.all():
            dp(idx, done)
            return None
        stuck = ids[~done]
        m.wait_key[stuck] = np.asarray(keys, np.int64)[~done]
        m.wait[stuck] = W_MBAR
        m.sched[stuck] = BIG
        m.pc[stuck] = m.cur_block
        m.wait_line[stuck] = ins.line
        go = ids[done]
        dp(go, np.ones(len(go), bool))
        return go

    return wait


def cp_async_mbarrier_arrive(m, ins):
    noinc = "noinc" in ins.mods
    ad = m.addr(ins.operands[0])

    def arrive(idx):
        if not noinc:  # the pending count was raised and is lowered by the (already done) copies
            return
        ids = m.ids(idx)
        for i, k in enumerate(mbar_keys(m, ad, idx, ids).tolist()):
            mbar_arrive(m, k, 1, 0, ids[i : i + 1])

    return arrive


# ---------------------------------------------------------------------------- TMA
def _tmap_bytes(m, addr: int, ids) -> bytes:
    a = np.array([addr], np.uint64)
    vals = load(m, "generic", a, ids[:1], np.dtype(np.uint8), 128)
    return bytes(int(v[0]) for v in vals)


@op("cp.reduce.async.bulk.tensor")
def _reduce_tensor(m, ins):
    return _tensor(m, ins)


@op("cp.async.bulk")
def _bulk(m, ins):
    mods = ins.mods
    if mods[2] in ("commit_group", "wait_group"):
        return None
    if mods[2] == "tensor":
        return _tensor(m, ins)
    if mods[2] == "prefetch":
        return None
    # cp.async.bulk.dst.src.completion [dst], [src], size{, [mbar]}
    dst_sp, src_sp = mods[2].split("::")[0], mods[3].split("::")[0]
    d, s = m.addr(ins.operands[0]), m.addr(ins.operands[1])
    size = m.read(ins.operands[2], "u32")
    mb = m.addr(ins.operands[3]) if len(ins.operands) > 3 and "mbarrier" in ins.opcode else None
    u8 = np.dtype(np.uint8)

    def bulk(idx):
        ids = m.ids(idx)
        da, sa = d(idx), s(idx)
        sz = np.broadcast_to(np.asarray(size(idx), np.int64), (len(ids),))
        keys = mbar_keys(m, mb, idx, ids) if mb is not None else None
        for i in range(len(ids)):
            n = int(sz[i])
            one = ids[i : i + 1]
            vals = load(m, src_sp, np.array([sa[i]], np.uint64), one, u8, n)
            store(m, dst_sp, np.array([da[i]], np.uint64), one, u8, vals)
            if keys is not None:
                complete_tx(m, int(keys[i]), n, one)

    return bulk


def _tensor(m, ins):
    mods = ins.mods
    dim = int(next(mo for mo in mods if len(mo) == 2 and mo[1] == "d" and mo[0].isdigit())[0])
    spaces = [mo.split("::")[0] for mo in mods if mo.split("::")[0] in ("shared", "global")]
    load_dir = spaces[0] == "shared"  # destination first: shared <- global is a load
    ops = list(ins.operands)
    tm_op = ops[1] if load_dir else ops[0]
    sm_op = ops[0] if load_dir else ops[1]
    from irc.ptxisa.model import Sym

    tmap_c = None
    tmap = None
    if isinstance(tm_op.base, Sym):
        tmap_c = m.sym_value(tm_op.base.name) + tm_op.offset
    else:
        base = m.read(tm_op.base, "u64")
        off = np.uint64(tm_op.offset)
        tmap = lambda idx: np.asarray(base(idx), np.uint64) + off  # noqa: E731
    coords_op = getattr(tm_op, "index", None)
    if coords_op is None:
        raise UnsupportedInstructionError(f"{ins.opcode}: cannot find the coordinate vector", line=ins.line)
    crs = [m.read(o, "s32") for o in coords_op.items][:dim]
    smem = m.addr(sm_op)
    mb = m.addr(ops[2]) if load_dir and len(ops) > 2 and "mbarrier" in ins.opcode else None
    reduce_op = (
        next((mo for mo in mods if mo in ("add", "min", "max")), None) if "reduce" in ins.opcode else None
    )
    from irc.emu.tensormap import tma_copy

    def tma(idx):
        ids = m.ids(idx)
        sa = smem(idx)
        ta = np.broadcast_to(
            np.asarray(tmap(idx) if tmap is not None else np.uint64(tmap_c), np.uint64), (len(ids),)
        )
        if tmap_c is not None and tmap_c < m.pbuf.size:  # a bare param-space offset
            ta = ta + np.uint64(PWIN)
        cs = [np.broadcast_to(np.asarray(c(idx), np.int64), (len(ids),)) for c in crs]
        keys = mbar_keys(m, mb, idx, ids) if mb is not None else None
        for i in range(len(ids)):
            one = ids[i : i + 1]
            try:
                desc = decode_tensormap(_tmap_bytes(m, int(ta[i]), one))
            except ValueError as e:
                raise m.error(EmuError, str(e), one, kind="tensormap") from None
            nbytes = tma_copy(m, desc, [int(c[i]) for c in cs], int(sa[i]), one, load_dir, reduce_op)
            if keys is not None:
                complete_tx(m, int(keys[i]), nbytes, one)

    return tma
