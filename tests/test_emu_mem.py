"""State spaces and atomics: local arrays, dynamic shared memory, generic pointers, atomics under
conflicts, bar.red / bar.arrive, vote/elect, mbarrier state tokens (hand-written PTX and nvcc output)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from emu_util import ptx_kernel

from irc.emu import run_kernel

DATA = Path(__file__).parent / "data" / "emu"


@pytest.fixture(scope="module")
def mod():
    from irc.frontend.ptx.parser import parse_ptx

    return parse_ptx((DATA / "kernels.ptx").read_text(), str(DATA / "kernels.ptx"))


def test_local_array(mod):
    n = 300
    idx = np.random.default_rng(0).integers(0, 1024, n).astype(np.int32)
    out = np.zeros(n, np.int32)
    run_kernel(mod, "local_array", grid=3, block=128, args=[idx, out, n])
    i = np.arange(n)
    np.testing.assert_array_equal(out, (idx & 31) * i + ((idx >> 5) & 31) * i)


def test_dynamic_shared(mod):
    x = np.arange(3 * 96, dtype=np.float32)
    y = np.zeros_like(x)
    run_kernel(mod, "dyn_shared_reverse", grid=3, block=96, args=[x, y], dynamic_shared_bytes=96 * 4)
    np.testing.assert_array_equal(y, x.reshape(3, 96)[:, ::-1].reshape(-1))


@pytest.mark.parametrize("use_shared", [0, 1])
def test_generic_pointer(mod, use_shared):
    g = np.arange(64, dtype=np.float32) + 1000
    out = np.zeros(64, np.float32)
    run_kernel(mod, "generic_ptr", grid=1, block=64, args=[g, out, use_shared])
    src = np.arange(64, dtype=np.float32) * 2 if use_shared else g
    np.testing.assert_array_equal(out, src[::-1])


def test_atomics_mix(mod):
    blocks, threads = 3, 64
    n = blocks * threads
    ints = np.array([0, 0, 0, 0], np.int32)
    u = np.zeros(6 + n, np.uint32)
    u[1], u[2] = 3, 0xFFFFFFFF
    f = np.zeros(1, np.float32)
    d = np.zeros(1, np.float64)
    run_kernel(mod, "atomics_mix", grid=blocks, block=threads, args=[ints, u, f, d])
    assert ints.tolist() == [-(n - 1), n - 1, n * (n - 1) // 2, 7]
    inc, dec = 0, 3
    for _ in range(n):
        inc = 0 if inc >= 10 else inc + 1
        dec = 5 if (dec == 0 or dec > 5) else dec - 1
    assert u[0] == inc and u[1] == dec
    assert u[2] == 0 and u[3] == 0xFFFFFFFF
    x = 0
    for t in range(n):
        x ^= t
    assert u[4] == x and u[5] == n
    assert sorted(u[6:].tolist()) == list(range(n))
    assert f[0] == 0.5 * n and d[0] == 0.25 * n


PRO = """  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd1, %rd1;
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
"""


def test_shared_atomics_cas_exchange_order():
    k = ptx_kernel(
        PRO
        + """  setp.eq.u32 %p1, %r1, 0;
  @%p1 st.shared.u32 [cnt], 0;
  bar.sync 0;
$retry:
  ld.shared.u32 %r2, [cnt];
  add.u32 %r3, %r2, 1;
  atom.shared.cas.b32 %r4, [cnt], %r2, %r3;
  setp.ne.u32 %p2, %r4, %r2;
  @%p2 bra $retry;
  st.global.u32 [%rd3], %r4;
  ret;""",
        decls=".shared .align 4 .u32 cnt;\n",
    )
    out = np.zeros(64, np.uint32)
    run_kernel(k, "k", block=64, args=[out])
    assert sorted(out.tolist()) == list(range(64))  # every CAS winner saw a distinct old value


def test_bar_red_and_arrive():
    k = ptx_kernel(
        PRO
        + """  and.b32 %r2, %r1, 1;
  setp.eq.u32 %p1, %r2, 1;
  bar.red.popc.u32 %r3, 0, %p1;
  setp.lt.u32 %p2, %r1, 100;
  bar.red.and.pred %p3, 1, %p2;
  selp.u32 %r4, 1000, 0, %p3;
  add.u32 %r5, %r3, %r4;
  st.global.u32 [%rd3], %r5;
  ret;"""
    )
    out = np.zeros(64, np.uint32)
    run_kernel(k, "k", grid=2, block=64, args=[out])
    assert (out == 1032).all()


def test_named_barrier_producer_consumer():
    # warp 0 produces and arrives on barrier 1; warp 1 waits (bar.sync 1, 64) then reads
    k = ptx_kernel(
        PRO
        + """  setp.lt.u32 %p1, %r1, 32;
  @!%p1 bra $consumer;
  shl.b32 %r2, %r1, 2;
  mov.u32 %r3, buf;
  add.u32 %r4, %r3, %r2;
  mul.lo.u32 %r5, %r1, 3;
  st.shared.u32 [%r4], %r5;
  bar.arrive 1, 64;
  bra $done;
