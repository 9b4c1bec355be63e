"""Lowering of .kdsl to the SSA IR: behaviour checked by running the compiled kernels in the emulator and
comparing with numpy, plus structural checks on the IR itself (verifier, spans, name hints, SSA shape)."""

from __future__ import annotations

import glob
import math
import os

import numpy as np
import pytest

import irc.api
from irc.compiler import CompileOptions, compile_kdsl
from irc.diagnostics import CompileError
from irc.frontend.kdsl.lower import compile_to_ir
from irc.ir.printer import print_module
from irc.ir.verifier import verify

HERE = os.path.dirname(__file__)
ROOT = os.path.dirname(HERE)
DATA = os.path.join(HERE, "data", "kdsl_lower")


def ir_of(src: str, arch: str = "sm_80", defines: dict | None = None):
    m = compile_to_ir(src, "t.kdsl", defines=defines, arch=arch)
    assert verify(m) == []
    return m


def build(src: str, arch: str = "sm_80", defines: dict | None = None):
    ir_of(src, arch, defines)  # the verifier runs inside compile_to_ir too; keep the check explicit
    return irc.api.compile(src, arch=arch, defines=defines, cache=False)


def run(src: str, grid, block, args, name: str = "k", arch: str = "sm_80"):
    mod = build(src, arch)
    mod[name].launch(grid, block, args)
    return args


def ops(m, name: str) -> list:
    return [op for fn in m.kernels for op in fn.ops() if op.name == name]


# ----------------------------------------------------------------------------------------- basics
def test_vector_add_with_bounds():
    src = """
    kernel k(out: *global f32, x: *global f32, y: *global f32, n: u32) {
        let i = ctaid.x * ntid.x + tid.x;
        if i < n { out[i] = x[i] + y[i]; }
    }"""
    n = 200
    x, y = np.arange(n, dtype=np.float32), np.full(n, 0.5, np.float32)
    out = np.zeros(n, np.float32)
    run(src, 4, 64, [out, x, y, n])
    np.testing.assert_array_equal(out, x + y)


def test_loop_with_carried_values_and_step():
    src = """
    kernel k(out: *global f32, x: *global f32, n: u32) {
        let t = tid.x;
        var s = 0.0;
        var c = 0u32;
        for j in t..n step 4 { s += x[j]; c += 1; }
        out[t] = s + (c as f32) * 1000.0;
    }"""
    n = 37
    x = np.arange(n, dtype=np.float32)
    out = np.zeros(4, np.float32)
    run(src, 1, 4, [out, x, n])
    exp = [x[t::4].sum() + 1000.0 * len(range(t, n, 4)) for t in range(4)]
    np.testing.assert_allclose(out, exp)


def test_signed_loop_and_empty_range():
    src = """
    kernel k(out: *global i32, a: i32, b: i32) {
        var s = 0;
        for i in a..b { s += i; }
        out[tid.x] = s;
    }"""
    out = np.zeros(1, np.int32)
    run(src, 1, 1, [out, -5, 3])
    assert out[0] == sum(range(-5, 3))
    run(src, 1, 1, [out, 3, -5])
    assert out[0] == 0


def test_while_break_continue():
    src = """
    kernel k(out: *global u32, start: *global u32) {
        let t = tid.x;
        var x = start[t];
        var steps = 0u32;
        var odd = 0u32;
        while x != 1 {
            steps += 1;
            if steps > 100 { break; }
            if x % 2 == 0 { x = x / 2; continue; }
            odd += 1;
            x = 3 * x + 1;
        }
        out[t] = steps * 1000 + odd;
    }"""
    start = np.array([1, 2, 3, 6, 7, 27, 97, 5], np.uint32)
    out = np.zeros(8, np.uint32)
    run(src, 1, 8, [out, start])

    def ref(x: int) -> int:
        steps = odd = 0
        while x != 1:
            steps += 1
            if steps > 100:
                break
            if x % 2 == 0:
                x //= 2
                continue
            odd += 1
            x = 3 * x + 1
        return steps * 1000 + odd

    assert list(out) == [ref(int(v)) for v in start]


