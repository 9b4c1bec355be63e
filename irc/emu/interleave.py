"""Which threads run next: lockstep (the default) with starvation relief, and the interleaving schedules
of `run_kernel(..., seed=s)` for odd seeds.

Why: lockstep (every thread at the lowest block runs, see cfg.py) is fast and deterministic, but it is
kinder than a GPU. Warps never overtake each other, so a wait that runs before another warp's
`mbarrier.init` is visible, or a consumer releasing the wrong stage, never shows. And a warp spinning
on a flag that a later block of another warp sets starves that warp forever.

* **Starvation relief** (every schedule): every `RELIEF` steps, threads that are runnable, stand at the
  lowest block of their own warp, and have not moved since the last look run one step. Any interleaving
  of warps is legal, and a warp's lanes stay together, so this never breaks reconvergence.
* **Interleaving** (odd seeds; `Interleaver`): warps are picked by priority, a random permutation of the
  warps of a block redrawn at random change points and after `QUANTUM` steps of one warp (a PCT-style
  search: one warp runs ahead of the others until it blocks). Blocks end after every publishing memory
  operation (`cfg.publishes`), so warps switch at memory operations, barriers and waits. Within a block
  without a warp collective, a warp's lanes may also run in two random groups one after the other
  (sm_70+ independent thread scheduling between convergence points). mbarrier waiters wake as soon as a
  phase completes. The lanes of a warp always reconverge: only threads at the lowest block of their own
  warp run.
"""

from __future__ import annotations

import numpy as np

from irc.emu.state import BIG, W_MBAR, W_NONE

RELIEF = 64  # steps between two looks for starving warps
QUANTUM = 200  # steps one warp may run before the interleaver switches away (spin-waits)
CHANGE_P = 0.02  # per step: probability of a priority change point
SPLIT_P = 0.3  # probability that a block without collectives runs its lanes in two groups


def warp_min(m, sched: np.ndarray) -> np.ndarray:
    """Per warp of the chunk: the lowest block any of its threads waits to run (BIG: none runnable)."""
    pad = np.full(m.nwarps * 32, BIG, np.int32)
    pad[m.slot] = sched
    return pad.reshape(m.nwarps, 32).min(axis=1)


class Relief:
    """Lockstep's guard against a warp spinning forever while another warp it waits for never runs."""

    def __init__(self, m) -> None:
        self.m = m
        self.snap: np.ndarray | None = None
        self.next = RELIEF

    def due(self) -> bool:
        return self.m.steps >= self.next

    def pick(self, b: int, at_b: int) -> np.ndarray | None:
        """Threads to run instead of lockstep's choice (the `at_b` threads at block `b`), or None."""
        m = self.m
        self.next = m.steps + RELIEF
        if np.count_nonzero(m.sched < BIG) == at_b:  # every runnable thread runs now: none starves
            self.snap = None
            return None
        cur = m.sched.copy()
        prev, self.snap = self.snap, cur
        if prev is None:
            return None
        wm = warp_min(m, cur)
        stuck = (cur < BIG) & (cur == prev) & (cur == wm[m.gwarp]) & (cur != b)
        if not stuck.any():
            return None
        blk = int(cur[stuck].max())  # the one lockstep puts off longest
        # every lane of those warps that is at that block, also the ones that arrived since the last
        # snapshot: a warp's lanes run a block together, or a collective in it would miss them
        warps = np.unique(m.gwarp[stuck & (cur == blk)])
        return np.flatnonzero((cur == blk) & (cur == wm[m.gwarp]) & np.isin(m.gwarp, warps))


class Interleaver:
    """The warp order of one interleaving schedule (a seeded random generator)."""

    def __init__(self, m, seed: int) -> None:
        self.m = m
        self.rng = np.random.default_rng(seed * 7919 + 17)
        self.prio = self.rng.permutation(m.wpc).astype(np.int64)  # per warp of a block: higher runs first
        self.widx = (m.lin // 32).astype(np.int64)  # each thread's warp within its block
        self.cur = -1
        self.run_len = 0
        self.split_p = SPLIT_P if m.intra_warp else 0.0

    def pick(self) -> tuple[int, np.ndarray] | None:
        """(block, threads) to run next, or None when no thread is runnable."""
        m = self.m
        sched = m.sched
        wm = warp_min(m, sched)
        at_min = (sched < BIG) & (sched == wm[m.gwarp])
        if not at_min.any():
            return None
        if self.rng.random() < CHANGE_P or self.run_len >= QUANTUM:
            self._demote(self.cur)
        p = np.where(at_min, self.prio[self.widx], np.iinfo(np.int64).min)
        top = int(p.max())
        w = int(np.flatnonzero(self.prio == top)[0])
        if w != self.cur:
            self.cur, self.run_len = w, 0
        self.run_len += 1
        mine = at_min & (self.widx == w)
        b = int(sched[mine].min())
        return b, np.flatnonzero(mine & (sched == b))

    def _demote(self, w: int) -> None:
        if w < 0:
            return
        low = int(self.prio.min())
        self.prio[w] = low - 1
        self.run_len = 0

    def split(self, idx: np.ndarray, has_collective: bool) -> list[np.ndarray]:
        """The lane groups that run the block one after the other (one group: all together)."""
        if has_collective or self.split_p == 0.0 or len(idx) < 2 or self.rng.random() >= self.split_p:
            return [idx]
        first = self.rng.random(len(idx)) < 0.5
        if first.all() or not first.any():
            return [idx]
        return [idx[first], idx[~first]]

    def wake(self) -> None:
        """An mbarrier phase completed: its waiters re-run their wait (they may now pass)."""
        m = self.m
        if not m.mbar_changed:
            return
        m.mbar_changed = False
        w = np.flatnonzero(m.wait == W_MBAR)
        if len(w):
            m.wait[w] = W_NONE
            m.sched[w] = m.pc[w]
