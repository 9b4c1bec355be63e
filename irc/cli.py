"""The `irc` command line: `irc compile`, `irc check`, `irc run`.

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

from irc import __version__
from irc.diagnostics import CompileError, Diagnostic, InternalCompilerError

EXIT_OK, EXIT_ERRORS, EXIT_USAGE, EXIT_ICE = 0, 1, 2, 3
FORMATS = ("text", "json", "sarif", "github")


class _Parser(argparse.ArgumentParser):
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

    c = sub.add_parser("compile", help="compile a .kdsl file to PTX (or IR, or cubin)")
    c.add_argument("file")
    c.add_argument("-o", "--output", help="output file (default: stdout for ptx/ir, FILE.cubin for cubin)")
    c.add_argument("--arch", type=_arch, default="sm_80")
    c.add_argument("-D", dest="defines", action="append", type=_define, default=[], metavar="NAME=VALUE")
    c.add_argument("--emit", choices=("ptx", "ir", "cubin"), default="ptx")
    c.add_argument("--dump-after", metavar="PASS|all", help="print the IR after a pass (stderr)")
    c.add_argument("--verify-each", action="store_true", help="run the IR verifier after every pass")
    c.add_argument("--time-passes", action="store_true")
    c.add_argument(
        "--stats", action="store_true", help="per-kernel registers, MaxLive, shared memory, ptxas -v"
    )
    c.add_argument("-O0", dest="optimize", action="store_false", help="skip the optimization passes")
    c.add_argument("--format", choices=FORMATS, default="text", help="diagnostics format")

    k = sub.add_parser("check", help="analyze .kdsl and .ptx files (directories searched recursively)")
    k.add_argument("paths", nargs="+")
    k.add_argument("--arch", type=_arch, default="sm_80", help="target for .kdsl (.ptx uses its .target)")
    k.add_argument("-D", dest="defines", action="append", type=_define, default=[], metavar="NAME=VALUE")
    k.add_argument("--format", choices=FORMATS, default="text")
    k.add_argument("-j", "--jobs", type=int, default=1, help="parallel worker processes")

    r = sub.add_parser("run", help="run a kernel in the emulator (or on a GPU) with .npy arguments")
    r.add_argument("file")
    r.add_argument("--kernel", required=False)
    r.add_argument("--grid", required=True, help="e.g. 4 or 4,2,1")
    r.add_argument("--block", required=True, help="e.g. 128 or 16,8,1")
    r.add_argument("--arg", action="append", default=[], metavar="NAME=VALUE|PATH.npy")
    r.add_argument("--arch", type=_arch, default="sm_80")
    r.add_argument("-D", dest="defines", action="append", type=_define, default=[], metavar="NAME=VALUE")
    r.add_argument("--device", choices=("emu", "cuda"), default="emu")
    r.add_argument("--out-dir", default=None, help="where to write the argument arrays after the run")
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
    diags: list[Diagnostic], sources: dict[str, str], fmt: str, files_checked: int, summary: bool
) -> None:
    from irc import render

    diags = sorted(diags, key=Diagnostic.sort_key)
    if fmt == "json":
        sys.stdout.write(render.render_json(diags, files_checked) + "\n")
    elif fmt == "sarif":
        sys.stdout.write(render.render_sarif(diags, __version__) + "\n")
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
        res = compile_kdsl(text, a.file, opts)
    except CompileError as e:
        _emit_diags(e.diagnostics, sources, a.format, 1, summary=False)
        return EXIT_ERRORS
    if res.diagnostics:
        _emit_diags(res.diagnostics, sources, a.format, 1, summary=False)
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


def collect_files(paths: Sequence[str]) -> list[str]:
    """Expand directories recursively to their .kdsl and .ptx files (sorted, deterministic)."""
    out: list[str] = []
    for p in paths:
        pp = Path(p)
        if pp.is_dir():
            found = sorted(str(f) for f in pp.rglob("*") if f.suffix in (".kdsl", ".ptx") and f.is_file())
            out.extend(found)
        elif pp.is_file():
            if pp.suffix not in (".kdsl", ".ptx"):
                raise _UsageError(f"{p}: expected a .kdsl or .ptx file")
            out.append(str(pp))
        else:
            raise _UsageError(f"no such file or directory: {p}")
    return out


def check_one(path: str, arch: str, defines: dict) -> tuple[list[Diagnostic], str]:
    """Check one file; returns (findings, source text). Used directly and by worker processes."""
    from irc.compiler import check_kdsl, check_ptx

    text = _read(path)
    if path.endswith(".ptx"):
        return check_ptx(text, path), text
    return check_kdsl(text, path, arch=arch, defines=defines), text


def _check_worker(job: tuple[str, str, dict]) -> tuple[list[Diagnostic], str, str | None]:
    try:
        d, t = check_one(*job)
        return d, t, None
    except InternalCompilerError as e:
        return [], "", f"{job[0]}: {e}"


def cmd_check(a: argparse.Namespace) -> int:
    files = collect_files(a.paths)
    if not files:
        raise _UsageError("no .kdsl or .ptx files found")
    defines = dict(a.defines)
    diags: list[Diagnostic] = []
    sources: dict[str, str] = {}
    ices: list[str] = []
    jobs = [(f, a.arch, defines) for f in files]
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
    _emit_diags(diags, sources, a.format, len(files), summary=True)
    if ices:
        for m in ices:
            sys.stderr.write(f"irc: internal compiler error: {m}\n")
        return EXIT_ICE
    return EXIT_ERRORS if any(d.is_error for d in diags) else EXIT_OK


def _progress(on: bool, i: int, n: int) -> None:
    if on:
        w = 30
        done = int(w * i / n)
        sys.stderr.write(f"\r[{'#' * done}{'.' * (w - done)}] {i}/{n}")
        sys.stderr.flush()


def cmd_run(a: argparse.Namespace) -> int:
    from irc.api import run_cli

    return run_cli(a)


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


if __name__ == "__main__":
    raise SystemExit(main())
