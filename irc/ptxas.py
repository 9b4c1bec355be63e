"""Driving NVIDIA's assembler: find `ptxas`, run it on PTX text, parse its errors and its `-v` report, and
turn PTX into a cubin (nvJitLink first, `ptxas -o` as the fallback).

ptxas is the ground truth for "is this PTX valid for this target": the backend's tests assemble every
emitted kernel with it, and `irc check` uses the `-v` report (registers, spills, shared bytes). Nothing here
needs a GPU.

Output formats handled (recorded with ptxas 13.0 and 13.5, see /work/shared/ptx-reference/forms/README.txt):

    ptxas FILE, line N; error   : MESSAGE          (also `warning`, `fatal`) -- on stderr
    ptxas fatal   : MESSAGE                         (no line)                 -- on stderr
    ptxas info    : Compiling entry function 'k' for 'sm_80'                  -- on stdout with -v
    ptxas info    : Function properties for k
        128 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
    ptxas info    : Used 80 registers, used 1 barriers, 128 bytes cumulative stack size, 4096 bytes smem,
                    376 bytes cmem[0]                                         (one line)
"""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

from irc.records import field, record


class PtxasNotFound(RuntimeError):
    """No ptxas could be located ($IRC_PTXAS, the nvidia-cuda-nvcc wheel, PATH)."""


class PtxasError(RuntimeError):
    """PTX that the assembler (or nvJitLink) refused; `errors` holds the parsed messages when known."""

    def __init__(self, message: str, errors: list[PtxasMessage] | None = None, log: str = ""):
        super().__init__(message)
        self.errors = list(errors or [])
        self.log = log


@record(frozen=True)
class PtxasMessage:
    """One diagnostic line from ptxas. `line` is the 1-based PTX line, or None for file-level messages."""

    line: int | None
    message: str
    severity: str = "error"  # "error" | "warning" | "fatal"


@record
class PtxasResult:
    """What one ptxas run said. `info` maps function name -> facts from `-v` (keys: registers, barriers,
    spill_stores, spill_loads, stack_frame, cumulative_stack, shared_bytes, cmem (dict bank -> bytes),
    entry (bool), target, compile_time_ms); empty without `verbose=True`."""

    ok: bool
    errors: list[PtxasMessage]
    stderr: str
    info: dict[str, dict] = field(default_factory=dict)
    warnings: list[PtxasMessage] = field(default_factory=list)
    stdout: str = ""
    returncode: int = 0
    gmem_bytes: int | None = None


# --------------------------------------------------------------------------------------------- locating


def _wheel_ptxas() -> str | None:
    """The ptxas shipped in the pip wheel nvidia-cuda-nvcc (a namespace package `nvidia`; the layout is
    `nvidia/cu13/bin/ptxas` for CUDA 13 wheels and `nvidia/cuda_nvcc/bin/ptxas` for older ones)."""
    try:
        spec = importlib.util.find_spec("nvidia")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    for root in spec.submodule_search_locations:
        for sub in ("cu13", "cuda_nvcc"):
            cand = Path(root) / sub / "bin" / "ptxas"
            if cand.is_file() and os.access(cand, os.X_OK):
                return str(cand)
    return None


def find_ptxas() -> str | None:
    """Locate ptxas. `$IRC_PTXAS` is authoritative when set: a path to an executable is used, anything else
    (including the empty string, handy in tests) means "no ptxas" rather than silently picking another one.
    Otherwise the nvidia-cuda-nvcc wheel's binary (a known, pinned version), then `ptxas` on PATH."""
    env = os.environ.get("IRC_PTXAS")
    if env is not None:
        return env if env and os.path.isfile(env) and os.access(env, os.X_OK) else None
    return _wheel_ptxas() or shutil.which("ptxas")


