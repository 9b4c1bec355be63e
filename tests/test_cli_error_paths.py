"""Every error path of the command line, enumerated (issue 30): each `raise` of a usage or launch error and
each `return` of an error status in irc/cli.py, irc/tooling/run.py and irc/runtime/args.py is found by
walking their syntax trees, and each must have a case below that reaches it with a user mistake. The case
asserts the exit status (1 or 2, never 3: exit 3 is kept for irc's own bugs), that the message is the
site's message, and that no traceback is printed. A new error path without a case fails
`test_every_error_site_has_a_case`; a case whose site is gone fails it too.

Sites the command line cannot reach (the API's own argument kinds) have an API case instead; the few that
nothing can reach are listed in UNREACHABLE with the reason.
"""

from __future__ import annotations

import ast
import os
import re
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from irc.cli import main

ROOT = Path(__file__).resolve().parent.parent
VECTOR_ADD = ROOT / "examples" / "vector_add.kdsl"
PTX = ROOT / "tests" / "data" / "ptx" / "run" / "kernels.sm_80.ptx"
FILES = ("irc/cli.py", "irc/tooling/run.py", "irc/tooling/inputs.py", "irc/runtime/args.py")
ERRORS = {"_UsageError", "RunUsageError", "LaunchError", "UnknownKernelError", "argparse.ArgumentTypeError"}
STATUSES = {"EXIT_USAGE", "EXIT_ERRORS", "1", "2"}


def _template(node: ast.expr | None) -> str:
    """A message's literal text with `{}` for each interpolated part."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(v.value if isinstance(v, ast.Constant) else "{}" for v in node.values)
    if isinstance(node, ast.BinOp):
        return _template(node.left) + "{}"
    if isinstance(node, ast.IfExp):
        return _template(node.body)
    return "{}"


def error_sites() -> dict[str, str]:
    """site id -> message template: `file:function:template` for raises, `file:function:return X` for
    returns; a repeated id within one function gets `#2`, `#3`, ... in source order."""
    out: dict[str, str] = {}
    for rel in FILES:
        tree = ast.parse((ROOT / rel).read_text(encoding="utf-8"))
        found: list[tuple[int, str, str]] = []
        for fn in ast.walk(tree):
            if not isinstance(fn, ast.FunctionDef):
                continue
            for n in ast.walk(fn):
                if isinstance(n, ast.Raise) and isinstance(n.exc, ast.Call):
                    if ast.unparse(n.exc.func) in ERRORS:
                        t = _template(n.exc.args[0] if n.exc.args else None)
                        found.append((n.lineno, f"{rel}:{fn.name}:{t}", t))
                elif isinstance(n, ast.Return) and n.value is not None and ast.unparse(n.value) in STATUSES:
                    found.append((n.lineno, f"{rel}:{fn.name}:return {ast.unparse(n.value)}", ""))
        seen: dict[str, int] = {}
        for _line, sid, t in sorted(found):
            seen[sid] = seen.get(sid, 0) + 1
            out[sid if seen[sid] == 1 else f"{sid}#{seen[sid]}"] = t
    return out


# ---------------------------------------------------------------------------------------------- fixtures


@pytest.fixture(scope="module")
def ws(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A workspace with one file for each kind of mistake."""
    d = tmp_path_factory.mktemp("ws")
    (d / "good.kdsl").write_text(VECTOR_ADD.read_text())
    (d / "bad.kdsl").write_text("kernel k( {\n")
    (d / "warn.kdsl").write_text("kernel k(o: *global u32) { o[tid.x] = shfl_xor(tid.x, 33); }\n")
    (d / "two.kdsl").write_text("kernel a(o: *global u32) { o[0] = 1u32; }\nkernel b(o: *global u32) { }\n")
    (d / "arch999.kdsl").write_text("// arch: sm_999\nkernel k() { }\n")
    (d / "latin1.kdsl").write_bytes(b"// caf\xe9\nkernel k() { }\n")
    (d / "k.ptx").write_text(PTX.read_text())
    (d / "biglocal.ptx").write_text(
        ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\n"
        "  .local .align 4 .b8 big[1073741824];\n  ret;\n}\n"
    )
    (d / "invalid.ptx").write_text(
        ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\n  add.u32 %r1, 1, 2;\n  ret;\n}\n"
    )
    (d / "k.cu").write_text("__global__ void k(float* o) { o[threadIdx.x] = 1.0f; }\n")
    (d / "notes.txt").write_text("not a kernel\n")
    (d / "empty").mkdir()
    (d / "dir.npy").mkdir()
    (d / "out").mkdir()
    (d / "out" / "x.npy").mkdir()  # writing x.npy back under --out-dir out fails: a directory is there
    (d / "loop.npy").symlink_to("loop.npy")
    (d / "loop.kdsl").symlink_to("loop.kdsl")
    np.save(d / "x.npy", np.zeros(128, np.float32))
    np.save(d / "small.npy", np.zeros(4, np.float32))
    np.save(d / "i32.npy", np.zeros(128, np.int32))
    np.save(d / "c64.npy", np.zeros(8, np.complex64))
    np.save(d / "fortran.npy", np.asfortranarray(np.zeros((4, 4), np.float32)))
    np.save(d / "empty.npy", np.zeros(0, np.float32))
    np.save(d / "obj.npy", np.array([1, "a", None], dtype=object), allow_pickle=True)
    (d / "notnpy.npy").write_text("hello\n")
    good = (d / "x.npy").read_bytes()
    (d / "trunc.npy").write_bytes(good[:8] + b"garbage")  # the magic, then no valid header
    (d / "short.npy").write_bytes(good[: len(good) - 100])  # a valid header, then too little data
    (d / "badcfg").mkdir()
    (d / "badcfg" / "irc.toml").write_text("[tool.irc]\ninclude = 3\n")
    (d / "noinc").mkdir()
    (d / "noinc" / "irc.toml").write_text('arch = "sm_80"\n')
    (d / "base.json").write_text("{}\n")
    return d


