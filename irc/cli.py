"""The `irc` command line: `irc compile`, `irc check`, `irc explain`, `irc run`.

Exit codes (spec section 9): 0 success / clean, 1 errors (compile errors or error findings), 2 usage
(bad flags, missing files, unknown arch), 3 internal compiler error (a bug in irc: never the user's fault,
reported with the op involved and a request to file it). A user mistake never prints a traceback.

Streams (docs/cli.md): stdout carries the one artifact a command produces (PTX, IR, dot, SVG, a JSON,
SARIF or GitHub report, `--list-checks`, `irc explain`); stderr carries everything meant for a person
(text diagnostics, summaries, `--stats`, timings, progress). Each write flushes the other stream first, so
`2>&1` shows them in the order they happened.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from irc.diagnostics import CompileError, Diagnostic, InternalCompilerError, show_path
from irc.version import __version__

EXIT_OK, EXIT_ERRORS, EXIT_USAGE, EXIT_ICE = 0, 1, 2, 3
FORMATS = ("text", "json", "sarif", "github")


def _columns() -> int:
    """The terminal width, as `shutil.get_terminal_size` computes it (argparse's default formatter
    imports shutil, and with it zlib, bz2 and lzma, for this one number: ~2 ms of every run)."""
    try:
        return int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        pass
    try:
        return os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
    except (AttributeError, ValueError, OSError):
        return 80


class _Parser(argparse.ArgumentParser):
    def _get_formatter(self) -> argparse.HelpFormatter:
        return self.formatter_class(prog=self.prog, width=max(_columns() - 2, 11))

    def error(self, message: str) -> None:  # usage errors: exit 2 with a one-line hint, no traceback
        self.print_usage(sys.stderr)
        sys.stderr.write(f"irc: error: {message}\n")
        raise SystemExit(EXIT_USAGE)


def _arch(value: str) -> str:
    from irc.target import parse_arch

    try:
        return parse_arch(value).name
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def _jobs(value: str) -> int:
    try:
        n = int(value)
    except ValueError:
        n = 0
    if n < 1:
        raise argparse.ArgumentTypeError(f"expected a positive number of worker processes, got `{value}`")
    return n


def _arch_list(value: str) -> list[str]:
    return [_arch(v.strip()) for v in value.split(",") if v.strip()] or [_arch(value)]


def _define(value: str) -> tuple[str, object]:
    if "=" not in value:
        raise argparse.ArgumentTypeError(f"-D expects NAME=VALUE, got `{value}`")
    name, raw = value.split("=", 1)
    raw = raw.strip()
    val: object
    if raw in ("true", "false"):
        val = raw == "true"
    else:
        try:
            val = int(raw.replace("_", ""), 0)
        except ValueError:
            try:
                val = float(raw)
            except ValueError:
                raise argparse.ArgumentTypeError(f"-D {name}: `{raw}` is not a number or bool") from None
    return name.strip(), val


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="irc", description="Compiler and static analyzer for GPU kernels (.kdsl and .ptx).")
    p.add_argument("--version", action="version", version=f"irc {__version__}")
    sub = p.add_subparsers(dest="cmd", parser_class=_Parser)

    c = sub.add_parser(
        "compile",
        help="compile a .kdsl file to PTX (or IR, cubin, or the CFG as dot/SVG)",
        description="Compile a .kdsl file. Warnings go to stderr; a kernel with error findings is not compiled.",
    )
    c.add_argument(
        "file",
        help="the .kdsl source file (a .ptx/.cu file only with --emit cfg; analyze PTX with `irc check`)",
    )
    c.add_argument(
        "-o", "--output", help="output file (default: stdout for ptx/ir/cfg, FILE.cubin for cubin)"
    )
    c.add_argument(
        "--arch", type=_arch, default=None, help="target (default: the file's `// arch:` header, else sm_80)"
    )
    c.add_argument(
        "-D",
        dest="defines",
        action="append",
        type=_define,
        default=[],
        metavar="NAME=VALUE",
        help="override a `param` (integer, float, true/false); repeatable",
    )
    c.add_argument(
        "--emit",
        choices=("ptx", "ir", "cubin", "cfg", "cfg-svg"),
        default="ptx",
        help="ptx (default); ir: the optimized SSA IR; cubin: assembled binary; cfg: the control-flow graph as "
        "Graphviz dot with each block's uniformity and barriers; cfg-svg: the same as SVG (needs `dot`)",
    )
    c.add_argument("--dump-after", metavar="PASS|all", help="print the IR after a pass (stderr)")
    c.add_argument("--verify-each", action="store_true", help="run the IR verifier after every pass")
    c.add_argument("--time-passes", action="store_true", help="print the time each pass takes (stderr)")
    c.add_argument(
        "--stats", action="store_true", help="per-kernel registers, MaxLive, shared memory, ptxas -v"
    )
    c.add_argument("-O0", dest="optimize", action="store_false", help="skip the optimization passes")
    c.add_argument("--format", choices=FORMATS, default="text", help="diagnostics format (default: text)")

    k = sub.add_parser(
        "check",
        help="analyze .kdsl, .ptx and .cu files (directories searched recursively)",
        description="Analyze .kdsl, .ptx and CUDA (.cu, compiled to PTX with nvcc; a .cuh header through the "
        ".cu files that include it) files. With no PATH, checks the `include` globs of the project "
        "configuration ([tool.irc] in pyproject.toml, or irc.toml; see docs/ci.md). Exit 0: no error "
        "findings; 1: error findings (or warnings with --werror); 2: usage or configuration error.",
    )
    k.add_argument(
        "paths", nargs="*", metavar="PATH", help="files or directories (default: the configured tree)"
    )
    k.add_argument(
        "--arch",
        type=_arch_list,
        default=None,
        help="target(s), comma-separated: each .kdsl file is checked for each (default: the file's "
        "`// arch:` header, else the config's `targets`/`arch`, else sm_80), each .cu file is compiled "
        "for each (default: the compile database's, else `cuda-arch`/`arch`, else sm_80); .ptx files use "
        "their own .target",
    )
    k.add_argument(
        "-p",
        "--build-path",
        metavar="BUILD",
        default=None,
        help="a build directory with compile_commands.json (CMake: -DCMAKE_EXPORT_COMPILE_COMMANDS=ON): "
        ".cu files are compiled with its flags and targets; with no PATH, checks every .cu file in it",
    )
    k.add_argument(
        "-D",
        dest="defines",
        action="append",
        type=_define,
        default=[],
        metavar="NAME=VALUE",
        help="override a `param` in every .kdsl file; repeatable",
    )
    k.add_argument("--format", choices=FORMATS, default="text", help="output format (default: text)")
    k.add_argument("-j", "--jobs", type=_jobs, default=1, help="parallel worker processes (default: 1)")
    k.add_argument(
        "--config", metavar="FILE", help="use this irc.toml or pyproject.toml (default: search upwards)"
    )
    k.add_argument("--no-config", action="store_true", help="ignore any configuration file")
    k.add_argument(
        "--force-exclude",
        action="store_true",
        help="apply the config's exclude globs to files named on the command line too (for pre-commit)",
    )
    k.add_argument("--werror", action="store_true", default=None, help="warnings fail the run (exit 1)")
    k.add_argument("--baseline", metavar="FILE", help="report only findings not recorded in FILE")
    k.add_argument("--write-baseline", metavar="FILE", help="record the current findings in FILE and exit 0")
    k.add_argument(
        "--warn-unused-allow",
        action="store_true",
        default=None,
        help="warn about `// irc: allow(...)` comments that suppress nothing",
    )
    k.add_argument(
        "--why",
        action="store_true",
        help="add the uniformity chain from the seed (tid.x) to each divergent branch",
    )
    k.add_argument(
        "--confirm",
        action="store_true",
        help="replay each finding's witness launch in the emulator and say whether the bug happened",
    )
    k.add_argument("--list-checks", action="store_true", help="list every check with its default severity")

    e = sub.add_parser(
        "explain",
        help="the long description of a check, with wrong and right examples",
        description="Print a check's documentation (the same text as docs/checks.md and docs/analyzer.md).",
    )
    e.add_argument("check", help="a check name, e.g. barrier-divergence (see `irc check --list-checks`)")

    r = sub.add_parser(
        "run",
        help="run a kernel (.kdsl or .ptx) in the emulator (or a .kdsl kernel on a GPU) with .npy arguments",
        description="Compile a .kdsl file (or parse a .ptx file, nvcc's or Triton's) and launch one kernel. "
        "Arrays are read from .npy files and written back after the run. Exit 0: ran; 1: compile error or "
        "the kernel failed in the emulator; 2: bad arguments or no CUDA driver for --device cuda.",
    )
    r.add_argument("file", help="the .kdsl source file, or a .ptx file (runs in the emulator)")
    r.add_argument(
        "--kernel",
        required=False,
        help="which kernel (needed when the file has several); a mangled PTX name or its demangled name",
    )
    r.add_argument("--grid", required=True, help="grid size: e.g. 4 or 4,2,1")
    r.add_argument("--block", required=True, help="block size: e.g. 128 or 16,8,1")
    r.add_argument(
        "--dynamic-shared-bytes",
        type=int,
        default=0,
        metavar="N",
        help="bytes for the kernel's `shared x: [T] dynamic;` array (default 0)",
    )
    r.add_argument(
        "--arg",
        action="append",
        default=[],
        metavar="NAME=VALUE|PATH.npy",
        help="a kernel argument by parameter name (PTX: `param_0`, ...): a number, or a .npy file "
        "(written back after the run)",
    )
    r.add_argument(
        "--arch", type=_arch, default=None, help="target (default: the file's `// arch:` header, else sm_80)"
    )
    r.add_argument(
        "-D",
        dest="defines",
        action="append",
        type=_define,
        default=[],
        metavar="NAME=VALUE",
        help="override a `param`; repeatable",
    )
    r.add_argument(
        "--device",
        choices=("emu", "cuda"),
        default="emu",
        help="emu: the CPU emulator (default); cuda: a GPU",
    )
    r.add_argument("--out-dir", default=None, help="where to write the argument arrays after the run")
    r.add_argument(
        "--schedules",
        type=int,
        default=None,
        metavar="N",
        help="emulator: run N randomised completion orders of async copies/MMAs (races raise async-race)",
    )
    r.add_argument(
        "--no-racecheck",
        dest="racecheck",
        action="store_false",
        help="do not report data races (unordered conflicting accesses) in the emulator",
    )
    return p


def _stdout(text: str) -> None:
    """Write to stdout (the artifact), after whatever stderr holds."""
    sys.stderr.flush()
    sys.stdout.write(text)
    sys.stdout.flush()


def _stderr(text: str) -> None:
    """Write to stderr (for a person), after whatever stdout holds."""
    sys.stdout.flush()
    sys.stderr.write(text)
    sys.stderr.flush()


def _read(path: str) -> str:
    """A file named on the command line, or a usage error (exit 2) saying why it cannot be read."""
    from irc.tooling.inputs import RunUsageError, read_text

    try:
        return read_text(path)
    except RunUsageError as e:
        raise _UsageError(str(e)) from None


class _UsageError(Exception):
    pass


def _emit_diags(
    diags: list[Diagnostic],
    sources: dict[str, str],
    fmt: str,
    files_checked: int,
    summary: bool,
    docs_url: str | None = None,
    fps: dict[int, str] | None = None,
) -> None:
    from irc.tooling import render

    diags = sorted(diags, key=Diagnostic.sort_key)
    fp_list = [fps[id(d)] for d in diags] if fps is not None else None
    if fmt == "json":
        _stdout(render.render_json(diags, files_checked) + "\n")
    elif fmt == "sarif":
        _stdout(render.render_sarif(diags, __version__, sources, docs_url, fp_list) + "\n")
    elif fmt == "github":
        text = render.render_github(diags)
        if text:
            _stdout(text.rstrip("\n") + "\n")
    else:
        text = render.render_text(diags, sources, color=render.use_color(sys.stderr))
        if text:
            _stderr(text.rstrip("\n") + "\n\n")
        if summary:
            _stderr(render.summary_line(diags, files_checked) + "\n")


def _dump_after(spec: str | None) -> set[str] | str | None:
    """`--dump-after PASS[,PASS]|all`, every name checked against the pipeline's passes."""
    if not spec:
        return None
    if spec.strip() == "all":
        return "all"
    from irc.passes.pipeline import pass_names

    known = pass_names()
    names = {x.strip() for x in spec.split(",") if x.strip()}
    bad = sorted(names - set(known))
    if bad or not names:
        raise _UsageError(
            f"--dump-after: unknown pass {', '.join(f'`{b}`' for b in bad) or '(none given)'}; "
            f"passes: {', '.join(known)}, or all"
        )
    return names


