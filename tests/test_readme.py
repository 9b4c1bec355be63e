"""The README works as written: every "First steps" command runs in a fresh clone with the expected exit
code (0, or 1 where the comment says a finding is expected) and leaves the clone clean; the set-up stays
two commands; `irc --help` and every subcommand's help describe every option."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from irc.cli import build_parser

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text()
BIN = Path(sys.executable).parent


def _block(heading: str) -> str:
    sec = README[README.index(heading) :]
    m = re.search(r"```sh\n(.*?)```", sec, re.S)
    assert m is not None
    return m.group(1)


def test_setup_is_exactly_two_commands() -> None:
    assert _block("## Set up").strip().splitlines() == ['pip install -e ".[dev]"', "pytest"]


def first_steps() -> list[str]:
    return [ln for ln in _block("## First steps").splitlines() if ln.strip()]


def test_first_steps_run_in_a_fresh_clone(tmp_path: Path) -> None:
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("needs git and a git checkout")
    clone = tmp_path / "clone"
    r = subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    # The working tree's uncommitted edits to the files the steps read, so the test checks this tree.
    for rel in ("README.md", "pyproject.toml"):
        shutil.copy(ROOT / rel, clone / rel)
    subprocess.run(["git", "-C", str(clone), "add", "-A"], check=True)
    subprocess.run(
        [
            "git",
            "-C",
            str(clone),
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "commit",
            "-qm",
            "wt",
            "--allow-empty",
        ],
        check=True,
    )
    steps = first_steps()
    assert steps[0].startswith("out=$(mktemp -d)")
    out = tmp_path / "out"
    out.mkdir()
    env = dict(
        os.environ,
        PATH=f"{BIN}{os.pathsep}{os.environ['PATH']}",
        out=str(out),
        IRC_CACHE_DIR=str(tmp_path / "cache"),
        NO_COLOR="1",
    )
    ran = 0
    for line in steps[1:]:
        cmd, _, comment = line.partition("  #")
        want = 1 if "exit 1" in comment else 0
        r = subprocess.run(
            ["bash", "-c", cmd], cwd=clone, env=env, capture_output=True, text=True, timeout=600
        )
        assert r.returncode == want, f"{cmd}\n{r.stdout[-2000:]}\n{r.stderr[-2000:]}"
        assert "Traceback" not in r.stderr, cmd
        ran += 1
    assert ran >= 12
    assert (out / "softmax.ptx").exists() and (out / "irc.sarif").stat().st_size > 0
    status = subprocess.run(
        ["git", "status", "--porcelain", "--ignored"], cwd=clone, capture_output=True, text=True
    )
    # Python's own bytecode caches (written unless PYTHONDONTWRITEBYTECODE is set) are not the steps' output
    wrote = [ln for ln in status.stdout.splitlines() if not ln.rstrip("/").endswith("__pycache__")]
    assert wrote == [], "the steps wrote into the clone:\n" + "\n".join(wrote)


def _options(parser) -> list:
    return [a for a in parser._actions if a.option_strings and "-h" not in a.option_strings]


def test_every_option_has_help() -> None:
    p = build_parser()
    subs = next(a for a in p._actions if a.__class__.__name__ == "_SubParsersAction")
    assert set(subs.choices) == {"compile", "check", "explain", "run"}
    for name, sp in subs.choices.items():
        assert sp.description, name
        for a in _options(sp) + [a for a in sp._actions if not a.option_strings]:
            assert a.help and len(a.help) > 8, f"irc {name} {a.option_strings or a.dest}: no help"
        text = sp.format_help()
        for a in _options(sp):
            assert a.option_strings[-1] in text
    assert all(ch.help for ch in subs._choices_actions)
