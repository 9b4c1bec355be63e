"""The `hoist` pass: loop-invariant integer arithmetic leaves the loop, and the index shared by several
guarded loads is computed once in the branching block. Behaviour: the optimized kernel gives numpy's
result in the emulator for random inputs and sizes (hypothesis), structure: where the ops ended up."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from irc.compiler import CompileOptions, compile_kdsl, frontend
from irc.emu import run_kernel
from irc.frontend.ptx.parser import parse_ptx
from irc.ir.core import Module
from irc.ir.types import ScalarType
from irc.passes.hoist import Hoist, loop_depths
from irc.passes.manager import PassManager
from irc.passes.pipeline import optimization_passes
from irc.passes.util import dom_preorder

SRC = """
@launch(block = 32)
kernel k(out: *global f32, x: *global f32, rows: u32, cols: u32) {
    // row r of x, summed over columns with a loop-invariant row base; then a guarded gather
    let r = ctaid.x;
    var s = 0.0;
    for c in tid.x..cols step 32 {
        s += x[r * cols + c];
    }
    let i = tid.x * 4;
    let a = i < cols ? x[r * cols + i + 1] : 0.0;
    let b = i < cols ? x[r * cols + i + 2] : 0.0;
    out[r * 32 + tid.x] = s + a * 2.0 + b * 3.0;
}
"""


def _expect(x: np.ndarray, rows: int, cols: int) -> np.ndarray:
    out = np.zeros(rows * 32, np.float32)
    for r in range(rows):
        for t in range(32):
            s = np.float32(0.0)
            for c in range(t, cols, 32):
                s = np.float32(s + x[r * cols + c])
            i = t * 4
            a = x[r * cols + i + 1] if i < cols else np.float32(0.0)  # may read the next row: as the kernel
            b = x[r * cols + i + 2] if i < cols else np.float32(0.0)
            out[r * 32 + t] = np.float32(np.float32(s + np.float32(a * 2)) + np.float32(b * 3))
    return out


@settings(max_examples=8, deadline=None)
@given(rows=st.integers(1, 3), cols=st.integers(1, 70), seed=st.integers(0, 2**16))
def test_hoisted_kernel_matches_numpy(rows: int, cols: int, seed: int) -> None:
    res = compile_kdsl(SRC, "h.kdsl", CompileOptions(arch="sm_80"))
    rng = np.random.default_rng(seed)
    # padding past the row end: the guarded reads of the last row's i + 2 stay in bounds
    x = np.concatenate([rng.standard_normal(rows * cols), np.zeros(8)]).astype(np.float32)
    out = np.zeros(rows * 32, np.float32)
    run_kernel(parse_ptx(res.ptx_text, "<h>"), "k", grid=(rows, 1, 1), block=(32, 1, 1),
               args=[out, x, np.uint32(rows), np.uint32(cols)])  # fmt: skip
    want = _expect(x, rows, cols)
    np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-5)


def _int_muls(m: Module) -> list[int]:
    """Loop depth of the block of every integer `mul` of kernel k."""
    fn = m.function("k")
    order, idom = dom_preorder(fn)
    depth = loop_depths(order, idom, fn.predecessor_map())
    out = []
    for b in order:
        for op in b.ops:
            t = op.results[0].type if op.results else None
            if op.name == "mul" and isinstance(t, ScalarType) and t.is_int:
                out.append(depth[b])
    return out


def _optimized(with_hoist: bool) -> Module:
    m = frontend(SRC, "h.kdsl")
    passes = [p for p in optimization_passes() if with_hoist or not isinstance(p, Hoist)]
    PassManager(passes, verify_each=True).run(m)
    return m


def test_row_base_computed_once_outside_the_loop() -> None:
    """`r * cols` appears in the loop and in both guarded arms: once, at loop depth 0, after hoisting
    (three times, one of them inside the loop, without)."""
    assert _int_muls(_optimized(True)) == [0]
    before = _int_muls(_optimized(False))
    assert len(before) == 3 and max(before) == 1
