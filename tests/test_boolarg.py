"""BoolArg (irc/passes/boolarg.py): a bool join argument that restates the `cbr` the join is reached
through becomes the condition (or its negation), and the diamond collapses. Each shape runs in the
emulator before and after the pass (and through ptxas); the near misses keep their argument: a side
block that divides is never run unconditionally, and a join with a third edge is left alone."""

from __future__ import annotations

import numpy as np
import pytest

from irc.backends.ptx.emit import compile_module
from irc.frontend.ptx.parser import parse_ptx
from irc.ir.parser import parse_module
from irc.passes.boolarg import BoolArg
from irc.passes.manager import PassManager
from irc.passes.pipeline import optimization_passes
from irc.passes.simplify_cfg import SimplifyCFG
from irc.ptxas import find_ptxas, run_ptxas

emu = pytest.importorskip("irc.emu.launch")

HEAD = """module "t.kdsl" {
kernel @k(%out: *global u32, %n: u32, %m: u32) attributes {launch = [64, 1, 1]} {
^bb0:
  %tid = sreg {name = "tid.x"} : u32
  %t = const {value = true} : bool
  %f = const {value = false} : bool
  %c = cmp %tid, %n {pred = "lt"} : bool
"""
TAIL = """  %one = const {value = 1} : u32
  %zero = const {value = 0} : u32
  %v = select %ok, %one, %zero : u32
  %t64 = cvt %tid : u64
  %c4 = const {value = 4} : u64
  %off = mul %t64, %c4 : u64
  %p = ptradd %out, %off : *global u32
  store %p, %v
  ret
}
}
"""
# name -> (CFG between HEAD and TAIL, expected ok per thread (tid, n, m), transformed?)
SHAPES = {
    # `c && true`: the true side passes true through an empty block, the false edge false
    "and_true": (
        "  cbr %c, ^bb1, ^bb2(%f)\n^bb1:\n  br ^bb2(%t)\n^bb2(%ok: bool):\n",
        lambda t, n, m: t < n,
        True,
    ),
    # the front end's shape: the true side defines the constant it passes (dead once the argument goes)
    "const_in_side": (
        "  cbr %c, ^bb1, ^bb2(%f)\n^bb1:\n  %t2 = const {value = true} : bool\n  br ^bb2(%t2)\n"
        "^bb2(%ok: bool):\n",
        lambda t, n, m: t < n,
        True,
    ),
    # `c || false`
    "or_false": (
        "  cbr %c, ^bb2(%t), ^bb1\n^bb1:\n  br ^bb2(%f)\n^bb2(%ok: bool):\n",
        lambda t, n, m: t < n,
        True,
    ),
    # the constants the other way round: not c
    "negated": (
        "  cbr %c, ^bb1, ^bb2(%t)\n^bb1:\n  br ^bb2(%f)\n^bb2(%ok: bool):\n",
        lambda t, n, m: t >= n,
        True,
    ),
    # the forwarding block does work (a store): the argument is still c, the block stays
    "busy_side": (
        "  cbr %c, ^bb1, ^bb2(%f)\n^bb1:\n  %q = ptradd %out, %c4x : *global u32\n  br ^bb2(%t)\n"
        "^bb2(%ok: bool):\n",
        lambda t, n, m: t < n,
        True,
    ),
    # `c && d` with d computed on the true side: the cmp runs before the branch, the argument is and(c, d)
    "and_computed": (
        '  cbr %c, ^bb1, ^bb2(%f)\n^bb1:\n  %d = cmp %tid, %m {pred = "lt"} : bool\n  br ^bb2(%d)\n'
        "^bb2(%ok: bool):\n",
        lambda t, n, m: t < n and t < m,
        True,
    ),
    # `c || d`: or(c, d)
    "or_computed": (
        '  cbr %c, ^bb2(%t), ^bb1\n^bb1:\n  %d = cmp %tid, %m {pred = "lt"} : bool\n  br ^bb2(%d)\n'
        "^bb2(%ok: bool):\n",
        lambda t, n, m: t < n or t < m,
        True,
    ),
    # `!c && d` spelled with the constant on the true side: and(not c, d)
    "and_not_computed": (
        '  cbr %c, ^bb2(%f), ^bb1\n^bb1:\n  %d = cmp %tid, %m {pred = "lt"} : bool\n  br ^bb2(%d)\n'
        "^bb2(%ok: bool):\n",
        lambda t, n, m: t >= n and t < m,
        True,
    ),
    # near miss: the side block divides (`n != 0 && tid / n < m` must not divide by zero): kept
    "divide_in_side": (
        '  cbr %c, ^bb1, ^bb2(%f)\n^bb1:\n  %q = div %tid, %n : u32\n  %d = cmp %q, %m {pred = "lt"} : bool\n'
        "  br ^bb2(%d)\n^bb2(%ok: bool):\n",
        lambda t, n, m: t < n and t // n < m,
        False,
    ),
    # near miss: a third edge into the join (`c && d && true` shape): the argument depends on d too
    "three_edges": (
        '  cbr %c, ^bb1, ^bb3(%f)\n^bb1:\n  %d = cmp %tid, %m {pred = "lt"} : bool\n  cbr %d, ^bb2, ^bb3(%f)\n'
        "^bb2:\n  br ^bb3(%t)\n^bb3(%ok: bool):\n",
        lambda t, n, m: t < n and t < m,
        False,
    ),
    # near miss: the two edges come from different branches (the join is not reached through one cbr)
    "two_branches": (
        '  cbr %c, ^bb1, ^bb2\n^bb1:\n  %d = cmp %tid, %m {pred = "lt"} : bool\n  cbr %d, ^bb3(%t), ^bb4\n'
        "^bb2:\n  br ^bb4\n^bb4:\n  br ^bb3(%f)\n^bb3(%ok: bool):\n",
        lambda t, n, m: t < n and t < m,
        False,
    ),
}