def test_nested_loops_break_inner_only():
    src = """
    kernel k(out: *global u32) {
        var total = 0u32;
        for i in 0u32..5 {
            for j in 0u32..10 {
                if j > i { break; }
                total += j;
            }
        }
        out[tid.x] = total;
    }"""
    out = np.zeros(1, np.uint32)
    run(src, 1, 1, [out])
    assert out[0] == sum(j for i in range(5) for j in range(10) if j <= i)


def test_early_return_in_kernel():
    src = """
    kernel k(out: *global f32, n: u32) {
        let i = tid.x;
        if i >= n { return; }
        out[i] = 7.0;
    }"""
    out = np.zeros(32, np.float32)
    run(src, 1, 32, [out, 10])
    assert list(out[:10]) == [7.0] * 10 and not out[10:].any()


def test_short_circuit_side_effects():
    src = """
    kernel k(out: *global u32, cnt: *global u32, n: u32) {
        let i = tid.x;
        var hit = 0u32;
        if i < n && atomic_add(&cnt[0], 1u32) < 1000000 { hit = 1; }
        if i < n || atomic_add(&cnt[1], 1u32) > 1000000 { hit += 2; }
        out[i] = hit;
    }"""
    out = np.zeros(32, np.uint32)
    cnt = np.zeros(2, np.uint32)
    run(src, 1, 32, [out, cnt, 12])
    assert cnt[0] == 12 and cnt[1] == 20
    assert list(out) == [3] * 12 + [0] * 20


def test_ternary_guarded_load_and_select():
    src = """
    kernel k(out: *global f32, x: *global f32, n: u32) {
        let i = tid.x;
        let v = i < n ? x[i] : -1.0;
        let w = i % 2 == 0 ? v : v * 10.0;
        out[i] = w;
    }"""
    x = np.arange(5, dtype=np.float32) + 1  # only 5 elements: the guarded load must not run for i >= 5
    out = np.zeros(8, np.float32)
    run(src, 1, 8, [out, x, 5])
    ref = [(x[i] if i < 5 else -1.0) * (1 if i % 2 == 0 else 10) for i in range(8)]
    np.testing.assert_allclose(out, ref)
    m = ir_of(src)
    assert ops(m, "select")  # the side-effect-free ternary


def test_value_semantics_old_max():
    src = """
    kernel k(out: *global f32, x: *global f32, n: u32) {
        var m = -inf;
        var s = 0.0;
        for j in 0u32..n {
            let v = x[j];
            let old = m;
            m = max(m, v);
            s = s * exp2(old - m) + exp2(v - m);
        }
        out[0] = m;
        out[1] = s;
    }"""
    x = np.array([0.5, 3.0, -1.0, 2.0, 4.0, 1.0], np.float32)
    out = np.zeros(2, np.float32)
    run(src, 1, 1, [out, x, len(x)])
    assert out[0] == 4.0
    np.testing.assert_allclose(out[1], np.sum(np.exp2(x - 4.0)), rtol=1e-5)


def test_inlined_fn_with_early_return_and_value_params():
    src = """
    fn clampi(x: i32, lo: i32, hi: i32) -> i32 {
        if x < lo { return lo; }
        if x > hi { return hi; }
        return x;
    }
    fn bump(v: i32) -> i32 {
        var v2 = v;
        v2 += 100;      // a parameter copy: the caller's value is unchanged
        return v2;
    }
    kernel k(out: *global i32, x: *global i32) {
        let i = tid.x;
        let a = x[i];
        let c = clampi(a, -3, 4);
        let b = bump(a);
        out[i] = c * 1000 + (b - a);
    }"""
    x = np.arange(-6, 10, dtype=np.int32)
    out = np.zeros(16, np.int32)
    run(src, 1, 16, [out, x])
    np.testing.assert_array_equal(out, np.clip(x, -3, 4) * 1000 + 100)


