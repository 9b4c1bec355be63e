"""mbarrier objects, cp.async.mbarrier.arrive, and TMA (cp.async.bulk.tensor / cp.async.bulk).

Why state lives in a side table: the 8-byte mbarrier in shared memory is opaque to the program, so the
emulator keeps {phase, pending arrivals, expected arrivals, tx-count} per (CTA, shared offset), marking the
bytes written for poison tracking. Async copies complete immediately and then do their complete_tx.
A wait whose phase is not complete parks the thread (cfg.py makes the wait start its block); it is woken
whenever any phase completes, and a park that nothing can ever complete is reported as a deadlock.
"""

from __future__ import annotations

import numpy as np

from irc.emu.errors import (
    BulkRuleError,
    MbarrierError,
    MbarrierOverflowError,
    MisalignedAccessError,
    ProxyFenceError,
    TensorMapError,
    UnsupportedInstructionError,
)
from irc.emu.mbarstate import Mbar, reuse_error
from irc.emu.memory import load, locate, mark_written, store
from irc.emu.registry import op
from irc.emu.state import BIG, PWIN, W_MBAR
from irc.emu.tensormap import decode_tensormap, driver_problem
from irc.ptxisa.model import Instr


def mbar_keys(m, ad, idx, ids):
    ((_, bidx, _, _),) = locate(m, "shared", ad(idx), ids, 8)
    return bidx  # global smem byte index = cta * shsize + offset: unique per (CTA, barrier)


def _get(m, key: int, ids) -> Mbar:
    st = m.mbar.get(int(key))
    if st is None:
        raise m.error(
            MbarrierError,
            f"mbarrier at shared offset {int(key) % m.shsize:#x} used before mbarrier.init",
            ids,
        )
    _visible(m, int(key), st, np.asarray(ids))
    return st


def mbar_pending(m, key: int, ids) -> Mbar:
    """The mbarrier at `key` (checked like every use), for callers that adjust its pending count."""
    return _get(m, key, ids)


def _visible(m, key: int, st: Mbar, ids: np.ndarray) -> None:
    """The init must be visible to every using thread: the initialising thread itself, a lane of its warp,
    or a thread that left a CTA barrier which the initialising thread also passed after the init."""
    it = st.init_thread
    if st.seen or it < 0 or len(ids) == 0:
        return
    if m.sync_clock > st.init_sync and m.rel_epoch[it] > st.init_sync:
        cta = (m.cta == m.cta[it]) & (m.pc >= 0)
        if (m.rel_epoch[cta] > st.init_sync).all():  # once every thread saw a barrier: stop checking
            st.seen = True
            return
    other = (m.gwarp[ids] != m.gwarp[it]) & (m.cta[ids] == m.cta[it])
    if not other.any():
        return
    seen = m.rel_epoch[ids] > st.init_sync
    if m.rel_epoch[it] > st.init_sync and seen[other].all():
        return
    bad = ids[other & ~(seen & (m.rel_epoch[it] > st.init_sync))]
    if len(bad) == 0:
        return
    _, th = m.coords(np.array([it]))
    use = m.cur_instr
    raise m.error(
        MbarrierError,
        f"mbarrier at shared offset {key % m.shsize:#x} is used by `{use.opcode if use else '?'}` before its "
        f"mbarrier.init (line {st.init_ins.line if st.init_ins else '?'}, thread {th[0] if th else '?'}) is "
        "visible to these threads: no barrier between the init and the use (a fence.mbarrier_init orders "
        "the init for the async proxy and the cluster, not for the other warps): add `__syncthreads()` "
        "(`barrier()`) after the init",
        bad,
    )


def async_use(m, key: int, ids, ins: Instr | None) -> None:
    """The async proxy updates the mbarrier (`complete_tx` of a TMA / bulk copy, `tcgen05.commit`): its
    init must be covered by a fence.mbarrier_init or fence.proxy.async (irc/emu/proxy.py)."""
    st = m.mbar.get(int(key))
    if st is None or st.fenced or st.init_thread < 0:
        return
    _, th = m.coords(np.array([st.init_thread]))
    raise m.error(
        ProxyFenceError,
        f"`{ins.opcode if ins else 'an asynchronous copy'}` at line {ins.line if ins else '?'} updates the "
        f"mbarrier at shared offset {int(key) % m.shsize:#x} through the async proxy, but its "
        f"`{st.init_ins}` (line {st.init_ins.line if st.init_ins else '?'}, thread {th[0] if th else '?'}) "
        "is a generic-proxy write that no fence made visible to the async proxy: add "
        "`fence.mbarrier_init.release.cluster` (`fence_mbarrier_init()`) after the init",
        np.asarray(ids)[:8],
        ins.line if ins is not None else None,
    )


def fence_inits(m, ids: np.ndarray) -> None:
    """`fence.mbarrier_init` / `fence.proxy.async` by `ids`: the inits they made, and those made before a
    barrier they left since, are visible to the async proxy."""
    if not m.mbar:
        return
    mine = set(np.asarray(ids).tolist())
    rel = {int(c): int(e) for c, e in zip(m.cta[ids].tolist(), m.rel_epoch[ids].tolist())}
    for st in m.mbar.values():
        if st.fenced:
            continue
        if st.init_thread in mine:
            st.fenced = True
        else:
            e = rel.get(int(m.cta[st.init_thread])) if st.init_thread >= 0 else None
            if e is not None and e > st.init_sync:
                st.fenced = True


