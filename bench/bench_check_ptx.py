"""Throughput of `irc check` on PTX: parse + lift + analysis, in PTX lines per second.

The corpus (tests/data/ptx/*/*.ptx, nvcc + Triton + builder) is repeated file by file until the target
line count is reached (100k, 300k, 1M by default), so the mix stays that of real generator output; equal
lines/s across sizes shows linear scaling. Usage: python bench/bench_check_ptx.py [--sizes 100000,300000]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from irc.analysis import check_module
from irc.frontend.ptx.lift import lift_module
from irc.frontend.ptx.parser import parse_ptx

DATA = Path(__file__).resolve().parent.parent / "tests" / "data" / "ptx"


def run_pipeline(target_lines: int) -> dict[str, float]:
    """What `irc check` runs per file (irc.compiler.check_ptx, with its GC policy), end to end."""
    from irc.compiler import check_ptx

    files = [(str(p), p.read_text()) for p in sorted(DATA.glob("*/*.ptx"))]
    lines = 0
    i = 0
    t0 = time.perf_counter()
    while lines < target_lines:
        path, text = files[i % len(files)]
        i += 1
        check_ptx(text, path)
        lines += text.count("\n") + 1
    total = time.perf_counter() - t0
    return {"lines": lines, "seconds": total, "lines_per_s": lines / total}


def run_cli(target_lines: int, jobs: int) -> dict[str, float]:
    """`irc check -j JOBS DIR` end to end (process start-up included) on the corpus copied into a temporary
    directory until it holds `target_lines` lines: the throughput a user sees on this machine."""
    import subprocess
    import sys
    import tempfile

    files = [(p, p.read_text()) for p in sorted(DATA.glob("*/*.ptx"))]
    with tempfile.TemporaryDirectory() as d:
        lines = i = 0
        while lines < target_lines:
            p, text = files[i % len(files)]
            (Path(d) / f"{i:06d}_{p.name}").write_text(text)
            lines += text.count("\n") + 1
            i += 1
        t0 = time.perf_counter()
        r = subprocess.run(
            [sys.executable, "-m", "irc.cli", "check", "-j", str(jobs), "--format", "json", d],
            capture_output=True,
            text=True,
        )
        total = time.perf_counter() - t0
    if r.returncode not in (0, 1):
        raise SystemExit(f"irc check failed: {r.stderr[-2000:]}")
    return {"lines": lines, "seconds": total, "lines_per_s": lines / total}


def run(target_lines: int) -> dict[str, float]:
    files = [(str(p), p.read_text()) for p in sorted(DATA.glob("*/*.ptx"))]
    lines = 0
    t_parse = t_lift = t_check = 0.0
    i = 0
    while lines < target_lines:
        path, text = files[i % len(files)]
        i += 1
        t0 = time.perf_counter()
        ptx = parse_ptx(text, path)
        t1 = time.perf_counter()
        mod, _ = lift_module(ptx, text)
        t2 = time.perf_counter()
        check_module(mod, arch=ptx.target)
        t3 = time.perf_counter()
        t_parse += t1 - t0
        t_lift += t2 - t1
        t_check += t3 - t2
        lines += text.count("\n") + 1
    total = t_parse + t_lift + t_check
    return {
        "lines": lines,
        "seconds": total,
        "lines_per_s": lines / total,
        "parse_s": t_parse,
        "lift_s": t_lift,
        "check_s": t_check,
        "lift_lines_per_s": lines / t_lift,
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="100000,300000,1000000")
    ap.add_argument("--jobs", type=int, default=0, help="also time `irc check -j JOBS` on a directory")
    args = ap.parse_args()
    if args.jobs:
        for n in (int(x) for x in args.sizes.split(",")):
            c = run_cli(n, args.jobs)
            print(
                f"{c['lines']:>9} lines  {c['seconds']:7.2f} s  {c['lines_per_s']:>9,.0f} lines/s  "
                f"(`irc check -j {args.jobs} DIR`, end to end)"
            )
    for n in (int(x) for x in args.sizes.split(",")):
        p = run_pipeline(n)
        print(
            f"{p['lines']:>9} lines  {p['seconds']:7.2f} s  {p['lines_per_s']:>9,.0f} lines/s  "
            "(irc.compiler.check_ptx, as `irc check` runs it)"
        )
    for n in (int(x) for x in args.sizes.split(",")):
        r = run(n)
        print(
            f"{r['lines']:>9} lines  {r['seconds']:7.2f} s  {r['lines_per_s']:>9,.0f} lines/s  "
            f"(parse {r['parse_s']:.2f} s, lift {r['lift_s']:.2f} s = {r['lift_lines_per_s']:,.0f} lines/s, "
            f"analysis {r['check_s']:.2f} s)"
        )


if __name__ == "__main__":
    main()