@pytest.fixture
def irc(ws: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch):
    """Run `irc ARGV...` in-process in the workspace; returns (status, stdout, stderr)."""
    monkeypatch.chdir(ws)
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.setenv("IRC_CACHE_DIR", str(ws / "cache"))

    def run(*argv: str) -> tuple[int, str, str]:
        capsys.readouterr()
        try:
            rc = main(list(argv))
        except SystemExit as e:  # argparse's own usage errors
            rc = int(e.code or 0)
        out, err = capsys.readouterr()
        return rc, out, err

    return run


VA = ["good.kdsl", "--grid", "1", "--block", "128"]
VA_ARGS = [*VA, "--arg", "out=x.npy", "--arg", "x=x.npy", "--arg", "y=x.npy"]
SAXPY = ["k.ptx", "--kernel", "saxpy", "--grid", "1", "--block", "32"]
SAXPY_ARGS = [*SAXPY, "--arg", "param_0=2", "--arg", "param_2=x.npy", "--arg", "param_3=4"]


def _api_launch(args: list, **kw) -> Callable[[], object]:
    def go() -> object:
        import irc

        mod = irc.compile_file(VECTOR_ADD)
        return mod["vector_add"].launch(kw.pop("grid", 1), kw.pop("block", 128), args, **kw)

    return go


def _x(n: int = 128) -> np.ndarray:
    return np.zeros(n, np.float32)


def _tensormap(**kw) -> Callable[[], object]:
    def go() -> object:
        from irc import TensorMap

        return TensorMap(**{"array": np.zeros((8, 8), np.float32), "box": (8, 8), **kw})

    return go


def _tm_param(array: np.ndarray | None, box: tuple = (4, 4)) -> Callable[[], object]:
    """A `tensormap<f32; 4, 4>` parameter given a TensorMap of `array` and `box` (None: the number 3)."""

    def go() -> object:
        from irc import TensorMap
        from irc.runtime.args import ParamSpec, convert_args

        spec = ParamSpec("tm", "tensormap<f32; 4, 4>", "tensormap", dtype=np.float32, box=(4, 4))
        return convert_args("k", [spec], [3 if array is None else TensorMap(array, box)])

    return go


def _spec(kind: str, value: object, **kw) -> Callable[[], object]:
    def go() -> object:
        from irc.runtime.args import ParamSpec, convert_args

        return convert_args("k", [ParamSpec("p", kw.pop("type", "t"), kind, **kw)], [value])

    return go


R = "irc/tooling/run.py"
IN = "irc/tooling/inputs.py"
C = "irc/cli.py"
A = "irc/runtime/args.py"

