"""Driving nvcc for `irc check file.cu`: find it, compile one .cu file to PTX for one target, cache the PTX.

Where nvcc comes from, first found wins: `$IRC_NVCC` (authoritative when set, like `$IRC_PTXAS`), the
configuration's `nvcc = "..."`, `nvcc` on PATH, the `nvidia-cuda-nvcc` wheel (`nvidia/cu13/bin/nvcc`).
The wheel's nvcc compiles .cu to PTX on its own when the `nvidia-cuda-crt`, `nvidia-cuda-runtime` and
`nvidia-nvvm` wheels it depends on are installed (cicc, the CUDA headers) and a host compiler (`g++`)
is on PATH: nvcc preprocesses with it even for `-ptx`.

The command is `nvcc -ptx -lineinfo [-O3] -arch=sm_XX <the user's flags> FILE -o OUT -MD -MF DEPS`,
run in the compile database's directory (CMake's relative `--options-file`s resolve there). `-lineinfo`
is what maps every finding back to the .cu line; `-O3` is added unless the user's flags set a level.

The cache (`cached_compile`) is keyed by content: the source's path and flags, the target, nvcc's
version, then the digests of every file the compile read (the source and each header, from nvcc's
dependency output). It holds data only -- a JSON manifest and the PTX text -- and every hit is
validated: the manifest's shape, each dependency's digest, the PTX's digest.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

from irc.diagnostics import Diagnostic, Span, error
from irc.records import field, record

HOW_TO_GET_NVCC = (
    "install one (`pip install nvidia-cuda-nvcc` gives nvcc with the CUDA headers; it also needs a host "
    "compiler such as g++), put `nvcc` on PATH, set IRC_NVCC=/path/to/nvcc, or add "
    '`nvcc = "/usr/local/cuda/bin/nvcc"` under [tool.irc]'
)


class NvccNotFound(Exception):
    """No nvcc could be located; the message says how to point irc at one."""


@record
class CudaOptions:
    """How to compile one .cu file: nvcc, the user's flags (no target, output or `-c`), the targets
    (irc names such as `sm_90a`) and the directory to run in (the compile database's)."""

    nvcc: str
    flags: list[str] = field(default_factory=list)
    archs: list[str] = field(default_factory=list)
    directory: str | None = None


@record
class PtxResult:
    """One compile: the PTX text and the file it is in (inside the cache), or nvcc's refusal."""

    arch: str
    ptx: str | None
    ptx_path: str | None
    diagnostics: list[Diagnostic] = field(default_factory=list)
    cached: bool = False


def _wheel_nvcc() -> str | None:
    import importlib.util

    try:
        spec = importlib.util.find_spec("nvidia")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    for root in spec.submodule_search_locations:
        for sub in ("cu13", "cuda_nvcc"):
            cand = Path(root) / sub / "bin" / "nvcc"
            if cand.is_file() and os.access(cand, os.X_OK):
                return str(cand)
    return None


def find_nvcc(configured: str | None = None) -> str | None:
    """nvcc's path: `$IRC_NVCC` (set but not an executable: none), `configured`, PATH, the wheel."""
    env = os.environ.get("IRC_NVCC")
    if env is not None:
        return env if env and os.path.isfile(env) and os.access(env, os.X_OK) else None
    if configured:
        found = shutil.which(configured)
        return found if found else None
    return shutil.which("nvcc") or _wheel_nvcc()


def require_nvcc(configured: str | None = None) -> str:
    exe = find_nvcc(configured)
    if exe is not None:
        return exe
    if os.environ.get("IRC_NVCC") is not None:
        raise NvccNotFound(
            f"IRC_NVCC={os.environ['IRC_NVCC']!r} is not an executable nvcc; {HOW_TO_GET_NVCC}"
        )
    if configured:
        raise NvccNotFound(f"the configured nvcc `{configured}` was not found; {HOW_TO_GET_NVCC}")
    raise NvccNotFound(f"checking .cu files needs nvcc, and none was found: {HOW_TO_GET_NVCC}")


_VERSIONS: dict[str, str] = {}


def nvcc_version(nvcc: str) -> str:
    """`nvcc --version`'s last line (`Build cuda_13.0.r13.0/compiler.36424714_0`), once per process."""
    if nvcc not in _VERSIONS:
        try:
            r = subprocess.run([nvcc, "--version"], capture_output=True, text=True, timeout=60)
            _VERSIONS[nvcc] = (r.stdout.strip().splitlines() or ["?"])[-1]
        except (OSError, subprocess.SubprocessError):
            _VERSIONS[nvcc] = "?"
    return _VERSIONS[nvcc]


def command(cu: str, arch: str, opts: CudaOptions, out: str, deps: str) -> list[str]:
    """The nvcc command line for one target (see the module docstring)."""
    flags = list(opts.flags)
    level = [] if any(re.match(r"^-O\d?$|^--optimize", f) for f in flags) else ["-O3"]
    lineinfo = [] if "-lineinfo" in flags or "-G" in flags else ["-lineinfo"]
    return [opts.nvcc, "-ptx", *lineinfo, *level, f"-arch={arch}", *flags, cu, "-o", out, "-MD", "-MF", deps]


# nvcc / cudafe++ / host compiler error lines: `a.cu(12): error: ...`, `a.cu:12:3: error: ...`
_ERR = re.compile(
    r"^(?P<file>[^\s()][^()]*?)(?:\((?P<l1>\d+)\)|:(?P<l2>\d+):(?:(?P<col>\d+):)?)\s*:?\s*(?:catastrophic\s+)?(?:fatal\s+)?error\s*:?\s*(?P<msg>.*)$"
)


def refusal(log: str, cu: str, arch: str) -> Diagnostic:
    """A `cuda-compile-error` finding at nvcc's first error (its whole output in the notes)."""
    lines = [ln.rstrip() for ln in log.splitlines() if ln.strip()]
    span = None
    msg = "nvcc could not compile this file"
    for ln in lines:
        m = _ERR.match(ln)
        if m:
            line = int(m.group("l1") or m.group("l2"))
            col = int(m.group("col") or 1)
            span = Span(m.group("file"), line, col, line, col + 1)
            msg = f"nvcc: {m.group('msg').strip()}"
            break
    else:
        fatal = next((ln for ln in lines if "fatal" in ln or "error" in ln), None)
        if fatal:
            msg = f"nvcc: {fatal.strip()}"
    shown = lines[:20] + ([f"... ({len(lines) - 20} more lines)"] if len(lines) > 20 else [])
    return error(
        "cuda-compile-error",
        msg,
        span,
        notes=["nvcc said:\n" + "\n".join(shown)] if shown else [],
        help=f"{cu} must compile with `nvcc -ptx`: give irc the project's flags (`irc check -p BUILD` "
        'with CMake\'s compile_commands.json, or `nvcc-flags = ["-Iinclude"]` under [tool.irc])',
    )


def _parse_deps(text: str, cwd: str) -> list[str]:
    """The prerequisites of a make rule written by `nvcc -MD -MF`, as absolute paths."""
    body = text.replace("\\\n", " ")
    if ":" not in body:
        return []
    rhs = body.split(":", 1)[1] if not re.match(r"^[A-Za-z]:\\", body) else body.split(":", 2)[2]
    out = []
    for tok in re.split(r"(?<!\\)\s+", rhs.strip()):
        if tok:
            p = tok.replace("\\ ", " ")
            out.append(os.path.normpath(os.path.join(cwd, p)))
    return list(dict.fromkeys(out))


def compile_ptx(cu: str, arch: str, opts: CudaOptions, out_dir: str) -> tuple[PtxResult, list[str]]:
    """Run nvcc for one target into `out_dir`; returns the result and the files the compile read."""
    stem = Path(cu).stem
    out = os.path.join(out_dir, f"{stem}.{arch}.ptx")
    dep = os.path.join(out_dir, f"{stem}.{arch}.d")
    cwd = opts.directory or os.getcwd()
    src = os.path.abspath(cu)  # relative to where irc runs, not to the compile database's directory
    try:
        r = subprocess.run(
            command(src, arch, opts, out, dep), capture_output=True, text=True, cwd=cwd, timeout=600
        )
    except (OSError, subprocess.SubprocessError) as e:
        return PtxResult(arch, None, None, [refusal(str(e), cu, arch)]), []
    if r.returncode != 0 or not os.path.exists(out):
        return PtxResult(arch, None, None, [refusal(r.stderr + r.stdout, cu, arch)]), []
    ptx = Path(out).read_text(encoding="utf-8", errors="replace")
    try:
        deps = _parse_deps(Path(dep).read_text(encoding="utf-8", errors="replace"), cwd)
    except OSError:
        deps = []
    return PtxResult(arch, ptx, out), [src, *(d for d in deps if d != src)]


# ------------------------------------------------------------------------------------------ the cache


def cache_root() -> Path | None:
    """`<irc cache>/nvcc`, created 0700; None (with a warning, once) when it is not safe to use: owned by
    another user, or writable by group or others (someone else could plant PTX that irc then reports on).
    The one place that decides where the PTX cache lives (the shared validated-cache helper plugs in here)."""
    from irc.cachedir import cache_dir

    root = cache_dir() / "nvcc"
    try:
        root.mkdir(mode=0o700, parents=True, exist_ok=True)
        st = root.stat()
    except OSError:
        return None
    if (hasattr(os, "getuid") and st.st_uid != os.getuid()) or st.st_mode & 0o022:
        if not _WARNED:
            _WARNED.append(True)
            import sys

            sys.stderr.write(
                f"irc: warning: not using the PTX cache {root}: owned by another user or writable by others\n"
            )
        return None
    return root


_WARNED: list[bool] = []


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _file_digest(path: str) -> str | None:
    try:
        with open(path, "rb") as fh:
            return _digest(fh.read())
    except OSError:
        return None


def _key(cu: str, arch: str, opts: CudaOptions) -> str:
    from irc.version import __version__

    cwd = opts.directory or os.getcwd()
    payload = {
        "format": 1,
        "irc": __version__,
        "source": os.path.abspath(cu),
        "directory": cwd,
        "flags": opts.flags,
        "arch": arch,
        "nvcc": [os.path.realpath(opts.nvcc), nvcc_version(opts.nvcc)],
    }
    return _digest(json.dumps(payload, sort_keys=True).encode())


def _lookup(entry: Path, name: str) -> str | None:
    """The cached PTX when the manifest is well formed, every file the compile read is unchanged and the
    PTX matches its recorded digest; else None."""
    try:
        man = json.loads((entry / "manifest.json").read_text(encoding="utf-8"))
        deps, want = man["deps"], man["ptx_sha256"]
        if not isinstance(deps, list) or not isinstance(want, str) or man.get("format") != 1:
            return None
        for path, digest in deps:
            if _file_digest(path) != digest:
                return None
        data = (entry / name).read_bytes()
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return data.decode("utf-8", errors="replace") if _digest(data) == want else None


def _store(entry: Path, name: str, ptx: str, deps: list[str]) -> None:
    """Write the PTX, then the manifest that validates it (each atomically: temp file and rename)."""
    digests = [(p, _file_digest(p)) for p in deps]
    if any(d is None for _, d in digests):
        return  # a file vanished mid-compile: do not cache what cannot be validated
    entry.mkdir(mode=0o700, parents=True, exist_ok=True)
    data = ptx.encode()
    man = json.dumps({"format": 1, "deps": digests, "ptx_sha256": _digest(data)})
    for fname, blob in ((name, data), ("manifest.json", man.encode())):
        fd, tmp = tempfile.mkstemp(dir=entry, prefix=".tmp-")
        with os.fdopen(fd, "wb") as fh:
            fh.write(blob)
        os.replace(tmp, entry / fname)


def cached_compile(cu: str, arch: str, opts: CudaOptions) -> PtxResult:
    """`compile_ptx` through the cache; a refusal is never cached. The PTX file is the cache entry's
    (findings name it as the PTX behind each .cu line)."""
    name = f"{Path(cu).stem}.{arch}.ptx"
    root = cache_root()
    if root is not None:
        key = _key(cu, arch, opts)
        entry = root / key[:2] / key[2:18]
        hit = _lookup(entry, name)
        if hit is not None:
            return PtxResult(arch, hit, str(entry / name), cached=True)
    with tempfile.TemporaryDirectory(prefix="irc-nvcc-") as tmp:
        res, deps = compile_ptx(cu, arch, opts, tmp)
        if res.ptx is None or root is None:
            if res.ptx is not None:  # no usable cache: keep the PTX where findings can point at it
                keep = Path(tempfile.mkdtemp(prefix="irc-ptx-")) / name
                keep.write_text(res.ptx, encoding="utf-8")
                res.ptx_path = str(keep)
            return res
        try:
            _store(entry, name, res.ptx, deps)
            res.ptx_path = str(entry / name)
        except OSError:
            keep = Path(tempfile.mkdtemp(prefix="irc-ptx-")) / name
            keep.write_text(res.ptx, encoding="utf-8")
            res.ptx_path = str(keep)
        return res


def main() -> int:
    """`python -m irc.tooling.nvcc`: print the nvcc irc would use (for `cmake -DCMAKE_CUDA_COMPILER=...`),
    or say how to get one (exit 2)."""
    import sys

    try:
        sys.stdout.write(require_nvcc() + "\n")
    except NvccNotFound as e:
        sys.stderr.write(f"irc: error: {e}\n")
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
