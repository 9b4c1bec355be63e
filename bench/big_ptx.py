"""Make a large PTX file from the committed nvcc output (tests/data/ptx/nvcc/*.sm_80.ptx) for the
linear-time / bounded-memory check of `irc check` (issue 18, docs/limits.md).

    python bench/big_ptx.py 30 /tmp/big.ptx     # about 30 MB

Each copy of a file's module body is renamed (every identifier defined by the file, and the labels of its
debug sections, get a `_cN` suffix; its `.file` numbers are offset), so the result is one valid PTX module with thousands of kernels, like a
big generated library.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def bodies() -> list[tuple[str, list[str]]]:
    """(module body after the header, names it defines) per nvcc file."""
    out = []
    for p in sorted((ROOT / "tests/data/ptx/nvcc").glob("*.sm_80.ptx")):
        text = p.read_text()
        body = text.split(".address_size 64", 1)[1]
        names = set(re.findall(r"\.(?:entry|func)\s+(?:\([^)]*\)\s*)?(\w+)", body))
        names |= set(re.findall(r"\.(?:shared|global|const)\s[^;]*?\s(\w+)(?:\[|;)", body))
        names |= set(re.findall(r"^(\$L__info_string\d+):", body, re.M))  # debug-section labels
        names = {x for x in names if not x[0].isdigit()}
        out.append((body, sorted(names, key=len, reverse=True)))
    return out


def make(megabytes: float) -> str:
    parts = [".version 9.0\n.target sm_80\n.address_size 64\n"]
    size = len(parts[0])
    files = bodies()
    n = 0
    while size < megabytes * 1e6:
        body, names = files[n % len(files)]
        if names:
            pat = re.compile(r"(?<![\w$])(" + "|".join(map(re.escape, names)) + r")(?![\w$])")
            body = pat.sub(lambda m, n=n: f"{m.group(1)}_c{n}", body)
        if n:  # `.file` numbers are module-wide: each copy gets its own
            off = 64 * n
            body = re.sub(
                r"(\.file\s+|\.loc\s+|inlined_at\s+)(\d+)",
                lambda m, o=off: f"{m.group(1)}{int(m.group(2)) + o}",
                body,
            )
        parts.append(body)
        size += len(body)
        n += 1
    return "".join(parts)


if __name__ == "__main__":
    mb = float(sys.argv[1]) if len(sys.argv) > 1 else 30.0
    dst = Path(sys.argv[2]) if len(sys.argv) > 2 else Path("/tmp/big.ptx")
    dst.write_text(make(mb))
    print(f"{dst}: {dst.stat().st_size / 1e6:.1f} MB")