def _module(name: str):
    cfg = SHAPES[name][0]
    if name == "busy_side":
        cfg = cfg.replace("^bb1:\n", "^bb1:\n  %c4x = const {value = 4} : u64\n", 1)
    return parse_module(HEAD + cfg + TAIL, "t.kdsl")


def _run(m, n: int, mm: int) -> np.ndarray:
    out = np.zeros(64, np.uint32)
    ptx = compile_module(m, "sm_80").text
    emu.run_kernel(parse_ptx(ptx), "k", (1, 1, 1), (64, 1, 1), (out, np.uint32(n), np.uint32(mm)))
    return out


def _bool_args(m) -> int:
    return sum(1 for b in m.functions[0].blocks[1:] for a in b.args if str(a.type) == "bool")


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_shape(name: str) -> None:
    _cfg, want, transformed = SHAPES[name]
    before = _module(name)
    after = _module(name)
    PassManager([BoolArg(), SimplifyCFG()], verify_each=True).run(after)
    assert _bool_args(before) == 1
    assert _bool_args(after) == (0 if transformed else 1)
    if name in ("and_true", "const_in_side", "or_false", "negated", "and_computed", "or_computed"):
        assert [op.name for op in after.functions[0].ops()].count("cbr") == 0  # the diamond collapsed
    for n, mm in ((0, 64), (17, 40), (64, 9)):
        exp = np.array([want(t, n, mm) for t in range(64)], np.uint32)
        np.testing.assert_array_equal(_run(before, n, mm), exp)
        np.testing.assert_array_equal(_run(after, n, mm), exp)
    if find_ptxas() is not None:
        assert run_ptxas(compile_module(after, "sm_80").text, "sm_80").ok


def test_kdsl_short_circuit_with_a_folded_side_is_one_setp() -> None:
    """The pattern of examples/fmha_sm100.kdsl: `key < n && (!CAUSAL || key <= row)` with CAUSAL false
    leaves no branch per element after the pipeline (it left a diamond and two `mov.pred` each)."""
    import irc

    src = """param CAUSAL: bool = false;
@launch(block = 64)
kernel k(out: *global f32, x: *global f32, n: u32) {
    let row = tid.x;
    var s = 0.0;
    unroll for e in 0..8 {
        let key = row * 8 + e;
        let ok = key < n && (!CAUSAL || key <= row);
        s += ok ? x[key] : 0.0;
    }
    out[row] = s;
}
"""
    mod = irc.compile(src, arch="sm_80", path="t.kdsl", cache=False)
    assert "mov.pred" not in mod.ptx_text
    x = np.arange(512, dtype=np.float32)
    for n in (0, 100, 512):
        out = np.zeros(64, np.float32)
        mod["k"].launch(grid=1, block=64, args=[out, x, np.uint32(n)], device="emu")
        keys = np.arange(64)[:, None] * 8 + np.arange(8)[None, :]
        np.testing.assert_array_equal(out, np.where(keys < n, x[np.minimum(keys, 511)], 0).sum(axis=1))


def test_in_default_pipeline() -> None:
    assert "bool-arg" in [p.name for p in optimization_passes()]
