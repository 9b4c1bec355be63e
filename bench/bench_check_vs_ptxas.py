"""`irc check FILE` against `ptxas -arch=<target> -o /dev/null FILE`, whole processes, per file.

Issue 26 asks for `irc check` at least 2x faster than ptxas on the 5 largest files of the nvcc corpus
(`shared/corpus/nvcc/ptx` beside the repository) and on the Triton corpus (tests/data/triton_suite/ptx).
Each file is timed alternately (irc, ptxas, irc, ptxas, ...) `--runs` times; the medians are compared.
The ratio printed is ptxas's median over irc's (above 2.0 meets the bar). Usage:

    python bench/bench_check_vs_ptxas.py [--runs 3] [--set nvcc|triton|both] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TRITON = ROOT / "tests" / "data" / "triton_suite" / "ptx"
_TARGET = re.compile(r"^\s*\.target\s+(\w+)", re.M)


def nvcc_corpus() -> Path | None:
    for up in ROOT.parents:
        p = up / "shared" / "corpus" / "nvcc" / "ptx"
        if p.is_dir():
            return p
    return None


def _time(cmd: list[str]) -> float:
    t = time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return time.perf_counter() - t


def bench(files: list[Path], runs: int, irc: str, ptxas: str) -> list[dict]:
    out = []
    for f in files:
        m = _TARGET.search(f.read_text(errors="replace"))
        arch = m.group(1) if m else "sm_80"
        arch = "sm_75" if arch in ("sm_50", "sm_52", "sm_60", "sm_61", "sm_70", "sm_72") else arch
        ti, tp = [], []
        for _ in range(runs):
            ti.append(_time([irc, "check", "--no-config", str(f)]))
            tp.append(_time([ptxas, f"-arch={arch}", "-o", "/dev/null", str(f)]))
        row = {"file": f.name, "irc_s": statistics.median(ti), "ptxas_s": statistics.median(tp)}
        row["ratio"] = row["ptxas_s"] / row["irc_s"]
        out.append(row)
        print(
            f"{f.name:60s} irc {row['irc_s']:7.3f}s  ptxas {row['ptxas_s']:7.3f}s  ptxas/irc {row['ratio']:5.2f}"
        )
        sys.stdout.flush()
    return out


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--set", choices=["nvcc", "triton", "both"], default="both")
    ap.add_argument("--json")
    a = ap.parse_args()
    from irc.ptxas import find_ptxas

    ptxas = find_ptxas()
    irc = shutil.which("irc")
    if ptxas is None or irc is None:
        print("needs ptxas (pip nvidia-cuda-nvcc) and the irc command", file=sys.stderr)
        return 2
    result: dict[str, list[dict]] = {}
    if a.set in ("nvcc", "both"):
        corpus = nvcc_corpus()
        if corpus is None:
            print("no shared/corpus/nvcc beside the repository: nvcc set skipped", file=sys.stderr)
        else:
            largest = sorted(corpus.glob("*.ptx"), key=lambda p: p.stat().st_size, reverse=True)[:5]
            print("== the 5 largest files of the nvcc corpus")
            result["nvcc"] = bench(largest, a.runs, irc, str(ptxas))
    if a.set in ("triton", "both"):
        print("== the Triton corpus")
        result["triton"] = bench(sorted(TRITON.glob("*.ptx")), a.runs, irc, str(ptxas))
    for name, rows in result.items():
        ratios = [r["ratio"] for r in rows]
        total = sum(r["ptxas_s"] for r in rows) / sum(r["irc_s"] for r in rows)
        slow = sum(1 for x in ratios if x < 2.0)
        print(f"{name}: files {len(rows)}, median ptxas/irc {statistics.median(ratios):.2f}, min {min(ratios):.2f}, "
              f"total time ratio {total:.2f}, files below 2.0: {slow}")  # fmt: skip
    if a.json:
        Path(a.json).write_text(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
