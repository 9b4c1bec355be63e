"""`run_kernel(..., schedules=N)`: run N seeded completion orders of the asynchronous work and compare.

Which error: an `AsyncRaceError` from any schedule wins (it names the read and the copy); otherwise the
first other error (a hang with the mbarrier state, a fault). A wrong parity, for example, hangs under the
"complete at once" order and reads a tile in flight under a later one.

Why compare: a race on asynchronous memory does not always read a poisoned byte (the copy may have
landed under one order and not under another, and a wrong-parity wait may see an older, complete tile).
Results that differ between two schedules are a race whatever the cause, so they are reported too.
"""

from __future__ import annotations

import numpy as np

from irc.emu.errors import AsyncRaceError, EmuError, EmuLaunchError


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


def run_schedules(run_kernel, module, kernel: str, grid, block, args: list, n: int, opts: dict):
    """`run_kernel` is `irc.emu.launch.run_kernel` (passed in: launch imports this module)."""

    if n < 1:
        raise EmuLaunchError(f"schedules must be >= 1, got {n}")
    arrs = _arrays(args)
    start = [a.copy() for a in arrs]
    first: list[np.ndarray] | None = None
    stats = None
    failed: EmuError | None = None
    for s in range(n):
        for a, a0 in zip(arrs, start):
            a[...] = a0
        try:
            st = run_kernel(module, kernel, grid, block, args, seed=s, **opts)
        except AsyncRaceError:
            raise  # the most specific verdict: data read while in flight
        except EmuError as e:
            # a hang or fault under this order: keep looking for an order that shows the race behind it
            failed = failed or e
            continue
        if failed is not None:
            continue
        res = [a.copy() for a in arrs]
        if first is None:
            first, stats = res, st
            continue
        for i, (x, y) in enumerate(zip(first, res)):
            if x.tobytes() != y.tobytes():
                diff = np.flatnonzero(x.reshape(-1).view(np.uint8) != y.reshape(-1).view(np.uint8))
                raise AsyncRaceError(
                    f"results depend on the completion order of asynchronous work: schedule 0 and "
                    f"schedule {s} leave different values in array argument {i} (first byte {int(diff[0])})",
                    kernel=kernel,
                )
    if failed is not None:
        raise failed
    for a, r in zip(arrs, first or []):
        a[...] = r
    return stats