def ptxas_version(ptxas: str | None = None) -> str | None:
    """The `release X.Y, VX.Y.Z` part of `ptxas --version`, for reports; None when unavailable."""
    exe = ptxas or find_ptxas()
    if exe is None:
        return None
    try:
        out = subprocess.run([exe, "--version"], capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    m = re.search(r"release ([\d.]+), (V[\d.]+)", out)
    return f"{m.group(1)} ({m.group(2)})" if m else None


# --------------------------------------------------------------------------------------------- parsing

_MSG_WITH_LINE = re.compile(
    r"^ptxas (?P<file>.+?), line (?P<line>\d+); (?P<sev>error|warning|fatal)\s*: (?P<msg>.*)$"
)
_MSG_NO_LINE = re.compile(r"^ptxas (?P<sev>error|warning|fatal)\s*: (?P<msg>.*)$")
# The trailer ptxas adds after real errors; it carries no information of its own.
_ABORTED = "Ptx assembly aborted due to errors"


def parse_messages(text: str) -> tuple[list[PtxasMessage], list[PtxasMessage]]:
    """Split ptxas output into (errors, warnings). `fatal` counts as an error. The generic "aborted due to
    errors" trailer is dropped when other errors explain it."""
    errors: list[PtxasMessage] = []
    warnings: list[PtxasMessage] = []
    for raw in text.splitlines():
        line = raw.rstrip()
        m = _MSG_WITH_LINE.match(line)
        if m:
            msg = PtxasMessage(int(m.group("line")), m.group("msg").strip(), m.group("sev"))
        else:
            m = _MSG_NO_LINE.match(line)
            if not m:
                continue
            msg = PtxasMessage(None, m.group("msg").strip(), m.group("sev"))
        (warnings if msg.severity == "warning" else errors).append(msg)
    if len(errors) > 1:
        errors = [e for e in errors if e.message != _ABORTED]
    return errors, warnings


_COMPILING = re.compile(r"Compiling entry function '(?P<name>[^']+)' for '(?P<target>[^']+)'")
_PROPS = re.compile(r"Function properties for (?P<name>\S+)")
_STACK = re.compile(
    r"(?P<frame>\d+) bytes stack frame, (?P<stores>\d+) bytes spill stores, (?P<loads>\d+) bytes spill loads"
)
_USED = re.compile(r"Used (?P<regs>\d+) registers")
_BARRIERS = re.compile(r"used (?P<n>\d+) barriers")
_CUMUL = re.compile(r"(?P<n>\d+) bytes cumulative stack size")
_SMEM = re.compile(r"(?P<n>\d+) bytes smem")
_CMEM = re.compile(r"(?P<n>\d+) bytes cmem\[(?P<bank>\d+)\]")
_TIME = re.compile(r"Compile time = (?P<ms>[\d.]+) ms")
_GMEM = re.compile(r"ptxas info\s*: (?P<n>\d+) bytes gmem")


def _new_info(entry: bool, target: str | None = None) -> dict:
    return {
        "entry": entry,
        "target": target,
        "registers": 0,
        "barriers": 0,
        "stack_frame": 0,
        "spill_stores": 0,
        "spill_loads": 0,
        "cumulative_stack": 0,
        "shared_bytes": 0,
        "cmem": {},
    }


def parse_verbose(text: str) -> tuple[dict[str, dict], int | None]:
    """Parse `ptxas -v` output into ({function: facts}, gmem bytes). "Used ..." and "Compile time" lines
    belong to the entry function most recently announced by "Compiling entry function"; the indented
    "N bytes stack frame" line belongs to the preceding "Function properties for X" (X may be a non-entry
    `.func`, recorded with entry=False)."""
    info: dict[str, dict] = {}
    gmem: int | None = None
    current: str | None = None  # entry function being compiled
    props_for: str | None = None  # function whose properties line comes next
    for raw in text.splitlines():
        line = raw.strip()
        if m := _GMEM.match(line):
            gmem = int(m.group("n"))
            continue
        if m := _COMPILING.search(line):
            current = m.group("name")
            info.setdefault(current, _new_info(True, m.group("target")))
            info[current]["entry"] = True
            info[current]["target"] = m.group("target")
            continue
        if m := _PROPS.search(line):
            props_for = m.group("name")
            info.setdefault(props_for, _new_info(props_for == current))
            continue
        if (m := _STACK.search(line)) and props_for is not None:
            facts = info[props_for]
            facts["stack_frame"] = int(m.group("frame"))
            facts["spill_stores"] = int(m.group("stores"))
            facts["spill_loads"] = int(m.group("loads"))
            props_for = None
            continue
        if (m := _USED.search(line)) and current is not None:
            facts = info[current]
            facts["registers"] = int(m.group("regs"))
            if b := _BARRIERS.search(line):
                facts["barriers"] = int(b.group("n"))
            if c := _CUMUL.search(line):
                facts["cumulative_stack"] = int(c.group("n"))
            if s := _SMEM.search(line):
                facts["shared_bytes"] = int(s.group("n"))
            facts["cmem"] = {int(c.group("bank")): int(c.group("n")) for c in _CMEM.finditer(line)}
            continue
        if (m := _TIME.search(line)) and current is not None:
            info[current]["compile_time_ms"] = float(m.group("ms"))
    return info, gmem


# --------------------------------------------------------------------------------------------- running


def run_ptxas(
    ptx_text: str,
    arch: str,
    *,
    verbose: bool = False,
    lineinfo: bool = False,
    extra_args: list[str] | None = None,
    ptxas: str | None = None,
    timeout: float = 120.0,
) -> PtxasResult:
    """Assemble `ptx_text` for `arch` (e.g. "sm_90a") and report what ptxas said. The PTX is written to a
    temporary file so that error lines refer to it; the cubin is discarded. Raises PtxasNotFound when no
    ptxas is available (callers that treat ptxas as optional should test `find_ptxas()` first)."""
    exe = ptxas or find_ptxas()
    if exe is None:
        raise PtxasNotFound("ptxas not found: set IRC_PTXAS, install nvidia-cuda-nvcc, or put ptxas on PATH")
    with tempfile.TemporaryDirectory(prefix="irc-ptxas-") as tmp:
        src = Path(tmp) / "kernel.ptx"
        src.write_text(ptx_text)
        cmd = [exe, f"-arch={arch}", "-o", str(Path(tmp) / "kernel.cubin")]
        if verbose:
            cmd.append("-v")
        if lineinfo:
            cmd.append("-lineinfo")
        cmd += list(extra_args or [])
        cmd.append(str(src))
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    both = proc.stdout + "\n" + proc.stderr
    errors, warnings = parse_messages(both)
    info, gmem = parse_verbose(proc.stdout + "\n" + proc.stderr) if verbose else ({}, None)
    ok = proc.returncode == 0 and not errors
    if proc.returncode != 0 and not errors:
        # ptxas died without a parsable message (signal, unknown format): keep the raw text as the error.
        errors = [PtxasMessage(None, proc.stderr.strip() or f"ptxas exited with status {proc.returncode}")]
    return PtxasResult(
        ok=ok,
        errors=errors,
        stderr=proc.stderr,
        info=info,
        warnings=warnings,
        stdout=proc.stdout,
        returncode=proc.returncode,
        gmem_bytes=gmem,
    )


def _cubin_via_nvjitlink(ptx_text: str, arch: str) -> bytes | None:
    """Link PTX to a cubin in-process with nvJitLink. Returns None when nvJitLink itself is unavailable
    (module or shared library missing) so that the caller can fall back; raises PtxasError when nvJitLink
    ran and rejected the PTX."""
    try:
        from cuda.bindings import nvjitlink  # type: ignore[import-not-found]
    except Exception:  # noqa: BLE001 - any import/load failure means "not available here"
        return None
    data = ptx_text.encode()
    try:
        handle = nvjitlink.create(1, [f"-arch={arch}"])
    except Exception:  # noqa: BLE001 - library could not be loaded or does not know the arch
        return None
    try:
        try:
            nvjitlink.add_data(handle, nvjitlink.InputType.PTX, data, len(data), "kernel.ptx")
            nvjitlink.complete(handle)
        except nvjitlink.nvJitLinkError as exc:
            log = _nvjitlink_log(nvjitlink, handle)
            # nvJitLink embeds ptxas's own "ptxas ..., line N; error : ..." lines in its log.
            errors, _ = parse_messages(log)
            raise PtxasError(f"nvJitLink rejected the PTX for {arch}: {exc}", errors=errors, log=log) from exc
        size = nvjitlink.get_linked_cubin_size(handle)
        buf = bytearray(size)
        nvjitlink.get_linked_cubin(handle, buf)
        return bytes(buf)
    finally:
        try:
            nvjitlink.destroy(handle)
        except Exception:  # noqa: BLE001 - destroy failing must not mask the real result
            pass


def _nvjitlink_log(nvjitlink, handle) -> str:  # noqa: ANN001 - module object from cuda.bindings
    try:
        size = nvjitlink.get_error_log_size(handle)
        buf = bytearray(size)
        nvjitlink.get_error_log(handle, buf)
        return bytes(buf).rstrip(b"\0").decode(errors="replace")
    except Exception:  # noqa: BLE001
        return ""


def _cubin_via_ptxas(ptx_text: str, arch: str) -> bytes:
    exe = find_ptxas()
    if exe is None:
        raise PtxasNotFound("neither nvJitLink nor ptxas is available to build a cubin")
    with tempfile.TemporaryDirectory(prefix="irc-cubin-") as tmp:
        src, out = Path(tmp) / "kernel.ptx", Path(tmp) / "kernel.cubin"
        src.write_text(ptx_text)
        proc = subprocess.run(
            [exe, f"-arch={arch}", "-o", str(out), str(src)], capture_output=True, text=True
        )
        if proc.returncode != 0:
            errors, _ = parse_messages(proc.stdout + "\n" + proc.stderr)
            raise PtxasError(f"ptxas rejected the PTX for {arch}", errors=errors, log=proc.stderr)
        return out.read_bytes()


def ptx_to_cubin(ptx_text: str, arch: str, *, prefer: str = "nvjitlink") -> bytes:
    """Compile PTX to an ELF cubin for `arch`. nvJitLink (cuda.bindings) is tried first because it needs no
    subprocess and matches the driver's JIT; when it is missing, `ptxas -o` is used (`prefer="ptxas"`
    forces that path). On rejection a PtxasError is raised carrying line-numbered messages (parsed from the
    nvJitLink log, or from a ptxas run when that log has none)."""
    if prefer not in ("nvjitlink", "ptxas"):
        raise ValueError(f"prefer must be 'nvjitlink' or 'ptxas', not {prefer!r}")
    if prefer == "nvjitlink":
        try:
            cubin = _cubin_via_nvjitlink(ptx_text, arch)
        except PtxasError as exc:
            if not exc.errors and find_ptxas() is not None:
                res = run_ptxas(ptx_text, arch)
                if not res.ok:
                    raise PtxasError(str(exc), errors=res.errors, log=exc.log or res.stderr) from exc
            raise
        if cubin is not None:
            return cubin
    return _cubin_via_ptxas(ptx_text, arch)