$consumer:
  bar.sync 1, 64;
  sub.u32 %r6, %r1, 32;
  shl.b32 %r2, %r6, 2;
  mov.u32 %r3, buf;
  add.u32 %r4, %r3, %r2;
  ld.shared.u32 %r5, [%r4];
  st.global.u32 [%rd3], %r5;
$done:
  ret;""",
        decls=".shared .align 4 .b8 buf[128];\n",
    )
    out = np.zeros(64, np.uint32)
    run_kernel(k, "k", block=64, args=[out])
    np.testing.assert_array_equal(out[32:], np.arange(32) * 3)


def test_vote_elect_activemask_partial():
    k = ptx_kernel(
        PRO
        + """  and.b32 %r2, %r1, 31;
  setp.lt.u32 %p1, %r2, 12;
  @!%p1 bra $skip;
  activemask.b32 %r3;
  elect.sync %r4|%p2, %r3;
  setp.gt.u32 %p3, %r2, 5;
  vote.sync.ballot.b32 %r5, %p3, %r3;
  vote.sync.uni.pred %p4, %p3, %r3;
  selp.u32 %r6, 1, 0, %p2;
  selp.u32 %r7, 1, 0, %p4;
  xor.b32 %r8, %r5, %r4;
  shl.b32 %r9, %r6, 20;
  shl.b32 %r10, %r7, 21;
  or.b32 %r8, %r8, %r9;
  or.b32 %r8, %r8, %r10;
  st.global.u32 [%rd3], %r8;
$skip:
  ret;"""
    )
    out = np.zeros(64, np.uint32)
    run_kernel(k, "k", block=64, args=[out])
    ball = sum(1 << j for j in range(6, 12))
    for t in range(64):
        lane = t % 32
        if lane < 12:
            assert out[t] == (ball ^ 0) | ((lane == 0) << 20)


def test_mbarrier_state_token_and_expect_tx():
    k = ptx_kernel(
        PRO
        + """  setp.eq.u32 %p1, %r1, 0;
  @%p1 mbarrier.init.shared::cta.b64 [bar], 32;
  bar.sync 0;
  @%p1 mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [bar], 8;
  mbarrier.arrive.shared::cta.b64 %rd5, [bar];
  @%p1 mbarrier.complete_tx.shared::cta.b64 [bar], 8;
$w:
  mbarrier.test_wait.shared::cta.b64 %p2, [bar], %rd5;
  @!%p2 bra $w;
  cvt.u32.u64 %r2, %rd5;
  mbarrier.arrive.shared::cta.b64 %rd6, [bar];
$w2:
  mbarrier.try_wait.shared::cta.b64 %p3, [bar], %rd6;
  @!%p3 bra $w2;
  cvt.u32.u64 %r3, %rd6;
  shl.b32 %r3, %r3, 4;
  or.b32 %r4, %r2, %r3;
  st.global.u32 [%rd3], %r4;
  ret;""",
        decls=".shared .align 8 .b64 bar;\n",
    )
    out = np.zeros(32, np.uint32)
    run_kernel(k, "k", block=32, args=[out])
    assert (out == 0x10).all()  # tokens: phase 0 for the first arrive, phase 1 for the second


def test_const_and_global_variables():
    k = ptx_kernel(
        PRO
        + """  ld.const.u32 %r2, [tab+8];
  mov.u64 %rd4, gcount;
  atom.global.add.u32 %r3, [%rd4], 1;
  ld.global.u32 %r4, [gval];
  add.u32 %r5, %r2, %r4;
  st.global.u32 [%rd3], %r5;
  ret;""",
        decls=".const .align 4 .u32 tab[4] = {1, 2, 3, 4};\n.global .align 4 .u32 gcount;\n"
        ".global .align 4 .u32 gval = 40;\n",
    )
    out = np.zeros(8, np.uint32)
    run_kernel(k, "k", block=8, args=[out])
    assert (out == 43).all()
