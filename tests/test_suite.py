"""The async/race bug suite (tests/data/suite, README.md there): every case's twin is clean and its bug is
found, statically (`irc check`) and in the emulator, with the scorer's verdicts (tests/asyncsuite/score.py).

What irc does not get right yet is listed below with a one-line guess at the cause. Each listed test is a
strict xfail: when a fix makes it pass, the test fails and asks for its entry to be removed.
"""

from __future__ import annotations

import re
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from asyncsuite import score

from irc.ptxas import find_ptxas, run_ptxas

CASES = score.load_cases().CASES
BY_NAME = {c.name: c for c in CASES}
SUITE = score.SUITE

# -- what irc misses today (name -> why, a guess) -----------------------------------------------------
STATIC_MISSES: dict[str, str] = {}
TWIN_FALSE_POSITIVES: dict[str, str] = {}
EMU_MISSES: dict[str, str] = {}
EMU_TWIN_FAILURES: dict[str, str] = {}


def _params(names: list[str], known: dict[str, str], what: str) -> list:
    out = []
    for n in names:
        marks = [pytest.mark.xfail(strict=True, reason=f"{what}: {known[n]}")] if n in known else []
        out.append(pytest.param(BY_NAME[n], id=n, marks=marks))
    return out


STATIC = [c.name for c in CASES if c.check is not None]
ALL = [c.name for c in CASES]


# -- the data ------------------------------------------------------------------------------------------
def test_lists_name_real_cases() -> None:
    for table in (STATIC_MISSES, TWIN_FALSE_POSITIVES, EMU_MISSES, EMU_TWIN_FAILURES):
        assert set(table) <= set(BY_NAME), set(table) - set(BY_NAME)
    assert len({c.name for c in CASES}) == len(CASES)
    assert set(STATIC_MISSES) <= set(STATIC)


def test_suite_size_and_classes() -> None:
    cuda = [c for c in CASES if c.lang == "cuda"]
    kdsl = {c.name for c in CASES if c.lang == "kdsl"}
    assert len(cuda) >= 44 and len(kdsl) >= 16
    minimum = {"cp.async": 7, "mbarrier": 10, "tma": 7, "shared-race": 10, "warp": 5, "barrier": 5}
    for cls, n in minimum.items():
        assert sum(c.cls == cls for c in cuda) >= n, cls
    assert {c.cls for c in CASES} <= set(score.load_cases().CLASSES)


@pytest.mark.parametrize("case", [BY_NAME[n] for n in ALL], ids=ALL)
def test_case_files_and_markers(case) -> None:
    """Both variants exist; the bug's source marks a line with a check irc has or the suite proposes; the
    expected emulator error is an irc.emu error class or kind, or a proposed one."""
    from irc import emu
    from irc.tooling import checkinfo

    mod = score.load_cases()
    assert case.bug_path.is_file() and case.ok_path.is_file()
    marks = score.markers(case.source_path.read_text())
    assert marks, f"{case.source_path.name} marks no line with // EXPECT:"
    known = set(checkinfo.all_names()) | set(mod.NEW_CHECKS)
    assert set(marks.values()) <= known, set(marks.values()) - known
    if case.check is not None:
        assert case.check in marks.values()
    kinds = {
        getattr(emu, n).kind
        for n in dir(emu)
        if isinstance(getattr(emu, n), type) and hasattr(getattr(emu, n), "kind")
    }
    known = set(dir(emu.errors)) | kinds | {"mbarrier-uninit", mod.CLEAN} | set(mod.NEW_ERRORS)
    assert case.error in known, case.error
    if case.lang == "cuda":
        src = case.source_path.read_text()
        assert src.startswith(f"// arch: {case.arch}\n") and "#ifdef IRC_BUG" in src
        for p in (case.bug_path, case.ok_path):
            assert re.search(rf"^\.target {case.arch}\b", p.read_text(), re.M), p.name
    else:
        assert case.bug_path.read_text() != case.ok_path.read_text()


def _assemble(cases: list) -> None:
    jobs = [(f"{c.name}.{v}", score.ptx_text(c, v), c.arch) for c in cases for v in ("bug", "ok")]
    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(lambda j: (j[0], run_ptxas(j[1], j[2])), jobs))
    bad = [(name, [e.message for e in r.errors][:2]) for name, r in results if not r.ok]
    assert not bad, bad


@pytest.mark.skipif(find_ptxas() is None, reason="ptxas not found")
def test_ptxas_accepts_irc_output_of_every_kdsl_variant() -> None:
    _assemble([c for c in CASES if c.lang == "kdsl"])


@pytest.mark.slow
@pytest.mark.skipif(find_ptxas() is None, reason="ptxas not found")
def test_ptxas_accepts_every_committed_ptx() -> None:
    """regen.sh assembles what it writes; this re-checks the committed files (slow: 100+ ptxas runs)."""
    _assemble([c for c in CASES if c.lang == "cuda"])


# -- static ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("case", _params(STATIC, TWIN_FALSE_POSITIVES, "false positive on the twin"))
def test_twin_is_clean_statically(case) -> None:
    r = score.static_twin(case)
    assert r["twin_clean"], r["twin_findings"]


@pytest.mark.parametrize("case", _params(STATIC, STATIC_MISSES, "not found statically"))
def test_bug_is_found_statically(case) -> None:
    r = score.static_bug(case)
    assert r["found"], f"want {r['expected']}, got {r['bug_findings']}"


# -- emulator ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("case", _params(ALL, EMU_TWIN_FAILURES, "twin fails in the emulator"))
def test_twin_runs_and_matches_numpy(case) -> None:
    r = score.emu_run(case, "ok")
    assert r["error"] is None, r["message"]
    assert r["matches"], f"outputs differ from numpy: {r['mismatch']}"


@pytest.mark.parametrize("case", _params(ALL, EMU_MISSES, "the emulator misses it"))
def test_bug_raises_its_error_kind(case) -> None:
    r = score.emu_run(case, "bug")
    assert score.emu_found(case, r), f"want {case.error}, got {r['error']}: {r['message']}"


def test_scorer_table_and_json(tmp_path: Path) -> None:
    """The scorer's command line on two cases: one line each, the per-class table, the JSON results."""
    out = tmp_path / "r.json"
    assert score.main(["cpa_no_commit", "bar_cg_sync_divergent", "--json", str(out)]) == 0
    import json

    rs = {r["name"]: r for r in json.loads(out.read_text())}
    assert rs["bar_cg_sync_divergent"]["static"]["found"] and rs["bar_cg_sync_divergent"]["emu"]["found"]
    assert rs["cpa_no_commit"]["emu"]["found"] and rs["cpa_no_commit"]["emu"]["twin_ok"]


def test_readme_table_is_current() -> None:
    """tests/data/suite/README.md lists every case as `score.py --table` prints it."""
    assert score.markdown_table(CASES) in (SUITE / "README.md").read_text()