def test_unroll_and_compile_time_lists():
    src = """
    kernel k(out: *global f32, x: *global f32) {
        let i = tid.x;
        var acc = 0.0;
        unroll for kk in 0..4 {
            acc += x[i * 4 + kk] * (kk as f32);
        }
        for d in [1u32, 2, 4] {
            acc += (d as f32) * 100.0;
        }
        out[i] = acc;
    }"""
    x = np.arange(32, dtype=np.float32)
    out = np.zeros(8, np.float32)
    run(src, 1, 8, [out, x])
    ref = (x.reshape(8, 4) * np.arange(4)).sum(1) + 700.0
    np.testing.assert_allclose(out, ref)
    m = ir_of(src)
    assert len(m.kernels[0].blocks) == 1  # fully unrolled: straight-line code


def test_unrolled_break_and_continue():
    src = """
    kernel k(out: *global u32, lim: u32) {
        var s = 0u32;
        unroll for j in 0u32..10 {
            if j == 3 { continue; }
            if j >= lim { break; }
            s += j;
        }
        out[tid.x] = s;
    }"""
    out = np.zeros(1, np.uint32)
    run(src, 1, 1, [out, 7])
    assert out[0] == sum(j for j in range(7) if j != 3)


def test_register_arrays():
    src = """
    kernel k(out: *global f32, x: *global f32) {
        let i = tid.x;
        var a = [0.0; 4];
        unroll for j in 0..4 {
            a[j] = x[i * 4 + j] * 2.0;
        }
        let b = [a[3], a[2], a[1], a[0]];
        var c = b;
        c[0] += 1.0;            // value semantics: b is unchanged
        unroll for j in 0..4 {
            out[i * 8 + j] = c[j];
            out[i * 8 + 4 + j] = b[j];
        }
    }"""
    x = np.arange(16, dtype=np.float32)
    out = np.zeros(32, np.float32)
    run(src, 1, 4, [out, x])
    r = (x.reshape(4, 4) * 2)[:, ::-1]
    c = r.copy()
    c[:, 0] += 1
    np.testing.assert_allclose(out.reshape(4, 8), np.concatenate([c, r], 1))


def test_register_array_index_must_be_constant():
    src = """
    kernel k(out: *global f32, n: u32) {
        var a = [0.0; 4];
        out[0] = a[n];
    }"""
    with pytest.raises(CompileError) as ei:
        compile_to_ir(src, "t.kdsl")
    assert any(d.check == "const-error" for d in ei.value.diagnostics)


def test_shared_memory_barrier_reduction():
    src = """
    @launch(block = 64)
    kernel k(out: *global f32, x: *global f32) {
        shared buf: [f32; 64];
        let t = tid.x;
        buf[t] = x[ctaid.x * 64 + t];
        barrier();
        for s in [32u32, 16, 8, 4, 2, 1] {
            if t < s { buf[t] = buf[t] + buf[t + s]; }
            barrier();
        }
        if t == 0 { out[ctaid.x] = buf[0]; }
    }"""
    x = np.random.default_rng(1).random(128).astype(np.float32)
    out = np.zeros(2, np.float32)
    run(src, 2, 64, [out, x])
    np.testing.assert_allclose(out, x.reshape(2, 64).sum(1), rtol=1e-5)


def test_shared_2d_and_address_of():
    src = """
    @launch(block = 16)
    kernel k(out: *global u32) {
        shared tile: [u32; 4, 4];
        let t = tid.x;
        tile[t / 4, t % 4] = t * 10;
        barrier();
        let p = &tile[t % 4, t / 4];   // transpose through a *shared pointer
        let v = p[0];
        barrier();                     // the atomic after every plain read of the tile (no race)
        out[t] = v + atomic_add(&tile[0, 0], 0u32) * 0;
    }"""
    out = np.zeros(16, np.uint32)
    run(src, 1, 16, [out])
    np.testing.assert_array_equal(out, (np.arange(16).reshape(4, 4).T * 10).ravel())


