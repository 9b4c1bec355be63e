"""Rewrite the `loc(...)` of every op line in the .ir files here to point at that line itself.

Why: the expected findings are `// EXPECT: <check>` markers on op lines, and the analyzer reports at op
spans, so a span equal to the file position makes "finding line == marker line" exact and keeps the files
editable by hand (add a line, rerun this script). Usage: python tests/data/analysis/add_locs.py
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

_LOC = re.compile(r"\s*loc\(\d+:\d+:\d+:\d+\)")
_OP = re.compile(r"^(\s+)(?!shared\b)([%a-z].*?)(\s*//.*)?$")


def add_locs(text: str) -> str:
    out = []
    for n, line in enumerate(text.splitlines(), start=1):
        line = _LOC.sub("", line)
        m = _OP.match(line)
        if m and not line.lstrip().startswith("//"):
            indent, body, comment = m.group(1), m.group(2).rstrip(), m.group(3) or ""
            col = len(indent) + 1
            line = f"{indent}{body} loc({n}:{col}:{n}:{col + len(body)}){comment}"
        out.append(line)
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    here = Path(__file__).parent
    for p in sorted(here.glob("*.ir")) if len(sys.argv) < 2 else [Path(a) for a in sys.argv[1:]]:
        p.write_text(add_locs(p.read_text()))