def _check_output(path: str | None) -> None:
    """Refuse an output path that cannot be written before any work is done (no half-written run)."""
    if path is None or path == "-":
        return
    p = Path(path)
    parent = p.parent if str(p.parent) else Path(".")
    if p.is_dir():
        raise _UsageError(f"cannot write {show_path(path)}: it is a directory")
    if not parent.is_dir():
        raise _UsageError(f"cannot write {show_path(path)}: no directory {show_path(str(parent))}")


def cmd_compile(a: argparse.Namespace) -> int:
    from irc.compiler import CompileOptions, compile_kdsl, frontend, optimize

    if a.file.endswith((".ptx", ".cu")):
        if a.emit in ("cfg", "cfg-svg"):
            return _emit_cfg_lifted(a)
        raise _UsageError(
            f"{show_path(a.file)} is {'PTX' if a.file.endswith('.ptx') else 'CUDA'}; `irc compile` compiles .kdsl. "
            f"Analyze it with `irc check {show_path(a.file)}`"
            + (f", run it with `irc run {show_path(a.file)} ...`" if a.file.endswith(".ptx") else "")
            + " (`--emit cfg` shows its control flow)"
        )
    _check_output(a.output)
    dump = _dump_after(a.dump_after)
    text = _read(a.file)
    if a.arch is None:
        a.arch = _file_arch(text, a.file, None)
    defines = dict(a.defines)
    opts = CompileOptions(
        arch=a.arch,
        defines=defines,
        optimize=a.optimize,
        verify_each=a.verify_each,
        dump_after=dump,
        time_passes=a.time_passes,
    )
    sources = {a.file: text}
    try:
        if a.emit == "ir":
            from irc.ir.printer import print_module

            module = frontend(text, a.file, defines=defines, arch=a.arch)
            optimize(module, opts)
            _write_output(a.output, print_module(module))
            return EXIT_OK
        if a.emit in ("cfg", "cfg-svg"):
            return _emit_cfg(a, text, opts)
        res = compile_kdsl(text, a.file, opts)
    except CompileError as e:
        _emit_diags(e.diagnostics, sources, a.format, 1, summary=False)
        return EXIT_ERRORS
    from irc.tooling import checkinfo, suppress

    lint = suppress.lint(text, a.file, checkinfo.known, checkinfo.did_you_mean)  # allow(...) typos
    if res.diagnostics or lint:
        _emit_diags(res.diagnostics + lint, sources, a.format, 1, summary=False)
    rc = _emit_artifact(a, res)
    if a.stats:  # after the artifact: on one terminal the table ends the output
        _stderr(_format_stats(res))
    return rc


