"""Front-end speed: parse + semantic analysis of a generated ~500-line kernel, in process.

    python bench/bench_frontend.py [--lines 500] [--repeat 20]

Target: under 50 ms for parse + sema of 500 lines (after the one-time grammar table build, which is
reported separately). Prints min/median times in milliseconds.
"""

from __future__ import annotations

import argparse
import statistics
import time

from irc.frontend.kdsl import analyze, parse_kdsl
from irc.frontend.kdsl.parse import _grammar


def generate(lines: int) -> str:
    """A realistic kernel: helper functions, shared tiles, loops, shuffles, register arrays."""
    out = [
        "const LOG2E: f32 = 1.4426950408889634;",
        "param BLOCK: u32 = 256;",
        "fn warp_sum(v: f32) -> f32 {",
        "    var s = v;",
        "    for d in [16, 8, 4, 2, 1] { s += shfl_xor(s, d); }",
        "    return s;",
        "}",
        "@launch(block = 256)",
        "kernel big(out: *global f32, x: *global f32, n: u32) {",
        "    shared tile: [f32; 8, 256] align 128;",
        "    let i = ctaid.x * ntid.x + tid.x;",
        "    var acc = [0.0; 8];",
        "    var m = -inf;",
        "    var total = 0.0;",
    ]
    k = 0
    while len(out) < lines - 2:
        out += [
            f"    // section {k}",
            f"    let a{k} = x[(i + {k}u32) % n] * LOG2E;",
            f"    let b{k} = max(a{k}, m) - min(a{k}, 0.5);",
            f"    if a{k} > m && i < n {{",
            f"        m = a{k};",
            "    } else {",
            f"        total += exp2(b{k}) * 0.25 + fma(a{k}, b{k}, 1.0);",
            "    }",
            "    unroll for j in 0..8 {",
            f"        acc[j] = acc[j] + a{k} * (j as f32);",
            "    }",
            f"    tile[{k % 8}, tid.x] = warp_sum(total + acc[{k % 8}]);",
            "    barrier();",
            f"    for c in 0u32..{k % 5 + 1}u32 {{ total = total + tile[{k % 8}, (tid.x + c) % 256]; }}",
        ]
        k += 1
    out += ["    out[i] = total + m;", "}"]
    return "\n".join(out) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--lines", type=int, default=500)
    ap.add_argument("--repeat", type=int, default=20)
    args = ap.parse_args()
    t0 = time.perf_counter()
    _grammar()
    build = time.perf_counter() - t0
    src = generate(args.lines)
    parse_t, sema_t = [], []
    for _ in range(args.repeat):
        t0 = time.perf_counter()
        prog = parse_kdsl(src, "big.kdsl")
        t1 = time.perf_counter()
        analyze(prog)
        t2 = time.perf_counter()
        parse_t.append(t1 - t0)
        sema_t.append(t2 - t1)
    total = [a + b for a, b in zip(parse_t, sema_t)]
    ms = 1000.0
    print(f"grammar tables (once per process): {build * ms:.1f} ms")
    print(f"{src.count(chr(10))} lines, {len(src)} bytes")
    print(f"parse: min {min(parse_t) * ms:.2f} ms, median {statistics.median(parse_t) * ms:.2f} ms")
    print(f"sema:  min {min(sema_t) * ms:.2f} ms, median {statistics.median(sema_t) * ms:.2f} ms")
    print(
        f"total: min {min(total) * ms:.2f} ms, median {statistics.median(total) * ms:.2f} ms (target < 50 ms)"
    )


if __name__ == "__main__":
    main()
