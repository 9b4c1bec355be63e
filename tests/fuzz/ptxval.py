"""Differential campaign: irc's accept/reject of mutated real PTX against ptxas's.

    nice python tests/fuzz/ptxval.py --mutants 3000 --seed 1 --jobs 2 --out /tmp/ptxval.json

Seeds: the nvcc corpus (`shared/corpus/nvcc/ptx/` next to the repository, when present), every `.ptx` under
tests/data that ptxas accepts, and Triton output generated at run time when `triton` is installed
(tests/data/ptx/triton/gen_triton.py). Large files are cut into one module per function
(`irc.frontend.ptx.split`), so a mutant stays small and ptxas stays fast; a seed is used only when ptxas
accepts it unmutated.

Each mutant gets one validity mutation (tests/fuzz/mutate_ptx.py: modifiers dropped, doubled or replaced,
types swapped, targets and versions changed, declarations removed or repeated, registers renamed,
instructions moved from files for other targets, operands changed). ptxas decides with
`ptxas -arch=<the mutant's .target> -o /dev/null` (sm_75 for older targets, sm_110 for the sm_101 family:
the oldest/nearest architecture this ptxas compiles for); irc decides with `irc check`'s rule: the file is
rejected when `check_ptx` reports an error that means "ptxas rejects this file"
(`irc.frontend.ptx.validate.rejects`). Prints the agreement and every disagreement; `--out` writes them as
JSON. Exit status 1 below `--min-agreement` (default 99.5%).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT))

import mutate_ptx  # noqa: E402

#: architectures this ptxas takes for `-arch` (ptxas 13.5 `--help`)
PTXAS_ARCHES = frozenset(
    "sm_75 sm_80 sm_86 sm_87 sm_88 sm_89 sm_90 sm_90a sm_100 sm_100a sm_100f sm_103 sm_103a sm_103f sm_107 "
    "sm_107a sm_107f sm_110 sm_110a sm_110f sm_120 sm_120a sm_120f sm_121 sm_121a sm_121f".split()
)
_TARGET = re.compile(r"^\s*\.target\s+(\w+)", re.M)


def shared_corpus() -> Path | None:
    """`shared/corpus/nvcc/ptx` in a parent of the repository (a checkout or a worktree of one)."""
    for up in ROOT.parents:
        p = up / "shared" / "corpus" / "nvcc" / "ptx"
        if p.is_dir():
            return p
    return None


def ptxas_arch(text: str, fallback: str = "sm_80") -> str:
    m = _TARGET.search(text)
    if m is None:
        return fallback
    t = m.group(1).replace("compute_", "sm_")
    if t in PTXAS_ARCHES:
        return t
    num = re.fullmatch(r"sm_(\d+)([af]?)", t)
    if num and int(num.group(1)) < 75:
        return "sm_75"
    if num and num.group(1) == "101":
        return "sm_110" + num.group(2)
    return fallback


def ptxas_verdict(ptxas: str, text: str, fallback: str) -> tuple[bool, str]:
    """(accepted, first messages) from `ptxas -arch=... -o /dev/null`."""
    with tempfile.NamedTemporaryFile("w", suffix=".ptx", delete=False) as f:
        f.write(text)
        name = f.name
    try:
        p = subprocess.run(
            [ptxas, f"-arch={ptxas_arch(text, fallback)}", "-o", "/dev/null", name],
            capture_output=True,
            text=True,
            timeout=120,
        )
    except subprocess.TimeoutExpired:
        return False, "ptxas timed out"
    finally:
        os.unlink(name)
    msgs = [ln.replace(name, "x.ptx") for ln in (p.stdout + p.stderr).splitlines() if "aborted" not in ln]
    return p.returncode == 0, " | ".join(msgs[:3])


def irc_verdict(text: str) -> tuple[bool, str]:
    """(accepted, first rejecting diagnostics) by `irc check`'s rule."""
    from irc.compiler import check_ptx
    from irc.frontend.ptx.validate import rejects

    diags = check_ptx(text, "x.ptx")
    bad = [d for d in diags if rejects(d)]
    msg = " | ".join(f"{d.span.line if d.span else '?'}: {d.message} [{d.check}]" for d in bad[:3])
    return not bad, msg


def triton_seeds() -> list[str]:
    """Triton's PTX for the kernels of tests/data/ptx/triton/gen_triton.py, when triton is installed."""
    try:
        import triton  # noqa: F401
    except ImportError:
        return []
    with tempfile.TemporaryDirectory() as out:
        gen = ROOT / "tests" / "data" / "ptx" / "triton" / "gen_triton.py"
        r = subprocess.run([sys.executable, str(gen), out], capture_output=True, text=True, timeout=1800)
        if r.returncode != 0:
            print(f"triton generation failed: {r.stderr[-500:]}", file=sys.stderr)
        return [p.read_text() for p in sorted(Path(out).glob("*.ptx"))]