#: site -> (argv for `irc`, or a callable for the API; the exit status; a fragment of the message)
CASES: dict[str, tuple[object, int, str]] = {
    # ---- irc/cli.py
    f"{C}:_arch:{{}}": (["compile", "good.kdsl", "--arch", "sm_999"], 2, "unknown target 'sm_999'"),
    f"{C}:_jobs:expected a positive number of worker processes, got `{{}}`": (
        ["check", "-j", "0", "good.kdsl"],
        2,
        "positive number of worker processes",
    ),
    f"{C}:_define:-D expects NAME=VALUE, got `{{}}`": (["compile", "good.kdsl", "-D", "N"], 2, "NAME=VALUE"),
    f"{C}:_define:-D {{}}: `{{}}` is not a number or bool": (
        ["compile", "good.kdsl", "-D", "N=abc"],
        2,
        "is not a number or bool",
    ),
    f"{C}:_read:{{}}": (["compile", "nosuch.kdsl"], 2, "no such file: nosuch.kdsl"),
    f"{C}:_dump_after:--dump-after: unknown pass {{}}; passes: {{}}, or all": (
        ["compile", "good.kdsl", "--dump-after", "nosuchpass"],
        2,
        "unknown pass `nosuchpass`; passes: simplify-cfg",
    ),
    f"{C}:_check_output:cannot write {{}}: it is a directory": (
        ["compile", "good.kdsl", "-o", "empty"],
        2,
        "cannot write empty: it is a directory",
    ),
    f"{C}:_check_output:cannot write {{}}: no directory {{}}": (
        ["compile", "good.kdsl", "-o", "/nonexistent/dir/x.ptx"],
        2,
        "cannot write /nonexistent/dir/x.ptx: no directory /nonexistent/dir",
    ),
    f"{C}:cmd_compile:{{}} is {{}}; `irc compile` compiles .kdsl. Analyze it with `irc check {{}}`{{}}{{}}": (
        ["compile", "k.ptx"],
        2,
        "is PTX; `irc compile` compiles .kdsl",
    ),
    f"{C}:cmd_compile:return EXIT_ERRORS": (["compile", "bad.kdsl"], 1, "error[parse-error]"),
    f"{C}:_emit_artifact:return EXIT_ERRORS": (
        ["compile", "good.kdsl", "--emit", "cubin"],
        -1,
        "cannot emit cubin",
    ),
    f"{C}:_file_arch:{{}}": (["compile", "arch999.kdsl"], 2, "`// arch: sm_999` header"),
    f"{C}:_emit_cfg:return EXIT_USAGE": (
        ["compile", "good.kdsl", "--emit", "cfg-svg"],
        -2,
        "needs the `dot`",
    ),
    f"{C}:_write_output:cannot write {{}}: {{}}": (
        ["compile", "good.kdsl", "-o", "/dev/full"],
        2,
        "cannot write /dev/full: No space left on device",
    ),
    f"{C}:collect_files:no such file or directory: {{}}": (
        ["check", "nosuch"],
        2,
        "no such file or directory",
    ),
    f"{C}:collect_files:{{}}: expected a .kdsl, .ptx, .cu or .cuh file": (
        ["check", "notes.txt"],
        2,
        "expected a .kdsl",
    ),
    f"{C}:_load_config:{{}}": (["check", "--config", "badcfg/irc.toml", "good.kdsl"], 2, "`include`"),
    f"{C}:cmd_check:no paths given and {{}} has no `include` globs": (
        ["check", "--config", "noinc/irc.toml"],
        2,
        "has no `include` globs",
    ),
    f"{C}:cmd_check:no paths given and no configuration found ([tool.irc] in pyproject.toml or irc.toml)": (
        ["check", "--no-config"],
        2,
        "no configuration found",
    ),
    f"{R}:run_cli:return 2#2": (
        ["run", "biglocal.ptx", "--grid", "1", "--block", "1"],
        2,
        "emu_max_local_bytes",
    ),
    f"{C}:cmd_check:no .kdsl, .ptx or .cu files found": (
        ["check", "empty"],
        2,
        "no .kdsl, .ptx or .cu files found",
    ),
    f"{C}:_database_files:{{}}": (["check", "-p", "nosuch_build"], 2, "nosuch_build"),
    f"{C}:_cuda_plan:{{}}": (["check", "-p", "nosuch_build", "k.cu"], 2, "nosuch_build"),
    f"{C}:cmd_check:{{}}": (["check", "arch999.kdsl"], 2, "`// arch: sm_999` header"),
    f"{C}:cmd_check:cannot write {{}}: {{}}": (
        ["check", "good.kdsl", "--write-baseline", "/dev/full"],
        2,
        "cannot write /dev/full",
    ),
    f"{C}:cmd_check:{{}}#2": (["check", "good.kdsl", "--baseline", "base.json"], 2, "not an irc baseline"),
    f"{C}:cmd_check:return EXIT_ERRORS": (["check", "bad.kdsl"], 1, "error[parse-error]"),
    f"{C}:cmd_check:return EXIT_USAGE": (["check", "invalid.ptx"], 2, "error[invalid-ptx]"),
    f"{C}:cmd_check:return EXIT_ERRORS#2": (["check", "--werror", "warn.kdsl"], 1, "warning[shuffle-lane]"),
    f"{C}:cmd_explain:{{}}": (["explain", "nosuch-check"], 2, "nosuch-check"),
    f"{C}:cmd_run:no CUDA driver: {{}} (the emulator needs none: --device emu)": (
        ["run", *VA_ARGS, "--arg", "n=4", "--device", "cuda"],
        -2,
        "no CUDA driver",
    ),
    f"{C}:cmd_run:{{}}": (
        ["run", "nosuch.kdsl", "--grid", "1", "--block", "1"],
        2,
        "no such file: nosuch.kdsl",
    ),
    f"{C}:cmd_run:bad launch: {{}}": (
        [
            "run",
            "good.kdsl",
            "--grid",
            "1",
            "--block",
            "32",
            "--arg",
            "out=x.npy",
            "--arg",
            "x=x.npy",
            "--arg",
            "y=x.npy",
            "--arg",
            "n=4",
        ],
        2,
        "bad launch: kernel vector_add requires block (128, 1, 1)",
    ),
    f"{C}:main:return EXIT_USAGE": ([], 2, "usage: irc"),
    f"{C}:main:return EXIT_USAGE#2": (["compile", "nosuch.kdsl"], 2, "irc: error: no such file"),
    # ---- irc/tooling/run.py
    f"{R}:parse_dims:{{}} expects up to three positive integers like 4 or 4,2,1, got `{{}}`": (
        [
            "run",
            "good.kdsl",
            "--grid",
            "8.0",
            "--block",
            "128",
            "--arg",
            "out=x.npy",
            "--arg",
            "x=x.npy",
            "--arg",
            "y=x.npy",
            "--arg",
            "n=4",
        ],
        2,
        "--grid expects up to three positive integers like 4 or 4,2,1, got `8.0`",
    ),
    f"{IN}:read_text:no such file: {{}}": (["run", "nosuch.kdsl", *VA[1:]], 2, "no such file: nosuch.kdsl"),
    f"{IN}:read_text:{{}} is a directory": (["run", "empty", *VA[1:]], 2, "empty is a directory"),
    f"{IN}:read_text:{{}} is not UTF-8 text": (["run", "latin1.kdsl", *VA[1:]], 2, "is not UTF-8 text"),
    f"{IN}:read_text:cannot read {{}}: {{}}": (["run", "loop.kdsl", *VA[1:]], 2, "cannot read loop.kdsl"),
    f"{R}:_load:-D overrides .kdsl params; a .ptx file has none": (
        ["run", *SAXPY, "-D", "N=1"],
        2,
        "-D overrides",
    ),
    f"{R}:_load:--arch does not apply to a .ptx file (it runs as its own `.target`)": (
        ["run", *SAXPY, "--arch", "sm_90"],
        2,
        "--arch does not apply",
    ),
    f"{R}:_load:{{}}": (
        ["run", "arch999.kdsl", "--grid", "1", "--block", "1"],
        2,
        "`// arch: sm_999` header",
    ),
    f"{R}:_bind:kernel `{{}}` parameters are {{}}{{}}{{}}": (
        ["run", *VA, "--arg", "out=x.npy", "--arg", "z=1"],
        2,
        "kernel `vector_add` parameters are out, x, y, n; missing --arg for x, y, n; unknown --arg z",
    ),
    f"{R}:_bind:--arg {{}} names parameter `{{}}` again": (
        ["run", *SAXPY_ARGS, "--arg", "param_1=x.npy", "--arg", "_Z5saxpyfPKfPfi_param_1=x.npy"],
        2,
        "names parameter `param_1` again",
    ),
    f"{R}:run_cli:--out-dir {{}} is not a directory": (
        ["run", *VA_ARGS, "--arg", "n=4", "--out-dir", "nosuch"],
        2,
        "--out-dir nosuch is not a directory",
    ),
    f"{R}:run_cli:return 1": (["run", "bad.kdsl", "--grid", "1", "--block", "1"], 1, "error[parse-error]"),
    f"{R}:run_cli:the file has several kernels ({{}}): choose one with --kernel": (
        ["run", "two.kdsl", "--grid", "1", "--block", "1", "--arg", "o=x.npy"],
        2,
        "the file has several kernels (a, b): choose one with --kernel",
    ),
    f"{R}:run_cli:return 2": (
        ["run", *VA_ARGS, "--arg", "n=2.9"],
        2,
        "argument `n` is `u32`: 2.9 is not an integer",
    ),
    f"{R}:run_cli:return 1#2": (
        [
            "run",
            "good.kdsl",
            "--grid",
            "1",
            "--block",
            "128",
            "--arg",
            "out=small.npy",
            "--arg",
            "x=x.npy",
            "--arg",
            "y=x.npy",
            "--arg",
            "n=128",
        ],
        1,
        "the kernel failed in the emulator",
    ),
    f"{R}:run_cli:cannot write {{}}: {{}}": (
        ["run", *VA_ARGS, "--arg", "n=4", "--out-dir", "out"],
        2,
        "cannot write out/x.npy",
    ),
    # ---- irc/runtime/args.py, from the command line
    f"{A}:launch_dims:{{}} must be a positive integer or up to three positive integers, got {{}}{{}}": (
        _api_launch([_x(), _x(), _x(), 4], grid=8.0),
        2,
        "grid must be a positive integer or up to three positive integers, got 8.0 (float 8.0 is not an integer)",
    ),
    f"{A}:launch_dims:{{}} must be positive in every dimension, got {{}}.{{}} = {{}}": (
        [
            "run",
            "good.kdsl",
            "--grid",
            "0",
            "--block",
            "128",
            "--arg",
            "out=x.npy",
            "--arg",
            "x=x.npy",
            "--arg",
            "y=x.npy",
            "--arg",
            "n=4",
        ],
        2,
        "grid must be positive in every dimension, got grid.x = 0",
    ),
    f"{A}:launch_dims:{{}}.{{}} = {{}} exceeds the limit of {{}} on {{}}": (
        [
            "run",
            "good.kdsl",
            "--grid",
            "1,70000",
            "--block",
            "128",
            "--arg",
            "out=x.npy",
            "--arg",
            "x=x.npy",
            "--arg",
            "y=x.npy",
            "--arg",
            "n=4",
        ],
        2,
        "grid.y = 70000 exceeds the limit of 65535 on sm_80",
    ),
    f"{A}:launch_geometry:block {{}} has {{}} threads; a block has at most {{}}": (
        [
            "run",
            "k.ptx",
            "--kernel",
            "saxpy",
            "--grid",
            "1",
            "--block",
            "32,32,2",
            "--arg",
            "param_0=2",
            "--arg",
            "param_1=x.npy",
            "--arg",
            "param_2=x.npy",
            "--arg",
            "param_3=4",
        ],
        2,
        "block (32, 32, 2) has 2048 threads; a block has at most 1024",
    ),
    f"{A}:emulated_size:grid {{}} x block {{}} is {{}} threads; the emulator runs at most {{}} threads per launch "
    "(`emu_max_threads`; raise it with IRC_LIMIT_EMU_MAX_THREADS=N, see docs/limits.md)": (
        [
            "run",
            "good.kdsl",
            "--grid",
            "1000000000",
            "--block",
            "128",
            "--arg",
            "out=x.npy",
            "--arg",
            "x=x.npy",
            "--arg",
            "y=x.npy",
            "--arg",
            "n=4",
        ],
        2,
        "the emulator runs at most 16,777,216 threads per launch",
    ),
    f"{A}:_int_value:argument `{{}}` is `{{}}`: pass a number, not the string {{}}": (
        _api_launch([_x(), _x(), _x(), "1000"]),
        2,
        "argument `n` is `u32`: pass a number, not the string '1000'",
    ),
    f"{A}:_int_value:argument `{{}}` = {{}} does not fit `{{}}` ({{}}..{{}})": (
        ["run", *VA_ARGS, "--arg", "n=-1"],
        2,
        "argument `n` = -1 does not fit `u32` (0..4294967295)",
    ),
    f"{A}:_int_value:argument `{{}}` is `{{}}`: cannot use {{}} {{}}": (
        _api_launch([_x(), _x(), _x(), None]),
        2,
        "argument `n` is `u32`: cannot use NoneType None",
    ),
    f"{A}:_int_value:argument `{{}}` is `{{}}`: {{}} is not an integer": (
        ["run", *VA_ARGS, "--arg", "n=1000.5"],
        2,
        "argument `n` is `u32`: 1000.5 is not an integer",
    ),
    f"{A}:_scalar:argument `{{}}` is a scalar `{{}}`, got an array": (
        [
            "run",
            *SAXPY,
            "--arg",
            "param_0=x.npy",
            "--arg",
            "param_1=x.npy",
            "--arg",
            "param_2=x.npy",
            "--arg",
            "param_3=4",
        ],
        2,
        "argument `param_0` is a scalar `.f32`, got an array",
    ),
    f"{A}:_scalar:argument `{{}}` is `{{}}`: pass True or False, got {{}}": (
        _spec("bool", 2, type="bool"),
        2,
        "argument `p` is `bool`: pass True or False, got 2",
    ),
    f"{A}:_scalar:argument `{{}}` is `{{}}`: pass a number, got {{}} {{}}": (
        _spec("float", "2.5", type="f32"),
        2,
        "argument `p` is `f32`: pass a number, got str '2.5'",
    ),
    f"{A}:check_array:{{}} is `{{}}`: pass a numpy array, got {{}}": (
        ["run", *VA, "--arg", "out=3", "--arg", "x=x.npy", "--arg", "y=x.npy", "--arg", "n=4"],
        2,
        "argument `out` is `*global f32`: pass a numpy array, got int",
    ),
    f"{A}:check_array:{{}} is `{{}}`: expected dtype {{}}, got {{}}": (
        ["run", *VA, "--arg", "out=i32.npy", "--arg", "x=x.npy", "--arg", "y=x.npy", "--arg", "n=4"],
        2,
        "argument `out` is `*global f32`: expected dtype float32, got int32",
    ),
    f"{A}:check_array:{{}}: arrays of dtype {{}} cannot be passed to a kernel": (
        [
            "run",
            *SAXPY,
            "--arg",
            "param_0=2",
            "--arg",
            "param_1=c64.npy",
            "--arg",
            "param_2=x.npy",
            "--arg",
            "param_3=4",
        ],
        2,
        "argument `param_1`: arrays of dtype complex64 cannot be passed to a kernel",
    ),
    f"{A}:check_array:{{}} must be C-contiguous (use np.ascontiguousarray)": (
        ["run", *VA, "--arg", "out=fortran.npy", "--arg", "x=x.npy", "--arg", "y=x.npy", "--arg", "n=4"],
        2,
        "argument `out` must be C-contiguous",
    ),
    f"{A}:check_array:{{}} is an empty array": (
        ["run", *VA, "--arg", "out=empty.npy", "--arg", "x=x.npy", "--arg", "y=x.npy", "--arg", "n=4"],
        2,
        "argument `out` is an empty array",
    ),
    f"{A}:convert_args:kernel `{{}}` takes {{}} arguments ({{}}), got {{}}": (
        _api_launch([_x(), _x()]),
        2,
        "kernel `vector_add` takes 4 arguments (out: *global f32, x: *global f32, y: *global f32, n: u32), got 2",
    ),
    f"{A}:convert_args:argument `{{}}` is `{{}}`: pass a list of numpy arrays": (
        _spec("arrays", _x(), type="*global *global f32"),
        2,
        "pass a list of numpy arrays",
    ),
    f"{A}:convert_args:argument `{{}}` is a {{}}-byte by-value parameter: pass bytes": (
        _spec("bytes", 3, type=".b8[16]", bits=128),
        2,
        "argument `p` is a 16-byte by-value parameter: pass bytes",
    ),
    f"{A}:_tensormap:argument `{{}}` is `{{}}`: pass irc.TensorMap(array, box)": (
        _tm_param(None),
        2,
        "pass irc.TensorMap(array, box)",
    ),
    f"{A}:_tensormap:argument `{{}}`: TensorMap box {{}} differs from the declared box {{}}": (
        _tm_param(np.zeros((4, 4), np.float32), box=(2, 2)),
        2,
        "TensorMap box (2, 2) differs from the declared box (4, 4)",
    ),
    f"{A}:_tensormap:argument `{{}}`: TensorMap array dtype {{}}, expected {{}}": (
        _tm_param(np.zeros((4, 4), np.float64)),
        2,
        "TensorMap array dtype float64, expected float32",
    ),
    f"{A}:parse_arg_specs:--arg expects NAME=VALUE or NAME=PATH.npy, got `{{}}`": (
        ["run", *VA, "--arg", "out"],
        2,
        "--arg expects NAME=VALUE or NAME=PATH.npy, got `out`",
    ),
    f"{A}:parse_arg_specs:--arg {{}} is given twice ({{}}={{}} and {{}}={{}})": (
        ["run", *VA_ARGS, "--arg", "n=1", "--arg", "n=2"],
        2,
        "--arg n is given twice (n=1 and n=2)",
    ),
    f"{A}:parse_value:--arg {{}}: `{{}}` is not a number or a .npy file": (
        ["run", *VA_ARGS, "--arg", "n=ten"],
        2,
        "--arg n: `ten` is not a number or a .npy file",
    ),
    f"{A}:load_npy:{{}}: no such file {{}}": (
        ["run", *VA, "--arg", "out=nosuch.npy", "--arg", "x=x.npy", "--arg", "y=x.npy", "--arg", "n=4"],
        2,
        "--arg out: no such file nosuch.npy",
    ),
    f"{A}:load_npy:{{}}: {{}} is a directory, not a .npy file": (
        ["run", *VA, "--arg", "out=dir.npy", "--arg", "x=x.npy", "--arg", "y=x.npy", "--arg", "n=4"],
        2,
        "--arg out: dir.npy is a directory, not a .npy file",
    ),
    f"{A}:load_npy:{{}}: cannot read {{}} ({{}})": (
        ["run", *VA, "--arg", "out=loop.npy", "--arg", "x=x.npy", "--arg", "y=x.npy", "--arg", "n=4"],
        2,
        "--arg out: cannot read loop.npy",
    ),
    f"{A}:load_npy:{{}}: {{}} is not a .npy file (it does not start with the NumPy format's magic bytes)": (
        ["run", *VA, "--arg", "out=notnpy.npy", "--arg", "x=x.npy", "--arg", "y=x.npy", "--arg", "n=4"],
        2,
        "--arg out: notnpy.npy is not a .npy file",
    ),
    f"{A}:load_npy:{{}}: {{}} holds an object array, which irc does not load (it would need pickle); save a "
    "numeric array (np.save with a numeric dtype)": (
        ["run", *VA, "--arg", "out=obj.npy", "--arg", "x=x.npy", "--arg", "y=x.npy", "--arg", "n=4"],
        2,
        "--arg out: obj.npy holds an object array",
    ),
    f"{A}:load_npy:{{}}: {{}} is not a valid .npy file ({{}})": (
        ["run", *VA, "--arg", "out=trunc.npy", "--arg", "x=x.npy", "--arg", "y=x.npy", "--arg", "n=4"],
        2,
        "--arg out: trunc.npy is not a valid .npy file",
    ),
    f"{A}:load_npy:{{}}: {{}} is not a valid .npy file ({{}})#2": (
        ["run", *VA, "--arg", "out=short.npy", "--arg", "x=x.npy", "--arg", "y=x.npy", "--arg", "n=4"],
        2,
        "--arg out: short.npy is not a valid .npy file",
    ),
    f"{A}:find_kernel:no kernel `{{}}`; kernels: {{}}": (
        ["run", "good.kdsl", "--kernel", "nope", "--grid", "1", "--block", "128"],
        2,
        "no kernel `nope`; kernels: vector_add",
    ),
    f"{A}:find_kernel:`{{}}` names {{}} kernels (overloads or template instances): {{}}; pass the mangled name": (
        ["run", "k.ptx", "--kernel", "scale", "--grid", "1", "--block", "32"],
        2,
        "`scale` names 2 kernels (overloads or template instances): _Z5scaleIfEvPT_S0_i, _Z5scaleIdEvPT_S0_i",
    ),
    f"{A}:__post_init__:TensorMap box must be a tuple of integers, got {{}}": (
        _tensormap(box=(8.0, 8)),
        2,
        "TensorMap box must be a tuple of integers",
    ),
    f"{A}:__post_init__:TensorMap needs a C-contiguous numpy array": (
        _tensormap(array=np.asfortranarray(np.zeros((8, 8), np.float32))),
        2,
        "C-contiguous",
    ),
    f"{A}:__post_init__:TensorMap box {{}} must have one extent per array dimension ({{}})": (
        _tensormap(box=(8,)),
        2,
        "must have one extent per array dimension (2)",
    ),
    f"{A}:__post_init__:TensorMap box extents must be in 1..256, got {{}}": (
        _tensormap(box=(8, 512)),
        2,
        "TensorMap box extents must be in 1..256, got (8, 512)",
    ),
    f"{A}:__post_init__:unknown swizzle `{{}}`": (_tensormap(swizzle="16B"), 2, "unknown swizzle `16B`"),
    f"{A}:__post_init__:unknown oob_fill `{{}}`": (_tensormap(oob_fill="ones"), 2, "unknown oob_fill `ones`"),
}

