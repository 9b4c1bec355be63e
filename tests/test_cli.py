"""The command line: exit codes, usage errors without tracebacks, formats."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from irc import __version__
from irc.cli import main

ROOT = Path(__file__).resolve().parent.parent


def run(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "irc.cli", *args],
        capture_output=True,
        text=True,
        cwd=cwd or ROOT,
        env={"PATH": "/usr/bin:/bin", "NO_COLOR": "1"},
    )


def test_version() -> None:
    r = run("--version")
    assert r.returncode == 0 and r.stdout.strip() == f"irc {__version__}"


@pytest.mark.parametrize(
    "argv",
    [
        ["compile"],
        ["compile", "x.kdsl", "--arch", "sm_70"],
        ["frobnicate"],
        ["check", "x.kdsl", "--format", "xml"],
        ["compile", "x.kdsl", "-D", "NOEQUALS"],
    ],
)
def test_usage_errors_exit_2(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as e:
        main(argv)
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and "usage:" in err


def test_check_without_paths_or_config_is_a_usage_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["check"]) == 2
    assert "no paths given and no configuration found" in capsys.readouterr().err


def test_missing_files_are_usage_errors(tmp_path: Path) -> None:
    r = run("compile", str(tmp_path / "nope.kdsl"))
    assert r.returncode == 2 and "no such file" in r.stderr and "Traceback" not in r.stderr
    r = run("check", str(tmp_path / "nope"))
    assert r.returncode == 2 and "Traceback" not in r.stderr
    (tmp_path / "notes.txt").write_text("hello")
    r = run("check", str(tmp_path / "notes.txt"))
    assert r.returncode == 2 and ".kdsl, .ptx, .cu or .cuh" in r.stderr


def test_unknown_arch_names_the_choices() -> None:
    r = run("compile", "examples/vector_add.kdsl", "--arch", "sm_75")
    assert r.returncode == 2 and "sm_80" in r.stderr and "sm_100a" in r.stderr


def test_check_empty_directory_is_usage_error(tmp_path: Path) -> None:
    r = run("check", str(tmp_path))
    assert r.returncode == 2 and "no .kdsl, .ptx or .cu" in r.stderr


def test_binary_file_is_a_diagnostic_not_a_traceback(tmp_path: Path) -> None:
    p = tmp_path / "bad.kdsl"
    p.write_bytes(b"\xff\xfe\x00\x01")
    r = run("compile", str(p))
    assert r.returncode == 2 and "UTF-8" in r.stderr and "Traceback" not in r.stderr


def test_json_format_on_clean_ptx(tmp_path: Path) -> None:
    src = ROOT / "tests/data/ptx/builder"
    good = sorted(p for p in src.glob("*.ptx") if "fixed" in p.name or "ok" in p.name)
    if not good:
        pytest.skip("builder corpus missing")
    r = run("check", str(good[0]), "--format", "json")
    out = json.loads(r.stdout)
    assert set(out) == {"diagnostics", "files_checked"} and out["files_checked"] == 1


# --- compile and check on real inputs ------------------------------------------------------------------


def test_compile_to_stdout_is_valid_ptx() -> None:
    from irc.ptxas import find_ptxas, run_ptxas

    r = run("compile", "examples/vector_add.kdsl")
    assert r.returncode == 0, r.stderr
    assert ".visible .entry vector_add(" in r.stdout
    if find_ptxas():
        assert run_ptxas(r.stdout, "sm_80").ok


def test_compile_emit_ir_round_trips() -> None:
    from irc.ir.parser import parse_module
    from irc.ir.printer import print_module
    from irc.ir.verifier import verify

    r = run("compile", "examples/softmax.kdsl", "--emit", "ir")
    assert r.returncode == 0, r.stderr
    m = parse_module(r.stdout)
    assert verify(m) == [] and print_module(m) == r.stdout


def test_compile_stats_dump_verify_time(tmp_path: Path) -> None:
    out = tmp_path / "k.ptx"
    r = run(
        "compile",
        "examples/layernorm.kdsl",
        "--arch",
        "sm_100a",
        "-o",
        str(out),
        "--stats",
        "--dump-after",
        "dce",
        "--verify-each",
        "--time-passes",
    )
    assert r.returncode == 0, r.stderr
    assert out.read_text().startswith("//") or ".version 8.6" in out.read_text()
    assert ".target sm_100a" in out.read_text()
    assert "MaxLive" in r.stderr and "IR after dce" in r.stderr and "pass timings" in r.stderr


def test_compile_cubin(tmp_path: Path) -> None:
    from irc.ptxas import find_ptxas

    if not find_ptxas():
        pytest.skip("no ptxas")
    out = tmp_path / "k.cubin"
    r = run("compile", "examples/vector_add.kdsl", "--emit", "cubin", "-o", str(out))
    assert r.returncode == 0, r.stderr
    assert out.read_bytes()[:4] == b"\x7fELF"


def test_defines_override_params() -> None:
    r = run("compile", "examples/incremental_attention.kdsl", "-D", "HEAD_DIM=32", "--emit", "ir")
    assert r.returncode == 0, r.stderr
    r2 = run("compile", "examples/incremental_attention.kdsl", "--emit", "ir")
    assert r.stdout != r2.stdout


def test_compile_error_is_a_diagnostic(tmp_path: Path) -> None:
    p = tmp_path / "bad.kdsl"
    p.write_text("kernel k(out: *global f32) {\n    let x: f32 = 1;\n    out[0] = x + 1u32;\n}\n")
    r = run("compile", str(p))
    assert r.returncode == 1 and "Traceback" not in r.stderr
    assert "error[type-error]" in r.stderr and f"{p}:3:" in r.stderr and "^" in r.stderr
    assert "f32" in r.stderr and "u32" in r.stderr


def test_compile_refuses_error_findings(tmp_path: Path) -> None:
    p = tmp_path / "parity114.kdsl"
    p.write_text(
        "@launch(block = 128)\nkernel k(out: *global f32, n: u32) {\n    shared t: [f32; 128];\n"
        "    let i = ctaid.x * 128 + tid.x;\n    if i >= n {\n        return;\n    }\n"
        "    t[tid.x] = 1.0;\n    barrier();\n    out[i] = t[127 - tid.x];\n}\n"
    )
    r = run("compile", str(p))
    assert r.returncode == 1 and "barrier-divergence" in r.stderr and r.stdout == ""


def test_check_examples_clean() -> None:
    r = run("check", "examples", "--arch", "sm_100a")  # every example has what sm_100a offers
    assert r.returncode == 0, r.stderr
    assert "no findings" in r.stderr


def test_check_ptx_bug_all_formats() -> None:
    f = "tests/data/ptx/nvcc/bug_return_before_barrier.sm_80.ptx"
    r = run("check", f)
    assert r.returncode == 1 and "barrier-divergence" in r.stderr
    j = json.loads(run("check", f, "--format", "json").stdout)
    assert j["files_checked"] == 1 and any(d["check"] == "barrier-divergence" for d in j["diagnostics"])
    d = next(d for d in j["diagnostics"] if d["check"] == "barrier-divergence")
    # -lineinfo: the finding and every label are on the user's .cu lines; the PTX lines are kept beside
    cu = f.replace(".sm_80.ptx", ".cu")
    assert d["file"] == cu and d["line"] > 0 and d["column"] > 0
    assert d["labels"] and all(lab["file"] == cu and lab["ptx"]["file"] == f for lab in d["labels"])
    assert d["ptx"]["file"] == f and d["ptx"]["line"] > 0
    assert d["kernel"] == "bug_return_before_barrier(float const*, float*, int)"
    assert d["symbol"] == "_Z25bug_return_before_barrierPKfPfi"
    s = json.loads(run("check", f, "--format", "sarif").stdout)
    assert s["version"] == "2.1.0" and s["runs"][0]["results"]
    g = run("check", f, "--format", "github").stdout
    assert g.startswith("::error file=") and "barrier-divergence" in g


def test_check_parallel_matches_serial() -> None:
    files = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "tests/data/ptx/nvcc").glob("*.ptx"))
    a = json.loads(run("check", *files, "--format", "json").stdout)
    b = json.loads(run("check", *files, "--format", "json", "-j", "2").stdout)
    assert a == b and a["files_checked"] >= 30


def test_fast_exit_keeps_output_exit_code_and_exit_handlers(tmp_path: Path) -> None:
    """`irc` ends with `os._exit` after the exit handlers (`irc.cli.run`): all of a large stdout arrives
    through the pipe, error exit codes survive, and the exit handlers still ran (one registered before
    `run` writes a marker file)."""
    env = {"PATH": "/usr/bin:/bin", "NO_COLOR": "1", "IRC_CACHE_DIR": str(tmp_path / "cache")}
    src = str(ROOT / "examples" / "flash_attention_tc.kdsl")
    out = tmp_path / "k.ptx"
    cmd = [sys.executable, "-m", "irc.cli", "compile", src]
    piped = subprocess.run(cmd, capture_output=True, text=True, env=env)
    to_file = subprocess.run([*cmd, "-o", str(out)], capture_output=True, text=True, env=env)
    assert piped.returncode == to_file.returncode == 0
    assert len(piped.stdout) > 10_000 and piped.stdout == out.read_text()
    marker = tmp_path / "exit-handler-ran"
    code = (
        "import atexit, sys\n"
        f"atexit.register(lambda: open({str(marker)!r}, 'w').write('ran'))\n"
        f"sys.argv = ['irc', 'compile', {src!r}, '-o', {str(tmp_path / 'k2.ptx')!r}]\n"
        "from irc.cli import run\n"
        "run()\n"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert r.returncode == 0, r.stderr
    assert marker.read_text() == "ran" and (tmp_path / "k2.ptx").read_text() == piped.stdout
    bad = tmp_path / "bad.kdsl"
    bad.write_text("kernel k( {\n")
    r = subprocess.run(
        [sys.executable, "-m", "irc.cli", "compile", str(bad)], capture_output=True, text=True, env=env
    )
    assert r.returncode == 1 and "bad.kdsl:1:" in r.stderr
