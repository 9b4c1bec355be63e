"""The differential of the PTX validator against ptxas (tests/fuzz/ptxval.py), small and fixed: a few dozen
mutants of the repository's own PTX, each judged by ptxas and by `irc check`'s rule. The 3,000-mutant
campaign over the nvcc corpus and Triton output runs behind the `fuzz` marker; every disagreement it leaves is
listed in docs/limits.md."""

from __future__ import annotations

import json
import os
import random
import sys
from pathlib import Path

import pytest

from irc.ptxas import find_ptxas

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "fuzz"))

import mutate_ptx  # noqa: E402
import ptxval  # noqa: E402

PTXAS = find_ptxas()
needs_ptxas = pytest.mark.skipif(PTXAS is None, reason="ptxas not found")


def _seeds() -> list[tuple[str, str]]:
    paths = sorted((HERE / "data" / "ptx").glob("*/*.ptx")) + sorted((HERE / "data" / "async").glob("*.ptx"))
    return [(p.name, p.read_text()) for p in paths if p.stat().st_size < 40_000]


@needs_ptxas
def test_small_differential_agrees_with_ptxas() -> None:
    rng = random.Random(20261126)
    seeds = [s for s in _seeds() if ptxval.ptxas_verdict(PTXAS, s[1], "sm_80")[0]]
    pools = mutate_ptx.validity_pools([t for _, t in seeds])
    wrong = []
    n = 0
    while n < 40:
        name, text = rng.choice(seeds)
        got = mutate_ptx.validity_mutate(text, rng, pools)
        if got is None or got[0] == text:
            continue
        n += 1
        p_ok, p_msg = ptxval.ptxas_verdict(PTXAS, got[0], ptxval.ptxas_arch(text))
        i_ok, i_msg = ptxval.irc_verdict(got[0])
        if p_ok != i_ok:
            wrong.append(f"{name}: {got[1]}\n  ptxas: {p_msg}\n  irc: {i_msg}")
    assert not wrong, "\n".join(wrong)


@needs_ptxas
@pytest.mark.parametrize(
    "path",
    sorted(HERE.glob("data/**/*.ptx")),
    ids=lambda p: str(p.relative_to(HERE / "data")),
)
def test_repository_ptx_accepted_exactly_when_ptxas_accepts(path: Path) -> None:
    """Every .ptx in the repository: `irc check` rejects it (exit 2) exactly when ptxas does."""
    text = path.read_text()
    p_ok, p_msg = ptxval.ptxas_verdict(PTXAS, text, "sm_80")
    i_ok, i_msg = ptxval.irc_verdict(text)
    assert p_ok == i_ok, f"ptxas: {p_msg}\nirc: {i_msg}"


@pytest.mark.fuzz
@needs_ptxas
def test_campaign_agreement(tmp_path: Path) -> None:
    """The report campaign: `IRC_PTXVAL_MUTANTS` (default 3000) mutants, agreement >= 99.5%."""
    out = tmp_path / "ptxval.json"
    n = os.environ.get("IRC_PTXVAL_MUTANTS", "3000")
    rc = ptxval.main(["--mutants", n, "--seed", "1", "--jobs", "2", "--out", str(out), "--quiet"])
    summary = json.loads(out.read_text())["summary"]
    assert rc == 0, summary