#: sites nothing can reach, with the reason
UNREACHABLE = {
    f"{C}:main:return EXIT_USAGE#3": "argparse accepts only the four subcommands, each handled above it",
    f"{A}:load_npy:{{}} is not a single array": "the magic check refuses .npz archives before np.load",
    f"{A}:convert_args:argument `{{}}` has unsupported type `{{}}`": "every ParamSpec kind is handled above",
}


#: sites that need a workspace of their own (a configuration, a compiler), tested below by name
ELSEWHERE = {
    f"{C}:_load_config_quiet:{{}}": "test_compile_cu_cfg_errors_are_located",
    f"{C}:_emit_cfg_lifted:{{}}": "test_compile_cu_cfg_errors_are_located",
    f"{C}:_emit_cfg_lifted:return EXIT_ERRORS": "test_compile_cu_cfg_errors_are_located",
    f"{C}:_emit_cfg_lifted:return EXIT_USAGE": "test_compile_cu_cfg_errors_are_located",
    f"{R}:run_cli:return 1#3": "test_runtime_cuda.py::test_cli_run_ptx_on_gpu_and_its_errors (needs a GPU)",
    f"{R}:run_cli:return 2#3": "test_runtime_cuda.py::test_cli_run_ptx_on_gpu_and_its_errors (needs a GPU)",
}


