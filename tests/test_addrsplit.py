"""The `addrsplit` pass and its range helper: constant parts of addresses become load/store immediates
when that is exact, and never when the 32-bit index could wrap. Behaviour in the emulator against numpy;
the range masks against evaluation on every thread index (hypothesis)."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from irc.compiler import CompileOptions, compile_kdsl, frontend
from irc.emu import run_kernel
from irc.frontend.ptx.parser import parse_ptx
from irc.passes.manager import PassManager
from irc.passes.pipeline import optimization_passes
from irc.passes.ranges import Ranges

TILE = """
@launch(block = 32)
kernel k(out: *global f32, x: *global f32, n: u32) {
    shared t: [f32; 16, 16];
    let r = laneid / 2;
    let c0 = (laneid % 2) * 8;
    let row0 = ctaid.x * 16;
    unroll for e in 0..8 {
        t[r, c0 + e] = row0 + r < n ? x[(row0 + r) * 16 + c0 + e] : -1.0;
    }
    barrier();
    unroll for e in 0..8 {
        out[(row0 + r) * 16 + c0 + e] = t[r, c0 + e] * 2.0;
    }
}
"""

WRAP = """
@launch(block = 32)
kernel k(out: *global f32, x: *global f32, i: u32) {
    if tid.x == 0 {
        out[0] = x[i + 1]; // i + 1 wraps to 0 for i = 0xffffffff: no [.. + 4] immediate here
    }
}
"""


def _compile(src: str) -> str:
    return compile_kdsl(src, "a.kdsl", CompileOptions(arch="sm_80")).ptx_text


@settings(max_examples=6, deadline=None)
@given(blocks=st.integers(1, 3), n=st.integers(0, 50), seed=st.integers(0, 2**16))
def test_tile_copy_matches_numpy(blocks: int, n: int, seed: int) -> None:
    ptx = _compile(TILE)
    x = np.random.default_rng(seed).standard_normal(blocks * 256).astype(np.float32)
    out = np.zeros(blocks * 256, np.float32)
    run_kernel(parse_ptx(ptx, "<t>"), "k", grid=(blocks, 1, 1), block=(32, 1, 1), args=[out, x, np.uint32(n)])
    rows = np.arange(blocks * 256) // 16
    want = np.where(rows < n, x, np.float32(-1.0)) * np.float32(2.0)
    np.testing.assert_array_equal(out, want.astype(np.float32))
    # one base per copy, the columns as immediates
    assert "+28]" in ptx


def test_wrapping_index_is_not_split() -> None:
    ptx = _compile(WRAP)
    x = np.arange(8, dtype=np.float32) + 1
    out = np.zeros(1, np.float32)
    run_kernel(
        parse_ptx(ptx, "<w>"), "k", grid=(1, 1, 1), block=(32, 1, 1), args=[out, x, np.uint32(0xFFFFFFFF)]
    )
    assert out[0] == x[0]
    out[0] = 0
    run_kernel(parse_ptx(ptx, "<w>"), "k", grid=(1, 1, 1), block=(32, 1, 1), args=[out, x, np.uint32(5)])
    assert out[0] == x[6]


EXPR = """
@launch(block = 128)
kernel k(out: *global u32) {
    let v: u32 = EXPR;
    out[tid.x] = v;
}
"""

ATOMS = ["tid.x", "laneid", "(tid.x / 32)", "(laneid % 4)", "(tid.x & 7)", "3", "16"]


@st.composite
def _exprs(draw, depth: int = 3) -> str:  # type: ignore[no-untyped-def]
    if depth == 0 or draw(st.booleans()):
        return draw(st.sampled_from(ATOMS))
    op = draw(st.sampled_from(["+", "*", "&", "|", "<<", ">>", "/", "%"]))
    a = draw(_exprs(depth - 1))
    if op in ("<<", ">>"):
        return f"({a} {op} {draw(st.integers(0, 6))})"
    if op in ("/", "%"):
        return f"({a} {op} {draw(st.integers(1, 40))})"
    return f"({a} {op} {draw(_exprs(depth - 1))})"


@settings(max_examples=25, deadline=None)
@given(expr=_exprs())
def test_range_masks_hold_on_every_thread(expr: str) -> None:
    """The mask Ranges gives the stored value covers its value on all 128 threads (emulated)."""
    src = EXPR.replace("EXPR", expr)
    m = frontend(src, "r.kdsl")
    PassManager(optimization_passes()).run(m)
    fn = m.function("k")
    stores = [op for op in fn.ops() if op.name == "store"]
    v = stores[0].operands[1]
    mask = Ranges(fn).maybe(v)
    out = np.zeros(128, np.uint32)
    run_kernel(parse_ptx(_compile(src), "<r>"), "k", grid=(1, 1, 1), block=(128, 1, 1), args=[out])
    assert not (out.astype(np.uint64) & ~np.uint64(mask) & np.uint64(0xFFFFFFFF)).any(), (expr, hex(mask))
