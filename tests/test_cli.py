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
    return subprocess.run([sys.executable, "-m", "irc.cli", *args], capture_output=True, text=True,
                          cwd=cwd or ROOT, env={"PATH": "/usr/bin:/bin", "NO_COLOR": "1"})


def test_version() -> None:
    r = run("--version")
    assert r.returncode == 0 and r.stdout.strip() == f"irc {__version__}"


@pytest.mark.parametrize("argv", [["compile"], ["check"], ["compile", "x.kdsl", "--arch", "sm_70"],
                                  ["frobnicate"], ["check", "x.kdsl", "--format", "xml"],
                                  ["compile", "x.kdsl", "-D", "NOEQUALS"]])
def test_usage_errors_exit_2(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as e:
        main(argv)
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and "usage:" in err


def test_missing_files_are_usage_errors(tmp_path: Path) -> None:
    r = run("compile", str(tmp_path / "nope.kdsl"))
    assert r.returncode == 2 and "no such file" in r.stderr and "Traceback" not in r.stderr
    r = run("check", str(tmp_path / "nope"))
    assert r.returncode == 2 and "Traceback" not in r.stderr
    (tmp_path / "notes.txt").write_text("hello")
    r = run("check", str(tmp_path / "notes.txt"))
    assert r.returncode == 2 and ".kdsl or .ptx" in r.stderr


def test_unknown_arch_names_the_choices() -> None:
    r = run("compile", "examples/vector_add.kdsl", "--arch", "sm_75")
    assert r.returncode == 2 and "sm_80" in r.stderr and "sm_100a" in r.stderr


def test_check_empty_directory_is_usage_error(tmp_path: Path) -> None:
    r = run("check", str(tmp_path))
    assert r.returncode == 2 and "no .kdsl or .ptx" in r.stderr


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
