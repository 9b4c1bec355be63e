"""`irc check` on CUDA sources: compile each .cu file to PTX for every target (`irc.tooling.nvcc`,
cached by content), check each PTX, and report in the .cu/.cuh lines.

- Targets of a .cu file, first found wins: `--arch` (a comma-separated list), the compile database's
  `-gencode`/`-arch` flags, `cuda-arch` in the configuration, `arch` in the configuration, sm_80.
- Flags: the compile database's (`-p BUILD` or `compile-commands = "BUILD"`), else `nvcc-flags`.
- A finding that every target reports is one finding; one that only some targets report says on which.
- A `.cuh` header named on the command line (pre-commit passes what changed) is checked through the .cu
  files that include it: those of the compile database, else those beside it and under the
  configuration's root.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from pathlib import Path

from irc.diagnostics import Diagnostic
from irc.records import replace
from irc.tooling.nvcc import CudaOptions, cached_compile, require_nvcc

CUDA_SOURCES = (".cu",)
CUDA_HEADERS = (".cuh",)


def targets_for(entry_archs: Sequence[str], cli: Sequence[str] | None, config) -> list[str]:  # type: ignore[no-untyped-def]
    """The targets of one .cu file (see the module docstring)."""
    if cli:
        return list(cli)
    if entry_archs:
        return list(entry_archs)
    if config is not None and getattr(config, "cuda_arch", None):
        return list(config.cuda_arch)
    if config is not None and config.arch:
        return [config.arch]
    return ["sm_80"]


def options_for(files: Sequence[str], cli_archs: Sequence[str] | None, config, db_path: str | None):  # type: ignore[no-untyped-def]
    """(the .cu files to check, in order, with a header replaced by the files that include it;
    path -> CudaOptions). Raises NvccNotFound when there is something to compile and no nvcc."""
    from irc.tooling import compdb

    db: dict[str, compdb.Entry] = compdb.load(db_path) if db_path else {}
    out_files: list[str] = []
    for f in files:
        if f.endswith(CUDA_HEADERS):
            out_files += [u for u in including_units(f, db, config) if u not in out_files]
        elif f not in out_files:
            out_files.append(f)
    if not any(f.endswith(CUDA_SOURCES) for f in out_files):
        return out_files, {}
    configured = getattr(config, "nvcc", None) if config is not None else None
    if configured and "/" in configured and not os.path.isabs(configured):
        configured = str(Path(config.root) / configured)  # relative to the configuration file
    nvcc = require_nvcc(configured)
    opts: dict[str, CudaOptions] = {}
    base_flags = list(getattr(config, "nvcc_flags", None) or []) if config is not None else []
    for f in out_files:
        if not f.endswith(CUDA_SOURCES):
            continue
        e = db.get(os.path.normpath(os.path.abspath(f)))
        if e is not None:
            opts[f] = CudaOptions(nvcc, e.flags, targets_for(e.archs, cli_archs, config), e.directory)
        else:
            root = str(config.root) if config is not None and config.path is not None else None
            flags = _rooted(base_flags, root) if root else base_flags
            opts[f] = CudaOptions(nvcc, flags, targets_for((), cli_archs, config), None)
    return out_files, opts


def _rooted(flags: list[str], root: str) -> list[str]:
    """Relative `-I`/`-isystem` directories of the configuration's `nvcc-flags` are relative to it."""
    out = []
    pending = False
    for f in flags:
        if pending:
            out.append(f if os.path.isabs(f) else os.path.join(root, f))
            pending = False
        elif f in ("-I", "-isystem", "--include-path"):
            out.append(f)
            pending = True
        elif f.startswith("-I") and len(f) > 2 and not os.path.isabs(f[2:]):
            out.append("-I" + os.path.join(root, f[2:]))
        else:
            out.append(f)
    return out


_INCLUDE = re.compile(r'^\s*#\s*include\s*[<"]([^">]+)[">]', re.M)


def including_units(header: str, db: dict, config) -> list[str]:  # type: ignore[no-untyped-def]
    """The .cu files that include `header`, directly or through other headers (matched by file name,
    which is what a cheap pre-commit run can afford)."""
    if db:
        units = sorted(db)
    else:
        dirs = {Path(header).resolve().parent}
        if config is not None and config.path is not None:
            dirs.add(Path(config.root))
        seen: set[str] = set()
        for d in dirs:
            for dirpath, dirnames, filenames in os.walk(d):
                dirnames[:] = [
                    x for x in dirnames if not x.startswith(".") and x not in ("build", "__pycache__")
                ]
                seen.update(os.path.join(dirpath, n) for n in filenames if n.endswith(CUDA_SOURCES))
        units = sorted(seen)
    wanted = {os.path.basename(header)}
    texts: dict[str, str] = {}
    for u in units:
        try:
            texts[u] = Path(u).read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
    headers: dict[str, str] = {}
    for u in texts:
        for inc in _INCLUDE.findall(texts[u]):
            p = Path(u).parent / inc
            if p.suffix in (".cuh", ".h", ".hpp") and p.is_file():
                headers.setdefault(str(p), p.read_text(encoding="utf-8", errors="replace"))
    changed = True
    while changed:  # headers that include a wanted header are wanted too
        changed = False
        for h, text in headers.items():
            name = os.path.basename(h)
            if name not in wanted and any(os.path.basename(i) in wanted for i in _INCLUDE.findall(text)):
                wanted.add(name)
                changed = True
    cwd = os.getcwd()
    out = []
    for u, text in texts.items():
        if any(os.path.basename(i) in wanted for i in _INCLUDE.findall(text)):
            rel = os.path.relpath(u, cwd)
            out.append(rel if not rel.startswith("..") else u)
    return out


