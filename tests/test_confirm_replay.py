"""`irc check --confirm` replays witnesses of the async/race suite (tests/data/suite) in the emulator: a
race, a hang and a stale read (a cp.async destination read before its wait) are each confirmed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from irc.cli import main
from irc.compiler import check_ptx
from irc.tooling.confirm import replay

SUITE = Path(__file__).resolve().parent / "data" / "suite" / "cuda"

CASES = [
    ("race_tree_reduce_loop", "shared-race", "RaceError"),
    ("race_sgemm_no_second_barrier", "shared-race", "RaceError"),
    ("bar_parity114_and", "barrier-divergence", "BarrierError"),
    ("cpa_no_commit", "async-unwaited", "AsyncRaceError"),
    ("cpa_wait_depth", "async-unwaited", "AsyncRaceError"),
]


@pytest.mark.parametrize(("name", "check", "error"), CASES)
def test_witness_replay_confirms_the_bug(name: str, check: str, error: str) -> None:
    path = next(SUITE.glob(f"{name}.bug.*.ptx"))
    text = path.read_text()
    diags = [d for d in check_ptx(text, str(path)) if d.check == check]
    assert diags and diags[0].witness
    arch = path.name.split(".")[-2]
    assert replay(diags[0], text, str(path), arch, {}).startswith(f"confirmed by the emulator: {error}")


def test_cli_confirm_reports_the_verdict(capsys: pytest.CaptureFixture[str]) -> None:
    path = next(SUITE.glob("bar_parity114_and.bug.*.ptx"))
    assert main(["check", "--no-config", "--confirm", "--format", "json", str(path)]) == 1
    (d,) = json.loads(capsys.readouterr().out)["diagnostics"]
    assert d["witness"]["confirmed"].startswith("confirmed by the emulator: BarrierError")
    assert "confirmed by the emulator" in d["witness"]["text"]
