"""The body of `irc run`: compile a .kdsl file, bind `--arg` values by parameter name, launch, save arrays.

Why not in `api.py`: it is command-line behaviour (argparse namespace, stderr messages, exit statuses) on
top of the Python API; here `api` never imports `cli`, and `cli` imports this module.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from irc.api import LaunchError, compile
from irc.diagnostics import CompileError


def _parse_arg(spec: str) -> tuple[str, Any]:
    if "=" not in spec:
        raise LaunchError(f"--arg expects NAME=VALUE or NAME=PATH.npy, got `{spec}`")
    name, raw = spec.split("=", 1)
    if raw.endswith(".npy"):
        try:
            return name, np.load(raw)
        except FileNotFoundError:
            raise LaunchError(f"--arg {name}: no such file {raw}") from None
    try:
        return name, int(raw, 0)
    except ValueError:
        try:
            return name, float(raw)
        except ValueError:
            raise LaunchError(f"--arg {name}: `{raw}` is not a number or a .npy file") from None


def _parse_dims(raw: Any, flag: str) -> tuple[int, ...]:
    try:
        return tuple(int(x, 0) for x in str(raw).split(","))
    except ValueError:
        raise LaunchError(
            f"{flag} expects up to three positive integers like 4 or 4,2,1, got `{raw}`"
        ) from None


def run_cli(a: argparse.Namespace, emit_diags: Callable[..., object]) -> int:
    """`irc run`: compile, bind --arg values by parameter name, launch, save arrays back to .npy files.
    `emit_diags` is the command line's diagnostic renderer (passed in, so this module never imports cli)."""

    text = Path(a.file).read_text(encoding="utf-8") if Path(a.file).is_file() else None
    if text is None:
        sys.stderr.write(f"irc: error: no such file: {a.file}\n")
        return 2
    try:
        mod = compile(text, arch=a.arch, defines=dict(a.defines), path=a.file)
    except CompileError as e:
        emit_diags(e.diagnostics, {a.file: text}, "text", 1, summary=False)
        return 1
    if mod.diagnostics:  # warnings, also when replayed from the cache
        emit_diags(mod.diagnostics, {a.file: text}, "text", 1, summary=False)
    try:
        name = a.kernel or (mod.kernels[0] if len(mod.kernels) == 1 else None)
        if name is None:
            raise LaunchError(
                f"the file has several kernels ({', '.join(mod.kernels)}): choose one with --kernel"
            )
        k = mod[name]
        given = dict(_parse_arg(s) for s in a.arg)
        missing = [n for n in k.param_names if n not in given]
        extra = [n for n in given if n not in k.param_names]
        if missing or extra:
            raise LaunchError(
                f"kernel `{name}` parameters are {', '.join(k.param_names)}"
                + (f"; missing --arg for {', '.join(missing)}" if missing else "")
                + (f"; unknown --arg {', '.join(extra)}" if extra else "")
            )
        args = [given[n] for n in k.param_names]
        grid = _parse_dims(a.grid, "--grid")
        block = _parse_dims(a.block, "--block")
        opts: dict = {}
        if a.device == "emu":
            opts["racecheck"] = getattr(a, "racecheck", True)
            if getattr(a, "schedules", None):
                opts["schedules"] = a.schedules
        dyn = getattr(a, "dynamic_shared_bytes", 0)
        stats = k.launch(grid, block, args, device=a.device, dynamic_shared_bytes=dyn, **opts)
    except (LaunchError, KeyError) as e:
        sys.stderr.write(f"irc: error: {e}\n")
        return 2
    except Exception as e:  # a dynamic error found while running the kernel (the kernel's bug, not irc's)
        from irc.emu import EmuError, LimitError

        if isinstance(e, LimitError):  # beyond what the emulator can hold: not the kernel's bug
            sys.stderr.write(f"irc: error: too large for the emulator: {e}\n")
            return 2
        if isinstance(e, EmuError):
            sys.stderr.write(f"irc: error: the kernel failed in the emulator: {e}\n")
            return 1
        raise
    out_dir = Path(a.out_dir) if a.out_dir else None
    for spec in a.arg:
        n, raw = spec.split("=", 1)
        if raw.endswith(".npy"):
            dest = (out_dir / Path(raw).name) if out_dir else Path(raw)
            np.save(dest, given[n])
    for n in getattr(stats, "race_notes", None) or []:
        sys.stderr.write(f"irc: {n}\n")
    if stats is not None and hasattr(stats, "thread_instructions"):
        sys.stderr.write(
            f"irc: ran {name} in the emulator: {stats.thread_instructions} thread-instructions\n"
        )
    return 0