def test_every_error_site_has_a_case() -> None:
    sites = set(error_sites())
    covered = set(CASES) | set(UNREACHABLE) | set(ELSEWHERE)
    assert sites - covered == set(), "error sites without a case"
    assert covered - sites == set(), "cases for sites that no longer exist"


def test_compile_cu_cfg_errors_are_located(tmp_path: Path, capsys, monkeypatch) -> None:
    """`irc compile x.cu --emit cfg`: a bad configuration, no nvcc, a .cu that does not compile and
    `cfg-svg` without Graphviz are each a clear message with exit 1 or 2, never 3."""
    from irc.tooling.cfgdot import dot_to_svg
    from irc.tooling.nvcc import find_nvcc

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("IRC_CACHE_DIR", str(tmp_path / "cache"))
    (tmp_path / "k.cu").write_text("__global__ void k(float* o) { o[threadIdx.x] = 1.0f; }\n")
    (tmp_path / "bad.cu").write_text("__global__ void k(float* o) { o[threadIdx.x] = ; }\n")
    (tmp_path / "irc.toml").write_text("unknown_key = 1\n")
    assert main(["compile", "k.cu", "--emit", "cfg"]) == 2
    assert "unknown key" in capsys.readouterr().err
    (tmp_path / "irc.toml").write_text("")
    monkeypatch.setenv("IRC_NVCC", str(tmp_path / "no-such-nvcc"))
    assert main(["compile", "k.cu", "--emit", "cfg"]) == 2
    assert "nvcc" in capsys.readouterr().err
    monkeypatch.delenv("IRC_NVCC")
    if find_nvcc() is None:
        pytest.skip("no nvcc: the remaining cases compile .cu files")
    assert main(["compile", "bad.cu", "--emit", "cfg"]) == 1
    assert "error" in capsys.readouterr().err
    if dot_to_svg("digraph {}") is None:
        assert main(["compile", "k.cu", "--emit", "cfg-svg"]) == 2
        assert "graphviz" in capsys.readouterr().err


