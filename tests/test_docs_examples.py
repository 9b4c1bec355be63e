"""The snippets in docs/examples.md work.

Every ```python block whose first line is `# doctest` is executed, each in a fresh namespace, with the
repository root as the working directory (the snippets open `examples/*.kdsl` by relative path) and a
private compile cache. The snippets build small inputs, launch in the emulator and assert against numpy.
The `irc check` lines the page quotes are also run through the CLI.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "examples.md"
_FENCE = re.compile(r"^```python[ \t]*\n(.*?)^```[ \t]*$", re.S | re.M)


def _doctest_blocks() -> list:
    text = DOC.read_text(encoding="utf-8")
    out = []
    for m in _FENCE.finditer(text):
        body = m.group(1)
        if not body.lstrip().startswith("# doctest"):
            continue
        line = text.count("\n", 0, m.start()) + 1
        # name the case after the section it is in
        heading = re.findall(r"^## (\S+)", text[: m.start()], re.M)
        name = heading[-1] if heading else "top"
        out.append(pytest.param(body, line, id=f"{name}-L{line}"))
    return out


BLOCKS = _doctest_blocks()


def test_doc_has_snippets_for_every_example_file() -> None:
    text = DOC.read_text(encoding="utf-8")
    bodies = "\n".join(b.values[0] for b in BLOCKS)
    for f in sorted((ROOT / "examples").glob("*.kdsl")):
        assert f"## {f.stem}" in text or f"`{f.name}`" in text, f"{f.name} is not documented"
        assert f'"examples/{f.name}"' in bodies, f"no `# doctest` snippet launches {f.name}"


@pytest.mark.parametrize("body,line", BLOCKS)
def test_doc_snippet(body: str, line: int, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("IRC_CACHE_DIR", str(tmp_path / "cache"))
    code = compile(body, f"{DOC}:{line + 1}", "exec")
    exec(code, {"__name__": f"docs_examples_L{line}"})  # noqa: S102


def _irc(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "irc.cli", *args], cwd=ROOT, capture_output=True, text=True, timeout=120
    )


def test_doc_check_commands() -> None:
    text = DOC.read_text(encoding="utf-8")
    r = _irc("check", "examples/", "--arch", "sm_100a")
    assert r.returncode == 0, r.stderr
    assert "irc: no findings in 10 files" in r.stderr and "irc: no findings in 10 files" in text
    # the repository config gives the sm100 kernel its target; without it, the default target (sm_80)
    # rejects only the tcgen05 kernels, with unsupported-target
    r = _irc("check", "examples/")
    assert r.returncode == 0 and "irc: no findings in 10 files" in r.stderr
    r = _irc("check", "--no-config", "examples/", "--format", "json")
    assert r.returncode == 1
    diags = json.loads(r.stdout)["diagnostics"]
    assert {d["file"] for d in diags} == {"examples/tma_gemm_sm100.kdsl", "examples/fmha_sm100.kdsl"}
    assert {d["check"] for d in diags} == {"unsupported-target"}
    per_file = {
        f: sum(d["file"] == f"examples/{f}" for d in diags)
        for f in ("tma_gemm_sm100.kdsl", "fmha_sm100.kdsl")
    }
    assert (
        f"reports {per_file['tma_gemm_sm100.kdsl']} `unsupported-target` errors and for `fmha_sm100.kdsl` "
        f"{per_file['fmha_sm100.kdsl']}," in text.replace("\n", " ")
    )


def test_doc_stats_block() -> None:
    """The pasted `--stats` block matches what the compiler prints (the ptxas line depends on the host)."""
    text = DOC.read_text(encoding="utf-8")
    r = _irc("compile", "examples/tma_gemm_sm100.kdsl", "--arch", "sm_100a", "--stats", "-o", "/dev/null")
    assert r.returncode == 0, r.stderr
    got = [ln for ln in r.stderr.splitlines() if ln.strip() and "ptxas" not in ln]
    assert got and got[0].startswith("kernel tma_gemm_sm100 (sm_100a")
    for ln in got:
        assert ln in text, f"--stats line not in docs/examples.md: {ln!r}"
