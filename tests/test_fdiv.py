"""The `fdiv` pass: float division by a power of two is a multiply and 1.0 / x a `rcp.rn`, with the same
bits as numpy's correctly rounded division for every input class (normal, subnormal, zero, infinity,
NaN), checked in the emulator (hypothesis)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from irc.compiler import CompileOptions, compile_kdsl
from irc.emu import run_kernel
from irc.frontend.ptx.parser import parse_ptx
from irc.ptxas import find_ptxas, run_ptxas

SRC = """
@launch(block = 32)
kernel k(out: *global f32, x: *global f32) {
    let v = x[tid.x];
    out[tid.x * 5] = v / 4096.0;
    out[tid.x * 5 + 1] = v / 0.25;
    out[tid.x * 5 + 2] = v / -2.0;
    out[tid.x * 5 + 3] = 1.0 / v;
    out[tid.x * 5 + 4] = v / 3.0; // not a power of two: stays a division
}
"""
EDGES = [0.0, -0.0, 1.0, np.inf, -np.inf, np.nan, 1e-45, -1e-40, 3.4e38, 1.2e-38, 5.0, -7.5]


def _bits_equal(a: np.ndarray, b: np.ndarray) -> bool:
    return bool(np.all((np.isnan(a) & np.isnan(b)) | (a.view(np.uint32) == b.view(np.uint32))))


@settings(max_examples=10, deadline=None)
@given(st.lists(st.floats(width=32, allow_nan=True, allow_infinity=True), min_size=20, max_size=20))
def test_division_rewrites_match_numpy(vals: list[float]) -> None:
    ptx = compile_kdsl(SRC, "d.kdsl", CompileOptions(arch="sm_80")).ptx_text
    assert ptx.count("div.rn.f32") == 1 and "rcp.rn.f32" in ptx
    x = np.array(EDGES + vals, np.float32)
    out = np.zeros(5 * 32, np.float32)
    run_kernel(parse_ptx(ptx, "<d>"), "k", grid=(1, 1, 1), block=(32, 1, 1), args=[out, x])
    with np.errstate(all="ignore"):
        want = np.stack(
            [
                x / np.float32(4096),
                x / np.float32(0.25),
                x / np.float32(-2),
                np.float32(1) / x,
                x / np.float32(3),
            ],
            axis=1,
        ).reshape(-1)
    assert _bits_equal(out, want)


@pytest.mark.skipif(find_ptxas() is None, reason="ptxas not installed")
def test_ptxas_accepts_rewritten_division() -> None:
    ptx = compile_kdsl(SRC, "d.kdsl", CompileOptions(arch="sm_80")).ptx_text
    assert run_ptxas(ptx, "sm_80").ok