def _emit_artifact(a: argparse.Namespace, res) -> int:
    """The PTX (stdout or -o), or the cubin (-o, default FILE.cubin)."""
    if a.emit == "cubin":
        from irc.ptxas import PtxasError, PtxasNotFound, ptx_to_cubin

        try:
            blob = ptx_to_cubin(res.ptx_text, a.arch)
        except PtxasNotFound as e:
            _stderr(f"irc: error: cannot emit cubin: {e}\n")
            return EXIT_ERRORS
        except PtxasError as e:
            raise InternalCompilerError(f"ptxas rejected the generated PTX:\n{e.log}") from None
        dest = a.output or str(Path(a.file).with_suffix(".cubin"))
        _write_output(dest, blob)
        return EXIT_OK
    _write_output(a.output, res.ptx_text)
    return EXIT_OK


def _file_arch(text: str, path: str, fallback: str | None) -> str:
    """The target of a .kdsl file without --arch: its `// arch: sm_90a` header (validated), else
    `fallback`, else sm_80 (`irc.tooling.config.resolve_arch`, the rule the Python API uses too)."""
    from irc.tooling.config import resolve_arch

    try:
        return resolve_arch(text, show_path(path), None, fallback)
    except ValueError as e:
        raise _UsageError(str(e)) from None


