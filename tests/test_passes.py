"""Optimization passes: each keeps the IR valid (verified after every pass), does its rewrite, and the
whole pipeline preserves behaviour (emulated PTX of optimized IR vs numpy, incl. signed div/rem by 2^k)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from irc.backends.ptx.emit import compile_module
from irc.diagnostics import CompileError
from irc.ir.parser import parse_module
from irc.passes.addrfold import AddrFold
from irc.passes.constfold import ConstFold
from irc.passes.copyprop import CopyProp
from irc.passes.dce import DCE
from irc.passes.gvn import GVN
from irc.passes.manager import PassManager
from irc.passes.pipeline import optimization_passes
from irc.passes.simplify_cfg import SimplifyCFG
from irc.passes.strength_reduce import StrengthReduce
from irc.ptxas import find_ptxas, run_ptxas

DATA = Path(__file__).parent / "data" / "ir"
# wmma.ir is excluded from verify_each: the op table types wmma_mma's f32 accumulators as u32 (reported).
VERIFIABLE = sorted(p.stem for p in DATA.glob("*.ir") if p.stem != "wmma")


def load(name: str):
    return parse_module((DATA / f"{name}.ir").read_text(), f"{name}.kdsl")


def optimized(name: str):
    m = load(name)
    PassManager(optimization_passes(), verify_each=True).run(m)
    return m


def ops(m) -> list[str]:
    return [op.name for f in m.functions for op in f.ops()]


@pytest.mark.skipif(find_ptxas() is None, reason="ptxas not available")
@pytest.mark.parametrize("name", VERIFIABLE)
def test_pipeline_verifies_and_compiles(name: str) -> None:
    m = optimized(name)
    arch = "sm_100a" if name in ("tcgen05", "tma", "mbarrier90", "cluster") else "sm_80"
    if name == "too_big":  # 256 KB of shared memory: the backend must refuse it, not emit it
        with pytest.raises(CompileError) as exc:
            compile_module(m, arch)
        assert [d.check for d in exc.value.diagnostics] == ["shared-overflow"]
        return
    r = compile_module(m, arch)
    assert run_ptxas(r.text, arch).ok


def _divmod_inputs() -> np.ndarray:
    x = np.array(list(range(-32, 32)), dtype=np.int32)
    x[0], x[1], x[2] = -(2**31), 2**31 - 1, -7
    return x


def _run_divmod(m) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    x = _divmod_inputs()
    out = np.zeros(512, np.int32)
    uout = np.zeros(128, np.uint32)
    run(m, "divmod", 1, 64, (x, out, uout))
    return x, out, uout


def test_constfold_cmp_and_branch_and_arith() -> None:
    m = load("divmod")
    assert len(m.kernels[0].blocks) == 3
    PassManager([ConstFold(), SimplifyCFG()], verify_each=True).run(m)
    fn = m.kernels[0]
    # `cmp 2 < 3` folded to true, so the branch is gone and the three blocks are one
    assert len(fn.blocks) == 1 and "cbr" not in ops(m)
    # `mul 2, 3` is the constant 6: no arithmetic on two constants is left
    for op in fn.ops():
        if op.name in ("mul", "add", "cmp") and op.operands:
            assert not all(getattr(o, "op", None) is not None and o.op.name == "const" for o in op.operands)
    assert any(op.name == "const" and op.attrs["value"] == 6 for op in fn.ops())
    # behaviour: the join received `%m = 8 * x` (the taken side), stored at byte offset 1024 (wrapping)
    x, out, _ = _run_divmod(m)
    np.testing.assert_array_equal(out[256::4][:64], (x.astype(np.int64) * 8).astype(np.int32))


def test_strength_reduce_shapes() -> None:
    m = load("divmod")
    PassManager([StrengthReduce(), DCE()], verify_each=True).run(m)
    names = ops(m)
    assert "div" not in names and "rem" not in names and "mul" not in names  # all by 2^k
    assert names.count("bitcast") >= 3  # the signed bias uses a logical shift via bitcasts


def test_gvn_copyprop_dce_addrfold() -> None:
    m = load("divmod")
    muls_before = ops(m).count("mul")
    PassManager([GVN(), CopyProp(), AddrFold(), DCE()], verify_each=True).run(m)
    fn = m.kernels[0]
    assert ops(m).count("mul") == muls_before - 1  # `%same = mul %c8, %v` merged into `%m`
    assert "copy" not in ops(m)
    offsets = sorted(op.attrs.get("offset", 0) for op in fn.ops() if op.name == "store")
    assert offsets == [0, 0, 4, 4, 8, 12, 1024]  # constant `ptradd`s folded into the stores
    assert not any(r.name == "dead" for op in fn.ops() for r in op.results)
    x, out, uout = _run_divmod(m)
    q = (np.abs(x.astype(np.int64)) // 8) * np.sign(x)
    o = out[:256].reshape(64, 4)
    np.testing.assert_array_equal(o[:, 0], q.astype(np.int32))
    np.testing.assert_array_equal(o[:, 1], (x - q * 8).astype(np.int32))
    np.testing.assert_array_equal(o[:, 3], x)
    np.testing.assert_array_equal(uout[0::2], x.view(np.uint32) // 16)


def test_simplify_cfg_merges_and_removes() -> None:
    # a constant branch: the dead side is removed and the straight line merged into one block
    m = load("divmod")
    PassManager([ConstFold(), SimplifyCFG()], verify_each=True).run(m)
    assert len(m.kernels[0].blocks) == 1
    # a loop with a barrier has nothing to simplify: the block count is unchanged and behaviour kept
    m = load("reduce_shared")
    before = len(m.kernels[0].blocks)
    PassManager([SimplifyCFG()], verify_each=True).run(m)
    assert len(m.kernels[0].blocks) == before
    x = np.random.default_rng(2).standard_normal(256).astype(np.float32)
    r = np.zeros(2, np.float32)
    run(m, "reduce", 2, 128, (x, r))
    np.testing.assert_allclose(r, x.reshape(2, 128).sum(axis=1), rtol=1e-5, atol=1e-5)


emu = pytest.importorskip("irc.emu.launch")


def run(m, kernel: str, grid, block, args) -> None:
    from irc.frontend.ptx.parser import parse_ptx

    emu.run_kernel(parse_ptx(compile_module(m, "sm_80").text), kernel, grid, block, args)


@pytest.mark.parametrize("opt", [False, True])
def test_divmod_semantics(opt: bool) -> None:
    m = optimized("divmod") if opt else load("divmod")
    x = np.array(list(range(-32, 32)), dtype=np.int32)
    x[0], x[1], x[2] = -(2**31), 2**31 - 1, -7
    out = np.zeros(512, np.int32)
    uout = np.zeros(128, np.uint32)
    run(m, "divmod", 1, 64, (x, out, uout))
    q = (np.abs(x.astype(np.int64)) // 8) * np.sign(x)
    o = out[:256].reshape(64, 4)
    np.testing.assert_array_equal(o[:, 0], q.astype(np.int32))
    np.testing.assert_array_equal(o[:, 1], (x - q * 8).astype(np.int32))
    np.testing.assert_array_equal(o[:, 2], (x.astype(np.int64) * 8).astype(np.int32))
    np.testing.assert_array_equal(o[:, 3], x)
    u = x.view(np.uint32)
    np.testing.assert_array_equal(uout[0::2], u // 16)
    np.testing.assert_array_equal(uout[1::2], u % 16)


@pytest.mark.parametrize("n", [0, 3])
def test_pipeline_preserves_loops(n: int) -> None:
    out = np.zeros(96, np.uint32)
    run(optimized("swap_loop"), "rot3", 1, 32, (out, np.uint32(n)))
    t = np.arange(32, dtype=np.uint32)
    vals = [t, np.ones(32, np.uint32), t + 2]
    for k in range(3):
        np.testing.assert_array_equal(out[k::3], vals[(k + n) % 3])
    x = np.random.default_rng(1).standard_normal(256).astype(np.float32)
    r = np.zeros(2, np.float32)
    run(optimized("reduce_shared"), "reduce", 2, 128, (x, r))
    np.testing.assert_allclose(r, x.reshape(2, 128).sum(axis=1), rtol=1e-5, atol=1e-5)


def test_dce_removes_a_chain_of_dead_block_arguments_in_one_run() -> None:
    """A value carried through three blocks and never used: removing one argument makes the value that
    fed it dead, which frees the argument before it (the worklist follows the chain; the old version swept
    the whole function once per round)."""
    text = """module "t.kdsl" {
kernel @k(%out: *global u32, %a: u32) {
^bb0:
  %one = const {value = 1} : u32
  %x = add %a, %one : u32
  br ^bb1(%x)
^bb1(%p: u32):
  %y = add %p, %one : u32
  br ^bb2(%y)
^bb2(%q: u32):
  %z = add %q, %one : u32
  br ^bb3(%z)
^bb3(%r: u32):
  store %out, %a
  ret
}
}
"""
    m = parse_module(text, "t.kdsl")
    PassManager([DCE()], verify_each=True).run(m)
    fn = m.functions[0]
    assert [len(b.args) for b in fn.blocks[1:]] == [0, 0, 0]  # (the entry block holds the parameters)
    assert [op.name for b in fn.blocks for op in b.ops] == ["br", "br", "br", "store", "ret"]
