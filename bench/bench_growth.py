"""Compile-time growth: in-process `compile_kdsl` of generated kernels at 1x .. 32x size.

    python bench/bench_growth.py [--base 62] [--max 32] [--repeat 3] [--profile N]

Two kernel shapes: `sections` (`bench_frontend.generate`: loads, branches, unrolled loops, shuffles, shared
tiles and barriers) and `branchy` (nested branches and loops with break/continue, an inlined helper: many
small blocks); 32x the 62-line base is about 2,000 lines. Each size is compiled `--repeat` times
(sizes interleaved, so a slow moment of the machine hits all of them alike) and the median is kept. The
fitted exponent is the least-squares slope of log(time) over log(lines); linear passes give about 1.0.
`--profile N` prints the top cProfile entries of one compile at N x instead.
"""

from __future__ import annotations

import argparse
import gc
import math
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_frontend import generate  # noqa: E402

from irc.compiler import CompileOptions, compile_kdsl  # noqa: E402


def generate_branchy(lines: int) -> str:
    """Control flow rather than arithmetic: nested branches, loops with `break`/`continue` and an inlined
    helper per section, so a kernel of n lines has about n / 2 blocks (stresses CFG passes and the
    analyzer's dominance and control-dependence queries)."""
    out = [
        "fn clamp1(v: f32) -> f32 {",
        "    if v > 1.0 { return 1.0; }",
        "    return v;",
        "}",
        "@launch(block = 128)",
        "kernel branchy(out: *global f32, x: *global f32, n: u32) {",
        "    let i = ctaid.x * ntid.x + tid.x;",
        "    var acc = 0.0;",
    ]
    k = 0
    while len(out) < lines - 2:
        out += [
            f"    if i + {k}u32 < n && x[i + {k}u32] > 0.5 {{",
            "        acc = acc + 1.0;",
            f"        if acc > {k % 7 + 2}.0 {{ acc = clamp1(acc * 0.5); }}",
            "    } else {",
            "        acc = acc - 1.0;",
            "    }",
            f"    for j in 0u32..{k % 4 + 2}u32 {{",
            f"        if j == {k % 3}u32 {{ continue; }}",
            "        if acc < -8.0 { break; }",
            "        acc = acc * 0.75 + 0.25;",
            "    }",
        ]
        k += 1
    out += ["    if i < n { out[i] = acc; }", "}"]
    return "\n".join(out) + "\n"


SHAPES = {"sections": generate, "branchy": generate_branchy}


def fit_exponent(xs: list[float], ys: list[float]) -> float:
    """Least-squares slope of log(y) over log(x)."""
    lx = [math.log(x) for x in xs]
    ly = [math.log(y) for y in ys]
    mx, my = statistics.fmean(lx), statistics.fmean(ly)
    return sum((a - mx) * (b - my) for a, b in zip(lx, ly)) / sum((a - mx) ** 2 for a in lx)


def compile_once(src: str) -> float:
    gc.collect()  # untimed: the previous (maybe 32x) module's cycles are not charged to this compile
    t0 = time.perf_counter()
    compile_kdsl(src, "growth.kdsl", CompileOptions(arch="sm_80"))
    return time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--base", type=int, default=62, help="lines at 1x")
    ap.add_argument("--max", type=int, default=32, help="largest multiple (a power of two)")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--shape", choices=sorted(SHAPES), action="append", help="kernel shape (default: both)")
    ap.add_argument("--profile", type=int, default=0, help="profile one compile at this multiple")
    args = ap.parse_args()
    for shape in args.shape or sorted(SHAPES, reverse=True):
        run_shape(shape, SHAPES[shape], args)


def run_shape(shape: str, gen, args: argparse.Namespace) -> None:
    print(f"shape {shape}:")
    if args.profile:
        import cProfile
        import pstats

        src = gen(args.base * args.profile)
        compile_once(src)
        prof = cProfile.Profile()
        prof.runcall(compile_once, src)
        pstats.Stats(prof).sort_stats("tottime").print_stats(25)
        return
    mults = [1 << k for k in range(args.max.bit_length()) if 1 << k <= args.max]
    srcs = {m: gen(args.base * m) for m in mults}
    compile_once(srcs[1])  # warm-up: imports, parser tables
    times: dict[int, list[float]] = {m: [] for m in mults}
    for _ in range(args.repeat):
        for m in mults:
            times[m].append(compile_once(srcs[m]))
    lines = [srcs[m].count("\n") for m in mults]
    med = [statistics.median(times[m]) for m in mults]
    print(f"{'size':>5} {'lines':>6} {'median s':>9} {'ms/line':>8}")
    for m, n, t in zip(mults, lines, med):
        print(f"{m:>4}x {n:>6} {t:>9.3f} {1000 * t / n:>8.2f}")
    print(f"fitted exponent (time ~ lines^k): k = {fit_exponent(lines, med):.2f} (target <= 1.15)")


if __name__ == "__main__":
    main()
