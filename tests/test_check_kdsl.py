"""End-to-end corpus for `irc check` on .kdsl source (tests/data/check_kdsl/*.kdsl).

Each file marks the primary line of every expected finding with `// expect: <check>` at the end of that
line; the set of (check, line) of the error and warning findings must match exactly. Files named `ok_*`
are correct kernels (or kernels whose finding is suppressed) and must produce nothing: a checker that
flags correct persistent kernels gets switched off (PARITY-114). A first-line `// arch: sm_90a` selects
the target (default sm_80).
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from irc.compiler import CompileOptions, check_kdsl, compile_kdsl
from irc.diagnostics import CompileError, Severity
from irc.tooling.render import render_text

DATA = Path(__file__).parent / "data" / "check_kdsl"
FILES = sorted(DATA.glob("*.kdsl"))
_EXPECT = re.compile(r"//\s*expect:\s*([a-z-]+)")
_ARCH = re.compile(r"//\s*arch:\s*(\S+)")
DEFAULT_ARCH = "sm_80"


def arch_of(text: str) -> str:
    lines = text.splitlines()
    m = _ARCH.match(lines[0]) if lines else None
    return m.group(1) if m else DEFAULT_ARCH


def expected(text: str) -> set[tuple[str, int]]:
    return {
        (m.group(1), n) for n, line in enumerate(text.splitlines(), start=1) for m in _EXPECT.finditer(line)
    }


def findings(path: Path) -> tuple[set[tuple[str, int]], list]:
    text = path.read_text()
    diags = check_kdsl(text, str(path), arch=arch_of(text))
    shown = [d for d in diags if d.severity in (Severity.ERROR, Severity.WARNING)]
    return {(d.check, d.span.line if d.span else 0) for d in shown}, diags


def test_corpus_shape() -> None:
    assert len(FILES) >= 32
    ok = [p for p in FILES if p.name.startswith("ok_")]
    assert len(ok) * 2 >= len(FILES)
    for p in FILES:
        exp = expected(p.read_text())
        if p.name.startswith("ok_"):
            assert not exp, f"{p.name}: correct kernels expect nothing"
        else:
            assert exp, f"{p.name}: bug files must mark at least one expected finding"


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_corpus_file(path: Path) -> None:
    got, diags = findings(path)
    exp = expected(path.read_text())
    detail = "\n".join(f"{d.check}:{d.span}: {d.message}" for d in diags)
    assert got == exp, f"missing {sorted(exp - got)}, unexpected {sorted(got - exp)}\n{detail}"
    for d in diags:
        if d.severity == Severity.ERROR and d.check != "uninitialized":
            assert d.help, f"{d.check} finding without a help line"


def test_compile_refuses_error_and_compiles_fixed_twin() -> None:
    bad = DATA / "bad_parity114.kdsl"
    good = DATA / "ok_parity114_fixed.kdsl"
    with pytest.raises(CompileError) as ei:
        compile_kdsl(bad.read_text(), str(bad), CompileOptions(arch=DEFAULT_ARCH))
    assert any(d.check == "barrier-divergence" for d in ei.value.diagnostics)
    res = compile_kdsl(good.read_text(), str(good), CompileOptions(arch=DEFAULT_ARCH))
    assert "bar.sync" in res.ptx_text
    assert not [d for d in res.diagnostics if d.severity == Severity.ERROR]


def _cli_check(directory: Path, arch: str) -> subprocess.CompletedProcess:
    cmd = [sys.executable, "-m", "irc.cli", "check", str(directory), "--format", "json", "--arch", arch]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=300)


def _json_findings(stdout: str) -> set[tuple[str, str, int]]:
    data = json.loads(stdout)
    items = data["diagnostics"] if isinstance(data, dict) else data
    return {
        (Path(d["file"]).name, d["check"], d["line"]) for d in items if d["severity"] in ("error", "warning")
    }


@pytest.mark.parametrize("arch", sorted({arch_of(p.read_text()) for p in FILES}))
def test_cli_directory(tmp_path: Path, arch: str) -> None:
    files = [p for p in FILES if arch_of(p.read_text()) == arch]
    all_dir, ok_dir = tmp_path / "all", tmp_path / "ok"
    all_dir.mkdir()
    ok_dir.mkdir()
    for p in files:
        shutil.copy(p, all_dir / p.name)
        if p.name.startswith("ok_"):
            shutil.copy(p, ok_dir / p.name)
    exp = {(p.name, c, line) for p in files for c, line in expected(p.read_text())}
    r = _cli_check(all_dir, arch)
    assert r.returncode == (1 if exp else 0), r.stderr
    assert _json_findings(r.stdout) == exp
    r = _cli_check(ok_dir, arch)
    assert r.returncode == 0, r.stdout + r.stderr
    assert _json_findings(r.stdout) == set()


def test_parity114_message_explains() -> None:
    path = DATA / "bad_parity114.kdsl"
    text = path.read_text()
    diags = [d for d in check_kdsl(text, str(path)) if d.check == "barrier-divergence"]
    assert len(diags) == 1
    d = diags[0]
    cond_line = next(n for n, line in enumerate(text.splitlines(), 1) if "if gid >= n" in line)
    cond_labels = [lb for lb in d.labels if lb.span.line == cond_line]
    assert cond_labels and any("tid.x" in lb.message or "gid" in lb.message for lb in cond_labels)
    out = render_text(diags, {str(path): text})
    assert "tid.x" in out
    assert "help:" in out
    assert "keep every thread" in out and "barrier" in out
    assert "guard only the memory accesses" in out


def test_old_max_message_explains() -> None:
    path = DATA / "bad_online_softmax_alias.kdsl"
    text = path.read_text()
    diags = [d for d in check_kdsl(text, str(path)) if d.check == "self-cancel"]
    assert len(diags) == 1
    out = render_text(diags, {str(path): text})
    assert "exp2(0) = 1" in out and "rescale" in out
    assert "last written here" in out