def seeds(max_kb: int, limit_files: int | None, rng: random.Random) -> list[tuple[str, str]]:
    """(name, text) of every seed module: whole small files, one module per function for large ones."""
    from irc.frontend.ptx.split import chunks

    files: list[tuple[str, str]] = []
    corpus = shared_corpus()
    if corpus is not None:
        paths = sorted(corpus.glob("*.ptx"))
        if limit_files is not None:
            paths = rng.sample(paths, min(limit_files, len(paths)))
        files += [(f"corpus/{p.name}", p.read_text(errors="replace")) for p in paths]
    files += [(str(p.relative_to(ROOT)), p.read_text()) for p in sorted(ROOT.glob("tests/data/**/*.ptx"))]
    files += [(f"triton-run/{i}", t) for i, t in enumerate(triton_seeds())]
    out = []
    for name, text in files:
        if len(text) <= max_kb * 1024:
            out.append((name, text))
            continue
        for chunk, _lines, fn in chunks(text):
            if len(chunk) <= max_kb * 1024:
                out.append((f"{name}::{fn}", chunk))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mutants", type=int, default=3000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--max-kb", type=int, default=48, help="largest seed module (KB)")
    ap.add_argument("--files", type=int, default=None, help="sample this many corpus files")
    ap.add_argument("--out", type=Path, default=None)
    ap.add_argument("--min-agreement", type=float, default=99.5)
    ap.add_argument("--quiet", action="store_true")
    a = ap.parse_args(argv)
    from irc.ptxas import find_ptxas

    ptxas = find_ptxas()
    if ptxas is None:
        print("ptxas not found", file=sys.stderr)
        return 2
    rng = random.Random(a.seed)
    start = time.time()
    cand = seeds(a.max_kb, a.files, rng)
    # keep the seeds ptxas accepts as they are (a few test files are invalid on purpose)
    with ThreadPoolExecutor(a.jobs) as ex:
        ok = list(ex.map(lambda s: ptxas_verdict(ptxas, s[1], "sm_80")[0], cand))
    base = [s for s, good in zip(cand, ok) if good]
    pools = mutate_ptx.validity_pools([t for _, t in base])
    mutants: list[tuple[str, str, str, str]] = []  # (seed name, description, text, fallback arch)
    while len(mutants) < a.mutants:
        name, text = rng.choice(base)
        got = mutate_ptx.validity_mutate(text, rng, pools)
        if got is None or got[0] == text:
            continue
        mutants.append((name, got[1], got[0], ptxas_arch(text)))
    results = []

    def judge(m: tuple[str, str, str, str]) -> tuple[bool, str]:
        return ptxas_verdict(ptxas, m[2], m[3])

    with ThreadPoolExecutor(a.jobs) as ex:
        verdicts = ex.map(judge, mutants)
        for m, (p_ok, p_msg) in zip(mutants, verdicts):
            i_ok, i_msg = irc_verdict(m[2])
            results.append(
                {
                    "seed": m[0],
                    "mutation": m[1],
                    "ptxas": p_ok,
                    "irc": i_ok,
                    "ptxas_msg": p_msg,
                    "irc_msg": i_msg,
                }
            )
    agree = sum(r["ptxas"] == r["irc"] for r in results)
    pct = 100.0 * agree / len(results)
    dis = [r for r in results if r["ptxas"] != r["irc"]]
    kinds = Counter(r["mutation"].split(":")[0] for r in results)

    def source(name: str) -> str:
        return "triton (generated)" if name.startswith("triton-run/") else name.split("/", 1)[0]

    rejected = sum(not r["ptxas"] for r in results)
    summary = {
        "mutants": len(results),
        "seeds": len(base),
        "ptxas_rejected": rejected,
        "agree": agree,
        "agreement_pct": round(pct, 3),
        "irc_accepts_invalid": sum(r["ptxas"] is False and r["irc"] for r in results),
        "irc_rejects_valid": sum(r["ptxas"] and not r["irc"] for r in results),
        "by_mutation": dict(kinds),
        "seeds_by_source": dict(Counter(source(n) for n, _ in base)),
        "mutants_by_source": dict(Counter(source(r["seed"]) for r in results)),
        "seconds": round(time.time() - start),
    }
    if not a.quiet:
        for r in dis:
            side = "irc accepts, ptxas rejects" if r["irc"] else "irc rejects, ptxas accepts"
            print(
                f"- {side}: {r['seed']}: {r['mutation']}\n    ptxas: {r['ptxas_msg']}\n    irc:   {r['irc_msg']}"
            )
    print(json.dumps(summary, indent=1))
    if a.out is not None:
        a.out.write_text(json.dumps({"summary": summary, "disagreements": dis}, indent=1))
    return 0 if pct >= a.min_agreement else 1


if __name__ == "__main__":
    sys.exit(main())
