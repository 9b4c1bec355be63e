"""Cost of race checking, as ratios against runs without it measured in the same process (alternating
runs, medians):

1. the emulator's race checker: thread-instructions/s with and without `racecheck` on shared-memory
   heavy kernels (tiled SGEMM, tree reduction, neighbour exchange) and the compute loop of bench_emu.py;
2. the static `shared-race` check: `irc check` time per kernel with every check against every check but
   `shared-race`, on the examples/ kernels, the tests/data/races/ kernels and the nvcc PTX in tests/data.

Usage: python bench/bench_racecheck.py [repeats]
"""

from __future__ import annotations

import gc
import statistics
import sys
import time
from pathlib import Path

import numpy as np

from irc.analysis import CHECKS, TMA_CHECKS, check_module
from irc.compiler import CompileOptions, compile_kdsl, frontend
from irc.emu import run_kernel
from irc.frontend.ptx.lift import lift_ptx
from irc.frontend.ptx.parser import parse_ptx

ROOT = Path(__file__).resolve().parent.parent
RACES = ROOT / "tests" / "data" / "races"


def _emu_cases():
    rng = np.random.default_rng(0)
    out = []
    for name, grid, block in (
        ("sgemm_ok.kdsl", (8, 8), (16, 16)),
        ("tree_reduce_ok.kdsl", 64, 256),
        ("neighbour_ok.kdsl", 1024, 64),
    ):
        res = compile_kdsl((RACES / name).read_text(), name, CompileOptions(check=False))
        mod, k = parse_ptx(res.ptx_text), res.module.kernels[0].name
        if name.startswith("sgemm"):
            n = 128
            args = lambda n=n: [  # noqa: E731
                np.zeros((n, n), np.float32),
                rng.random((n, n), dtype=np.float32),
                rng.random((n, n), dtype=np.float32),
                n,
            ]
        else:
            tot = (grid if isinstance(grid, int) else grid[0]) * block
            args = lambda tot=tot: [np.zeros(tot, np.float32), rng.random(tot, dtype=np.float32)]  # noqa: E731
        out.append((name, mod, k, grid, block, args))
    spec = __import__("importlib.util").util.spec_from_file_location(
        "bench_emu", ROOT / "bench" / "bench_emu.py"
    )
    be = __import__("importlib.util").util.module_from_spec(spec)
    spec.loader.exec_module(be)
    # the compute loop with one store per thread to its own slot (bench_emu's kernel shares out[] across
    # blocks, a genuine race, so the per-thread index uses the global id here)
    loop = be.PTX.replace("mul.wide.s32 %rd2, %r2, 4;", "mul.wide.s32 %rd2, %r5, 4;")
    out.append(
        ("compute loop", parse_ptx(loop), "loop", 64, 256, lambda: [np.zeros(64 * 256, np.float32), 50])
    )
    return out


def bench_emulator(repeats: int) -> list[float]:
    ratios = []
    print("emulator: thread-instructions/s without / with racecheck (median of alternating runs)")
    for name, mod, k, grid, block, args in _emu_cases():
        off, on = [], []
        for _ in range(repeats):
            for flag, acc in ((False, off), (True, on)):
                st = run_kernel(mod, k, grid, block, args(), racecheck=flag)
                acc.append(st.rate)
        r_off, r_on = statistics.median(off), statistics.median(on)
        ratios.append(r_off / r_on)
        print(f"  {name:22s} {r_off / 1e6:7.1f} M/s  {r_on / 1e6:7.1f} M/s  slowdown {r_off / r_on:4.2f}x")
    print(f"  median slowdown {statistics.median(ratios):.2f}x (aim <= 3x)")
    return ratios


def _modules():
    mods = []
    for f in sorted((ROOT / "examples").glob("*.kdsl")) + sorted(RACES.glob("*.kdsl")):
        try:
            mods.append((f.name, frontend(f.read_text(), str(f), arch="sm_100a")))
        except Exception:  # noqa: BLE001 - a kernel the front end rejects is not part of this benchmark
            continue
    for f in sorted((ROOT / "tests" / "data" / "emu").glob("*.ptx")) + sorted(
        (ROOT / "tests" / "data" / "ptx").glob("*.ptx")
    ):
        try:
            m, _ = lift_ptx(f.read_text(), str(f))
        except Exception:  # noqa: BLE001 - PTX the lifter cannot take yet is not part of this benchmark
            continue
        mods.append((f.name, m))
    return mods


def bench_static(repeats: int) -> list[float]:
    every = [*CHECKS, *TMA_CHECKS]
    without = [c for c in every if c != "shared-race"]
    ratios = []
    print("irc check: time with every check / every check but shared-race (median, per module)")
    for name, mod in _modules():
        t_with, t_without = [], []
        check_module(mod, arch="sm_100a", checks=every)  # warm-up (lazy per-op caches)
        for _ in range(repeats):
            for checks, acc in ((without, t_without), (every, t_with)):
                gc.collect()
                gc.disable()  # a collection inside one run is noise several times the cost measured
                t0 = time.perf_counter()
                check_module(mod, arch="sm_100a", checks=checks)
                acc.append(time.perf_counter() - t0)
                gc.enable()
        a, b = statistics.median(t_with), statistics.median(t_without)
        ratios.append(a / b)
        print(f"  {name:28s} {b * 1e3:7.2f} ms -> {a * 1e3:7.2f} ms  ({a / b:4.2f}x)")
    print(f"  median cost ratio {statistics.median(ratios):.2f}x, max {max(ratios):.2f}x")
    return ratios


def main(repeats: int = 5) -> None:
    bench_emulator(repeats)
    bench_static(repeats)


if __name__ == "__main__":
    main(*(int(x) for x in sys.argv[1:]))