def _emit_cfg(a: argparse.Namespace, text: str, opts) -> int:
    """`--emit cfg`: dot on stdout or -o; `--emit cfg-svg`: SVG, when `dot` or `graphviz` is present."""
    from irc.compiler import frontend, optimize
    from irc.tooling.cfgdot import dot_to_svg, module_to_dot

    module = frontend(text, a.file, defines=opts.defines, arch=a.arch)
    optimize(module, opts)
    dot = module_to_dot(module, a.arch)
    if a.emit == "cfg":
        _write_output(a.output, dot)
        return EXIT_OK
    svg = dot_to_svg(dot)
    if svg is None:
        _stderr("irc: error: --emit cfg-svg needs the `dot` binary or the `graphviz` package\n")
        return EXIT_USAGE
    _write_output(a.output, svg)
    return EXIT_OK


def _emit_cfg_lifted(a: argparse.Namespace) -> int:
    """`irc compile --emit cfg` of a .ptx or .cu file (the only output irc makes from them): the lifted
    kernels' CFG with each barrier at its .cu line (`irc.tooling.cuda.emit_cfg`)."""
    _read(a.file)  # a missing or unreadable file is a usage error (`cmd_compile` sent only cfg emits here)
    from irc.tooling.cfgdot import dot_to_svg
    from irc.tooling.compdb import CompDbError
    from irc.tooling.cuda import emit_cfg
    from irc.tooling.nvcc import NvccNotFound

    try:
        dot = emit_cfg(a.file, a.arch, _load_config_quiet())
    except (NvccNotFound, CompDbError) as e:
        raise _UsageError(str(e)) from None
    except CompileError as e:
        _emit_diags(e.diagnostics, {}, a.format, 1, summary=False)
        return EXIT_ERRORS
    if a.emit == "cfg":
        _write_output(a.output, dot)
        return EXIT_OK
    svg = dot_to_svg(dot)
    if svg is None:
        sys.stderr.write("irc: error: --emit cfg-svg needs the `dot` binary or the `graphviz` package\n")
        return EXIT_USAGE
    _write_output(a.output, svg)
    return EXIT_OK


def _load_config_quiet():  # type: ignore[no-untyped-def]
    """The project configuration for `irc compile` of a .cu file (nvcc, flags, targets)."""
    from irc.tooling.config import ConfigError, load_config

    try:
        return load_config()
    except ConfigError as e:
        raise _UsageError(str(e)) from None


