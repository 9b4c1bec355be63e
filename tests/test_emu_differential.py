"""Differential testing: random well-formed kernels (tests/kdsl_gen.py) run in the emulator must give
bit-identical results through the unoptimized pipeline (`optimize=False`) and the optimized one (every
pass, the register allocator, out-of-SSA and the printer), and the analyzer must not flag them.

The default run is quick (~30 examples); `HYPOTHESIS_PROFILE=fuzz pytest -m fuzz
tests/test_emu_differential.py` runs the long campaign.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import assume, given, note, settings

from irc import CompileError
from irc.compiler import CompileOptions, check_kdsl, compile_kdsl
from irc.emu import run_kernel
from irc.frontend.ptx.parser import parse_ptx
from irc.ptxas import find_ptxas, run_ptxas

sys.path.insert(0, str(Path(__file__).parent))
from kdsl_gen import NOUT_F, NOUT_I, KernelCase, kernel_cases  # noqa: E402

PATH = "gen.kdsl"


def _unavoidable(diags) -> bool:
    """Findings the generator cannot rule out by construction: an error `self-cancel` (two differently
    written operands that the source makes the same value, e.g. `gid - v1` after `v1 = gid`: a true
    finding) and the front end's refusal of constant arithmetic that overflows (`51i32 * 2147483647i32`).
    Such examples are rejected, not failed. (`self-cancel` runs on the IR before the optimizer, so it is
    the same at -O0 and -O2.)"""
    return any(
        (d.check == "self-cancel" and _sev(d) == "error")
        or (d.check == "const-error" and "overflows" in d.message)
        for d in diags
    )


def _sev(d) -> str:  # type: ignore[no-untyped-def]
    return str(getattr(d.severity, "value", d.severity))


def _findings(diags) -> list:  # type: ignore[no-untyped-def]
    """Diagnostics that a correct kernel must not get (a `self-cancel` note of `max(a, a)` is not one)."""
    return [d for d in diags if not (d.check == "self-cancel" and _sev(d) == "note")]


def _run(ptx_text: str, kc: KernelCase) -> list[np.ndarray]:
    args = kc.args()
    run_kernel(parse_ptx(ptx_text, "<gen>"), "k", grid=(kc.grid, 1, 1), block=(kc.block, 1, 1), args=args)
    return args[:2]


def _equal(a: np.ndarray, b: np.ndarray, bitwise: bool = False) -> np.ndarray:
    """Elementwise bit-exact equality; unless `bitwise`, any NaN equals any NaN (payloads may differ).
    Edge-value kernels compare bitwise: a NaN's sign and payload, and the sign of a zero, must survive
    the optimizer (`select(c, -nan, nan)` once became -nan for a false `c`)."""
    if a.dtype.kind == "f":
        same = a.view(np.uint32) == b.view(np.uint32)
        return same if bitwise else (np.isnan(a) & np.isnan(b)) | same
    return a == b


def _diff(a: np.ndarray, b: np.ndarray, per_thread: int, bitwise: bool = False) -> str:
    bad = np.nonzero(~_equal(a, b, bitwise))[0]
    if not len(bad):
        return ""
    i = int(bad[0])
    bits = (
        (lambda x: f" ({int(np.asarray(x).view(np.uint32)):#010x})")
        if a.dtype.kind == "f"
        else (lambda x: "")
    )
    return (
        f"thread {i // per_thread} slot {i % per_thread}: O0 {a[i]!r}{bits(a[i])} vs O2 {b[i]!r}{bits(b[i])}"
        f" ({len(bad)} differ)"
    )


def check_case(kc: KernelCase, *, ptxas: bool) -> bool:
    """Check one kernel; False when it was rejected (see `_unavoidable`)."""
    diags = check_kdsl(kc.source, PATH)
    if _unavoidable(diags):
        return False
    diags = _findings(diags)
    assert not diags, "analyzer finding on a correct-by-construction kernel:\n" + "\n".join(map(str, diags))
    try:
        # the analyzer also runs on the unoptimized IR, where a `self-cancel` that the optimizer later
        # removes as dead code is still visible (a true finding, e.g. `v1 == gid` on a path where v1 = gid)
        r0 = compile_kdsl(kc.source, PATH, CompileOptions(optimize=False))
    except CompileError as e:
        if _unavoidable(e.diagnostics):
            return False
        raise
    r2 = compile_kdsl(kc.source, PATH, CompileOptions(optimize=True))
    assert not _findings(r0.diagnostics) and not _findings(r2.diagnostics), r0.diagnostics + r2.diagnostics
    out0, outf0 = _run(r0.ptx_text, kc)
    out2, outf2 = _run(r2.ptx_text, kc)
    bitwise = kc.mode != "plain"
    assert not _diff(out0, out2, NOUT_I), "u32 results differ: " + _diff(out0, out2, NOUT_I)
    d = _diff(outf0, outf2, NOUT_F, bitwise)
    assert not d, "f32 results differ: " + d
    if ptxas:
        res = run_ptxas(r2.ptx_text, "sm_80")
        assert res.ok, "ptxas rejected the optimized PTX:\n" + res.stderr + "\n" + r2.ptx_text
    return True


@settings(max_examples=30)
@given(kc=kernel_cases())
def test_optimized_matches_unoptimized(kc: KernelCase) -> None:
    # ptxas on a subset (one in four) keeps the default run well under a minute
    note(kc.source)
    assume(check_case(kc, ptxas=find_ptxas() is not None and kc.seed % 4 == 0))


@settings(max_examples=12)
@given(kc=kernel_cases(edge=True))
def test_edge_values_optimized_matches_unoptimized(kc: KernelCase) -> None:
    """Edge-value modes (NaN payloads and signs, -0.0, integer bounds, wrap-around), compared bitwise;
    `tests/fuzz/differential.py --edge` runs the 2,000-kernel campaign."""
    note(kc.source)
    assume(check_case(kc, ptxas=find_ptxas() is not None and kc.seed % 4 == 0))


@pytest.mark.fuzz
@given(kc=kernel_cases(max_stmts=40))
def test_fuzz_optimized_matches_unoptimized(kc: KernelCase) -> None:
    note(kc.source)
    assume(check_case(kc, ptxas=find_ptxas() is not None and kc.seed % 8 == 0))


# Hand-written regressions for shapes the generator produces rarely.

SWAP_LOOP = """
@launch(block = 64)
kernel k(out: *global u32, outf: *global f32, inp: *global u32, finp: *global f32, n: u32, s: i32, fs: f32) {
    shared sm: [u32; 64];
    shared smf: [f32; 64];
    let gid = ctaid.x * ntid.x + tid.x;
    let base = gid * 8u32;
    let fbase = gid * 4u32;
    var a = gid;
    var b = inp[gid & 255u32];
    var c = 7u32;
    var f = finp[gid & 255u32];
    var g = fs;
    for i in 0u32..(tid.x & 7u32) {
        let t = a; a = b; b = c; c = t;
        let u = f; f = g; g = u;
        if (a & 1u32) == 0u32 { continue; }
        c += i;
    }
    sm[tid.x] = a ^ b;
    barrier();
    let r = sm[63u32 - tid.x];
    barrier();
    let x = shfl_xor(r, 3);
    out[base] = a; out[base + 1u32] = b; out[base + 2u32] = c; out[base + 3u32] = x;
    outf[fbase] = f; outf[fbase + 1u32] = g;
}
"""


def test_swap_rotation_in_divergent_loop() -> None:
    assert check_case(KernelCase(SWAP_LOOP, block=64, grid=2, n=5, s=-3, fs=1.5, seed=1), ptxas=True)
