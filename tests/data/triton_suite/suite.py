"""The one way this repository compiles a Triton kernel to PTX without a GPU, and the case tables of the
Triton kernel corpus (tests/data/triton_suite).

Why a table and not `@triton.autotune`: the corpus must be reproducible on a machine with no GPU, so every
kernel is compiled for an explicit `GPUTarget("cuda", cc, 32)` with the constexprs, `num_warps` and
`num_stages` a tuned launch would pick. `triton.compile()` runs the whole pipeline (TTIR -> TTGIR -> LLIR ->
PTX -> cubin through Triton's bundled ptxas), so a case that Triton cannot lower fails here, not later.

What the JIT would infer from a real launch is spelled out: pointers from a PyTorch allocator are 16-byte
aligned (`tt.divisibility = 16`), and so are the integer arguments named in `Case.aligned` (strides and
sizes that are multiples of 16); a stride that is 1 at run time is a constexpr, as the JIT specializes it.

Used by regen.py (the corpus), tests/data/ptx/triton/gen_triton.py (the older PTX corpus) and the live test
in tests/test_triton_suite.py. Needs `triton` (3.9.x); importing this module without it raises ImportError.
"""

from __future__ import annotations

import importlib
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")  # 3.9 warns when unset; keep the 3.x default

import triton  # noqa: E402
from triton.backends.compiler import GPUTarget  # noqa: E402

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[2]
KERNEL_DIR = HERE / "kernels"

# Triton 3.9 labels PTX for sm_90a/sm_100a `.version 9.4` (it asks its bundled CUDA 13.4 ptxas) although
# LLVM emits at most PTX 9.0 features there; 9.0 keeps the files acceptable to the CUDA 13.0 ptxas that
# irc's tests use. sm_80 keeps Triton's own choice (8.8).
PTX_VERSION_SM90_UP = 90

ARCH_CC = {"sm_80": 80, "sm_90a": 90, "sm_100a": 100}
ALL_ARCHES = tuple(ARCH_CC)
HOPPER_UP = ("sm_90a", "sm_100a")


@dataclass(frozen=True)
class Case:
    """One kernel compiled for some targets.

    `types` gives the Triton type of each runtime argument that the defaults do not: an argument named
    `*_ptr` is `*{dtype}`, any other one `i32`. `targets` maps an arch ("sm_80", "sm_90a", "sm_100a") to the
    compile options for it (num_warps, num_stages, ...)."""

    name: str
    fn: Any  # triton.JITFunction
    constexprs: dict[str, Any]
    targets: dict[str, dict[str, Any]]
    dtype: str = "fp16"
    types: dict[str, str] = field(default_factory=dict)
    aligned: tuple[str, ...] = ()
    why: str = ""

    def signature(self) -> dict[str, str]:
        out: dict[str, str] = {}
        for arg in self.fn.arg_names:
            if arg in self.constexprs:
                out[arg] = "constexpr"
            elif arg in self.types:
                out[arg] = self.types[arg]
            elif arg.endswith("_ptr"):
                out[arg] = f"*{self.dtype}"
            else:
                out[arg] = "i32"
        return out

    def attrs(self) -> dict[tuple[int, ...], list[list[Any]]]:
        """`tt.divisibility = 16` on every pointer and on the integers named in `aligned`."""
        sig = self.signature()
        out = {}
        for i, (arg, ty) in enumerate(sig.items()):
            if ty.startswith("*") or arg in self.aligned:
                out[(i,)] = [["tt.divisibility", 16]]
        return out


def on(arches: tuple[str, ...] | list[str], **opts: Any) -> dict[str, dict[str, Any]]:
    """The same options for several targets: `on(ALL_ARCHES, num_warps=4)`."""
    return {a: dict(opts) for a in arches}


def compile_ptx(
    fn: Any,
    signature: dict[str, str],
    constexprs: dict[str, Any],
    arch: str,
    options: dict[str, Any],
    attrs: dict | None = None,
) -> str:
    """Triton's PTX for `fn` on `arch`. No GPU needed. Raises what triton.compile raises."""
    cc = ARCH_CC[arch]
    opts = dict(options)
    if cc >= 90:
        opts.setdefault("ptx_version", PTX_VERSION_SM90_UP)
    src = triton.compiler.ASTSource(fn=fn, signature=signature, constexprs=constexprs, attrs=attrs)
    compiled = triton.compile(src, target=GPUTarget("cuda", cc, 32), options=opts)
    return compiled.asm["ptx"]


_FILE_DIRECTIVE = re.compile(r'^(\s*\.file\s+\d+\s+")([^"]*)(")', re.M)


def portable_paths(ptx: str) -> str:
    """Rewrite `.file` paths so the committed PTX does not depend on where it was built: files of this
    repository become repository-relative, Triton's own files `site-packages/triton/...` (which irc's
    source mapping still recognises as library code and looks through)."""

    def fix(m: re.Match) -> str:
        path = m.group(2)
        try:
            rel = Path(path).resolve().relative_to(REPO)
            path = rel.as_posix()
        except ValueError:
            i = path.find("site-packages/")
            j = path.find("tests/data/triton_suite/")
            if i >= 0:
                path = path[i:]
            elif j >= 0:  # Triton's cache keys by source, not by path: an entry made from another checkout
                path = path[j:]
        return m.group(1) + path + m.group(3)

    return _FILE_DIRECTIVE.sub(fix, ptx)


def compile_case(case: Case, arch: str) -> str:
    """The committed form of `case` on `arch`: Triton's PTX with portable `.file` paths."""
    ptx = compile_ptx(case.fn, case.signature(), case.constexprs, arch, case.targets[arch], case.attrs())
    return portable_paths(ptx)


def kernel_modules() -> list[Any]:
    """The kernel family modules (kernels/*.py), imported by path order."""
    import sys

    if str(HERE) not in sys.path:
        sys.path.insert(0, str(HERE))
    return [importlib.import_module(f"kernels.{p.stem}") for p in sorted(KERNEL_DIR.glob("[!_]*.py"))]


def all_cases() -> list[Case]:
    """Every clean case of every family module (its `CASES` list)."""
    cases = [c for m in kernel_modules() for c in m.CASES]
    names = [c.name for c in cases]
    dup = {n for n in names if names.count(n) > 1}
    if dup:
        raise ValueError(f"duplicate case names: {sorted(dup)}")
    return cases


def ptx_name(case_name: str, arch: str) -> str:
    return f"{case_name}.{arch}.ptx"