def _format_stats(res) -> str:
    from irc.ptxas import find_ptxas, run_ptxas

    lines = []
    info = {}
    if find_ptxas():
        r = run_ptxas(res.ptx_text, res.arch, verbose=True)
        info = r.info if r.ok else {}
    for kname, s in res.stats.items():
        lines.append(f"kernel {kname} ({res.arch}, PTX {s.get('ptx_version', '?')}):")
        ml = s.get("max_live", {})
        regs = s.get("registers", {})
        for cls in sorted(set(ml) | set(regs)):
            lines.append(f"  registers {cls:<5} {regs.get(cls, 0):4d}   (MaxLive {ml.get(cls, 0)})")
        lines.append(
            f"  shared memory  {s.get('shared_bytes', 0)} bytes"
            + (f" ({s['dynamic_shared_bytes']} dynamic)" if s.get("dynamic_shared_bytes") else "")
        )
        pi = info.get(kname)
        if pi:
            lines.append(
                f"  ptxas: {pi.get('registers')} registers, {pi.get('spill_stores', 0)} bytes spill stores,"
                f" {pi.get('spill_loads', 0)} bytes spill loads"
            )
        elif not find_ptxas():
            lines.append("  ptxas: not found (pip install -e '.[ptxas]' for the real register count)")
    return "\n".join(lines) + "\n"


def _write_output(path: str | None, data: str | bytes) -> None:
    """The artifact to stdout (no -o, or `-o -`) or to a file; a file that cannot be written is a usage
    error naming it and why."""
    if path is None or path == "-":
        if isinstance(data, str):
            _stdout(data)
        else:
            sys.stderr.flush()
            sys.stdout.flush()
            sys.stdout.buffer.write(data)
            sys.stdout.buffer.flush()
        return
    try:
        if isinstance(data, bytes):
            Path(path).write_bytes(data)
        else:
            Path(path).write_text(data, encoding="utf-8")
    except OSError as e:
        raise _UsageError(f"cannot write {show_path(path)}: {e.strerror or e}") from None


_SKIP_DIRS = {"__pycache__", "node_modules"}


_CHECKED = (".kdsl", ".ptx", ".cu")  # found in directories; a .cuh only when named (a header)


def _walk(root: Path):
    """Every .kdsl/.ptx/.cu file under `root`, skipping hidden directories (.git, .venv) and caches."""
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and d not in _SKIP_DIRS)
        for f in sorted(filenames):
            if f.endswith(_CHECKED):
                yield Path(dirpath) / f


def collect_files(paths: Sequence[str], config=None, force_exclude: bool = False) -> list[str]:
    """Expand directories recursively to their .kdsl, .ptx and .cu files (sorted, deterministic), leaving out
    the configuration's `exclude` globs (a file named explicitly is checked unless `force_exclude`)."""
    out: list[str] = []
    for p in paths:
        pp = Path(p)
        if pp.is_dir():
            found = sorted(str(f) for f in _walk(pp))
            if config is not None and config.exclude:
                found = [f for f in found if not config.excluded(f)]
            out.extend(found)
        elif pp.is_file():
            if pp.suffix not in (*_CHECKED, ".cuh"):
                raise _UsageError(f"{show_path(p)}: expected a .kdsl, .ptx, .cu or .cuh file")
            if not (force_exclude and config is not None and config.excluded(pp)):
                out.append(str(pp))
        else:
            raise _UsageError(f"no such file or directory: {show_path(p)}")
    return out


def _configured_files(config) -> list[str]:
    """`irc check` with no paths: the files under the config root matching `include`, minus `exclude`,
    named relative to the current directory when they lie under it."""
    cwd = Path.cwd().resolve()
    out = []
    for f in _walk(config.root):
        if config.included(f) and not config.excluded(f):
            try:
                out.append(str(f.resolve().relative_to(cwd)))
            except ValueError:
                out.append(str(f))
    return out


