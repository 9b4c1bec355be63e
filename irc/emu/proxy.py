"""Generic and async proxies: shared memory written by threads and read by the TMA / bulk-copy unit or the
tensor cores needs `fence.proxy.async` in between (PTX ISA, memory consistency model: proxies).

Why: `st.shared` (or an atomic) goes through the *generic* proxy; a TMA store, a bulk store
(`cp.async.bulk.global.shared`) or `tcgen05.mma` reads shared memory through the *async* proxy, which is
not ordered with generic writes by `bar.sync` alone. The GPU may ship the tile before the stores land;
the emulator, which runs in order, would silently see them. So it tracks, per shared byte, the thread,
instruction and logical time of its last generic write, and per thread the time of its last proxy fence.
An async-proxy read of a byte whose generic write no fence covers raises `ProxyFenceError` naming both
instructions.

What covers a generic write at time w by thread T: a `fence.proxy.async` (any state space) executed by T
itself after w, or by any thread of the block after it left a CTA barrier released after w. So the
CUTLASS order (every writing thread fences, then `bar.sync`, then one thread issues the store) and the
order "`bar.sync`, then the issuing thread fences" both pass. Async-proxy writes (TMA / bulk loads) clear
the bytes they write.

mbarriers: `mbarrier.init` is a generic write too. An mbarrier that the async proxy updates (the
`complete_tx` of a TMA / bulk load, `tcgen05.commit`) needs a `fence.mbarrier_init` or
`fence.proxy.async` after its init by the initialising thread, or by a thread released from a barrier
after the init; the check is in `irc.emu.ops_mbar` (`async_use`).

Cost: only kernels with an async-proxy reader of shared memory allocate the per-byte state (12 bytes per
byte of shared memory); every other kernel pays one attribute test per shared store.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from irc.emu.errors import ProxyFenceError
from irc.emu.registry import op
from irc.ptxisa.model import Instr

# opcode prefixes whose shared-memory reads go through the async proxy
_ASYNC_READERS = ("cp.reduce.async.bulk", "tcgen05.mma", "tcgen05.cp", "wgmma")


def async_reader(ins: Instr) -> bool:
    """An instruction that reads shared memory through the async proxy (a TMA or bulk store, tcgen05.mma)."""
    o = ins.opcode
    if o.startswith(_ASYNC_READERS):
        return True
    if o.startswith("cp.async.bulk") and not o.startswith(("cp.async.bulk.commit", "cp.async.bulk.wait")):
        spaces = [mo.split("::")[0] for mo in ins.mods[2:] if mo.split("::")[0] in ("shared", "global")]
        return len(spaces) >= 2 and spaces[0] == "global" and spaces[1] == "shared"
    return False


def async_writer(ins: Instr) -> bool:
    """An instruction that writes shared memory through the async proxy (a TMA or bulk load)."""
    o = ins.opcode
    if o.startswith("cp.async.bulk") and not o.startswith(("cp.async.bulk.commit", "cp.async.bulk.wait")):
        spaces = [mo.split("::")[0] for mo in ins.mods[2:] if mo.split("::")[0] in ("shared", "global")]
        return bool(spaces) and spaces[0] == "shared"
    return False


_PREFIXES = ("cp.async.bulk", *_ASYNC_READERS)


def wants_tracking(fn) -> bool:
    return any(i.opcode.startswith(_PREFIXES) and async_reader(i) for i in fn.instructions())


class ProxyState:
    """The generic writes of one Machine's shared memory and the proxy fences of its threads."""

    def __init__(self, m) -> None:
        self.m = m
        n = m.smem.shape[0]
        self.writer = np.zeros(n, np.int32)  # thread id + 1 of the last generic write (0: none / async)
        self.wtime = np.zeros(n, np.int32)
        self.wins = np.zeros(n, np.int32)  # index into self.instrs
        self.fence_at = np.full(m.N, -1, np.int32)  # time of each thread's last proxy fence
        self.cta_cover = np.full(m.ncta, -1, np.int32)  # generic writes before this time are covered
        self.released_at = np.full(m.N, -1, np.int32)  # time each thread last left a CTA barrier
        self.clock = 1
        self.instrs: list[Instr] = []
        self._ins_id: dict[int, int] = {}
        self.async_ins: Instr | None = None  # the async-proxy instruction now running (reader or writer)
        self.async_read = False

    def tick(self) -> int:
        self.clock += 1
        return self.clock

    def _iid(self, ins: Instr | None) -> int:
        if ins is None:
            return -1
        k = id(ins)
        i = self._ins_id.get(k)
        if i is None:
            i = self._ins_id[k] = len(self.instrs)
            self.instrs.append(ins)
        return i

    # ------------------------------------------------------------------ events
    def on_write(self, bidx: np.ndarray, nbytes: int, ids: np.ndarray) -> None:
        """A store or atomic to shared bytes `bidx[:, None] + range(nbytes)` by threads `ids`."""
        b = (bidx[:, None] + np.arange(nbytes)).reshape(-1) if nbytes > 1 else bidx
        if self.async_ins is not None and not self.async_read:  # the async proxy writes: nothing to fence
            self.writer[b] = 0
            return
        t = np.repeat(np.asarray(ids, np.int64), nbytes) if nbytes > 1 else np.asarray(ids, np.int64)
        self.writer[b] = (t + 1).astype(np.int32)
        self.wtime[b] = self.tick()
        self.wins[b] = self._iid(self.m.cur_instr)

    def on_fence(self, ids: np.ndarray) -> None:
        now = self.tick()
        self.fence_at[ids] = now
        rel = self.released_at[ids]
        np.maximum.at(self.cta_cover, self.m.cta[ids], rel)

    def on_release(self, rel: np.ndarray) -> None:
        self.released_at[rel] = self.tick()

    def check_read(self, bidx: np.ndarray, nbytes: int, ids: np.ndarray) -> None:
        """An async-proxy read of shared bytes: every generic write to them must be covered by a fence."""
        b = (bidx[:, None] + np.arange(nbytes)).reshape(-1) if nbytes > 1 else bidx
        w = self.writer[b].astype(np.int64) - 1
        if not (w >= 0).any():
            return
        wt = self.wtime[b]
        wc = np.maximum(w, 0)
        bad = (w >= 0) & (wt > self.fence_at[wc]) & (wt > self.cta_cover[self.m.cta[wc]])
        if not bad.any():
            return
        k = int(np.flatnonzero(bad)[0])
        m = self.m
        writer = int(w[k])
        wins = self.instrs[int(self.wins[b[k]])] if self.wins[b[k]] >= 0 else None
        reader = self.async_ins or m.cur_instr
        _, wth = m.coords(np.array([writer]))
        off = int(b[k] % m.shsize) if m.shsize else 0
        wtxt = f"`{wins}` at line {wins.line}" if wins is not None else "a generic write"
        rtxt = f"`{reader.opcode}` at line {reader.line}" if reader is not None else "an async-proxy read"
        raise m.error(
            ProxyFenceError,
            f"{rtxt} reads shared memory at offset {off:#x} through the async proxy, but thread "
            f"{wth[0] if wth else '?'} wrote it with {wtxt} (the generic proxy) and no fence.proxy.async "
            "ordered that write before the async proxy's read: after the shared-memory stores, every writing "
            "thread executes `fence.proxy.async.shared::cta` (then the barrier, then the copy)",
            np.unique(np.asarray(ids))[:8],
        )


def wrap(m, ins: Instr, h: Callable) -> Callable:
    """Mark the handler of an async-proxy instruction, so shared reads and writes inside it (and the
    deferred writes the async engine captures) are the async proxy's."""
    st = m.proxy
    if st is None:
        return h
    reads = async_reader(ins)

    def wrapped(idx):
        st.async_ins, st.async_read = ins, reads
        try:
            return h(idx)
        finally:
            st.async_ins, st.async_read = None, False

    return wrapped


@op("fence.proxy", "fence.mbarrier_init")
def _proxy_fence(m, ins: Instr):
    """`fence.proxy.async*` covers earlier generic writes of data and mbarrier inits for the async proxy;
    `fence.mbarrier_init` covers mbarrier inits only. Other proxy fences (`fence.proxy.alias`, the
    tensormap fences) order nothing the emulator tracks."""
    from irc.emu.ops_mbar import fence_inits

    data = ins.opcode.startswith("fence.proxy.async")
    inits = data or ins.opcode.startswith("fence.mbarrier_init")
    if not inits:
        return None

    def fence(idx):
        ids = m.ids(idx)
        if data and m.proxy is not None:
            m.proxy.on_fence(ids)
        fence_inits(m, ids)

    return fence
