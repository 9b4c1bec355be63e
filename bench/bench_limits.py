"""Scaling inside the limits of docs/limits.md: work must grow linearly with the input.

Measures, as medians of alternating runs in one process:
- compile time of N nested `if`s (N = 125, 250, 500) and the time to refuse 2,000 (the `max_nesting`
  limit-error), as ratios against the 125-deep compile;
- `irc check` of nvcc PTX repeated to S MB (bench/big_ptx.py), per MB, with the peak resident size
  (run in a subprocess each, so the peak is that size's own).

Linear scaling shows as a flat time per level / per MB. Usage: python bench/bench_limits.py [--ptx-mb 3,10,30]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))


def nest(depth: int) -> str:
    body = "".join(f"if n > {i}u32 {{\n" for i in range(depth)) + "out[0] = 1u32;\n" + "}\n" * depth
    return "@launch(block = 32)\nkernel k(out: *global u32, n: u32) {\n" + body + "}\n"


def time_compile(src: str) -> float:
    from irc.compiler import compile_kdsl
    from irc.diagnostics import CompileError

    t0 = time.perf_counter()
    try:
        compile_kdsl(src, "nest.kdsl")
    except CompileError:
        pass
    return time.perf_counter() - t0


def nesting(repeats: int) -> None:
    depths = [125, 250, 500, 2000]
    times: dict[int, list[float]] = {d: [] for d in depths}
    time_compile(nest(10))  # warm-up: imports and the grammar
    for _ in range(repeats):
        for d in depths:
            times[d].append(time_compile(nest(d)))
    base = statistics.median(times[125])
    for d in depths:
        m = statistics.median(times[d])
        what = "limit-error" if d > 1024 else "compile"
        print(f"nesting {d:5d} ({what}): {m:6.3f} s  ratio {m / base:5.2f}  per level {m / d * 1e3:6.3f} ms")


def big_ptx(sizes: list[float]) -> None:
    from big_ptx import make

    with tempfile.TemporaryDirectory() as tmp:
        for mb in sizes:
            path = Path(tmp) / f"big{mb}.ptx"
            path.write_text(make(mb))
            cmd = [sys.executable, "-c", _CHILD, str(path)]
            out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout.split()
            secs, peak_mb = float(out[0]), float(out[1])
            print(f"irc check {mb:5.1f} MB PTX: {secs:7.2f} s  {secs / mb:5.2f} s/MB  peak {peak_mb:7.1f} MB")


_CHILD = """
import resource, sys, time
from irc.compiler import check_ptx
text = open(sys.argv[1]).read()
t0 = time.perf_counter()
check_ptx(text, sys.argv[1])
print(time.perf_counter() - t0, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
"""


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--ptx-mb", default="3,10,30")
    a = ap.parse_args()
    nesting(a.repeats)
    big_ptx([float(x) for x in a.ptx_mb.split(",") if x])


if __name__ == "__main__":
    main()
