"""Whole-process start-up: `irc compile` per example vs `nvcc -ptx -O3` on its CUDA equivalent, and
`irc check` of one small .ptx vs `python -c pass` and `ptxas`.

    python bench/bench_startup.py [--runs 7] [--examples vector_add softmax ...]

Every figure is the median wall time of `--runs` runs of a fresh process; the commands of one comparison
alternate (A, B, A, B, ...) so a slow moment of the machine hits both, and one untimed warm-up run of each
comes first (it writes Python's bytecode cache, as any installed irc has after
its first run). Ratios are measured in the same run: `irc / nvcc` at most 0.5 and `irc check` at most
0.15 s are the targets of issue 15. The CUDA equivalents are `bench/cuda/<example>.cu`, except the two
sm_100a kernels, whose equivalents spell the same TMA, mbarrier and tcgen05 instructions as the .kdsl
(inline PTX; the ones `bench_sass.py` compares code with): `bench/cuda/tma_gemm_sm100_tcgen05.cu` and the
FMHA's twin `tests/data/fmha/fmha_sm100.cu`. For those two the earlier mma.sync stand-ins
(`bench/cuda/{tma_gemm,fmha}_sm100.cu`) are timed too and shown on the next line, for comparison with
earlier figures. A peer that is not installed (nvcc, ptxas) is skipped and the line says so.

PYTHONDONTWRITEBYTECODE is removed from the environment of the timed processes: with it every process
recompiles irc from source (about +0.1 s), which no installed irc does.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
CUDA = Path(__file__).resolve().parent / "cuda"
#: CUDA equivalents with the same instructions as the .kdsl (bench_sass.py uses the same files)
TWINS = {
    "tma_gemm_sm100": CUDA / "tma_gemm_sm100_tcgen05.cu",
    "fmha_sm100": ROOT / "tests" / "data" / "fmha" / "fmha_sm100.cu",
}


def arch_of(name: str) -> str:
    return "sm_100a" if "sm100" in name else "sm_80"


def irc_cmd() -> list[str]:
    script = Path(sys.executable).parent / "irc"
    return [str(script)] if script.exists() else [sys.executable, "-m", "irc.cli"]


def env() -> dict[str, str]:
    e = dict(os.environ)
    e.pop("PYTHONDONTWRITEBYTECODE", None)
    return e


def wall(cmd: list[str]) -> float:
    t0 = time.perf_counter()
    r = subprocess.run(cmd, env=env(), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    dt = time.perf_counter() - t0
    if r.returncode != 0:
        raise SystemExit(f"failed ({r.returncode}): {' '.join(cmd)}\n{r.stderr}")
    return dt


def alternate(cmds: list[list[str]], runs: int) -> list[float]:
    """Median wall time of each command, the commands run in turn `runs` times after one warm-up each."""
    for c in cmds:
        wall(c)
    times: list[list[float]] = [[] for _ in cmds]
    for _ in range(runs):
        for i, c in enumerate(cmds):
            times[i].append(wall(c))
    return [statistics.median(t) for t in times]


def find_ptxas() -> str | None:
    from irc.ptxas import find_ptxas as find

    return find()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--examples", nargs="*", default=sorted(p.stem for p in EXAMPLES.glob("*.kdsl")))
    args = ap.parse_args()
    irc = irc_cmd()
    nvcc = shutil.which("nvcc")
    tmp = Path(tempfile.mkdtemp(prefix="irc-bench-startup-"))
    print(f"median of {args.runs} alternating runs, seconds per process")
    if nvcc is None:
        print("nvcc: not installed, skipped (irc compile times only)")
    print(f"{'example':<24} {'arch':<8} {'irc compile':>11} {'nvcc -ptx':>10} {'irc/nvcc':>9}")
    ratios = []
    for name in args.examples:
        arch = arch_of(name)
        a = [*irc, "compile", str(EXAMPLES / f"{name}.kdsl"), "--arch", arch, "-o", str(tmp / f"{name}.ptx")]
        cu = CUDA / f"{name}.cu"
        if nvcc is None or not cu.exists():
            (ta,) = alternate([a], args.runs)
            why = "nvcc not installed" if nvcc is None else "no CUDA equivalent"
            print(f"{name:<24} {arch:<8} {ta:>11.3f} {'-':>10} {'-':>9}  ({why})")
            continue
        twin = TWINS.get(name)
        b = [nvcc, "-ptx", "-O3", f"-arch={arch}", str(twin or cu), "-o", str(tmp / f"{name}.nvcc.ptx")]
        if twin is not None:
            c = [nvcc, "-ptx", "-O3", f"-arch={arch}", str(cu), "-o", str(tmp / f"{name}.standin.ptx")]
            ta, tb, tc = alternate([a, b, c], args.runs)
        else:
            ta, tb = alternate([a, b], args.runs)
        ratios.append(ta / tb)
        print(f"{name:<24} {arch:<8} {ta:>11.3f} {tb:>10.3f} {ta / tb:>9.2f}")
        if twin is not None:
            print(f"{'  (mma.sync stand-in ' + cu.name + ')':<45} {tc:>10.3f} {ta / tc:>9.2f}")
    if ratios:
        print(f"irc/nvcc: max {max(ratios):.2f}, median {statistics.median(ratios):.2f} (target <= 0.50)")

    small = tmp / "vector_add.check.ptx"
    wall([*irc, "compile", str(EXAMPLES / "vector_add.kdsl"), "-o", str(small)])
    check = [*irc, "check", str(small)]
    base = [sys.executable, "-c", "pass"]
    ptxas = find_ptxas()
    cmds = [check, base] + (
        [[ptxas, "-arch=sm_80", str(small), "-o", str(tmp / "va.cubin")]] if ptxas else []
    )
    med = alternate(cmds, args.runs)
    print(f"irc check {small.name} ({small.stat().st_size} bytes): {med[0]:.3f} s (target <= 0.15)")
    print(f"python -c pass: {med[1]:.3f} s; irc check / python -c pass = {med[0] / med[1]:.1f}")
    if ptxas:
        print(
            f"ptxas -arch=sm_80 on the same file: {med[2]:.3f} s; irc check / ptxas = {med[0] / med[2]:.2f}"
        )
    else:
        print("ptxas: not installed, skipped")
    shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
