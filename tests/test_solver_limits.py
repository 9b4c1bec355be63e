"""The solver's limits are z3 resource units, so an answer does not depend on the machine's load: the same
query gives the same answer however slow the clock runs. Past the per-query limit a question is
`unknown` ("timeout"), past the function's budget "budget", and a check turns either into a
`not-analysed` note, never into silence or a guess."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from irc.analysis.symbolic import solver as S
from irc.compiler import check_ptx

z3 = pytest.importorskip("z3")

SUITE = Path(__file__).parent / "data" / "suite" / "cuda"
# a persistent kernel's early exit before `__syncthreads()`: the lattice leaves the branch to the solver
DIVERGENT = SUITE / "bar_persistent_early_exit.bug.sm_80.ptx"


def _factoring_query(zc: S.Z3Context) -> tuple[list, list]:
    x, y = zc.BitVec("x", 32), zc.BitVec("y", 32)
    return [x > 1, y > 1], [x * y == 1234567, x < y]


def test_a_query_past_its_units_is_a_timeout_and_repeats_so(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("IRC_SOLVER_LIMIT", "50")
    outs = []
    for _ in range(3):
        zc = S.Z3Context()
        base, q = _factoring_query(zc)
        outs.append(S.Session(zc).check(base, q))
    assert [(o.status, o.reason) for o in outs] == [("unknown", "timeout")] * 3


def test_the_answer_does_not_read_the_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    """A clock that runs 1,000 times fast (a loaded machine, as the solver would see it with a wall-clock
    limit) changes nothing: the query is decided by units."""
    zc = S.Z3Context()
    base, q = _factoring_query(zc)
    fast = time.perf_counter
    monkeypatch.setattr(time, "perf_counter", lambda: fast() * 1000.0)
    budget = S.Budget()
    session = S.Session(zc)
    outs = [session.check(base, q, budget) for _ in range(5)]
    assert [o.status for o in outs] == ["sat"] * 5
    m = outs[-1].model
    x, y = zc.BitVec("x", 32), zc.BitVec("y", 32)
    assert (m.eval(x).as_long() * m.eval(y).as_long()) % 2**32 == 1234567


def test_the_function_budget_is_spent_in_units() -> None:
    zc = S.Z3Context()
    base, q = _factoring_query(zc)
    budget = S.Budget(total=10**9)
    session = S.Session(zc)
    assert session.check(base, q, budget).status == "sat"
    assert 0 < 10**9 - budget.left < S.QUERY_LIMIT  # what the query spent, counted
    budget.left = 0
    assert session.check(base, q, budget).reason == "budget"


def test_not_analysed_note_past_the_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    text = DIVERGENT.read_text()
    found = [d.check for d in check_ptx(text, str(DIVERGENT))]
    assert "barrier-divergence" in found and "not-analysed" not in found
    monkeypatch.setenv("IRC_SOLVER_LIMIT", "1")
    limited = check_ptx(text, str(DIVERGENT))
    notes = [d for d in limited if d.check == "not-analysed"]
    assert notes and all("query limit" in d.message for d in notes)
    assert "barrier-divergence" not in [d.check for d in limited]  # no guess either way
