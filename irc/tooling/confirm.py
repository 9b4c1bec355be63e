"""`irc check --confirm`: replay each finding's witness launch in the emulator.

The solver's witness names a block and grid, the parameter values and the threads. The replay runs the
kernel with exactly that launch, random contents in every pointer argument's buffer, the emulator's race
checker on and several completion schedules of the asynchronous work, and reports whether the bug the
finding describes happened: a hang (`BarrierError`/`DeadlockError`), a race (`RaceError`), a read of
memory an asynchronous copy had not written yet (`AsyncRaceError`), a collective with missing lanes
(`CollectiveMaskError`), or a read of shared memory nobody wrote (`UninitSharedReadError`).

The finding then says "confirmed by the emulator: ..." (or, when the replay ran clean or stopped for
another reason, "not confirmed: ..."). A witness is a model of an over-approximation, so a replay that
runs clean does not withdraw the finding; it tells the reader how much to trust it.
"""

from __future__ import annotations

import math
from typing import Any

from irc.diagnostics import Diagnostic

#: which emulator errors show the bug each check describes
CONFIRMS: dict[str, tuple[str, ...]] = {
    "barrier-divergence": ("BarrierError", "DeadlockError"),
    "warp-sync-divergence": ("CollectiveMaskError", "BarrierError", "DeadlockError"),
    "shared-race": ("RaceError", "AsyncRaceError"),
    "async-unwaited": ("AsyncRaceError", "UninitSharedReadError", "RaceError"),
    "async-proxy-fence": ("AsyncRaceError",),
    "mbarrier-phase": ("DeadlockError", "AsyncRaceError", "StepLimitError"),
    "mbarrier-arrival-mismatch": ("DeadlockError", "AsyncRaceError", "StepLimitError"),
    "mbarrier-uninitialized": ("DeadlockError", "AsyncRaceError"),
    "mbarrier-tx-mismatch": ("DeadlockError", "AsyncRaceError", "StepLimitError"),
    "uninitialized": ("UninitSharedReadError",),
}
MAX_BUFFER_BYTES = 64 << 20
REPLAY_SCHEDULES = 8  # as the suite scorer: fewer orders miss copies that land late
REPLAY_STEPS = 200_000


def _ptx_module(text: str, path: str, arch: str, defines: dict) -> Any:
    from irc.frontend.ptx.parser import parse_ptx

    if path.endswith(".ptx"):
        return parse_ptx(text, path)
    from irc.compiler import CompileOptions, compile_kdsl

    res = compile_kdsl(text, path, CompileOptions(arch=arch, defines=dict(defines), check=False))
    return parse_ptx(res.ptx_text, path.rsplit(".", 1)[0] + ".ptx")


def _args(fn: Any, w: dict) -> list | str:
    """Arguments for the replay, or why there are none: pointers get random buffers, integers the
    witness's values (the block's thread count for those it does not name), floats 1.0."""
    import numpy as np

    rng = np.random.default_rng(0)
    block = math.prod(int(x) for x in w["block_dim"])
    threads = block * math.prod(int(x) for x in w["grid_dim"])
    values = list(w.get("params", {}).values())
    biggest = max([abs(int(v)) for v in values] + [threads])
    # room for a square matrix of the largest size the launch names (a GEMM's n x n operands)
    nbytes = min(MAX_BUFFER_BYTES, max(biggest * 16, biggest * biggest * 4) + 4096)
    by_index = w.get("param_index", {})
    out: list = []
    for i, p in enumerate(fn.params):
        t = str(p.type).lstrip(".")
        val = by_index.get(str(i))
        if p.dims:
            return f"parameter {i} is a byte array (a struct or TMA descriptor) the replay cannot fill"
        if t in ("u64", "b64", "s64") and val is None:
            out.append(rng.random(nbytes // 4, dtype=np.float32))
        elif t.startswith("f"):
            out.append(1.0)
        else:
            # an integer the witness leaves free: the block's thread count (a size or a trip count that
            # lets loops run; 0 would skip the loop the finding is about)
            out.append(int(val) if val is not None else block)
    return out


def replay(diag: Diagnostic, text: str, path: str, arch: str, defines: dict) -> str:
    """Run `diag`'s witness; the sentence the finding gets."""
    w = diag.witness
    if not w or not diag.kernel:
        return ""
    try:
        mod = _ptx_module(text, path, arch, defines)
    except Exception as e:  # noqa: BLE001 - the file may not compile without its checks: say so
        return f"not confirmed: the kernel could not be prepared for the emulator ({type(e).__name__})"
    fn = next((f for f in mod.functions if f.name == diag.kernel), None)
    if fn is None:
        return "not confirmed: the kernel is not in the emulated module"
    args = _args(fn, w)
    if isinstance(args, str):
        return f"not confirmed: {args}"
    from irc.emu import EmuError, run_kernel
    from irc.emu.errors import EmuLaunchError

    try:
        run_kernel(
            mod,
            fn.name,
            grid=tuple(w["grid_dim"]),
            block=tuple(w["block_dim"]),
            args=args,
            schedules=REPLAY_SCHEDULES,
            max_steps=REPLAY_STEPS,
        )
    except EmuError as e:
        name = type(e).__name__
        if name in CONFIRMS.get(diag.check, ()):
            return f"confirmed by the emulator: {name}: {e.message}"
        return f"not confirmed: the replay stopped with {name}: {e.message}"
    except EmuLaunchError as e:
        return f"not confirmed: the emulator refused the launch ({e})"
    except Exception as e:  # noqa: BLE001 - an emulator limitation is not the user's bug
        return f"not confirmed: the emulator could not run the kernel ({type(e).__name__}: {e})"
    return "not confirmed: the emulator ran the witness launch without an error"


def confirm_all(diags: list[Diagnostic], text: str, path: str, arch: str, defines: dict) -> None:
    """Replay every witnessed finding (in place: the witness gets `confirmed`, its sentence the result)."""
    for d in diags:
        if d.witness and d.kernel and d.check in CONFIRMS:
            res = replay(d, text, path, arch, defines)
            if res:
                d.witness["confirmed"] = res
                d.witness["text"] = d.witness.get("text", "") + f"; {res}"
