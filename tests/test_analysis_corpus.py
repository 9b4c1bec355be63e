"""Corpus tests for `irc check` on hand-written IR (tests/data/analysis/*.ir).

Each file marks the op lines that must produce a finding with `// EXPECT: <check>`; every op carries a
`loc(...)` equal to its own line (tests/data/analysis/add_locs.py), so "the finding is on that line" is
exact. Files named `ok_*` are correct kernels and must produce nothing: precision matters as much as
recall (a checker that cries wolf on correct persistent kernels gets switched off).
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest

from irc.analysis import check_module
from irc.ir.parser import parse_module
from irc.ir.verifier import verify

DATA = Path(__file__).parent / "data" / "analysis"
FILES = sorted(DATA.glob("*.ir"))
_EXPECT = re.compile(r"//\s*EXPECT:\s*([a-z-]+)")


def expected(text: str) -> Counter:
    out: Counter = Counter()
    for n, line in enumerate(text.splitlines(), start=1):
        for m in _EXPECT.finditer(line):
            out[(m.group(1), n)] += 1
    return out


def test_corpus_size() -> None:
    assert len(FILES) >= 30
    ok = [p for p in FILES if p.name.startswith("ok_")]
    assert len(ok) * 2 >= len(FILES)


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_corpus_file(path: Path) -> None:
    text = path.read_text()
    module = parse_module(text, str(path))
    assert verify(module) == [], "test IR must be valid"
    exp = expected(text)
    if path.name.startswith("ok_"):
        assert not exp
    else:
        assert exp, "bug files must mark at least one expected finding"
    diags = check_module(module)
    got = Counter((d.check, d.span.line if d.span else 0) for d in diags)
    assert got == exp, "\n".join(f"{d.check}:{d.span}: {d.message}" for d in diags)
    for d in diags:
        assert d.is_error and d.help