def _api_value(case: Callable[[], object]) -> str:
    """The message of the LaunchError (or KeyError) an API case raises."""
    from irc.runtime.args import LaunchError, UnknownKernelError

    with pytest.raises((LaunchError, UnknownKernelError)) as e:
        case()
    return str(e.value)


@pytest.mark.parametrize("site", sorted(CASES))
def test_error_site(site: str, irc, ws: Path) -> None:
    case, want, fragment = CASES[site]
    template = error_sites()[site]
    if callable(case):
        msg = _api_value(case)
        assert fragment in msg
        if template:
            assert re.fullmatch(".*?".join(map(re.escape, template.split("{}"))), msg, re.S), (template, msg)
        return
    if want == -2 and site.endswith("no CUDA driver: {} (the emulator needs none: --device emu)"):
        from irc.runtime.cuda import driver_available

        if driver_available()[0]:
            pytest.skip("a CUDA driver is present: this mistake needs a machine without one")
        want = 2
    if want == -2:  # `--emit cfg-svg` without Graphviz
        from irc.tooling.cfgdot import dot_to_svg

        if dot_to_svg("digraph {}") is not None:
            pytest.skip("Graphviz is installed: the error needs a machine without it")
        want = 2
    if want == -1:  # cubin with neither nvJitLink nor ptxas: ptxas can be hidden, nvJitLink cannot
        os.environ["IRC_PTXAS"] = ""
        try:
            rc, out, err = irc(*case)
        finally:
            del os.environ["IRC_PTXAS"]
        if rc == 0:
            pytest.skip("nvJitLink is installed: a cubin needs no ptxas here")
        want = 1
    else:
        rc, out, err = irc(*case)
    assert rc == want, (rc, err)
    assert rc != 3 and "Traceback" not in err and "internal compiler error" not in err
    assert fragment in err, err