def test_shuffles():
    src = """
    kernel k(out: *global f32, x: *global f32) {
        let l = laneid;
        var v = x[l];
        for d in [16u32, 8, 4, 2, 1] { v += shfl_xor(v, d); }
        let down = shfl_down(x[l], 1u32);
        let b = shfl_idx(x[l], 5u32);
        out[l] = v;
        out[32 + l] = down;
        out[64 + l] = b;
    }"""
    x = np.arange(32, dtype=np.float32)
    out = np.zeros(96, np.float32)
    run(src, 1, 32, [out, x])
    assert (out[:32] == x.sum()).all()
    np.testing.assert_array_equal(out[32:63], x[1:])
    assert (out[64:] == 5.0).all()


def test_atomics():
    src = """
    kernel k(hist: *global u32, mx: *global i32, cas: *global u32, x: *global u32) {
        let i = ctaid.x * ntid.x + tid.x;
        let v = x[i];
        atomic_add(&hist[v % 8], 1u32);
        atomic_max(mx, (v as i32) - 50);
        let old = atomic_cas(cas, 0u32, i + 1);
    }"""
    x = np.random.default_rng(2).integers(0, 100, 128).astype(np.uint32)
    hist, mx, cas = np.zeros(8, np.uint32), np.full(1, -1000, np.int32), np.zeros(1, np.uint32)
    run(src, 2, 64, [hist, mx, cas, x])
    np.testing.assert_array_equal(hist, np.bincount(x % 8, minlength=8))
    assert mx[0] == int(x.max()) - 50
    assert 1 <= cas[0] <= 128


def test_conversions():
    src = """
    kernel k(oi: *global i32, ou: *global u32, of: *global f32, ol: *global i64, f: *global f32, s: i32) {
        let t = tid.x;
        oi[t] = f[t] as i32;
        ou[t] = f[t] as u32;
        of[t] = (t as i32 - 2) as f32;
        ol[t] = (s - (t as i32)) as i64;
        let flag = f[t] > 0.0;
        ou[8 + t] = flag as u32;
    }"""
    f = np.array([1.7, -1.7, 1e10, -1e10, np.nan, 3e9, -0.5, 255.9], np.float32)
    oi, ou = np.zeros(8, np.int32), np.zeros(16, np.uint32)
    of, ol = np.zeros(8, np.float32), np.zeros(8, np.int64)
    run(src, 1, 8, [oi, ou, of, ol, f, -3])
    assert list(oi) == [1, -1, 2**31 - 1, -(2**31), 0, 2**31 - 1, 0, 255]
    assert list(ou[:8]) == [1, 0, 2**32 - 1, 0, 0, 3000000000, 0, 255]
    np.testing.assert_array_equal(of, np.arange(8) - 2)
    np.testing.assert_array_equal(ol, -3 - np.arange(8))
    assert list(ou[8:]) == [1 if v > 0 else 0 for v in f]


def test_pointer_arithmetic_signed_offsets():
    src = """
    kernel k(out: *global f32, x: *global f32, d: i32) {
        let t = tid.x;
        let p = x + 8;
        let q = p - 3;                  // x + 5
        let r = p + d;                  // d is negative
        let off = (t as i32) - 4;
        out[t] = q[t] + r[0] * 100.0 + (p + off)[0] * 10000.0;
    }"""
    x = np.arange(16, dtype=np.float32)
    out = np.zeros(4, np.float32)
    run(src, 1, 4, [out, x, -6])
    t = np.arange(4)
    np.testing.assert_allclose(out, x[5 + t] + x[2] * 100 + x[4 + t] * 10000)


