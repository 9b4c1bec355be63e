"""Asynchronous completion for the emulator: cp.async, bulk / tensor (TMA) loads and tcgen05.mma finish at
a point chosen by a seeded schedule between their issue and the wait that must cover them.

Why: completing every async copy at once hides the bugs that matter on a GPU: a read of a cp.async
destination before `wait_group`, a wait on an already completed phase that lets a consumer read a tile
still in flight. With an engine, such a read hits a *pending* byte and raises `AsyncRaceError` naming the
copy, the read and the thread, instead of silently seeing data a real GPU would not have delivered yet.

How (kept out of the hot path when off: `Machine.asyncq` is None unless `run_kernel(schedules=...)` or
`seed=` asks for it):
  * The async instructions' handlers run under `capture`: `memory.store` and `ops_mbar.complete_tx`
    record closures instead of acting (hooks of two lines each); the destination bytes are *poisoned*
    (`poison[byte] = pending id`) and every shared read checks them (`memory.check_written` hook).
  * A pending op completes (its deferred writes, then its complete_tx / arrive) when the schedule says
    so after a scheduler step (probability `p` per step; `p` depends on the seed), when a thread's
    `cp.async.wait_group N` requires it, or, when no thread can run, one at a time in a seeded order (the
    latest possible point). Completion order respects dependencies (`tcgen05.commit` after the MMAs).
  * tcgen05.mma computes at issue (after the CTA's earlier MMAs complete, as one thread's MMAs run in
    order) but its tensor-memory write is deferred; `tcgen05.ld` of a CTA with a pending MMA raises, and
    its shared-memory operands stay read-poisoned until it completes: a store, or a copy *issued* into
    them (it may land at any point until its wait), is an `AsyncOverwriteError`.
  * A hang reports the mbarrier state (`mbarrier_hang`): phase, pending arrivals, tx-count, and who is
    left that could arrive, instead of a barrier divergence at an unrelated `bar.sync`.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from irc.emu.errors import AsyncOverwriteError, AsyncRaceError, DeadlockError
from irc.emu.registry import OPS
from irc.ptxisa.model import Instr
from irc.records import field, record

# per-step completion probability of pending work, indexed by (seed // 2) % 4: right after the issuing
# step, early, late, and only when forced (the latest point a covering wait allows)
P_CHOICES = (1.0, 0.5, 0.1, 0.0)
CHUNK_STRIDE = 7919  # Machine seed = schedule * CHUNK_STRIDE + chunk index


@record
class Pending:
    pid: int
    kind: str  # "cp" | "bulk" | "mma" | "arrive"
    ins: Instr
    ids: np.ndarray  # issuing threads (global ids)
    actions: list[Callable[[], None]] = field(default_factory=list)
    smem: np.ndarray | None = None  # shared byte indices written
    grp: np.ndarray | None = None  # cp.async / bulk stores: commit-group number per issuing thread
    deps: list[int] = field(default_factory=list)
    ctas: frozenset = frozenset()
    rsmem: np.ndarray | None = None  # bulk stores: shared byte indices still to be read


class Engine:
    """The pending asynchronous work of one Machine (one chunk of CTAs)."""

    def __init__(self, m, seed: int) -> None:
        self.m = m
        self.seed = seed // CHUNK_STRIDE  # the schedule; launch adds the chunk index below the stride
        self.rng = np.random.default_rng(seed)
        # even seeds run lockstep, odd seeds interleave warps (irc/emu/interleave.py); each pair shares p
        self.p = P_CHOICES[(self.seed // 2) % len(P_CHOICES)]
        self.pending: dict[int, Pending] = {}
        self.poison = np.zeros(m.smem.shape[0], np.int32)
        self.rpoison = np.zeros(m.smem.shape[0], np.int32)  # bytes a pending bulk store still reads
        self.capture: list[Callable[[], None]] | None = None
        self.cap_smem: list[np.ndarray] = []
        self.cap_rsmem: list[np.ndarray] = []
        self.cap_kind = ""
        self.commits = np.zeros(m.N, np.int64)
        self.bcommits = np.zeros(m.N, np.int64)  # bulk async-groups committed per thread
        self.wrong_wait: dict[int, Instr] = {}  # thread -> a non-bulk wait it ran with bulk stores pending
        self.next = 1

    # ------------------------------------------------------------------ capture (hooks call these)
    def defer(self, fn: Callable[[], None]) -> None:
        assert self.capture is not None
        self.capture.append(fn)

    def defer_store(self, space: str, addr, ids, dt, vals) -> None:
        from irc.emu.memory import locate, store

        total = dt.itemsize * len(vals)
        a = np.array(addr, dtype=np.uint64, copy=True)
        idc = np.array(ids, copy=True)
        vs = [np.array(np.broadcast_to(np.asarray(v, dtype=dt), (len(idc),)), copy=True) for v in vals]
        for _buf, bidx, sel, kind in locate(self.m, space, a, idc, total, write=True):
            if kind == "shared":
                self.cap_smem.append((bidx[:, None] + np.arange(total)).reshape(-1))
            if self.m.race is not None and self.cap_kind == "cp":
                # a cp.async write is seen by the race checker at issue, by its issuer: the readers in other
                # threads need a barrier after the issuer's wait. (TMA and bulk loads are ordered through
                # their mbarrier, whose phases the engine models exactly: poisoned bytes.)
                self.m.race.access(kind, bidx, idc if sel is None else idc[sel], total, "write")
        px = self.m.proxy
        ains = px.async_ins if px is not None and not px.async_read else None

        def land() -> None:
            if px is not None:  # the async proxy's write (TMA / bulk load), or a cp.async (generic)
                px.async_ins, px.async_read = ains, False
            try:
                store(self.m, space, a, idc, dt, vs)
            finally:
                if px is not None:
                    px.async_ins = None

        self.defer(land)

    def run_captured(self, kind: str, ins: Instr, h: Callable, idx) -> object:
        """Run handler `h` with its stores and transaction completions deferred into one pending op (its
        shared-memory reads happen now: a bulk store's source is read-poisoned until it completes)."""
        self.capture, self.cap_smem, self.cap_rsmem = [], [], []
        self.cap_kind = kind
        try:
            r = h(idx)
        finally:
            acts, smem, rsmem = self.capture, self.cap_smem, self.cap_rsmem
            self.capture, self.cap_smem, self.cap_rsmem = None, [], []
        if acts:
            ids = np.array(self.m.ids(idx), copy=True)
            if smem:  # a copy into bytes an asynchronous reader still uses: wherever it lands, it races
                dst = np.unique(np.concatenate(smem))
                self.check_write(dst, 1, np.repeat(ids[:1], len(dst)))
            p = self._new(kind, ins, ids, acts, np.concatenate(smem) if smem else None)
            if kind == "cp":
                p.grp = self.commits[ids].copy()
            elif kind == "bstore":
                p.grp = self.bcommits[ids].copy()
                if rsmem:
                    p.rsmem = np.unique(np.concatenate(rsmem))
                    self.rpoison[p.rsmem] = p.pid
        return r

    def reading(self, h: Callable, idx) -> np.ndarray | None:
        """Run handler `h` (one that writes no memory: tcgen05.mma) and return the shared bytes it read, which
        an asynchronous reader keeps in use until it completes (None when it read none)."""
        self.capture, self.cap_rsmem = [], []
        try:
            h(idx)
        finally:
            rsmem = self.cap_rsmem
            self.capture, self.cap_rsmem = None, []
        return np.unique(np.concatenate(rsmem)) if rsmem else None

    def note_read(self, bidx: np.ndarray, nbytes: int) -> None:
        """A shared-memory read inside a captured handler (the source of a bulk store)."""
        self.cap_rsmem.append((bidx[:, None] + np.arange(nbytes)).reshape(-1) if nbytes > 1 else bidx.copy())

    def _new(self, kind: str, ins: Instr, ids: np.ndarray, acts, smem=None, deps=()) -> Pending:
        pid = self.next
        self.next += 1
        p = Pending(
            pid, kind, ins, ids, list(acts), smem, None, list(deps), frozenset(self.m.cta[ids].tolist())
        )
        self.pending[pid] = p
        if smem is not None and len(smem):
            self.poison[smem] = pid
        return p

    # ------------------------------------------------------------------ completion
    def complete(self, pid: int) -> None:
        p = self.pending.get(pid)
        if p is None:
            return
        for d in p.deps:
            self.complete(d)
        del self.pending[pid]
        if p.smem is not None and len(p.smem):
            sel = p.smem[self.poison[p.smem] == pid]
            self.poison[sel] = 0
        if p.rsmem is not None and len(p.rsmem):
            sel = p.rsmem[self.rpoison[p.rsmem] == pid]
            self.rpoison[sel] = 0
        self.m.landing = p.ins  # errors while it lands (an arrival too many) name the instruction
        try:
            for a in p.actions:
                a()
        finally:
            self.m.landing = None

    def step(self) -> None:
        """After a scheduler step: each pending op completes with probability p."""
        if not self.pending or self.p == 0.0:
            return
        pids = list(self.pending)
        if self.p < 1.0:
            pids = [q for q in pids if self.rng.random() < self.p]
        for q in pids:
            self.complete(q)

    def drain_one(self) -> bool:
        """Nothing can run: complete one pending op (seeded choice); False when none is pending."""
        if not self.pending:
            return False
        pids = sorted(self.pending)
        self.complete(pids[int(self.rng.integers(len(pids)))])
        return True

    def finish(self) -> None:
        while self.pending:
            self.complete(min(self.pending))

    # ------------------------------------------------------------------ checks
    def check_read(self, bidx: np.ndarray, nbytes: int, ids: np.ndarray) -> None:
        pz = self.poison[bidx] if nbytes == 1 else self.poison[bidx[:, None] + np.arange(nbytes)].max(axis=1)
        bad = pz != 0
        if not bad.any():
            return
        m = self.m
        k = int(np.flatnonzero(bad)[0])
        p = self.pending.get(int(pz[k]))
        reader = m.cur_instr
        rtxt = f"`{reader.opcode}` at line {reader.line}" if reader is not None else "a read"
        who = ""
        if p is not None:
            _, th = m.coords(p.ids[:1])
            who = f" (issued by thread {th[0]})" if th else ""
        what = f"`{p.ins.opcode}` at line {p.ins.line}{who}" if p is not None else "an asynchronous copy"
        off = int(bidx[k] % m.shsize)
        raise m.error(
            AsyncRaceError,
            f"{rtxt} reads shared memory at offset {off:#x} that {what} has not finished writing "
            f"(schedule seed {self.seed}): no wait covering the copy came before the read",
            ids[bad],
        )

    def check_write(self, bidx: np.ndarray, nbytes: int, ids: np.ndarray) -> None:
        """A write to shared bytes that a pending bulk / TMA store has not finished reading."""
        rp = (
            self.rpoison[bidx] if nbytes == 1 else self.rpoison[bidx[:, None] + np.arange(nbytes)].max(axis=1)
        )
        bad = rp != 0
        if not bad.any():
            return
        m = self.m
        k = int(np.flatnonzero(bad)[0])
        p = self.pending.get(int(rp[k]))
        writer = m.cur_instr
        wtxt = f"`{writer.opcode}` at line {writer.line}" if writer is not None else "a write"
        who, hint = "", ""
        fix = (
            "before the source is reused, the issuing thread must wait with `cp.async.bulk.wait_group.read 0` "
            "(`cp_async_bulk_wait_group_read(0)`), then a barrier"
        )
        if p is not None:
            _, th = m.coords(p.ids[:1])
            who = f" (issued by thread {th[0]})" if th else ""
            ww = next((self.wrong_wait[int(t)] for t in p.ids.tolist() if int(t) in self.wrong_wait), None)
            if ww is not None:
                hint = (
                    f"; the issuing thread waited with `{ww.opcode}` at line {ww.line}, which waits for "
                    "cp.async groups, not for bulk async-groups"
                )
            if p.kind == "mma":
                fix = (
                    "an MMA reads its shared-memory operands until it completes: wait on the mbarrier its "
                    "`tcgen05.commit` arrives on (the phase that commit completes) before the operands are reused"
                )
        what = f"`{p.ins.opcode}` at line {p.ins.line}{who}" if p is not None else "a bulk store"
        off = int(bidx[k] % m.shsize)
        raise m.error(
            AsyncOverwriteError,
            f"{wtxt} overwrites shared memory at offset {off:#x} that {what} has not finished reading "
            f"(schedule seed {self.seed}){hint}: {fix}",
            ids[bad],
        )

    # ------------------------------------------------------------------ cp.async groups
    def commit(self, ids: np.ndarray) -> None:
        self.commits[ids] += 1

    def bulk_commit(self, ids: np.ndarray) -> None:
        self.bcommits[ids] += 1

    def bulk_wait(self, ids: np.ndarray, n: int) -> None:
        """`cp.async.bulk.wait_group[.read] n`: all but the n most recent bulk groups of `ids` complete."""
        lim = self.bcommits - n
        for pid in list(self.pending):
            p = self.pending.get(pid)
            if p is None or p.kind != "bstore" or p.grp is None:
                continue
            mine = np.isin(p.ids, ids)
            if mine.any() and (p.grp[mine] < lim[p.ids[mine]]).any():
                self.complete(pid)

    def note_wait(self, ins: Instr, ids: np.ndarray) -> None:
        """A `cp.async.wait_*` by threads with bulk stores pending: the wrong wait (named in the error)."""
        for p in self.pending.values():
            if p.kind == "bstore":
                for t in np.intersect1d(p.ids, ids).tolist():
                    self.wrong_wait[int(t)] = ins

    def wait_groups(self, ids: np.ndarray, n: int) -> None:
        lim = self.commits - n  # groups numbered below this must be complete
        for pid in list(self.pending):
            p = self.pending.get(pid)
            if p is None or p.kind != "cp" or p.grp is None:
                continue
            mine = np.isin(p.ids, ids)
            if mine.any() and (p.grp[mine] < lim[p.ids[mine]]).any():
                self.complete(pid)

    def mma_pending(self, ctas) -> list[int]:
        cs = set(int(c) for c in np.unique(ctas).tolist())
        return [q for q, p in self.pending.items() if p.kind == "mma" and p.ctas & cs]


# ------------------------------------------------------------------------------ handler wrappers
def _wrap_cp(orig: Callable) -> Callable:
    def factory(m, ins: Instr):
        h = orig(m, ins)
        e = m.asyncq
        if e is None:
            return h
        mods = ins.mods
        if mods[1] == "commit_group":

            def commit(idx):
                e.commit(m.ids(idx))

            return commit
        if mods[1] in ("wait_group", "wait_all"):
            n = 0 if mods[1] == "wait_all" else int(ins.operands[0].value)

            def wait(idx):
                ids = m.ids(idx)
                if mods[1] == "wait_all":
                    e.commit(ids)
                e.wait_groups(ids, n)
                e.note_wait(ins, ids)

            return wait
        if mods[1] == "mbarrier":
            if h is None:
                return h
            noinc = "noinc" in mods
            ad = m.addr(ins.operands[0])

            def arrive(idx):  # arrives once this thread's earlier cp.async have completed
                ids = np.array(m.ids(idx), copy=True)
                deps = [q for q, p in e.pending.items() if p.kind == "cp" and np.isin(p.ids, ids).any()]
                if not deps:
                    return h(idx)
                if not noinc:  # the pending count goes up now and comes down when the copies land
                    _pending_up(m, ad, idx, ids)
                e._new("arrive", ins, ids, [_arrivals(m, ad, idx, ids)], deps=deps)
                return None

            return arrive
        if h is None:
            return h
        return lambda idx: e.run_captured("cp", ins, h, idx)

    return factory


def _wrap_bulk(orig: Callable) -> Callable:
    def factory(m, ins: Instr):
        h = orig(m, ins)
        e = m.asyncq
        mods = ins.mods
        if e is not None and len(mods) > 2 and mods[2] == "commit_group":
            return lambda idx: e.bulk_commit(m.ids(idx))
        if e is not None and len(mods) > 2 and mods[2] == "wait_group":
            n = int(ins.operands[0].value) if ins.operands else 0
            return lambda idx: e.bulk_wait(m.ids(idx), n)
        if e is None or h is None:
            return h
        spaces = [mo.split("::")[0] for mo in mods[2:] if mo.split("::")[0] in ("shared", "global")]
        if not spaces or "prefetch" in mods:
            return h
        if spaces[0] != "shared":  # a store (shared -> global): reads its source until it completes
            return lambda idx: e.run_captured("bstore", ins, h, idx)
        return lambda idx: e.run_captured("bulk", ins, h, idx)

    return factory


def _wrap_reduce(orig: Callable) -> Callable:
    """`cp.reduce.async.bulk[.tensor]`: a bulk store that reduces into global memory."""

    def factory(m, ins: Instr):
        h = orig(m, ins)
        e = m.asyncq
        if e is None or h is None:
            return h
        return lambda idx: e.run_captured("bstore", ins, h, idx)

    return factory


def _wrap_tcgen05(orig: Callable) -> Callable:
    def factory(m, ins: Instr):
        h = orig(m, ins)
        e = m.asyncq
        if e is None or h is None:
            return h
        kind = ins.mods[0].split("::")[0]
        if kind == "mma":

            def mma(idx):
                from irc.emu.ops_tcgen05 import tmem_array

                ids = np.array(m.ids(idx), copy=True)
                for q in e.mma_pending(m.cta[ids]):
                    e.complete(q)  # one thread's MMAs execute in order
                tm = tmem_array(m)
                before = tm.copy()
                reads = e.reading(h, idx)  # the operands are read now, and stay in use until it completes
                after = tm.copy()
                tm[...] = before

                def write() -> None:
                    cur = tmem_array(m)
                    diff = after != before
                    cur[diff] = after[diff]

                p = e._new("mma", ins, ids, [write])
                if reads is not None:
                    p.rsmem = reads
                    e.rpoison[reads] = p.pid

            return mma
        if kind == "commit":
            ad = m.addr(ins.operands[0])

            def commit(idx):
                from irc.emu.ops_mbar import async_use, mbar_keys

                ids = np.array(m.ids(idx), copy=True)
                for i, k in enumerate(mbar_keys(m, ad, idx, ids).tolist()):
                    async_use(m, k, ids[i : i + 1], ins)
                deps = e.mma_pending(m.cta[ids])
                e._new("arrive", ins, ids, [_arrivals(m, ad, idx, ids)], deps=deps)

            return commit
        if kind == "ld":

            def ld(idx):
                ids = m.ids(idx)
                qs = e.mma_pending(m.cta[ids])
                if qs:
                    p = e.pending[qs[0]]
                    raise m.error(
                        AsyncRaceError,
                        f"`{ins.opcode}` at line {ins.line} reads tensor memory that `{p.ins.opcode}` at line "
                        f"{p.ins.line} is still writing (schedule seed {e.seed}): no wait on the "
                        "tcgen05.commit mbarrier covered the MMA",
                        ids[:8],
                    )
                return h(idx)

            return ld
        return h

    return factory


def _arrivals(m, ad, idx, ids: np.ndarray) -> Callable[[], None]:
    """One arrival per thread on the mbarriers its address operand names *now* (registers move on)."""
    from irc.emu.ops_mbar import mbar_arrive, mbar_keys

    keys = mbar_keys(m, ad, idx, ids).tolist()

    def go() -> None:
        for i, k in enumerate(keys):
            mbar_arrive(m, k, 1, 0, ids[i : i + 1])

    return go


def _pending_up(m, ad, idx, ids: np.ndarray) -> None:
    """`cp.async.mbarrier.arrive` without `.noinc`: the pending count rises by one per thread now."""
    from irc.emu.ops_mbar import mbar_keys, mbar_pending

    for i, k in enumerate(mbar_keys(m, ad, idx, ids).tolist()):
        mbar_pending(m, k, ids[i : i + 1]).pending += 1


def install() -> None:
    """Wrap the async instructions' handler factories (idempotent; called once by irc.emu.ops)."""
    if OPS.get("__async_installed__"):
        return
    OPS["cp.async"] = _wrap_cp(OPS["cp.async"])
    OPS["cp.async.bulk"] = _wrap_bulk(OPS["cp.async.bulk"])
    OPS["cp.reduce.async.bulk.tensor"] = _wrap_reduce(OPS["cp.reduce.async.bulk.tensor"])
    OPS["tcgen05"] = _wrap_tcgen05(OPS["tcgen05"])
    OPS["__async_installed__"] = lambda m, ins: None


# ------------------------------------------------------------------------------ hangs
def mbarrier_state(m, keys) -> str:
    parts = []
    for k in keys:
        st = m.mbar.get(int(k))
        off = int(k) % m.shsize
        where = f"mbarrier at smem+{off:#x} of block {m.ctas[int(k) // m.shsize]}"
        if st is None:
            parts.append(f"{where}: not initialised")
            continue
        phase, pend, exp, tx = st.state()
        parts.append(
            f"{where}: phase {phase} (parity {phase & 1}) incomplete, {pend} of {exp} arrivals pending, "
            f"tx-count {tx}"
        )
    return "; ".join(parts)


def mbarrier_hang(m, waiting: np.ndarray) -> Exception:
    """The error for threads parked on mbarrier waits that nothing can complete any more."""
    lines = sorted(set(int(x) for x in m.wait_line[waiting]))
    keys = sorted(set(int(k) for k in m.wait_key[waiting]))
    live = np.flatnonzero(m.pc >= 0)
    others = np.setdiff1d(live, waiting)
    if len(others):
        tail = f"; {len(others)} other live thread(s) are blocked elsewhere (e.g. line {int(m.wait_line[others[0]])})"
    else:
        tail = "; no thread left that can arrive"
    state = mbarrier_state(m, keys) if keys else "mbarrier state unknown"
    return m.error(
        DeadlockError,
        f"mbarrier wait can never complete (waiting at line(s) {lines}): {state}{tail}",
        waiting,
        lines[0],
    )


__all__ = ["Engine", "P_CHOICES", "install", "mbarrier_hang", "mbarrier_state"]
