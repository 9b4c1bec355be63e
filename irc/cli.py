"""The `irc` command line: `irc compile`, `irc check`, `irc explain`, `irc run`.

Exit codes (spec section 9): 0 success / clean, 1 errors (compile errors or error findings), 2 usage
(bad flags, missing files, unknown arch), 3 internal compiler error (a bug in irc: never the user's fault,
reported with the op involved and a request to file it). A user mistake never prints a traceback.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from irc.diagnostics import CompileError, Diagnostic, InternalCompilerError
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
    c.add_argument("file", help="the .kdsl source file")
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
        help="analyze .kdsl and .ptx files (directories searched recursively)",
        description="Analyze .kdsl and .ptx files. With no PATH, checks the `include` globs of the project "
        "configuration ([tool.irc] in pyproject.toml, or irc.toml; see docs/ci.md). Exit 0: no error "
        "findings; 1: error findings (or warnings with --werror); 2: usage or configuration error.",
    )
    k.add_argument(
        "paths", nargs="*", metavar="PATH", help="files or directories (default: the configured tree)"
    )
    k.add_argument(
        "--arch",
        type=_arch,
        default=None,
        help="target for every .kdsl file (default: the file's `// arch:` header, else the config's "
        "`targets`/`arch`, else sm_80); .ptx files use their own .target",
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
    k.add_argument("-j", "--jobs", type=int, default=1, help="parallel worker processes (default: 1)")
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
    k.add_argument("--list-checks", action="store_true", help="list every check with its default severity")

    e = sub.add_parser(
        "explain",
        help="the long description of a check, with wrong and right examples",
        description="Print a check's documentation (the same text as docs/checks.md and docs/analyzer.md).",
    )
    e.add_argument("check", help="a check name, e.g. barrier-divergence (see `irc check --list-checks`)")

    r = sub.add_parser(
        "run",
        help="run a kernel in the emulator (or on a GPU) with .npy arguments",
        description="Compile a .kdsl file and launch one kernel. Arrays are read from .npy files and written "
        "back after the run. Exit 0: ran; 1: compile error or the kernel failed in the emulator; 2: bad "
        "arguments or no CUDA driver for --device cuda.",
    )
    r.add_argument("file", help="the .kdsl source file")
    r.add_argument("--kernel", required=False, help="which kernel (needed when the file has several)")
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
        help="a kernel argument by parameter name: a number, or a .npy file (written back after the run)",
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


def _read(path: str) -> str:
    try:
        return Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise _UsageError(f"no such file: {path}") from None
    except IsADirectoryError:
        raise _UsageError(f"{path} is a directory") from None
    except UnicodeDecodeError:
        raise _UsageError(f"{path} is not UTF-8 text") from None
    except OSError as e:
        raise _UsageError(f"cannot read {path}: {e.strerror}") from None


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
        sys.stdout.write(render.render_json(diags, files_checked) + "\n")
    elif fmt == "sarif":
        sys.stdout.write(render.render_sarif(diags, __version__, sources, docs_url, fp_list) + "\n")
    elif fmt == "github":
        out = render.render_github(diags)
        if out:
            sys.stdout.write(out.rstrip("\n") + "\n")
    else:
        text = render.render_text(diags, sources, color=render.use_color(sys.stderr))
        if text:
            sys.stderr.write(text.rstrip("\n") + "\n\n")
        if summary:
            sys.stderr.write(render.summary_line(diags, files_checked) + "\n")


def cmd_compile(a: argparse.Namespace) -> int:
    from irc.compiler import CompileOptions, compile_kdsl, frontend, optimize

    text = _read(a.file)
    if a.arch is None:
        a.arch = _file_arch(text, a.file, None) or "sm_80"
    defines = dict(a.defines)
    dump = None
    if a.dump_after:
        dump = "all" if a.dump_after == "all" else {x.strip() for x in a.dump_after.split(",")}
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
    if a.stats:
        sys.stderr.write(_format_stats(res))
    if a.emit == "cubin":
        from irc.ptxas import PtxasError, PtxasNotFound, ptx_to_cubin

        try:
            blob = ptx_to_cubin(res.ptx_text, a.arch)
        except PtxasNotFound as e:
            sys.stderr.write(f"irc: error: cannot emit cubin: {e}\n")
            return EXIT_ERRORS
        except PtxasError as e:
            raise InternalCompilerError(f"ptxas rejected the generated PTX:\n{e.log}") from None
        out = a.output or str(Path(a.file).with_suffix(".cubin"))
        Path(out).write_bytes(blob)
        return EXIT_OK
    _write_output(a.output, res.ptx_text)
    return EXIT_OK


def _file_arch(text: str, path: str, fallback: str | None) -> str | None:
    """The target a `// arch: sm_90a` header names (validated), else `fallback`."""
    from irc.target import parse_arch
    from irc.tooling.config import header_arch

    h = header_arch(text)
    if h is None:
        return fallback
    try:
        return parse_arch(h).name
    except ValueError as e:
        raise _UsageError(f"{path}: `// arch: {h}` header: {e}") from None


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
        sys.stderr.write("irc: error: --emit cfg-svg needs the `dot` binary or the `graphviz` package\n")
        return EXIT_USAGE
    _write_output(a.output, svg)
    return EXIT_OK


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


def _write_output(path: str | None, text: str) -> None:
    if path is None or path == "-":
        sys.stdout.write(text)
    else:
        Path(path).write_text(text, encoding="utf-8")


_SKIP_DIRS = {"__pycache__", "node_modules"}


def _walk(root: Path):
    """Every .kdsl/.ptx file under `root`, skipping hidden directories (.git, .venv) and caches."""
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and d not in _SKIP_DIRS)
        for f in sorted(filenames):
            if f.endswith((".kdsl", ".ptx")):
                yield Path(dirpath) / f


def collect_files(paths: Sequence[str], config=None, force_exclude: bool = False) -> list[str]:
    """Expand directories recursively to their .kdsl and .ptx files (sorted, deterministic), leaving out
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
            if pp.suffix not in (".kdsl", ".ptx"):
                raise _UsageError(f"{p}: expected a .kdsl or .ptx file")
            if not (force_exclude and config is not None and config.excluded(pp)):
                out.append(str(pp))
        else:
            raise _UsageError(f"no such file or directory: {p}")
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
) -> tuple[list[Diagnostic], str]:
    """Check one file; returns (findings, source text). Used directly and by worker processes. The target
    of a .kdsl file: `arch` (an explicit --arch), else its `// arch:` header, else `fallback` (the
    configuration's), else sm_80."""
    from irc.compiler import check_kdsl, check_ptx
    from irc.tooling import checkinfo, suppress

    text = _read(path)
    with suppress.recording() as used:
        if path.endswith(".ptx"):
            diags = suppress.filter(check_ptx(text, path), {path: text})
            target = arch or "sm_80"
        else:
            target = arch or _file_arch(text, path, fallback) or "sm_80"
            diags = check_kdsl(text, path, arch=target, defines=defines)
    diags = diags + suppress.lint(text, path, checkinfo.known, checkinfo.did_you_mean)
    if warn_unused and not any(d.check in _FRONTEND for d in diags):
        diags += suppress.unused(text, path, used, checkinfo.known)
    if why:
        from irc.tooling.why import annotate

        diags = annotate(diags, text, path, target, defines)
    return diags, text


