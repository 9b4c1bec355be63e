"""Throughput of `irc check` on a directory of PTX files, this tree against a baseline git ref, measured
in the same run: rounds alternate baseline / current (each in a fresh process that imports its own tree)
and the medians are compared. The ratio (current / baseline seconds) is what to read; absolute times
depend on the machine's load.

Usage: python bench/bench_check_corpus.py [DIR] [--ref main] [--rounds 5]
DIR defaults to tests/data/ptx; the issue-12 corpus (public CUDA compiled outside the repo) is passed as
its folder. Each process runs `irc.compiler.check_ptx` on every .ptx under DIR (files whose check raises
are counted, not fatal: the baseline may crash where the current tree does not).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

WORKER = r"""
import sys, time, json, gc
from pathlib import Path
from irc.compiler import check_ptx
files = sorted(Path(sys.argv[1]).rglob("*.ptx"))
texts = [(str(p), p.read_text()) for p in files]
crashed = 0
t0 = time.perf_counter()
for path, text in texts:
    try:
        check_ptx(text, path)
    except Exception:
        crashed += 1
dt = time.perf_counter() - t0
print(json.dumps({"seconds": dt, "files": len(texts), "lines": sum(t.count("\n") for _, t in texts),
                  "crashed": crashed}))
"""


def run_tree(tree: Path, folder: str) -> dict:
    r = subprocess.run(
        [sys.executable, "-c", WORKER, folder],
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(tree), "PATH": "/usr/bin:/bin"},
        cwd=str(tree),  # `python -c` puts the working folder first on sys.path
        check=True,
    )
    return json.loads(r.stdout.strip().splitlines()[-1])


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("dir", nargs="?", default=str(ROOT / "tests" / "data" / "ptx"))
    ap.add_argument("--ref", default="main")
    ap.add_argument("--rounds", type=int, default=5)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp) / "base"
        base.mkdir()
        subprocess.run(f"git -C {ROOT} archive {a.ref} irc | tar -x -C {base}", shell=True, check=True)
        cur_t: list[float] = []
        base_t: list[float] = []
        info: dict = {}
        for i in range(a.rounds):
            order = [("base", base), ("current", ROOT)] if i % 2 == 0 else [("current", ROOT), ("base", base)]
            for name, tree in order:
                res = run_tree(tree, a.dir)
                (base_t if name == "base" else cur_t).append(res["seconds"])
                info[name] = res
        mb, mc = statistics.median(base_t), statistics.median(cur_t)
        print(
            json.dumps(
                {
                    "dir": a.dir,
                    "ref": a.ref,
                    "files": info["current"]["files"],
                    "lines": info["current"]["lines"],
                    "crashed": {"base": info["base"]["crashed"], "current": info["current"]["crashed"]},
                    "median_seconds": {"base": round(mb, 3), "current": round(mc, 3)},
                    "lines_per_s": {
                        "base": round(info["base"]["lines"] / mb),
                        "current": round(info["current"]["lines"] / mc),
                    },
                    "ratio_current_over_base": round(mc / mb, 3),
                },
                indent=1,
            )
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
