"""The SIMT emulator: runs PTX (from our backend or nvcc) on numpy, vectorized across all threads.

Public API: `run_kernel(module, name, grid=, block=, args=[...], dynamic_shared_bytes=0, max_steps=...)`
returning `EmuStats`, the `EmuError` family for dynamic errors, `EmuLaunchError` for bad launches, and
`encode_tensormap` for TMA descriptors.
"""

from irc.emu.errors import (
    AsyncOverwriteError,
    AsyncRaceError,
    BadCallError,
    BarrierError,
    BulkRuleError,
    CollectiveMaskError,
    DeadlockError,
    EmuError,
    EmuLaunchError,
    LimitError,
    MbarrierError,
    MbarrierOverflowError,
    MbarrierReuseError,
    MemoryAccessError,
    MisalignedAccessError,
    ProxyFenceError,
    RaceError,
    StepLimitError,
    TensorMapError,
    TrapError,
    UninitSharedReadError,
    UnsupportedInstructionError,
)
from irc.emu.launch import EmuStats, run_kernel
from irc.emu.tensormap import encode_tensormap

__all__ = [
    "AsyncOverwriteError",
    "AsyncRaceError",
    "BadCallError",
    "BarrierError",
    "BulkRuleError",
    "CollectiveMaskError",
    "DeadlockError",
    "EmuError",
    "EmuLaunchError",
    "EmuStats",
    "LimitError",
    "MbarrierError",
    "MbarrierOverflowError",
    "MbarrierReuseError",
    "MemoryAccessError",
    "MisalignedAccessError",
    "ProxyFenceError",
    "RaceError",
    "StepLimitError",
    "TensorMapError",
    "TrapError",
    "UninitSharedReadError",
    "UnsupportedInstructionError",
    "encode_tensormap",
    "run_kernel",
]
