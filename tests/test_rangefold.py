"""The `rangefold` pass: guards that `@launch` bounds decide disappear, near misses stay; the kernel's
results in the emulator are those numpy expects for every thread."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from irc.compiler import CompileOptions, compile_kdsl
from irc.emu import run_kernel
from irc.frontend.ptx.parser import parse_ptx
from irc.passes.rangefold import decide

SRC = """
@launch(block = 128)
kernel k(out: *global u32) {
    var v: u32 = 0;
    if tid.x < LIMIT { v = 1; }
    if laneid < 32 { v += 10; }
    if (tid.x / 32) >= 4 { v += 100; } // never: four warps
    out[tid.x] = v;
}
"""


def _run(limit: int) -> tuple[np.ndarray, str]:
    ptx = compile_kdsl(SRC.replace("LIMIT", str(limit)), "g.kdsl", CompileOptions(arch="sm_80")).ptx_text
    out = np.zeros(128, np.uint32)
    run_kernel(parse_ptx(ptx, "<g>"), "k", grid=(1, 1, 1), block=(128, 1, 1), args=[out])
    return out, ptx


def test_launch_bound_guards_fold() -> None:
    out, ptx = _run(128)
    assert (out == 11).all()
    assert "setp" not in ptx  # every guard was decided


@pytest.mark.parametrize("limit", [127, 1, 0])
def test_near_miss_keeps_its_guard(limit: int) -> None:
    out, ptx = _run(limit)
    want = np.where(np.arange(128) < limit, 11, 10)
    np.testing.assert_array_equal(out, want)
    if limit:
        assert "setp" in ptx


@settings(max_examples=200, deadline=None)
@given(
    pred=st.sampled_from(["lt", "le", "gt", "ge", "eq", "ne"]),
    hi=st.integers(0, 300),
    c=st.integers(0, 300),
)
def test_decide_agrees_with_every_value(pred: str, hi: int, c: int) -> None:
    ops = {
        "lt": lambda x: x < c,
        "le": lambda x: x <= c,
        "gt": lambda x: x > c,
        "ge": lambda x: x >= c,
        "eq": lambda x: x == c,
        "ne": lambda x: x != c,
    }
    got = decide(pred, hi, c)
    if got is not None:
        assert all(ops[pred](x) == got for x in range(hi + 1))
