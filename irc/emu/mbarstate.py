"""The state of one mbarrier object and the error for its memory reused while it is valid.

Why a module of its own: the mbarrier instructions (`ops_mbar`) create and update `Mbar`s, and the memory
model (`memory.shared_written`) must refuse a store over a valid one; keeping both here lets the two
import it without importing each other.
"""

from __future__ import annotations

import numpy as np

from irc.emu.errors import MbarrierReuseError
from irc.ptxisa.model import Instr


class Mbar:
    """One mbarrier object: its phase state, and who initialised it when (for the visibility, proxy-fence
    and reuse checks)."""

    __slots__ = (
        "phase",
        "pending",
        "expected",
        "tx",
        "init_thread",
        "init_ins",
        "init_sync",
        "fenced",
        "seen",
    )

    def __init__(self, count: int, thread: int, ins: Instr | None, sync: int) -> None:
        self.phase, self.pending, self.expected, self.tx = 0, count, count, 0
        self.init_thread, self.init_ins, self.init_sync = thread, ins, sync
        self.fenced = False  # a fence.mbarrier_init / fence.proxy.async covers the init
        self.seen = False  # every thread of the block left a barrier after the init: visible to all

    def state(self) -> tuple[int, int, int, int]:
        return self.phase, self.pending, self.expected, self.tx


def reuse_error(m, bidx: np.ndarray, nbytes: int, ids: np.ndarray, live: np.ndarray) -> Exception:
    """A write of data over a valid mbarrier: it needs `mbarrier.inval` after its last use first."""
    k = int(np.flatnonzero(live)[0])
    b = int(bidx[k])
    key = next((kk for kk in range(b - 7, b + nbytes) if kk in m.mbar), None)
    st = m.mbar.get(key) if key is not None else None
    cur = m.cur_instr
    what = f"`{cur}`" if cur is not None else "an asynchronous copy"
    init = f" (initialised by `{st.init_ins}` at line {st.init_ins.line})" if st and st.init_ins else ""
    return m.error(
        MbarrierReuseError,
        f"{what} writes shared offset {b % m.shsize:#x}, the memory of a valid mbarrier{init}: an mbarrier's "
        "memory may be reused (or reinitialised) only after `mbarrier.inval` (`mbarrier_inval()`), once no "
        "thread uses it any more",
        ids[live],
    )
