"""The fuzz campaign as a pytest entry point (marker `fuzz`, excluded from the default run).

    pytest -m fuzz tests/fuzz -s                      # a 3-minute campaign
    IRC_FUZZ_MINUTES=30 pytest -m fuzz tests/fuzz -s  # the standing 30-minute campaign

Any internal error, traceback, diagnostic without a location, hang over 10 s, ptxas rejection of
accepted .kdsl or emulator mismatch fails the test; the minimised reproducers are in the output folder.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
import campaign  # noqa: E402


@pytest.mark.fuzz
def test_campaign_finds_nothing(tmp_path: Path) -> None:
    minutes = os.environ.get("IRC_FUZZ_MINUTES", "3")
    rc = campaign.main(
        ["--minutes", minutes, "--out", str(tmp_path), "--seed", os.environ.get("IRC_FUZZ_SEED", "1")]
    )
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert rc == 0 and not summary["distinct_bugs"], json.dumps(summary["distinct_bugs"], indent=1)[:4000]