def mbar_arrive(m, key: int, count: int, tx: int, ids) -> int:
    """Apply `count` arrivals and `tx` expected bytes; return the phase before (the state token)."""
    st = _get(m, key, ids)
    phase = st.phase
    st.tx += tx
    st.pending -= count
    if st.pending < 0:
        raise m.error(
            MbarrierOverflowError,
            f"mbarrier received more arrivals than expected ({st.expected})",
            ids,
        )
    _maybe_complete(m, st)
    return phase


def _maybe_complete(m, st: Mbar) -> None:
    if st.pending == 0 and st.tx == 0:
        st.phase += 1
        st.pending = st.expected
        m.mbar_changed = True
        if m.race is not None:
            m.race.on_phase()


def complete_tx(m, key: int, nbytes: int, ids, ins: Instr | None = None) -> None:
    """The transaction bytes of an asynchronous copy (the async proxy) have landed."""
    async_use(m, key, ids, ins)
    if m.asyncq is not None and m.asyncq.capture is not None:  # an async copy: completes later
        m.asyncq.defer(lambda: _landed(m, key, nbytes, ids))
        return
    _landed(m, key, nbytes, ids)


def _landed(m, key: int, nbytes: int, ids) -> None:
    st = _get(m, key, ids)
    st.tx -= nbytes
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
                _get(m, k, ids).tx += t

        return expect
    if kind == "complete_tx":
        ad, tx = m.addr(ins.operands[0]), m.read(ins.operands[1], "u32")

        def ctx(idx):
            ids = m.ids(idx)
            for k, t in zip(
                mbar_keys(m, ad, idx, ids).tolist(),
                np.broadcast_to(np.asarray(tx(idx), np.int64), (len(ids),)).tolist(),
            ):
                st = _get(m, k, ids)
                st.tx -= t
                _maybe_complete(m, st)

        return ctx
    if kind in ("test_wait", "try_wait"):
        return _wait(m, ins)
    if kind == "inval":
        ad = m.addr(ins.operands[0])

        def inval(idx):
            ids = m.ids(idx)
            for k in np.unique(mbar_keys(m, ad, idx, ids)).tolist():
                if m.mbar.pop(int(k), None) is not None:
                    m.mbar_live[int(k) : int(k) + 8] = False

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
        live = np.array([int(k) in m.mbar for k in keys.tolist()], bool)
        if live.any():  # a valid mbarrier initialised again: mbarrier.inval first
            raise reuse_error(m, keys, 8, ids, live)
        cnts = np.broadcast_to(np.asarray(cnt(idx), np.int64), (len(ids),))
        for k, c, t in zip(keys.tolist(), cnts.tolist(), ids.tolist()):
            m.mbar[int(k)] = Mbar(int(c), int(t), ins, m.sync_clock)
        mark_written(m, keys, 8)
        if m.proxy is not None:
            m.proxy.on_write(keys, 8, ids)
        if m.mbar_live is None:
            m.mbar_live = np.zeros(m.smem.shape[0], np.bool_)
        m.mbar_live[(keys[:, None] + np.arange(8)).reshape(-1)] = True

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
                _get(m, k, ids[i : i + 1]).expected -= cnt
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
            phase = _get(m, k, ids[i : i + 1]).phase
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
        _bulk_rules(m, ins, ids, np.asarray(da, np.uint64), np.asarray(sa, np.uint64), sz)
        keys = mbar_keys(m, mb, idx, ids) if mb is not None else None
        for i in range(len(ids)):
            n = int(sz[i])
            one = ids[i : i + 1]
            vals = load(m, src_sp, np.array([sa[i]], np.uint64), one, u8, n)
            store(m, dst_sp, np.array([da[i]], np.uint64), one, u8, vals)
            if keys is not None:
                complete_tx(m, int(keys[i]), n, one, ins)

    return bulk


def _bulk_rules(m, ins, ids, da, sa, sz) -> None:
    """`cp.async.bulk`: the size a multiple of 16 bytes (`BulkRuleError`), both addresses 16-byte aligned."""
    bad = sz % 16 != 0
    if bad.any():
        raise m.error(
            BulkRuleError,
            f"{ins.opcode}: the size {int(sz[bad][0])} bytes is not a multiple of 16 (a bulk copy moves whole "
            "16-byte units: pad the row, or copy the tail with ordinary loads)",
            ids[bad],
        )
    for what, a in (("destination", da), ("source", sa)):
        a = np.broadcast_to(a, (len(ids),))
        bad = a % np.uint64(16) != 0
        if bad.any():
            raise m.error(
                MisalignedAccessError,
                f"{ins.opcode}: the {what} address {int(a[bad][0]):#x} of a bulk copy must be 16-byte aligned",
                ids[bad],
            )


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
                raise m.error(TensorMapError, str(e), one) from None
            why = driver_problem(desc)
            if why is not None:
                raise m.error(
                    TensorMapError, f"{ins.opcode}: the tensor map is one the driver rejects: {why}", one
                )
            if int(sa[i]) % 128:
                raise m.error(
                    MisalignedAccessError,
                    f"{ins.opcode}: the shared-memory address {int(sa[i]):#x} of a tensor copy must be "
                    "128-byte aligned (align the tile: `.align 128`, or round its offset in dynamic shared "
                    "memory up to 128)",
                    one,
                )
            nbytes = tma_copy(m, desc, [int(c[i]) for c in cs], int(sa[i]), one, load_dir, reduce_op)
            if keys is not None:
                complete_tx(m, int(keys[i]), nbytes, one, ins)

    return tma
