"""Throughput benchmark for `irc.frontend.ptx.parser.parse_ptx` (target: >= 200,000 lines/s).

Why a synthetic file: real dumps are small; repeating real nvcc/Triton output (headers dropped after the
first copy) gives a large file with the real mix of instructions, comments, labels and `.loc` lines.

    python bench/bench_ptx_parse.py [--lines 400000] [--repeat 3] [files...]
"""

from __future__ import annotations

import argparse
import glob
import os
import re
import sys
import time

from irc.frontend.ptx.parser import parse_ptx

_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_HEADER = re.compile(r"^\s*\.(version|target|address_size)\b")


def default_sources() -> list[str]:
    pats = ["tests/data/ptx/nvcc/*.ptx", "tests/data/ptx/triton/*.ptx", "tests/data/ptx_parser/*.ptx"]
    out: list[str] = []
    for p in pats:
        out.extend(sorted(glob.glob(os.path.join(_ROOT, p))))
    return out


def build(sources: list[str], target_lines: int) -> str:
    """Concatenate the sources (one header) until the text has at least `target_lines` lines."""
    bodies = []
    header = ".version 8.7\n.target sm_100a\n.address_size 64\n"
    for path in sources:
        with open(path) as fh:
            bodies.append("\n".join(ln for ln in fh.read().split("\n") if not _HEADER.match(ln)))
    chunk = "\n".join(bodies)
    n = chunk.count("\n") + 1
    return header + "\n".join([chunk] * max(1, target_lines // n + 1))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--lines", type=int, default=400_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("files", nargs="*")
    args = ap.parse_args(argv)
    sources = args.files or default_sources()
    if not sources:
        print("no PTX sources found", file=sys.stderr)
        return 1
    text = build(sources, args.lines)
    nlines = text.count("\n") + 1
    best = float("inf")
    for _ in range(args.repeat):
        t0 = time.perf_counter()
        mod = parse_ptx(text, "<bench>")
        best = min(best, time.perf_counter() - t0)
    ninstr = sum(len(f.instructions()) for f in mod.functions)
    print(f"{nlines} lines, {ninstr} instructions, {len(sources)} source files")
    print(f"best of {args.repeat}: {best:.3f} s = {nlines / best:,.0f} lines/s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