def check_one(
    path: str,
    arch: str | None,
    defines: dict,
    warn_unused: bool = False,
    why: bool = False,
    fallback: str | None = None,
    contracts: object | None = None,
    confirm: bool = False,
    cuda=None,  # type: ignore[no-untyped-def]
) -> tuple[list[Diagnostic], str]:
    """Check one file; returns (findings, source text). Used directly and by worker processes. The target
    of a .kdsl file: `arch` (an explicit --arch), else its `// arch:` header, else `fallback` (the
    configuration's), else sm_80. A .cu file is compiled and checked as `cuda` (CudaOptions) says."""
    from irc.compiler import check_kdsl, check_ptx
    from irc.tooling import checkinfo, suppress
    from irc.tooling.readcheck import read_for_check

    if cuda is not None:
        from irc.tooling.cuda import check_cu

        return check_cu(path, cuda, warn_unused, why, contracts, confirm)
    text, unreadable = read_for_check(path)
    if unreadable is not None:  # one bad file is a finding of its own; the run goes on
        return [unreadable], text
    with suppress.recording() as used:
        if path.endswith(".ptx"):
            diags = suppress.filter(check_ptx(text, path, contracts), {path: text})
            diags += _stale(text, path)
            if diags:  # in a Triton cache entry (NAME.json beside it): name the @triton.jit kernel
                from irc.triton.cache import annotate as triton_notes

                diags = triton_notes(diags, path)
            target = arch or "sm_80"
        else:
            target = arch or _file_arch(text, path, fallback)
            diags = check_kdsl(text, path, arch=target, defines=defines, contracts=contracts)
    diags = diags + suppress.lint(text, path, checkinfo.known, checkinfo.did_you_mean)
    if warn_unused and not any(d.check in _FRONTEND for d in diags):
        diags += suppress.unused(text, path, used, checkinfo.known)
    if why:
        from irc.tooling.why import annotate

        diags = annotate(diags, text, path, target, defines)
    if confirm:
        from irc.tooling.confirm import confirm_all

        confirm_all(diags, text, path, target, defines)
    return diags, text


def _stale(text: str, path: str) -> list[Diagnostic]:
    """`stale-ptx`: a source the PTX's `.loc` lines point into changed after the PTX was written."""
    from irc.diagnostics import Span, warning
    from irc.tooling.locsource import stale_sources

    return [
        warning(
            "stale-ptx",
            f"`{src}` was modified after this PTX was generated: findings may point at the wrong lines",
            Span.point(path, 1, 1),
            help=f"regenerate the PTX (`nvcc -ptx -lineinfo ...`), or check the source itself: `irc check {src}`"
            if src.endswith(".cu")
            else "regenerate the PTX",
        )
        for src in stale_sources(text, path)
    ]


_FRONTEND = frozenset(
    {"parse-error", "name-error", "type-error", "const-error", "recursion", "limit-error", "read-error"}
)


def _check_worker(job: tuple) -> tuple[list[Diagnostic], str, str | None]:
    try:
        d, t = check_one(*job)
        return d, t, None
    except InternalCompilerError as e:
        return [], "", f"{job[0]}: {e}"
    except _UsageError as e:
        return [], "", f"usage: {e}"


def _apply_config(diags: list[Diagnostic], config) -> list[Diagnostic]:
    """Drop disabled checks and apply severity overrides."""
    from irc.diagnostics import Severity
    from irc.records import replace

    out = []
    for d in diags:
        if not config.check_enabled(d.check):
            continue
        sev = config.severity.get(d.check)
        out.append(replace(d, severity=Severity(sev)) if sev and sev != d.severity else d)
    return out


def _load_config(a: argparse.Namespace):
    from irc.tooling.config import Config, ConfigError, load_config

    if a.no_config:
        return Config(root=Path.cwd().resolve())
    try:
        return load_config(Path(a.config) if a.config else None)
    except ConfigError as e:
        raise _UsageError(str(e)) from None


