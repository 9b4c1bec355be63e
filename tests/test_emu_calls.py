"""`call`/`ret` through `.func` in the emulator (irc/emu/inline.py): nvcc `-G` builds of irc's examples
(tests/data/emu/debug/examples_g.cu, every helper and CUDA's intrinsics a real call) match numpy;
recursion and virtual functions (a vtable in a `.global` initializer) run; a recursion deeper than the
emulator inlines is a `LimitError` naming the limit, at the call, only when a thread reaches it."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from irc.emu import BadCallError, LimitError, run_kernel
from irc.frontend.ptx.parser import parse_ptx

PTX = Path(__file__).parent / "data" / "emu" / "debug" / "examples_g.G.sm_80.ptx"


@pytest.fixture(scope="module")
def mod():
    return parse_ptx(PTX.read_text(), str(PTX))


def _name(mod, short: str) -> str:
    return next(f.name for f in mod.entries() if short in f.name)


def test_the_debug_build_calls_functions(mod) -> None:
    """The PTX really is a -G build: the kernels call their helpers (and CUDA's shuffles) through .param."""
    calls = [i for f in mod.entries() for i in f.instructions() if i.base == "call"]
    assert len(calls) >= 10
    assert any(f.kind == "func" and "shfl_xor_sync" in f.name for f in mod.functions)


def test_vector_add(mod) -> None:
    n = 1000
    rng = np.random.default_rng(0)
    x, y, out = rng.random(n, np.float32), rng.random(n, np.float32), np.zeros(n, np.float32)
    run_kernel(mod, _name(mod, "vector_add"), grid=8, block=128, args=[out, x, y, n])
    np.testing.assert_array_equal(out, x + y)


def test_softmax_with_shuffle_helpers(mod) -> None:
    rows, n = 3, 300
    x = np.random.default_rng(1).standard_normal((rows, n)).astype(np.float32)
    out = np.zeros_like(x)
    run_kernel(mod, _name(mod, "softmax"), grid=rows, block=128, args=[out, x, n], schedules=2)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    np.testing.assert_allclose(out, e / e.sum(axis=1, keepdims=True), rtol=1e-5, atol=1e-7)


def test_layernorm_barriers_inside_a_device_function(mod) -> None:
    rows, n = 4, 200
    rng = np.random.default_rng(2)
    x = rng.standard_normal((rows, n)).astype(np.float32)
    g, b = rng.random(n, np.float32), rng.random(n, np.float32)
    y = np.zeros_like(x)
    run_kernel(mod, _name(mod, "layernorm"), grid=rows, block=128, args=[y, x, g, b, n])
    mu, var = x.mean(axis=1, keepdims=True), x.var(axis=1, keepdims=True)
    np.testing.assert_allclose(y, (x - mu) / np.sqrt(var + 1e-5) * g + b, rtol=1e-4, atol=1e-5)


def test_persistent_rmsnorm_struct_return(mod) -> None:
    rows, n = 7, 130
    rng = np.random.default_rng(3)
    x, w = rng.standard_normal((rows, n)).astype(np.float32), rng.random(n, np.float32)
    y = np.zeros_like(x)
    run_kernel(mod, _name(mod, "persistent_rmsnorm"), grid=3, block=128, args=[y, x, w, rows, n])
    ref = x / np.sqrt((x * x).mean(axis=1, keepdims=True) + 1e-6) * w
    np.testing.assert_allclose(y, ref, rtol=1e-4, atol=1e-5)


def test_tiled_matmul_tile_loads_in_a_helper(mod) -> None:
    M, N, K = 37, 29, 45
    rng = np.random.default_rng(4)
    A, B = rng.random((M, K), np.float32), rng.random((K, N), np.float32)
    C = np.zeros((M, N), np.float32)
    run_kernel(mod, _name(mod, "tiled_matmul"), grid=(2, 3), block=(16, 16), args=[C, A, B, M, N, K])
    np.testing.assert_allclose(C, A @ B, rtol=1e-5)


def test_recursion_and_virtual_calls(mod, monkeypatch) -> None:
    monkeypatch.setenv("IRC_LIMIT_EMU_MAX_CALL_DEPTH", "9")  # fib(7) nests 8 calls deep: enough, and fast
    n = 64
    x = np.arange(n, dtype=np.float32)
    area, fibs = np.zeros(n, np.float32), np.zeros(n, np.int32)
    run_kernel(mod, _name(mod, "calls"), grid=1, block=n, args=[area, fibs, x, n])
    fib = [0, 1]
    while len(fib) < 8:
        fib.append(fib[-1] + fib[-2])
    np.testing.assert_array_equal(fibs, np.array(fib, np.int32)[np.arange(n) % 8])
    np.testing.assert_array_equal(area, np.where(np.arange(n) & 1, x * x, 0.5 * x * x).astype(np.float32))


def test_recursion_beyond_the_limit_is_a_limit_error_at_the_call(mod, monkeypatch) -> None:
    monkeypatch.setenv("IRC_LIMIT_EMU_MAX_CALL_DEPTH", "4")
    n = 32
    args = [np.zeros(n, np.float32), np.zeros(n, np.int32), np.ones(n, np.float32), n]
    with pytest.raises(LimitError) as e:
        run_kernel(mod, _name(mod, "calls"), grid=1, block=n, args=args)
    assert "emu_max_call_depth" in e.value.message and "IRC_LIMIT_EMU_MAX_CALL_DEPTH" in e.value.message
    assert e.value.source.endswith("examples_g.cu:142")  # the recursive call in fib
    # a recursion that stays within the depth that was inlined runs: fib(2) needs 3 levels
    args[3] = 3
    monkeypatch.setenv("IRC_LIMIT_EMU_MAX_CALL_DEPTH", "4")
    run_kernel(mod, _name(mod, "calls"), grid=1, block=n, args=args)


def test_indirect_call_through_a_bad_pointer_is_located() -> None:
    ptx = """
.version 8.0
.target sm_80
.address_size 64
.func (.param .b32 r) f(.param .b32 a)
{
  .reg .b32 %r<2>;
  ld.param.b32 %r1, [a];
  st.param.b32 [r], %r1;
  ret;
}
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<3>;
  .reg .b64 %rd<4>;
  mov.u64 %rd1, f;
  add.u64 %rd1, %rd1, 4;
  {
  .param .b32 p0;
  .param .b32 r0;
  st.param.b32 [p0], 7;
  prototype_0 : .callprototype (.param .b32 _) _ (.param .b32 _);
  call (r0), %rd1, (p0), prototype_0;
  ld.param.b32 %r1, [r0];
  }
  ret;
}
"""
    with pytest.raises(BadCallError, match="indirect call through a pointer"):
        run_kernel(parse_ptx(ptx), "k", args=[np.zeros(1, np.uint32)])
