"""Constants of the emulator's machine state, shared by the scheduler and every instruction handler.

Why a module of its own: the handlers (`ops_*`), the memory model and the barrier logic all need the wait
states and the address windows, and importing them from `machine` made `machine` and its handlers import
each other. This module imports nothing from irc.
"""

from __future__ import annotations

import numpy as np

#: A `sched` entry that no block index reaches: the thread is parked or exited.
BIG = np.int32(1 << 30)
#: Wait states of a parked thread: not waiting, at a CTA barrier, at an mbarrier wait.
W_NONE, W_BAR, W_MBAR = 0, 1, 2

#: Address windows of the emulated generic address space (global starts at GBASE).
GBASE = 0x10000
SHWIN = 0x7F00_0000_0000
LWIN = 0x7E00_0000_0000
PWIN = 0x7D00_0000_0000