def test_constant_condition_and_param_define():
    src = """
    param MODE: u32 = 0;
    const FLAG: bool = true;
    kernel k(out: *global u32) {
        var v: u32;
        if MODE == 1 { v = 10; } else { v = 20; }
        if FLAG || out[0] == 5 { v += 1; }
        out[tid.x] = v;
    }"""
    out = np.zeros(1, np.uint32)
    build(src)["k"].launch(1, 1, [out])
    assert out[0] == 21
    build(src, defines={"MODE": 1})["k"].launch(1, 1, [out])
    assert out[0] == 11
    assert not ops(ir_of(src), "cbr")


def test_math_intrinsics():
    src = """
    kernel k(out: *global f32, x: *global f32, iv: *global i32) {
        let t = tid.x;
        let v = x[t];
        out[t] = exp(v);
        out[8 + t] = log(v + 1.0);
        out[16 + t] = fma(v, 2.0, 1.0) + abs(-v) + min(v, 0.5) + sqrt(v);
        out[24 + t] = (abs(iv[t]) + max(iv[t], 0)) as f32 + (popc(t) as f32) * 100.0;
        out[32 + t] = select(v > 0.5, 1.0, -1.0);
    }"""
    x = np.linspace(0.0, 2.0, 8).astype(np.float32)
    iv = np.arange(-4, 4, dtype=np.int32)
    out = np.zeros(40, np.float32)
    run(src, 1, 8, [out, x, iv])
    np.testing.assert_allclose(out[:8], np.exp(x), rtol=1e-4)
    np.testing.assert_allclose(out[8:16], np.log(x + 1), rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(out[16:24], x * 2 + 1 + x + np.minimum(x, 0.5) + np.sqrt(x), rtol=1e-5)
    popc = np.array([bin(t).count("1") for t in range(8)])
    np.testing.assert_allclose(out[24:32], np.abs(iv) + np.maximum(iv, 0) + popc * 100)
    np.testing.assert_array_equal(out[32:], np.where(x > 0.5, 1.0, -1.0))


def test_vote_ballot_and_vectors():
    src = """
    kernel k(out: *global u32, x: *global f32, y: *global f32) {
        let l = laneid;
        out[l] = ballot(l % 3 == 0);
        out[32 + l] = vote_any(l == 7) as u32 + (vote_all(l < 32) as u32) * 2;
        if l == 0 {
            let v = load_vec(x, 4);
            store_vec(y, [v[3], v[2], v[1], v[0]]);
        }
    }"""
    out = np.zeros(64, np.uint32)
    x, y = np.arange(4, dtype=np.float32), np.zeros(4, np.float32)
    run(src, 1, 32, [out, x, y])
    assert (out[:32] == sum(1 << i for i in range(0, 32, 3))).all()
    assert (out[32:] == 3).all()
    np.testing.assert_array_equal(y, x[::-1])


# ----------------------------------------------------------------------------------------- IR shape
def test_spans_and_name_hints_everywhere():
    src = """
    kernel k(out: *global f32, x: *global f32, n: u32) {
        let i = tid.x;
        var acc = 0.0;
        for j in 0u32..n { acc += x[j]; }
        if i < n && acc > 0.0 { out[i] = acc; }
    }"""
    m = ir_of(src)
    fn = m.kernels[0]
    for op in fn.ops():
        assert op.span is not None, op
    text = print_module(m)
    assert "%i." in text and "%acc." in text and "%j." in text


def test_trivial_block_args_removed():
    src = """
    kernel k(out: *global f32, x: *global f32, n: u32) {
        let c = x[0];
        var acc = 0.0;
        for j in 0u32..n { acc += c; }
        out[0] = acc;
    }"""
    fn = ir_of(src).kernels[0]
    # loop header: j and acc only; `c`, `x`, `n`, `out` are loop invariant and need no block argument
    assert max(len(b.args) for b in fn.blocks[1:]) == 2


def test_kernel_attributes_and_shared_decls():
    src = """
    @launch(block = (16, 8, 1))
    @max_registers(64)
    @allow(barrier-divergence)
    kernel k(out: *global f32) {
        shared a: [f16; 16, 128] align 128;
        shared bar: mbarrier;
        shared bars: [mbarrier; 4];
        shared w: [f32; 8];
        out[0] = 1.0;
    }"""
    fn = ir_of(src).kernels[0]
    assert fn.attrs["launch"] == [16, 8, 1] and fn.attrs["max_registers"] == 64
    assert fn.attrs["allow"] == ["barrier-divergence"]
    decls = {s.name: (str(s.type), s.align) for s in fn.shared}
    assert decls == {
        "a": ("[f16; 16, 128]", 128),
        "bar": ("mbarrier", 8),
        "bars": ("[mbarrier; 4]", 8),
        "w": ("[f32; 8]", 4),
    }
    assert all(s.span is not None for s in fn.shared)


def test_uninitialized_read_is_sema_error():
    src = """
    kernel k(out: *global f32, n: u32) {
        var v: f32;
        if n > 3 { v = 1.0; }
        out[0] = v;
    }"""
    with pytest.raises(CompileError) as ei:
        compile_to_ir(src, "t.kdsl")
    assert [d.check for d in ei.value.diagnostics] == ["uninitialized"]


def test_intrinsic_coverage_sm80():
    m = ir_of(open(os.path.join(DATA, "intrinsics_sm80.kdsl")).read())
    names = {op.name for fn in m.kernels for op in fn.ops()}
    for n in (
        "barrier",
        "syncwarp",
        "fence",
        "shfl",
        "vote",
        "activemask",
        "elect",
        "atomic",
        "atomic_cas",
        "load_vec",
        "store_vec",
        "pack_half2",
        "unpack_half2",
        "cp_async",
        "cp_async_commit",
        "cp_async_wait",
        "mbarrier_init",
        "mbarrier_arrive",
        "mbarrier_test_wait",
        "mbarrier_wait",
        "mbarrier_inval",
        "ldmatrix",
        "mma_m16n8k16",
        "wmma_load",
        "wmma_mma",
        "wmma_store",
        "exp2",
        "log2",
        "rsqrt",
        "rcp",
        "sin",
        "cos",
        "tanh",
        "floor",
        "ceil",
        "trunc",
        "round",
        "clz",
    ):
        assert n in names, n
    barriers = [op.attrs for op in ops(m, "barrier")]
    assert {"id": 0} in barriers and {"id": 1, "count": 64} in barriers


def test_intrinsic_coverage_sm100a():
    m = ir_of(open(os.path.join(DATA, "intrinsics_sm100a.kdsl")).read(), arch="sm_100a")
    names = {op.name for fn in m.kernels for op in fn.ops()}
    for n in (
        "tma_load",
        "tma_store",
        "tma_store_commit",
        "tma_store_wait",
        "tma_prefetch",
        "fence_proxy_async",
        "mbarrier_arrive_expect_tx",
        "mbarrier_expect_tx",
        "mbarrier_try_wait",
        "fence_mbarrier_init",
        "tmem_alloc",
        "tmem_relinquish",
        "tmem_dealloc",
        "smem_desc",
        "tcgen05_mma",
        "tcgen05_commit",
        "tcgen05_ld",
        "tcgen05_wait_ld",
        "tcgen05_fence",
    ):
        assert n in names, n


# ----------------------------------------------------------------------------------------- examples
def _arch_for(text: str) -> str:
    if "tcgen05" in text or "tmem_" in text:
        return "sm_100a"
    if "tma_" in text or "expect_tx" in text:
        return "sm_90a"
    return "sm_80"


@pytest.mark.parametrize(
    "path", sorted(glob.glob(os.path.join(ROOT, "examples", "*.kdsl"))), ids=os.path.basename
)
def test_examples_compile(path: str):
    text = open(path).read()
    res = compile_kdsl(text, path, CompileOptions(arch=_arch_for(text)))
    assert res.ptx_text


def test_exp_constant_is_log2e():
    m = ir_of("kernel k(o: *global f32) { o[0] = exp(o[1]); }")
    c = [op.attrs["value"] for op in ops(m, "const") if isinstance(op.attrs["value"], float)]
    assert any(math.isclose(v, 1.4426950408889634, rel_tol=1e-7) for v in c)


# ----------------------------------------------------------------------------------------- more constructs
def test_compound_assignment_bool_ops_and_shared_pointer_offsets():
    src = """
    @launch(block = 1)  // one thread: with more, `t[1, 2] *= 3.0` is a shared-race
    kernel k(out: *global f32, n: u32) {
        shared t: [f32; 4, 4];
        var p = out;
        p += 2;
        p[1] += 5.0;
        t[1, 2] = 1.0;
        t[1, 2] *= 3.0;
        let a = tid.x == 0;
        let b = n > 2;
        let c = a == b;
        let d = a != !b;
        let e = a ? b : c;
        if c && d || e { out[0] = t[1, 2]; }
        let q = &t[2, 0];
        let q2 = q - 2;                 // back into row 1 (negative shared offsets)
        out[1] = q2[0] + (q + (-2))[0];
    }"""
    out = np.zeros(8, np.float32)
    run(src, 1, 1, [out, 5])
    assert list(out[:4]) == [3.0, 6.0, 0.0, 5.0]


def test_inlined_functions_arrays_loops_and_void_returns():
    src = """
    fn swap2(a: [f32; 2]) -> [f32; 2] { return [a[1], a[0]]; }
    fn find(p: *global f32, n: u32, v: f32) -> u32 {
        for i in 0u32..n { if p[i] == v { return i; } }
        return n;
    }
    fn put(p: *global f32, i: u32, v: f32) { if i >= 4 { return; } p[i] = v; }
    kernel k(out: *global f32, x: *global f32) {
        let s = swap2([1.0, 2.0]);
        out[0] = s[0];
        out[1] = s[1];
        var tot = 0u32;
        for j in 0u32..3 { tot += find(x, 8, (j * 2) as f32); }
        out[2] = tot as f32;
        put(out, 3u32, 9.0);
        put(out, 7u32, 9.0);
        var arr = [1.0, 2.0, 3.0];
        let r = tid.x == 0 ? [x[0], x[1], x[2]] : arr;
        out[4] = r[0] + r[1] + r[2];
        unroll for u in 0..4 { if x[u] > 100.0 { return; } }
        out[5] = 42.0;
    }"""
    out, x = np.zeros(8, np.float32), np.arange(8, dtype=np.float32)
    run(src, 1, 1, [out, x])
    assert list(out) == [2.0, 1.0, 6.0, 9.0, 3.0, 42.0, 0.0, 0.0]


def test_pointer_to_pointer_load():
    m = ir_of(
        "kernel k(out: *global f32, k_ptrs: *global *global f32) { let p = k_ptrs[tid.x]; out[0] = p[3]; }"
    )
    loads = ops(m, "load")
    assert str(loads[0].results[0].type) == "*global f32"
    assert [op.operands[1] for op in ops(m, "ptradd") if op.operands[1].op.name == "const"][0].op.attrs == {
        "value": 12
    }


def test_deep_expressions_and_large_unroll():
    deep = "kernel k(o: *global f32) { let x = o[0]; o[1] = " + " + ".join(["x"] * 3000) + "; }"
    assert len(ops(ir_of(deep), "add")) == 2999
    big = (
        "kernel k(o: *global f32) { var a = 0.0; unroll for i in 0..1024 { if o[i] > 0.0 { a += o[i]; } } "
        "o[0] = a; }"
    )
    fn = ir_of(big).kernels[0]
    assert len(fn.blocks) == 2049


def test_unroll_over_limit_is_limit_error():
    src = "kernel k(o: *global f32) { unroll for i in 0..2000 { o[i] = 0.0; } }"
    with pytest.raises(CompileError) as ei:
        compile_to_ir(src, "t.kdsl")
    assert [d.check for d in ei.value.diagnostics] == ["limit-error"]
