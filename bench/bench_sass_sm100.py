"""Static cost of the Blackwell examples on sm_100a: registers (ptxas -v) and SASS instruction counts
(cuobjdump -sass) of irc's PTX for examples/tma_gemm_sm100.kdsl and examples/fmha_sm100.kdsl, next to the
nvcc PTX of the FMHA's CUDA twin (tests/data/fmha/fmha_sm100.cu), which is the baseline for the ratios.

    python bench/bench_sass_sm100.py            # prints a markdown table (bench/sass_sm100.md holds a run)

Needs ptxas (the nvidia-cuda-nvcc wheel or PATH) and, for the SASS counts, cuobjdump with nvdisasm beside it
($CUOBJDUMP, PATH, or the nvidia-cuda-cuobjdump + nvidia-cuda-nvdisasm wheels); without them the SASS
columns say "n/a". No GPU is needed.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import irc
from irc.ptxas import find_ptxas, parse_verbose, ptxas_version

ROOT = Path(__file__).resolve().parent.parent
ARCH = "sm_100a"
_SASS_LINE = re.compile(r"^\s+/\*[0-9a-f]{4,}\*/\s+(?P<ins>[^;]*);")
_FUNC = re.compile(r"^\s+Function : (?P<name>\S+)")


def find_cuobjdump() -> str | None:
    env = os.environ.get("CUOBJDUMP")
    if env:
        return env if Path(env).is_file() else None
    found = shutil.which("cuobjdump")
    if found:
        return found
    try:
        import nvidia  # type: ignore[import-not-found]
    except ImportError:
        return None
    for root in getattr(nvidia, "__path__", []):
        for sub in ("cu13", "cuda_cuobjdump"):
            cand = Path(root) / sub / "bin" / "cuobjdump"
            if cand.is_file():
                return str(cand)
    return None


def assemble(ptx: str, tmp: Path, tag: str) -> tuple[Path, dict[str, dict]]:
    """ptxas -v: the cubin and the per-kernel facts (registers, spills, shared memory)."""
    src, cubin = tmp / f"{tag}.ptx", tmp / f"{tag}.cubin"
    src.write_text(ptx)
    exe = find_ptxas()
    assert exe, "ptxas not found"
    proc = subprocess.run(
        [exe, f"-arch={ARCH}", "-v", "-o", str(cubin), str(src)], capture_output=True, text=True, timeout=600
    )
    if proc.returncode != 0:
        raise SystemExit(f"ptxas rejected {tag}:\n{proc.stderr}")
    info, _ = parse_verbose(proc.stdout + "\n" + proc.stderr)
    return cubin, info


def sass_counts(cubin: Path, cuobjdump: str | None) -> dict[str, tuple[int, int]]:
    """Function -> (SASS instructions, of which NOP), from cuobjdump -sass."""
    if cuobjdump is None:
        return {}
    # cuobjdump runs nvdisasm, which the wheels install beside it
    env = dict(os.environ, PATH=f"{Path(cuobjdump).parent}{os.pathsep}{os.environ.get('PATH', '')}")
    proc = subprocess.run(
        [cuobjdump, "-sass", str(cubin)], capture_output=True, text=True, timeout=600, env=env
    )
    if proc.returncode != 0:
        print(f"cuobjdump failed: {proc.stderr.strip()}", file=sys.stderr)
        return {}
    out = proc.stdout
    counts: dict[str, list[int]] = {}
    cur = None
    for line in out.splitlines():
        f = _FUNC.match(line)
        if f:
            cur = counts.setdefault(f.group("name"), [0, 0])
            continue
        m = _SASS_LINE.match(line)
        if m and cur is not None:
            words = m.group("ins").split()
            opcode = words[1] if words[0].startswith("@") else words[0]  # skip a guard predicate
            cur[0] += 1
            cur[1] += opcode == "NOP"
    return {k: (v[0], v[1]) for k, v in counts.items()}


def variants() -> list[tuple[str, str, str]]:
    """(label, kernel, PTX text): irc's kernels and the nvcc baseline."""
    out = []
    gemm = irc.compile_file(str(ROOT / "examples" / "tma_gemm_sm100.kdsl"), arch=ARCH)
    out.append(("tma_gemm_sm100 (irc)", "tma_gemm_sm100", gemm.ptx_text))
    for d, causal, bf16 in ((64, False, False), (128, False, False), (128, True, True)):
        defines = {"HEAD_DIM": d, "CAUSAL": causal, "BF16": bf16}
        mod = irc.compile_file(str(ROOT / "examples" / "fmha_sm100.kdsl"), arch=ARCH, defines=defines)
        label = f"fmha_sm100 (irc) HEAD_DIM={d}" + (" CAUSAL BF16" if causal else "")
        out.append((label, "fmha_sm100", mod.ptx_text))
    twin = (ROOT / "tests" / "data" / "fmha" / "fmha_sm100.ptx").read_text()
    for d in (64, 128):
        out.append((f"fmha_sm100_d{d} (nvcc -O3, CUDA twin)", f"fmha_sm100_d{d}", twin))
    return out


def main() -> int:
    cuobjdump = find_cuobjdump()
    rows = []
    with tempfile.TemporaryDirectory(prefix="irc-sass-") as t:
        tmp = Path(t)
        cache: dict[str, tuple[dict, dict]] = {}
        for i, (label, kernel, ptx) in enumerate(variants()):
            if ptx not in cache:
                cubin, info = assemble(ptx, tmp, f"v{i}")
                cache[ptx] = (info, sass_counts(cubin, cuobjdump))
            info, sass = cache[ptx]
            facts = info.get(kernel, {})
            n, nops = sass.get(kernel, (None, None))
            rows.append((label, facts.get("registers"), facts.get("spill_stores", 0), n, nops))
    print(f"Target {ARCH}; {ptxas_version() or 'ptxas'}; cuobjdump: {'yes' if cuobjdump else 'not found'}.\n")
    print("| kernel | registers | spill stores | SASS instructions | of which NOP | SASS vs nvcc twin |")
    print("|---|---|---|---|---|---|")
    base = {64: rows[-2][3], 128: rows[-1][3]}
    for label, regs, spills, n, nops in rows:
        d = 128 if "128" in label else 64
        ratio = f"{n / base[d]:.2f}x" if n and base[d] and label.startswith("fmha") else ""
        print(
            f"| {label} | {regs} | {spills} | {n if n is not None else 'n/a'} | "
            f"{nops if nops is not None else 'n/a'} | {ratio} |"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
