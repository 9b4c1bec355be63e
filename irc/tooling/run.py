"""The body of `irc run`: compile a .kdsl file (or parse a .ptx file), bind `--arg` values by parameter
name, launch, save arrays.

Why not in `api.py`: it is command-line behaviour (argparse namespace, stderr messages, exit statuses) on
top of the Python API; here `api` never imports `cli`, and `cli` imports this module. Every value is
checked by the API's own checks (irc/runtime/args.py): this module only turns text into values.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from irc.api import compile, load_ptx
from irc.diagnostics import CompileError, show_path
from irc.runtime.args import LaunchError, UnknownKernelError, describe, parse_arg_specs, value_from_text
from irc.tooling.inputs import RunUsageError, read_text


def parse_dims(raw: Any, flag: str) -> tuple[int, ...]:
    """`--grid 4` / `--block 16,8,1` -> a tuple of ints (the API then checks them against the target)."""
    try:
        dims = tuple(int(x.strip().replace("_", ""), 10) for x in str(raw).split(","))
    except ValueError:
        dims = ()
    if not 1 <= len(dims) <= 3:
        raise LaunchError(f"{flag} expects up to three positive integers like 4 or 4,2,1, got `{raw}`")
    return dims


def _load(a: argparse.Namespace, text: str, emit_diags: Callable[..., object]) -> Any:
    """The module to launch from: a compiled .kdsl file or a parsed .ptx file; None after compile errors
    (already rendered)."""
    if a.file.endswith(".ptx"):
        if a.defines:
            raise RunUsageError("-D overrides .kdsl params; a .ptx file has none")
        if a.arch is not None:
            raise RunUsageError("--arch does not apply to a .ptx file (it runs as its own `.target`)")
        try:
            return load_ptx(text, path=a.file)
        except CompileError as e:
            emit_diags(e.diagnostics, {a.file: text}, "text", 1, summary=False)
            return None
    from irc.tooling.config import resolve_arch

    try:
        arch = resolve_arch(text, a.file, a.arch)
    except ValueError as e:
        raise RunUsageError(str(e)) from None
    try:
        mod = compile(text, arch=arch, defines=dict(a.defines), path=a.file)
    except CompileError as e:
        emit_diags(e.diagnostics, {a.file: text}, "text", 1, summary=False)
        return None
    if mod.diagnostics:  # warnings, also when replayed from the cache
        emit_diags(mod.diagnostics, {a.file: text}, "text", 1, summary=False)
    return mod


def _bind(kernel: Any, specs: list[str], aliases: dict[str, str]) -> tuple[list[Any], dict[str, str]]:
    """The `--arg` values in parameter order, and {parameter: raw text}."""
    given: dict[str, str] = {}
    for n, raw in parse_arg_specs(specs).items():
        key = aliases.get(n, n)
        if key in given:
            raise LaunchError(f"--arg {n} names parameter `{key}` again")
        given[key] = raw
    names = kernel.param_names
    missing = [n for n in names if n not in given]
    extra = [n for n in given if n not in names]
    if missing or extra:
        raise LaunchError(
            f"kernel `{kernel.name}` parameters are {', '.join(names) or '(none)'}"
            + (f"; missing --arg for {', '.join(missing)}" if missing else "")
            + (f"; unknown --arg {', '.join(extra)}" if extra else "")
        )
    return [value_from_text(n, given[n]) for n in names], given


def run_cli(a: argparse.Namespace, emit_diags: Callable[..., object]) -> int:
    """`irc run`: compile or parse, bind --arg values by parameter name, launch, save arrays back to .npy
    files. `emit_diags` is the command line's diagnostic renderer (passed in, so this module never imports
    cli). Command-line mistakes raise RunUsageError; LaunchError and UnknownKernelError exit 2 here."""
    text = read_text(a.file)
    out_dir = Path(a.out_dir) if a.out_dir else None
    if out_dir is not None and not out_dir.is_dir():
        raise RunUsageError(f"--out-dir {show_path(str(out_dir))} is not a directory")
    mod = _load(a, text, emit_diags)
    if mod is None:
        return 1
    try:
        name = a.kernel or (mod.kernels[0] if len(mod.kernels) == 1 else None)
        if name is None:
            raise LaunchError(
                f"the file has several kernels ({', '.join(describe(k) for k in mod.kernels)}): "
                "choose one with --kernel"
                if mod.kernels
                else "the file has no kernel (no `kernel` item, or no PTX `.entry` with a body)"
            )
        k = mod[name]
        aliases = {f"{k.name}_{p}": p for p in k.param_names}  # PTX: the full `KERNEL_param_0` too
        args, given = _bind(k, list(a.arg), aliases)
        grid = parse_dims(a.grid, "--grid")
        block = parse_dims(a.block, "--block")
        opts: dict = {}
        if a.device == "emu":
            opts["racecheck"] = getattr(a, "racecheck", True)
            if getattr(a, "schedules", None):
                opts["schedules"] = a.schedules
        dyn = getattr(a, "dynamic_shared_bytes", 0)
        stats = k.launch(grid, block, args, device=a.device, dynamic_shared_bytes=dyn, **opts)
    except (LaunchError, UnknownKernelError) as e:
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
        from irc.runtime.cuda import CudaError, KernelFault

        if isinstance(e, KernelFault):
            sys.stderr.write(f"irc: error: {e}\n")
            return 1
        if isinstance(e, CudaError):  # the GPU cannot run it (its target, the driver): not the kernel's bug
            sys.stderr.write(f"irc: error: {e}\n")
            return 2
        raise
    for n, raw in given.items():
        if raw.endswith(".npy"):
            dest = (out_dir / Path(raw).name) if out_dir else Path(raw)
            try:
                np.save(dest, args[k.param_names.index(n)])
            except OSError as e:
                raise RunUsageError(f"cannot write {show_path(str(dest))}: {e.strerror}") from None
    for note in getattr(stats, "race_notes", None) or []:
        sys.stderr.write(f"irc: {note}\n")
    if stats is not None and hasattr(stats, "thread_instructions"):
        sys.stderr.write(
            f"irc: ran {k.name} in the emulator: {stats.thread_instructions} thread-instructions\n"
        )
    return 0
