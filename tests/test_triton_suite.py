"""`irc check` on the Triton kernel corpus (tests/data/triton_suite, README there).

Precision: every clean kernel's PTX (Triton 3.9's ordinary output for kernels written in this repository)
must check clean with `irc check --format json`: a checker that cries wolf on the ordinary output of the
most used GPU kernel compiler gets switched off. Recall: every injected-bug twin must be reported with its
expected check at its expected PTX line (manifest.json). What irc gets wrong today is listed below in
explicit sets, each entry a strict xfail with its cause: a fix that makes one pass fails the suite until
its entry is removed.

The corpus is frozen text so that these tests need neither Triton nor a GPU; `test_live_*` compile a few
kernels with the installed Triton (when there is one) so that the corpus is also checked against what
Triton emits now, not only against what it emitted when regen.py last ran.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from irc.compiler import check_ptx
from irc.ptxas import find_ptxas, run_ptxas

DATA = Path(__file__).parent / "data" / "triton_suite"
MANIFEST = json.loads((DATA / "manifest.json").read_text())
CLEAN: dict[str, dict] = MANIFEST["clean"]
TWINS: dict[str, dict] = MANIFEST["twins"]

# Clean kernels irc reports today (false positives): none. `topk_rows.sm_100a` was one until the lane bits of
# its bitonic sort's direction flags were evaluated (tests/test_lane_direction.py).
CLEAN_XFAIL: dict[str, str] = {}

# Clean kernels on which `irc check` stops with an internal error (exit 3, no report): none today.
INTERNAL_XFAIL: dict[str, str] = {}

# Bug twins irc misses today (recall gaps), with why.
TWIN_XFAIL: dict[str, str] = {}


def _params(names, xfail: dict[str, str]) -> list:
    out = []
    for n in sorted(names):
        marks = [pytest.mark.xfail(strict=True, reason=xfail[n])] if n in xfail else []
        out.append(pytest.param(n, id=n.removesuffix(".ptx"), marks=marks))
    return out


def test_corpus_matches_manifest() -> None:
    """The committed files are exactly the manifest's, the corpus has its promised size, and the xfail
    sets name only files that exist."""
    assert {p.name for p in (DATA / "ptx").glob("*.ptx")} == set(CLEAN)
    assert {p.name for p in (DATA / "bugs").glob("*.ptx")} == set(TWINS)
    assert len({(e["module"], e["kernel"]) for e in CLEAN.values()}) >= 30
    assert len(TWINS) >= 12
    assert set(CLEAN_XFAIL) | set(INTERNAL_XFAIL) <= set(CLEAN) and set(TWIN_XFAIL) <= set(TWINS)
    assert not set(CLEAN_XFAIL) & set(INTERNAL_XFAIL)
    for name, e in CLEAN.items():
        text = (DATA / "ptx" / name).read_text()
        assert re.search(rf"^\.target\s+{e['arch']}\s*$", text, re.M), name


def _irc_check_json(names: list[str]) -> dict[str, list[dict]]:
    """`irc check --format json` on clean corpus files in one run: findings per PTX file. An internal
    error (exit 3) stops the whole run without a report, so it fails here."""
    r = subprocess.run(
        [sys.executable, "-m", "irc.cli", "check", "--no-config", "--format", "json"]
        + [str(DATA / "ptx" / n) for n in names],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert r.returncode in (0, 1), f"exit {r.returncode}: {r.stderr[-3000:]}"
    report = json.loads(r.stdout)
    assert report["files_checked"] == len(names)
    out: dict[str, list[dict]] = {n: [] for n in names}
    for d in report["diagnostics"]:
        ptx = d.get("ptx") or d  # a finding mapped to the .py line keeps its PTX instruction in `ptx`
        out[Path(ptx["file"]).name].append(d)
    return out


@pytest.fixture(scope="module")
def clean_findings() -> dict[str, list[dict]]:
    """The corpus less the files with a known internal error, checked once."""
    return _irc_check_json(sorted(set(CLEAN) - set(INTERNAL_XFAIL)))


@pytest.mark.parametrize("name", _params(CLEAN, {**CLEAN_XFAIL, **INTERNAL_XFAIL}))
def test_clean_kernel_checks_clean(name: str, clean_findings: dict[str, list[dict]]) -> None:
    got = _irc_check_json([name])[name] if name in INTERNAL_XFAIL else clean_findings[name]
    assert got == [], "\n".join(f"{d['check']}: {d['message'][:300]}" for d in got)


_INSTANCE = re.compile(r"\.ptx:(\d+)")


def _found_at(diags, check: str) -> set[int]:
    """PTX lines where `check` was reported: each finding's instruction, its labelled accesses (the other
    side of a race) and the copies grouped into it."""
    lines: set[int] = set()
    for d in diags:
        if d.check != check:
            continue
        lines.add((d.origin or d.span).line)
        lines.update((lab.origin or lab.span).line for lab in d.labels)
        for n in d.notes:
            if "instances of this finding" in n:
                lines.update(int(x) for x in _INSTANCE.findall(n))
    return lines


@pytest.mark.parametrize("name", _params(TWINS, TWIN_XFAIL))
def test_bug_twin_is_found(name: str) -> None:
    e = TWINS[name]
    path = DATA / "bugs" / name
    text = path.read_text()
    assert text.split("\n")[e["line"] - 1].strip() == e["instruction"], "manifest out of date: run regen.py"
    diags = check_ptx(text, str(path))
    assert e["line"] in _found_at(diags, e["check"]), "\n".join(
        f"{d.check}:{(d.origin or d.span).line}: {d.message[:200]}" for d in diags
    )


def test_twin_differs_from_its_clean_kernel_by_the_mutation_only() -> None:
    """A PTX-level twin is its clean kernel with one edit (a dropped, changed or guarded line), so the
    finding can only come from the injected defect."""
    for name, e in TWINS.items():
        if isinstance(e["mutation"], str):
            continue
        clean = (DATA / "ptx" / f"{e['kernel']}.{e['arch']}.ptx").read_text().split("\n")
        twin = (DATA / "bugs" / name).read_text().split("\n")
        kind = e["mutation"]["kind"]
        extra = {"drop": -1, "sub": 0}.get(kind)
        if extra is not None:
            assert len(twin) - len(clean) == extra, name
            assert sum(a != b for a, b in zip(clean, twin)) >= 1, name
        else:
            assert len(twin) > len(clean) and "$BUG_skip:" in twin, name


@pytest.mark.skipif(find_ptxas() is None, reason="ptxas not installed")
@pytest.mark.parametrize("name", sorted(TWINS), ids=lambda n: n.removesuffix(".ptx"))
def test_bug_twin_assembles(name: str) -> None:
    """The twins are valid PTX (the defects are semantic): ptxas accepts each for its target."""
    res = run_ptxas((DATA / "bugs" / name).read_text(), TWINS[name]["arch"])
    assert res.ok, res.errors[:3]


@pytest.mark.slow
@pytest.mark.skipif(find_ptxas() is None, reason="ptxas not installed")
@pytest.mark.parametrize("name", sorted(CLEAN), ids=lambda n: n.removesuffix(".ptx"))
def test_clean_kernel_assembles(name: str) -> None:
    res = run_ptxas((DATA / "ptx" / name).read_text(), CLEAN[name]["arch"])
    assert res.ok, res.errors[:3]


# --- live: compile with the installed Triton ---------------------------------------------------------

LIVE = [("swiglu", "sm_80"), ("tma_matmul", "sm_90a")]


@pytest.fixture(scope="module")
def suite_module():
    pytest.importorskip("triton")
    sys.path.insert(0, str(DATA))
    try:
        import suite
    finally:
        sys.path.remove(str(DATA))
    return suite


@pytest.mark.parametrize(("case", "arch"), LIVE)
def test_live_compile_checks_clean(suite_module, case: str, arch: str) -> None:
    """Triton compiles the kernel now; ptxas accepts it; irc reports nothing; and with the Triton the corpus
    was made with, the PTX is the committed file byte for byte (regen.py is deterministic)."""
    import triton

    cases = {c.name: c for c in suite_module.all_cases()}
    ptx = suite_module.compile_case(cases[case], arch)
    if find_ptxas() is not None:
        res = run_ptxas(ptx, arch)
        assert res.ok, res.errors[:3]
    assert check_ptx(ptx, f"{case}.{arch}.ptx") == []
    if triton.__version__ == MANIFEST["triton"]:
        # `.file` names of Triton's own sources depend on where it is installed (a venv in or outside the
        # checkout, or an entry of Triton's cache made from another checkout): compared from site-packages
        assert _site(ptx) == _site((DATA / "ptx" / f"{case}.{arch}.ptx").read_text())


def _site(ptx: str) -> str:
    return re.sub(r'"[^"\n]*site-packages/', '"site-packages/', ptx)


def test_live_mutation_is_found(suite_module) -> None:
    """The mutation step on freshly compiled PTX: the constant-parity twin of tma_matmul is reported."""
    sys.path.insert(0, str(DATA))
    try:
        import bugs

        twins = bugs.twins()  # imports kernels/ from DATA
    finally:
        sys.path.remove(str(DATA))
    twin = next(t for t in twins if t.file_stem == "tma_matmul.parity-const" and t.arch == "sm_90a")
    cases = {c.name: c for c in suite_module.all_cases()}
    clean = suite_module.compile_case(cases["tma_matmul"], "sm_90a")
    text, i = bugs.mutate(clean, twin.mutation)
    assert check_ptx(clean, "clean.ptx") == []
    assert i + 1 in _found_at(check_ptx(text, "twin.ptx"), "mbarrier-phase")
