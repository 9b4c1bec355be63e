"""The standing fuzz campaign against `irc compile` (.kdsl) and `irc check` (.ptx).

    nice python tests/fuzz/campaign.py --minutes 30 --out /tmp/fuzz-run

Seeds: the repository's .kdsl (examples, tests/data) and kernels from the differential generator
(tests/kdsl_gen.py); its PTX (nvcc, Triton, builder output under tests/data) and irc's own output for the
.kdsl seeds. Each input is a mutant (tests/fuzz/mutate_kdsl.py, mutate_ptx.py) run in a sandboxed child
(tests/fuzz/sandbox.py: memory cap, hang limit) and judged by tests/fuzz/oracle.py (ptxas on every
accepted .kdsl output, the -O0/optimized emulator differential on every accepted kernel). Bugs are
minimised (tests/fuzz/minimize.py) and written to OUT/bugs/ with their signature; OUT/summary.json holds
the figures. Exit status 1 when any bug was found.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT / "tests"))

import minimize  # noqa: E402
import mutate_kdsl  # noqa: E402
import mutate_ptx  # noqa: E402
import oracle  # noqa: E402
from sandbox import run_sandboxed  # noqa: E402

BUG_KINDS = ("internal-error", "traceback", "no-location", "hang", "crash", "ptxas-reject", "emu-mismatch")


def kdsl_seeds(generated: int, rng: random.Random) -> list[str]:
    paths = sorted(ROOT.glob("examples/*.kdsl")) + sorted(ROOT.glob("tests/data/**/*.kdsl"))
    seeds = [p.read_text() for p in paths]
    if generated:
        import warnings

        from hypothesis.errors import NonInteractiveExampleWarning
        from kdsl_gen import kernel_cases

        with warnings.catch_warnings():
            warnings.simplefilter("ignore", NonInteractiveExampleWarning)
            strat = kernel_cases(max_stmts=12)
            for _ in range(generated):
                seeds.append(strat.example().source)
    return seeds


def ptx_seeds(kdsl: list[str]) -> list[str]:
    paths = sorted(ROOT.glob("tests/data/**/*.ptx"))
    seeds = [p.read_text() for p in paths if p.stat().st_size < 200_000]
    from irc.compiler import CompileOptions, compile_kdsl

    for text in kdsl[:20]:
        for arch in ("sm_80", "sm_90a"):
            try:
                seeds.append(compile_kdsl(text, "seed.kdsl", CompileOptions(arch=arch)).ptx_text)
                break
            except Exception:  # noqa: BLE001 - a seed for another target
                continue
    return seeds


def pick_arch(text: str, rng: random.Random) -> str:
    if "tcgen05" in text or "tmem" in text:
        return "sm_100a"
    return rng.choice(["sm_80", "sm_90a", "sm_90a", "sm_100a"])


def judge(kind: str, text: str, arch: str, args, hang_s: float = 10.0) -> dict:
    if kind == "kdsl":
        return run_sandboxed(
            lambda rep: oracle.compile_kdsl_input(text, arch, rep, ptxas=args.ptxas, emu=args.emu), hang_s
        )
    return run_sandboxed(lambda rep: oracle.check_ptx_input(text, rep), hang_s)


def confirm_hang(kind: str, text: str, arch: str, args) -> dict:
    """Re-run a wall-clock hang with a long limit: on a shared machine a slow input under load is not a
    hang; one whose compile phase takes more than 10 s of CPU is."""
    v = judge(kind, text, arch, args, hang_s=120.0)
    cpu = v.get("irc_cpu_s")
    if cpu is not None and cpu <= 10.0:
        return {"status": "slow-under-load", "irc_cpu_s": cpu}
    return {"status": "bug", "kind": "hang", "detail": f"irc CPU time {cpu}", "sig": "hang", "irc_cpu_s": cpu}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--minutes", type=float, default=30.0)
    ap.add_argument("--max-inputs", type=int, default=10**9)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--ptx-share", type=float, default=0.5, help="fraction of inputs that are PTX")
    ap.add_argument("--generated", type=int, default=30, help="kdsl_gen kernels added to the seeds")
    ap.add_argument("--no-ptxas", dest="ptxas", action="store_false")
    ap.add_argument("--no-emu", dest="emu", action="store_false")
    ap.add_argument("--minimize-budget", type=int, default=200)
    ap.add_argument("--out", default="/tmp/irc-fuzz")
    args = ap.parse_args(argv)

    rng = random.Random(args.seed)
    out = Path(args.out)
    (out / "bugs").mkdir(parents=True, exist_ok=True)
    kseeds = kdsl_seeds(args.generated, rng)
    pseeds = ptx_seeds(kseeds)
    kcorpus, pcorpus = list(kseeds), list(pseeds)
    stats: Counter = Counter()
    bugs: dict[str, dict] = {}
    max_wall = 0.0
    max_cpu = 0.0
    t0 = time.monotonic()
    n = 0
    while n < args.max_inputs and time.monotonic() - t0 < args.minutes * 60:
        n += 1
        if rng.random() < args.ptx_share:
            kind, text = "ptx", mutate_ptx.mutate(rng.choice(pcorpus), rng, pcorpus)
            arch = ""
        else:
            kind, text = "kdsl", mutate_kdsl.mutate(rng.choice(kcorpus), rng, kcorpus)
            arch = pick_arch(text, rng)
        v = judge(kind, text, arch, args)
        if v.get("kind") == "hang":
            v = confirm_hang(kind, text, arch, args)
            if v["status"] == "slow-under-load":  # keep it: a slow input is worth a look
                (out / f"slow-{n}-{v.get('irc_cpu_s', 0):.1f}s.{kind}").write_text(text)
        stats[f"{kind}:{v['status']}"] += 1
        if v["status"] == "harness-error":  # the harness itself failed: keep the evidence
            (out / f"harness-error-{n}.{kind}").write_text(text + "\n/* " + str(v.get("detail")) + " */\n")
        if v.get("emu", "") and str(v.get("emu", "")).startswith("ran") and v["emu"] != "ran 0":
            stats["kdsl:emu-differential-run"] += 1
        if v.get("ptxas") is True:
            stats["kdsl:ptxas-accepted"] += 1
        if v.get("irc_wall_s"):
            max_wall = max(max_wall, v["irc_wall_s"])
        if v.get("irc_cpu_s"):
            max_cpu = max(max_cpu, v["irc_cpu_s"])
        if v["status"] == "ok" and rng.random() < 0.2:
            (kcorpus if kind == "kdsl" else pcorpus).append(text)
            if len(kcorpus) > 400:
                kcorpus.pop(rng.randrange(len(kseeds), len(kcorpus)))
            if len(pcorpus) > 400:
                pcorpus.pop(rng.randrange(len(pseeds), len(pcorpus)))
        if v["status"] == "bug":
            stats[f"bug:{v['kind']}"] += 1
            sig = f"{kind}:{v['kind']}:{v.get('sig', '')}"
            if sig not in bugs:
                small = text
                if v["kind"] != "hang":

                    def same(cand: str, sig=sig, kind=kind, arch=arch) -> bool:
                        w = judge(kind, cand, arch, args)
                        return f"{kind}:{w.get('kind')}:{w.get('sig', '')}" == sig

                    small = minimize.minimize(text, same, args.minimize_budget)
                k = len(bugs)
                ext = "kdsl" if kind == "kdsl" else "ptx"
                (out / "bugs" / f"{k:03d}-{v['kind']}.{ext}").write_text(small)
                (out / "bugs" / f"{k:03d}-{v['kind']}.orig.{ext}").write_text(text)
                bugs[sig] = {
                    "file": f"{k:03d}-{v['kind']}.{ext}",
                    "arch": arch,
                    "detail": v.get("detail", ""),
                }
                print(f"[{n}] BUG {sig}\n{v.get('detail', '')[:600]}", flush=True)
        if n % 200 == 0:
            _dump(out, args, stats, bugs, n, t0, max_wall, max_cpu)
            print(f"[{n}] {time.monotonic() - t0:.0f}s {dict(stats)}", flush=True)
    summary = _dump(out, args, stats, bugs, n, t0, max_wall, max_cpu)
    print(json.dumps(summary, indent=1))
    return 1 if bugs else 0


def _dump(out: Path, args, stats: Counter, bugs: dict, n: int, t0: float, max_wall: float, max_cpu: float):
    summary = {
        "command": " ".join(sys.argv),
        "inputs": n,
        "seconds": round(time.monotonic() - t0, 1),
        "kdsl_inputs": sum(
            v
            for k, v in stats.items()
            if k.startswith("kdsl:")
            and k.count(":") == 1
            and not k.startswith("kdsl:ptxas")
            and not k.startswith("kdsl:emu")
        ),
        "ptx_inputs": sum(v for k, v in stats.items() if k.startswith("ptx:")),
        "bugs_by_kind": {k: stats.get(f"bug:{k}", 0) for k in BUG_KINDS},
        "max_irc_wall_s": round(max_wall, 2),
        "max_irc_cpu_s": round(max_cpu, 2),
        "stats": dict(stats),
        "distinct_bugs": bugs,
    }
    (out / "summary.json").write_text(json.dumps(summary, indent=1))
    return summary


if __name__ == "__main__":
    sys.exit(main())
