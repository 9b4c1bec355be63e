"""`irc check --list-checks`, `irc explain CHECK`, `irc check --why` (golden files) and `irc compile --emit
cfg` (valid dot, annotated with uniformity and barriers).

Regenerate the golden files with `IRC_UPDATE_GOLDEN=1 python -m pytest tests/test_explain.py` and review
the diff. `irc explain` prints the docs section, so an edit of docs/analyzer.md shows up here.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from irc.cli import main
from irc.tooling import checkinfo

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = Path(__file__).parent / "golden" / "explain"
DATA = Path(__file__).parent / "data"


def golden(name: str, text: str) -> None:
    path = GOLDEN / name
    if os.environ.get("IRC_UPDATE_GOLDEN"):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    assert path.exists(), f"missing golden file {path}; run with IRC_UPDATE_GOLDEN=1"
    assert text == path.read_text(), (
        f"{path.name} differs (did a docs section change?): review, then IRC_UPDATE_GOLDEN=1 pytest {__file__}"
    )


def test_list_checks_golden(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "--list-checks"]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    # The golden file covers the checks documented in `checkinfo.CHECKS`; a check registered elsewhere
    # (the analyzer's table, the renderer's descriptions) is listed after them, once.
    listed = [ln.split()[0] for ln in lines]
    assert len(listed) == len(set(listed)) and listed[: len(checkinfo.CHECKS)] == list(checkinfo.CHECKS)
    assert set(listed) == set(checkinfo.all_names())
    # columns are padded to the longest name listed, which another branch's check may change
    rows = ["  ".join(re.split(r"\s{2,}", ln.strip())) + "\n" for ln in lines[: len(checkinfo.CHECKS)]]
    golden("list-checks.txt", "".join(rows))


def test_explain_barrier_divergence_golden(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["explain", "barrier-divergence"]) == 0
    out = capsys.readouterr().out
    golden("barrier-divergence.txt", out)
    assert "Wrong (PARITY-114)" in out and "Right:" in out


def test_explain_is_the_docs_text() -> None:
    """One source: every check's explanation is its docs section verbatim (wrong and right examples)."""
    for name, info in checkinfo.CHECKS.items():
        text = checkinfo.explain(name)
        doc = (ROOT / "docs" / info.doc).read_text()
        body = text.split("\n\n", 1)[1].rstrip("\n")
        assert body in doc, name
        assert re.search(rf"^#+ `{re.escape(name)}`", doc, re.M), name
        assert "Wrong" in body and "Right" in body, f"{name}: the docs section needs wrong and right examples"
        uri = checkinfo.help_uri(name)
        assert uri.startswith(checkinfo.DOCS_URL + info.doc + "#")


def test_explain_unknown_check_suggests(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["explain", "barier-divergence"]) == 2
    assert "did you mean `barrier-divergence`?" in capsys.readouterr().err


def test_why_golden(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    paths = [
        "tests/data/check_kdsl/bad_parity114.kdsl",
        "tests/data/ptx/nvcc/bug_return_before_barrier.sm_80.ptx",
    ]
    assert main(["check", "--why", *paths]) == 1
    err = capsys.readouterr().err
    golden("why.txt", err)
    # the chain starts at the seed and ends at the branch condition the label points at
    assert re.search(
        r"why \(line 6, seed first\):\n\s+`tid.x` = sreg \(thread\) at 5:\d+: the seed .*\n\s+`gid` = add",
        err,
    )
    assert main(["check", *paths]) == 1
    assert "why (" not in capsys.readouterr().err  # only on request


def test_emit_cfg_is_valid_annotated_dot(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pydot = pytest.importorskip("pydot")
    src = DATA / "check_kdsl" / "ok_parity114_fixed.kdsl"
    out = tmp_path / "k.dot"
    assert main(["compile", str(src), "--emit", "cfg", "-o", str(out)]) == 0
    graphs = pydot.graph_from_dot_data(out.read_text())
    assert graphs is not None and len(graphs) == 1
    g = graphs[0]
    (sub,) = g.get_subgraphs()
    nodes = [n for n in sub.get_nodes() if n.get_name() not in ("node", "graph", "edge")]
    labels = [n.get("label") for n in nodes]
    assert len(nodes) >= 3 and len(sub.get_edges()) >= 2
    assert any("barrier: barrier" in lab for lab in labels)
    assert any("control: thread" in lab for lab in labels)  # the guarded store
    assert any("branch on" in lab and ": thread" in lab for lab in labels)


def test_emit_cfg_accepted_by_dot_for_every_example(tmp_path: Path) -> None:
    """Where the `dot` binary is installed, it accepts the CFG of every example without a warning."""
    import shutil
    import subprocess

    exe = shutil.which("dot")
    if exe is None:
        pytest.skip("graphviz `dot` is not installed")
    for src in sorted((ROOT / "examples").glob("*.kdsl")):
        out = tmp_path / (src.stem + ".dot")
        assert main(["compile", str(src), "--arch", "sm_100a", "--emit", "cfg", "-o", str(out)]) == 0
        r = subprocess.run([exe, "-Tsvg", str(out)], capture_output=True, text=True, timeout=120)
        assert r.returncode == 0 and r.stderr == "" and "<svg" in r.stdout, src.name


def test_emit_cfg_svg(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from irc.tooling.cfgdot import dot_to_svg

    src = DATA / "check_kdsl" / "ok_parity114_fixed.kdsl"
    rc = main(["compile", str(src), "--emit", "cfg-svg", "-o", str(tmp_path / "k.svg")])
    if dot_to_svg("digraph { a }") is None:
        assert rc == 2 and "needs the `dot` binary" in capsys.readouterr().err
    else:
        assert rc == 0 and "<svg" in (tmp_path / "k.svg").read_text()
