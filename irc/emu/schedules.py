"""`run_kernel(..., schedules=N)`: run N seeded schedules and compare. Even seeds run the threads in
lockstep, odd seeds interleave warps (irc/emu/interleave.py); seed pair k completes asynchronous work with
probability `P_CHOICES[k % 4]` per step (irc/emu/async_engine.py).

Which error: an `AsyncRaceError` naming a read (or overwrite) of memory in flight wins at once; otherwise,
over all schedules, a `RaceError` before any other dynamic error (a hang with the mbarrier state, a fault,
a mask), the earliest schedule first; and only when no schedule raised anything, results that differ. A
wrong parity, for example, hangs under the "complete at once" order and reads a tile in flight under a
later one.

Why compare: a race does not always read a poisoned byte or meet the race checker (the copy may have
landed under one order and not under another, a warp running ahead may read a stale stage). Results that
differ between two schedules are a race whatever the cause (floats to 1e-5: interleaved atomic adds round
differently), so they are reported too, as an `AsyncRaceError` that names the schedule.
"""

from __future__ import annotations

import numpy as np

from irc.emu.errors import AsyncRaceError, EmuError, EmuLaunchError, RaceError


def _arrays(args: list) -> list[np.ndarray]:
    out: list[np.ndarray] = []
    for a in args:
        if isinstance(a, np.ndarray):
            out.append(a)
        elif isinstance(a, (list, tuple)):
            out.extend(x for x in a if isinstance(x, np.ndarray))
        elif isinstance(a, (bytes, bytearray)):
            from irc.emu.tensormap import token_array

            arr = token_array(bytes(a))
            if arr is not None:
                out.append(arr)
    seen: list[np.ndarray] = []
    for x in out:
        if not any(x is y for y in seen):
            seen.append(x)
    return seen


def _rank(e: EmuError) -> int:
    """Which verdict wins when schedules disagree: a read or write of memory in flight (it names both
    instructions) before a data race, before any other dynamic error (a hang, a fault, a mask)."""
    if isinstance(e, AsyncRaceError):
        return 0
    if isinstance(e, RaceError):
        return 1
    return 2


def _differ(x: np.ndarray, y: np.ndarray) -> int | None:
    """The first element where two results differ, or None. Floats may differ in the last bits between
    interleavings (atomic adds in another order): they must agree to 1e-5 relative, NaN equal to NaN."""
    if x.dtype.kind == "f":
        a, b = x.reshape(-1).astype(np.float64), y.reshape(-1).astype(np.float64)
        scale = max(float(np.nanmax(np.abs(a), initial=0.0)), 1e-30)
        bad = ~(np.isclose(a, b, rtol=1e-5, atol=1e-6 * scale) | (np.isnan(a) & np.isnan(b)))
        return int(np.flatnonzero(bad)[0]) if bad.any() else None
    if x.tobytes() == y.tobytes():
        return None
    return int(np.flatnonzero(x.reshape(-1).view(np.uint8) != y.reshape(-1).view(np.uint8))[0])


def run_schedules(run_kernel, module, kernel: str, grid, block, args: list, n: int, opts: dict):
    """`run_kernel` is `irc.emu.launch.run_kernel` (passed in: launch imports this module)."""

    if n < 1:
        raise EmuLaunchError(f"schedules must be >= 1, got {n}")
    arrs = _arrays(args)
    start = [a.copy() for a in arrs]
    first: list[np.ndarray] | None = None
    stats = None
    failed: EmuError | None = None
    differ: EmuError | None = None
    for s in range(n):
        for a, a0 in zip(arrs, start):
            a[...] = a0
        try:
            st = run_kernel(module, kernel, grid, block, args, seed=s, **opts)
        except AsyncRaceError:
            raise  # the most specific verdict: data read while in flight
        except EmuError as e:
            # a hang or fault under this order: keep looking for an order that shows the race behind it
            if failed is None or _rank(e) < _rank(failed):
                failed = e
            continue
        if failed is not None or differ is not None:
            continue
        res = [a.copy() for a in arrs]
        if first is None:
            first, stats = res, st
            continue
        for i, (x, y) in enumerate(zip(first, res)):
            k = _differ(x, y)
            if k is not None:
                order = "interleaved warps" if s % 2 else "asynchronous completions"
                differ = AsyncRaceError(
                    f"results depend on the schedule: schedule 0 and schedule {s} ({order}) leave different "
                    f"values in array argument {i} (first element {k}): some read is not ordered after the "
                    "write it needs (a missing barrier, wait or fence)",
                    kernel=kernel,
                )
                break
    if failed is not None:
        raise failed
    if differ is not None:
        raise differ
    for a, r in zip(arrs, first or []):
        a[...] = r
    return stats
