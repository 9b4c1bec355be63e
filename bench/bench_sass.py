"""Code quality against nvcc: registers and SASS instruction counts (NOPs excluded) of irc's PTX for every
example kernel, next to nvcc -O3 on a CUDA equivalent (bench/cuda/<example>.cu, shared with bench_startup; the
FMHA's twin is tests/data/fmha/fmha_sm100.cu), both assembled by the same ptxas, on sm_80 and sm_100a.

    python bench/bench_sass.py                 # markdown table (docs/codegen.md records runs)
    python bench/bench_sass.py --arch sm_80    # one target

irc's PTX goes through ptxas (irc.ptxas.find_ptxas); the CUDA equivalent through `nvcc -cubin -O3
-arch=...`. Registers come from `-v`, SASS counts from cuobjdump -sass ($CUOBJDUMP, PATH or the nvidia
wheels, see bench_sass_sm100.find_cuobjdump). A peer that is missing (nvcc, cuobjdump) is skipped and the
table says "n/a". Static figures only: no GPU is needed.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_sass_sm100 import find_cuobjdump, sass_counts  # noqa: E402

import irc  # noqa: E402
from irc.ptxas import find_ptxas, parse_verbose  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
CUDA = ROOT / "bench" / "cuda"
ARCHES = ("sm_80", "sm_100a")
SM100_ONLY = {"fmha_sm100", "tma_gemm_sm100"}
# example -> (CUDA equivalent, {irc kernel: nvcc kernel}); an empty CUDA path means none was written
EXAMPLES: dict[str, tuple[Path | None, dict[str, str]]] = {
    "vector_add": (CUDA / "vector_add.cu", {"vector_add": "vector_add"}),
    "persistent_rmsnorm": (CUDA / "persistent_rmsnorm.cu", {"persistent_rmsnorm": "persistent_rmsnorm"}),
    "softmax": (CUDA / "softmax.cu", {"softmax": "softmax"}),
    "layernorm": (CUDA / "layernorm.cu", {"layernorm": "layernorm"}),
    "incremental_attention": (
        CUDA / "incremental_attention.cu",
        {"incremental_attention": "incremental_attention", "kv_cache_scatter": "kv_cache_scatter"},
    ),
    "flash_decoding": (
        CUDA / "flash_decoding.cu",
        {"flash_decoding_chunk": "flash_decoding_chunk", "flash_decoding_reduce": "flash_decoding_reduce"},
    ),
    "mma_gemm_sm80": (CUDA / "mma_gemm_sm80.cu", {"mma_gemm_sm80": "mma_gemm_sm80"}),
    "flash_attention_tc": (CUDA / "flash_attention_tc.cu", {"flash_attention_tc": "flash_attention_tc"}),
    # main's bench/cuda/tma_gemm_sm100.cu is an mma.sync stand-in (for process time); this one spells TMA,
    # mbarrier and tcgen05 as the .kdsl does, so its SASS is comparable
    "tma_gemm_sm100": (CUDA / "tma_gemm_sm100_tcgen05.cu", {"tma_gemm_sm100": "tma_gemm_sm100"}),
    # likewise the FMHA: its twin under tests/data uses TMA and tcgen05 (bench/cuda/fmha_sm100.cu: mma.sync)
    "fmha_sm100": (ROOT / "tests" / "data" / "fmha" / "fmha_sm100.cu", {"fmha_sm100": "fmha_sm100_d64"}),
}


def _facts(cmd: list[str], cubin: Path, cuobjdump: str | None) -> dict[str, tuple[int | None, int | None]]:
    """Run an assembler with -v; kernel -> (registers, SASS instructions without NOPs)."""
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    if proc.returncode != 0:
        raise SystemExit(f"{cmd[0]} failed:\n{proc.stderr}")
    info, _ = parse_verbose(proc.stdout + "\n" + proc.stderr)
    sass = sass_counts(cubin, cuobjdump)
    out = {}
    for name, facts in info.items():
        n = sass.get(name)
        out[name] = (facts.get("registers"), None if n is None else n[0] - n[1])
    return out


def irc_facts(example: str, arch: str, tmp: Path, cuobjdump: str | None) -> dict:
    path = ROOT / "examples" / f"{example}.kdsl"
    # no compile cache: it is keyed by irc's version, not by the passes a working tree is measuring
    mod = irc.compile(path.read_text(encoding="utf-8"), arch=arch, path=str(path), cache=False)
    src, cubin = tmp / f"{example}.{arch}.irc.ptxisa", tmp / f"{example}.{arch}.irc.cubin"
    src.write_text(mod.ptx_text)
    exe = find_ptxas()
    assert exe, "ptxas not found"
    return _facts([exe, f"-arch={arch}", "-v", "-o", str(cubin), str(src)], cubin, cuobjdump)


def nvcc_facts(cu: Path, arch: str, tmp: Path, cuobjdump: str | None) -> dict:
    nvcc = shutil.which("nvcc")
    if nvcc is None:
        return {}
    cubin = tmp / f"{cu.stem}.{arch}.nvcc.cubin"
    cmd = [nvcc, "-cubin", "-O3", f"-arch={arch}", "-Xptxas", "-v", "-o", str(cubin), str(cu)]
    return _facts(cmd, cubin, cuobjdump)


def _ratio(a: int | None, b: int | None) -> str:
    return f"{a / b:.2f}" if a is not None and b else "n/a"


def _cell(v: int | None) -> str:
    return "n/a" if v is None else str(v)


def rows(arches: tuple[str, ...]) -> list[tuple]:
    """(example, kernel, arch, irc regs, nvcc regs, irc SASS, nvcc SASS)."""
    cuobjdump = find_cuobjdump()
    out = []
    with tempfile.TemporaryDirectory(prefix="irc-sass-") as t:
        tmp = Path(t)
        for arch in arches:
            for example, (cu, kernels) in EXAMPLES.items():
                if example in SM100_ONLY and not arch.startswith("sm_100"):
                    continue
                mine = irc_facts(example, arch, tmp, cuobjdump)
                theirs = nvcc_facts(cu, arch, tmp, cuobjdump) if cu is not None else {}
                for ik, nk in kernels.items():
                    ir, isass = mine.get(ik, (None, None))
                    nr, nsass = theirs.get(nk, (None, None))
                    out.append((example, ik, arch, ir, nr, isass, nsass))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--arch", action="append", choices=ARCHES, help="target (repeatable; default both)")
    args = ap.parse_args(argv)
    arches = tuple(args.arch) if args.arch else ARCHES
    table = rows(arches)
    print(f"nvcc: {shutil.which('nvcc') or 'not found'}; cuobjdump: {find_cuobjdump() or 'not found'}\n")
    print("| kernel | target | regs irc | regs nvcc | regs ratio | SASS irc | SASS nvcc | SASS ratio |")
    print("|---|---|---|---|---|---|---|---|")
    for _example, kernel, arch, ir, nr, isass, nsass in table:
        print(
            f"| {kernel} | {arch} | {_cell(ir)} | {_cell(nr)} | {_ratio(ir, nr)} | {_cell(isass)} | "
            f"{_cell(nsass)} | {_ratio(isass, nsass)} |"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