_FRONTEND = frozenset({"parse-error", "name-error", "type-error", "const-error", "recursion", "limit-error"})


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

        sys.stdout.write(list_checks())
        return EXIT_OK
    config = _load_config(a)
    if a.paths:
        files = collect_files(a.paths, config, a.force_exclude)
        if not files and a.force_exclude:
            return EXIT_OK  # every file named was excluded: nothing to do (pre-commit)
    elif config.path is not None and config.include:
        files = _configured_files(config)
    elif config.path is not None:
        raise _UsageError(f"no paths given and {config.path} has no `include` globs")
    else:
        raise _UsageError(
            "no paths given and no configuration found ([tool.irc] in pyproject.toml or irc.toml)"
        )
    if not files:
        raise _UsageError("no .kdsl or .ptx files found")
    defines = dict(a.defines)
    werror = config.werror if a.werror is None else a.werror
    warn_unused = config.warn_unused_allow if a.warn_unused_allow is None else a.warn_unused_allow
    diags: list[Diagnostic] = []
    sources: dict[str, str] = {}
    ices: list[str] = []
    jobs = [(f, a.arch, defines, warn_unused, a.why, config.arch_for(f)) for f in files]
    show_progress = sys.stderr.isatty() and len(files) > 8 and a.format == "text"
    if a.jobs > 1 and len(files) > 1:
        from concurrent.futures import ProcessPoolExecutor

        with ProcessPoolExecutor(max_workers=a.jobs) as ex:
            results = ex.map(_check_worker, jobs, chunksize=max(1, len(jobs) // (4 * a.jobs)))
            for i, (job, (d, t, ice)) in enumerate(zip(jobs, results)):
                _progress(show_progress, i + 1, len(jobs))
                diags += d
                sources[job[0]] = t
                if ice:
                    ices.append(ice)
    else:
        for i, job in enumerate(jobs):
            _progress(show_progress, i + 1, len(jobs))
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
    diags = sorted(_apply_config(diags, config), key=Diagnostic.sort_key)
    if a.write_baseline:
        from irc.tooling.baseline import write_baseline

        n = write_baseline(a.write_baseline, diags, sources, config.root)
        sys.stderr.write(f"irc: wrote {n} finding{'s' if n != 1 else ''} to {a.write_baseline}\n")
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
            sys.stderr.write(f"irc: {absorbed} known finding{'s' if absorbed != 1 else ''} in the baseline\n")
    _emit_diags(diags, sources, a.format, len(files), summary=True, docs_url=config.docs_url, fps=fps)
    if ices:
        for m in ices:
            sys.stderr.write(f"irc: internal compiler error: {m}\n")
        return EXIT_ICE
    if _invalid_ptx(diags, files):
        return EXIT_USAGE  # ptxas rejects a .ptx file: not a program to analyse (docs/cli.md)
    if any(d.is_error for d in diags):
        return EXIT_ERRORS
    if werror and any(d.severity == "warning" for d in diags):
        return EXIT_ERRORS
    return EXIT_OK


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
        sys.stdout.write(explain(a.check))
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

    if a.device == "cuda":  # an environment problem, not a compiler error: exit 2 before compiling
        from irc.runtime.cuda import driver_available

        ok, why = driver_available()
        if not ok:
            why = why.removeprefix("no CUDA driver: ")
            raise _UsageError(f"no CUDA driver: {why} (the emulator needs none: --device emu)")

    from irc.emu.errors import EmuLaunchError

    if a.arch is None:
        try:
            text = Path(a.file).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            text = ""  # run_cli reports the missing or unreadable file
        a.arch = _file_arch(text, a.file, None) or "sm_80"
    try:
        return run_cli(a, _emit_diags)
    except EmuLaunchError as e:  # a launch the emulator cannot run (bad grid, block or arguments)
        raise _UsageError(f"bad launch: {e}") from None


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    a = parser.parse_args(argv)
    if a.cmd is None:
        parser.print_help(sys.stderr)
        return EXIT_USAGE
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
        sys.stderr.write(f"irc: error: {e}\n")
        return EXIT_USAGE
    except InternalCompilerError as e:
        where = f" (in `{e.op}`)" if e.op else ""
        loc = f" at {e.span}" if e.span else ""
        sys.stderr.write(
            f"irc: internal compiler error{where}{loc}: {e}\n"
            "irc: this is a bug in irc, not in your kernel; please report it with the input file.\n"
        )
        return EXIT_ICE
    except KeyboardInterrupt:
        return 130
    except Exception as e:  # any other exception is a bug in irc: say so, keep the traceback on request
        sys.stderr.write(
            f"irc: internal compiler error: {type(e).__name__}: {e}\n"
            "irc: this is a bug in irc; please report it with the input file "
            "(set IRC_TRACEBACK=1 for the traceback).\n"
        )
        if os.environ.get("IRC_TRACEBACK"):
            raise
        return EXIT_ICE
    return EXIT_USAGE


def run() -> None:
    """The `irc` command (console script and `python -m irc.cli`): `main`, then the exit handlers, then an
    immediate process exit. Why: tearing down the interpreter (freeing every module and, after a compile,
    the whole IR graph) took 10-15 ms of each `irc compile` process, for memory the OS reclaims anyway
    (issue 15). Output is flushed first; an exception that escapes `main` exits the ordinary way."""
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