def _same_file(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def check_cu(
    path: str,
    opts: CudaOptions,
    warn_unused: bool = False,
    why: bool = False,
    contracts: object | None = None,
    confirm: bool = False,
) -> tuple[list[Diagnostic], str]:
    """All findings for one .cu file over its targets, in its own lines; returns (findings, its text).
    `contracts` are the configuration's launch contracts; `// irc: assume(...)` in the .cu applies
    through the PTX's `.loc` lines. `confirm` replays each witness in the emulator (on the PTX)."""
    from irc.compiler import check_ptx
    from irc.tooling import checkinfo, suppress

    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        from irc.tooling.nvcc import refusal

        return [refusal(str(e), path, ",".join(opts.archs))], ""
    per_arch: list[tuple[str, list[Diagnostic]]] = []
    with suppress.recording() as used:
        for arch in opts.archs:
            res = cached_compile(path, arch, opts)
            if res.ptx is None:
                per_arch.append((arch, res.diagnostics))
                continue
            assert res.ptx_path is not None
            diags = check_ptx(res.ptx, res.ptx_path, contracts)
            if confirm:
                from irc.tooling.confirm import confirm_all

                confirm_all(diags, res.ptx, res.ptx_path, arch, {})
            if why:
                from irc.tooling.why import annotate

                diags = annotate(diags, res.ptx, res.ptx_path, arch, {})
            per_arch.append((arch, diags))
    diags = merge_targets(per_arch, opts.archs)
    diags = [_spell(d, path) for d in diags]
    diags += suppress.lint(text, path, checkinfo.known, checkinfo.did_you_mean)
    if warn_unused and not any(d.check == "cuda-compile-error" for d in diags):
        norm = {(path if _same_file(f, path) else f, n, c) for f, n, c in used}
        diags += suppress.unused(text, path, norm, checkinfo.known)
    return diags, text


def merge_targets(per_arch: list[tuple[str, list[Diagnostic]]], archs: Sequence[str]) -> list[Diagnostic]:
    """One finding per (check, kernel, place, message) over the targets; a note names the targets when
    not all of them report it."""
    if len(per_arch) == 1:
        return per_arch[0][1]
    seen: dict[tuple, tuple[Diagnostic, list[str]]] = {}
    for arch, diags in per_arch:
        for d in diags:
            s = d.span
            key = (d.check, d.kernel, d.message, (s.file, s.line, s.col) if s else None)
            if key in seen:
                seen[key][1].append(arch)
            else:
                seen[key] = (d, [arch])
    out = []
    for d, on in seen.values():
        if len(on) < len(archs):
            d = replace(d, notes=[*d.notes, f"on {', '.join(on)} only (of {', '.join(archs)})"])
        out.append(d)
    return out


def _spell(d: Diagnostic, path: str) -> Diagnostic:
    """Spans in the checked file spelled as the user named it (nvcc records an absolute path)."""
    from irc.diagnostics import Label

    def fix(s):  # type: ignore[no-untyped-def]
        return replace(s, file=path) if s is not None and s.file != path and _same_file(s.file, path) else s

    if d.span is None:
        return d
    labels = [Label(fix(lab.span), lab.message, lab.origin) for lab in d.labels]
    return replace(d, span=fix(d.span), labels=labels)


def emit_cfg(path: str, arch: str | None, config=None) -> str:  # type: ignore[no-untyped-def]
    """`irc compile --emit cfg` for a .cu or .ptx file: the lifted kernels' CFG, each barrier and warp
    collective placed at its .cu line with its PTX line beside it. A .cu file is compiled for one target
    (`--arch`, else as `irc check` would pick its first)."""
    from irc.frontend.ptx.lift import lift_module
    from irc.frontend.ptx.parser import parse_ptx
    from irc.ptxisa.lineinfo import LineInfo, resolve
    from irc.tooling.cfgdot import module_to_dot
    from irc.tooling.demangle import demangle

    if path.endswith(CUDA_SOURCES):
        files, opts = options_for([path], [arch] if arch else None, config, None)
        o = opts[path]
        res = cached_compile(path, o.archs[0], o)
        if res.ptx is None:
            from irc.diagnostics import CompileError

            raise CompileError(res.diagnostics)
        ptx_text, ptx_path = res.ptx, res.ptx_path or path
    else:
        ptx_text, ptx_path = Path(path).read_text(encoding="utf-8"), path
    ptx = parse_ptx(ptx_text, ptx_path)
    module, _ = lift_module(ptx, ptx_text)
    info = LineInfo(ptx_text)

    def where(s) -> str:  # type: ignore[no-untyped-def]
        at = info.at(s.line)
        if at is None:
            return f"PTX line {s.line}"
        return f"{os.path.basename(resolve(at[0], ptx_path))}:{at[1]}, PTX line {s.line}"

    return module_to_dot(module, ptx.target, where=where, names=demangle)