def cmd_check(a: argparse.Namespace) -> int:
    if a.list_checks:
        from irc.tooling.checkinfo import list_checks

        _stdout(list_checks())
        return EXIT_OK
    _check_output(a.write_baseline)
    config = _load_config(a)
    build = a.build_path or (str(config.root / config.compile_commands) if config.compile_commands else None)
    if a.paths:
        files = collect_files(a.paths, config, a.force_exclude)
        if not files and a.force_exclude:
            return EXIT_OK  # every file named was excluded: nothing to do (pre-commit)
    elif a.build_path:
        files = _database_files(a.build_path)
    elif config.path is not None and config.include:
        files = _configured_files(config)
    elif config.path is not None:
        raise _UsageError(f"no paths given and {config.path} has no `include` globs")
    else:
        raise _UsageError(
            "no paths given and no configuration found ([tool.irc] in pyproject.toml or irc.toml)"
        )
    if not files:
        raise _UsageError("no .kdsl, .ptx or .cu files found")
    files, cuda = _cuda_plan(files, a.arch, config, build)
    defines = dict(a.defines)
    werror = config.werror if a.werror is None else a.werror
    warn_unused = config.warn_unused_allow if a.warn_unused_allow is None else a.warn_unused_allow
    diags: list[Diagnostic] = []
    sources: dict[str, str] = {}
    ices: list[str] = []
    jobs = [
        (f, arch, defines, warn_unused, a.why, config.arch_for(f), config.contracts, a.confirm, cuda.get(f))
        for f in files
        for arch in (a.arch if a.arch and f.endswith(".kdsl") else [a.arch[0] if a.arch else None])
    ]
    show_progress = sys.stderr.isatty() and len(files) > 8 and a.format == "text"
    if a.jobs > 1 and len(files) > 1:
        from irc.tooling.workers import worker_pool

        with worker_pool(a.jobs) as pool:  # workers die with this process (SIGTERM, SIGHUP, SIGKILL)
            results = pool.imap(_check_worker, jobs, chunksize=max(1, len(jobs) // (4 * a.jobs)))
            for i, (job, (d, t, ice)) in enumerate(zip(jobs, results)):
                _progress(show_progress, i + 1, len(jobs))
                diags += d
                sources[job[0]] = t
                if ice:
                    ices.append(ice)
    else:
        for i, job in enumerate(jobs):
            _progress(show_progress, i + 1, len(jobs))
            if _EXIT_AFTER_MAIN and i == len(jobs) - 1:
                _no_collection(job[0])
            d, t, ice = _check_worker(job)
            diags += d
            sources[job[0]] = t
            if ice:
                ices.append(ice)
    if show_progress:
        sys.stderr.write("\r\x1b[K")
    usage = [m for m in ices if m.startswith("usage: ")]
    if usage:
        raise _UsageError(usage[0].removeprefix("usage: "))
    if a.arch and len(a.arch) > 1:  # a .kdsl finding every target reports is one finding
        diags = list({(d.check, d.span, d.message, d.kernel): d for d in reversed(diags)}.values())[::-1]
    diags = sorted(_apply_config(diags, config), key=Diagnostic.sort_key)
    if a.write_baseline:
        from irc.tooling.baseline import write_baseline

        try:
            n = write_baseline(a.write_baseline, diags, sources, config.root)
        except OSError as e:
            raise _UsageError(f"cannot write {show_path(a.write_baseline)}: {e.strerror or e}") from None
        _stderr(f"irc: wrote {n} finding{'s' if n != 1 else ''} to {show_path(a.write_baseline)}\n")
        return EXIT_ICE if ices else EXIT_OK
    from irc.tooling.baseline import fingerprints

    fps = {id(d): fp for d, fp in zip(diags, fingerprints(diags, sources))}  # before any filtering
    baseline_file = a.baseline or config.baseline
    if baseline_file:
        from irc.tooling.baseline import BaselineError, filter_new, read_baseline

        path = Path(baseline_file)
        if not a.baseline and not path.is_absolute():
            path = config.root / path  # relative to the config file
        try:
            base = read_baseline(path)
        except BaselineError as e:
            raise _UsageError(str(e)) from None
        diags, absorbed = filter_new(diags, sources, base, config.root)
        if absorbed and a.format == "text":
            _stderr(f"irc: {absorbed} known finding{'s' if absorbed != 1 else ''} in the baseline\n")
    _emit_diags(diags, sources, a.format, len(files), summary=True, docs_url=config.docs_url, fps=fps)
    if ices:
        for m in ices:
            _stderr(f"irc: internal compiler error: {m}\n")
        return EXIT_ICE
    if _invalid_ptx(diags, files):
        return EXIT_USAGE  # ptxas rejects a .ptx file: not a program to analyse (docs/cli.md)
    if any(d.is_error for d in diags):
        return EXIT_ERRORS
    if werror and any(d.severity == "warning" for d in diags):
        return EXIT_ERRORS
    return EXIT_OK


def _database_files(build: str) -> list[str]:
    """`irc check -p BUILD` with no paths: every .cu file of the compile database, named relative to the
    current directory when under it."""
    from irc.tooling.compdb import CompDbError, load

    try:
        db = load(build)
    except CompDbError as e:
        raise _UsageError(str(e)) from None
    out = []
    for f in db:
        rel = os.path.relpath(f)
        out.append(f if rel.startswith("..") else rel)
    return out


def _cuda_plan(files: list[str], archs: list[str] | None, config, build: str | None):  # type: ignore[no-untyped-def]
    """(files with each .cuh replaced by the .cu files that include it, .cu path -> CudaOptions)."""
    if not any(f.endswith((".cu", ".cuh")) for f in files):
        return files, {}
    from irc.tooling.compdb import CompDbError
    from irc.tooling.cuda import options_for
    from irc.tooling.nvcc import NvccNotFound

    try:
        return options_for(files, archs, config, build)
    except (NvccNotFound, CompDbError) as e:
        raise _UsageError(str(e)) from None


def _invalid_ptx(diags: list[Diagnostic], files: list[str]) -> bool:
    """Whether a finding says that ptxas rejects one of the .ptx files (`invalid-ptx`, `unsupported-target`,
    a PTX `parse-error` or `const-error`): `irc check` exits 2 for such a file, as for any input that is not
    a program it can check."""
    from irc.frontend.ptx.validate import rejects

    ptx = {f for f in files if f.endswith(".ptx")}
    return any(rejects(d) and d.span is not None and d.span.file in ptx for d in diags)


def cmd_explain(a: argparse.Namespace) -> int:
    from irc.tooling.checkinfo import explain

    try:
        _stdout(explain(a.check))
    except KeyError as e:
        raise _UsageError(e.args[0]) from None
    return EXIT_OK


def _progress(on: bool, i: int, n: int) -> None:
    if on:
        w = 30
        done = int(w * i / n)
        sys.stderr.write(f"\r[{'#' * done}{'.' * (w - done)}] {i}/{n}")
        sys.stderr.flush()


def cmd_run(a: argparse.Namespace) -> int:
    from irc.tooling.run import run_cli

    if a.device == "cuda":  # an environment problem: exit 2 before compiling
        from irc.runtime.cuda import driver_available

        ok, why = driver_available()
        if not ok:
            why = why.removeprefix("no CUDA driver: ")
            raise _UsageError(f"no CUDA driver: {why} (the emulator needs none: --device emu)")

    from irc.emu.errors import EmuLaunchError
    from irc.tooling.inputs import RunUsageError

    try:
        return run_cli(a, _emit_diags)
    except RunUsageError as e:
        raise _UsageError(str(e)) from None
    except EmuLaunchError as e:  # a launch the emulator cannot run (bad grid, block or arguments)
        raise _UsageError(f"bad launch: {e}") from None


def main(argv: Sequence[str] | None = None) -> int:
    from irc.shadow import shadowing_note

    note = shadowing_note()
    if note:
        _stderr(note)
    parser = build_parser()
    a = parser.parse_args(argv)
    if a.cmd is None:
        parser.print_help(sys.stderr)
        return EXIT_USAGE
    from irc.tooling.workers import Terminated

    try:
        if a.cmd == "compile":
            return cmd_compile(a)
        if a.cmd == "check":
            return cmd_check(a)
        if a.cmd == "run":
            return cmd_run(a)
        if a.cmd == "explain":
            return cmd_explain(a)
    except _UsageError as e:
        _stderr(f"irc: error: {e}\n")
        return EXIT_USAGE
    except Terminated as e:  # SIGTERM / SIGHUP during `check -j N`: the workers are already gone
        _stderr(f"irc: terminated by signal {e.signum}\n")
        return 128 + e.signum
    except InternalCompilerError as e:
        where = f" (in `{e.op}`)" if e.op else ""
        loc = f" at {e.span}" if e.span else ""
        _stderr(
            f"irc: internal compiler error{where}{loc}: {e}\n"
            "irc: this is a bug in irc, not in your kernel; please report it with the input file.\n"
        )
        return EXIT_ICE
    except KeyboardInterrupt:
        return 130
    except Exception as e:  # any other exception is a bug in irc: say so, keep the traceback on request
        _stderr(
            f"irc: internal compiler error: {type(e).__name__}: {e}\n"
            "irc: this is a bug in irc; please report it with the input file "
            "(set IRC_TRACEBACK=1 for the traceback).\n"
        )
        if os.environ.get("IRC_TRACEBACK"):
            raise
        return EXIT_ICE
    return EXIT_USAGE


#: `run` exits the process as soon as `main` returns (set by `run`, not by a caller of `main`)
_EXIT_AFTER_MAIN = False


def _no_collection(path: str) -> None:
    """Leave the cyclic garbage collector off for the rest of a process that `run` exits right after,
    when its last file is a .ptx file checked as one module (not function by function).

    Why: `compiler.gc_paused` turns it back on after each file, and the collection that follows frees
    the file's whole IR graph and its solver contexts (z3's context deletion alone ~13 ms): ~25 ms of a
    one-file `irc check`, for memory the process exit reclaims anyway. A file above `ptx_split_bytes` is
    checked a function at a time to bound memory, which needs collections between its functions. The
    analysis itself always runs with the collector paused, so nothing it computes changes."""
    import gc

    from irc import limits

    try:
        whole = path.endswith(".ptx") and os.path.getsize(path) <= limits.get("ptx_split_bytes")
    except OSError:
        return
    if whole:
        gc.disable()


def run() -> None:
    """The `irc` command (console script and `python -m irc.cli`): `main`, then the exit handlers, then an
    immediate process exit. Why: tearing down the interpreter (freeing every module and, after a compile,
    the whole IR graph) took 10-15 ms of each `irc compile` process, for memory the OS reclaims anyway
    (issue 15). Output is flushed first; an exception that escapes `main` exits the ordinary way."""
    global _EXIT_AFTER_MAIN
    _EXIT_AFTER_MAIN = True
    rc = main()
    import atexit

    run_exitfuncs = getattr(atexit, "_run_exitfuncs", None)
    if run_exitfuncs is None:  # not CPython: the ordinary exit
        raise SystemExit(rc)
    run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe (`irc check ... | head`) or a closed stream
            pass
    os._exit(rc)


if __name__ == "__main__":
    run()
