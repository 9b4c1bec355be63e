"""The emulator differential campaign: N random correct kernels (tests/kdsl_gen.py), each compiled at -O0
and at -O2, run in the emulator and compared; ptxas on the optimized PTX.

    python tests/fuzz/differential.py 2000            # plain kernels (issue 15's campaign)
    python tests/fuzz/differential.py 2000 --edge     # each kernel in an edge-value mode (issue 27)
    python tests/fuzz/differential.py 2000 --edge --ptxas-every 1 --json out.json

`--edge`: every kernel is drawn in one of `kdsl_gen.EDGE_MODES` (NaN payloads and signs, -0.0, integer
bounds, wrap-around), and floats compare bitwise. What is counted, per kernel:

- compiled at -O0 and at -O2 (with the analyzer): `o0_ok_o2_rejected` counts kernels that compile at -O0
  but are rejected at -O2 (`self-cancel` used to do that to 3.7% of them), `o2_ok_o0_rejected` the other way;
- `rejected`: kernels both levels refuse for a reason the generator cannot rule out (constant overflow,
  a true `self-cancel` error), by check;
- `mismatch`: the two PTX programs compute different results (the run stops with hypothesis' shrunk
  counterexample and exit status 1), `ptxas_rejected`: ptxas refuses the optimized PTX (also fatal).

Prints the counts and the time; `--json` writes them too.
"""

from __future__ import annotations

import argparse
import collections
import json
import sys
import time
from pathlib import Path


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("n", type=int, nargs="?", default=2000)
    ap.add_argument("--edge", action="store_true", help="edge-value modes, bitwise float comparison")
    ap.add_argument("--ptxas-every", type=int, default=1, help="run ptxas on one kernel in N (default: all)")
    ap.add_argument("--max-stmts", type=int, default=40)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", type=Path)
    a = ap.parse_args(argv)

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    import test_emu_differential as t
    from hypothesis import HealthCheck, given, note, seed, settings
    from kdsl_gen import KernelCase, kernel_cases

    from irc import CompileError
    from irc.compiler import CompileOptions, compile_kdsl
    from irc.ptxas import find_ptxas, run_ptxas

    stats: collections.Counter = collections.Counter()
    modes: collections.Counter = collections.Counter()
    have_ptxas = find_ptxas() is not None

    def compiles(src: str, optimize: bool):  # type: ignore[no-untyped-def]
        try:
            return compile_kdsl(src, t.PATH, CompileOptions(optimize=optimize)), []
        except CompileError as e:
            return None, e.diagnostics

    def one(kc: KernelCase) -> None:
        stats["kernels"] += 1
        modes[kc.mode] += 1
        r0, d0 = compiles(kc.source, False)
        r2, d2 = compiles(kc.source, True)
        if r0 is not None and r2 is None:
            stats["o0_ok_o2_rejected"] += 1
            note("accepted at -O0, rejected at -O2:\n" + "\n".join(map(str, d2)))
            raise AssertionError("accepted at -O0 but rejected at -O2")
        if r2 is not None and r0 is None:
            stats["o2_ok_o0_rejected"] += 1
            raise AssertionError("accepted at -O2 but rejected at -O0:\n" + "\n".join(map(str, d0)))
        if r0 is None:
            assert t._unavoidable(d0), "a correct kernel was rejected:\n" + "\n".join(map(str, d0))
            for d in {d.check for d in d0 if t._sev(d) == "error"}:
                stats[f"rejected ({d})"] += 1
            return
        stats["compiled"] += 1
        ptxas = have_ptxas and kc.seed % a.ptxas_every == 0
        if ptxas:
            res = run_ptxas(r2.ptx_text, "sm_80")
            stats["ptxas_checked"] += 1
            if not res.ok:
                stats["ptxas_rejected"] += 1
                raise AssertionError("ptxas rejected the optimized PTX:\n" + res.stderr)
        bad = t._findings(r0.diagnostics) + t._findings(r2.diagnostics)
        assert not bad, "analyzer finding on a correct-by-construction kernel:\n" + "\n".join(map(str, bad))
        out0, outf0 = t._run(r0.ptx_text, kc)
        out2, outf2 = t._run(r2.ptx_text, kc)
        diff = t._diff(out0, out2, t.NOUT_I) or t._diff(outf0, outf2, t.NOUT_F, kc.mode != "plain")
        if diff:
            stats["mismatch"] += 1
            raise AssertionError(f"-O0 and -O2 differ ({kc.mode}): {diff}")
        stats["compared"] += 1

    @settings(max_examples=a.n, deadline=None, suppress_health_check=list(HealthCheck), database=None)
    @seed(a.seed)
    @given(kc=kernel_cases(max_stmts=a.max_stmts, edge=a.edge))
    def prop(kc: KernelCase) -> None:
        note(kc.source)
        one(kc)

    start = time.time()
    try:
        prop()
        ok = True
    except AssertionError as e:
        print(f"FAILED: {e}", flush=True)
        ok = False
    summary = {"edge": a.edge, "seconds": round(time.time() - start), **stats, "modes": dict(modes)}
    print(json.dumps(summary, indent=1), flush=True)
    if a.json:
        a.json.write_text(json.dumps(summary, indent=1))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
