"""tcgen05 (sm_100) subset: alloc, mma kind::f16 from shared-memory descriptors, commit, ld 32x32b."""

from __future__ import annotations

import numpy as np
import pytest
from emu_util import ptx_kernel

from irc.emu import EmuError, run_kernel
from irc.emu.dtypes import bf16_to_f32, f32_to_bf16

N = 32
BODY = """  ld.param.u64 %rd1, [ga];
  ld.param.u64 %rd2, [gb];
  ld.param.u64 %rd3, [out];
  ld.param.u64 %rd4, [dhi];
  ld.param.u32 %r20, [idesc];
  ld.param.u32 %r21, [acc];
  mov.u32 %r1, %tid.x;
  shr.u32 %r2, %r1, 5;
  and.b32 %r3, %r1, 31;
  // copy A (1024 words) and B (256 words) into shared memory, 8 + 2 words per thread
  mov.u32 %r4, 0;
$copy:
  shl.b32 %r5, %r4, 7;
  add.u32 %r5, %r5, %r1;
  mul.wide.u32 %rd5, %r5, 4;
  add.s64 %rd6, %rd1, %rd5;
  ld.global.u32 %r6, [%rd6];
  shl.b32 %r7, %r5, 2;
  mov.u32 %r8, sa;
  add.u32 %r8, %r8, %r7;
  st.shared.u32 [%r8], %r6;
  setp.lt.u32 %p1, %r4, 2;
  @!%p1 bra $nob;
  add.s64 %rd7, %rd2, %rd5;
  ld.global.u32 %r6, [%rd7];
  mov.u32 %r8, sb;
  add.u32 %r8, %r8, %r7;
  st.shared.u32 [%r8], %r6;
$nob:
  add.u32 %r4, %r4, 1;
  setp.lt.u32 %p2, %r4, 8;
  @%p2 bra $copy;
  setp.eq.u32 %p3, %r2, 0;
  @!%p3 bra $noalloc;
  tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [tslot], 32;
  tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;
$noalloc:
  setp.eq.u32 %p4, %r1, 0;
  @%p4 mbarrier.init.shared::cta.b64 [mbar], 1;
  fence.proxy.async.shared::cta;
  tcgen05.fence::before_thread_sync;
  bar.sync 0;
  tcgen05.fence::after_thread_sync;
  ld.shared.b32 %r9, [tslot];
  @!%p4 bra $wait;
  mov.u32 %r10, sa;
  shr.u32 %r10, %r10, 4;
  cvt.u64.u32 %rd8, %r10;
  or.b64 %rd8, %rd8, %rd4;
  mov.u32 %r11, sb;
  shr.u32 %r11, %r11, 4;
  cvt.u64.u32 %rd9, %r11;
  or.b64 %rd9, %rd9, %rd4;
  setp.ne.u32 %p5, %r21, 0;
  tcgen05.mma.cta_group::1.kind::f16 [%r9], %rd8, %rd9, %r20, %p5;
  tcgen05.mma.cta_group::1.kind::f16 [%r9], %rd8, %rd9, %r20, 1;
  tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [mbar];
$wait:
  mov.u32 %r12, 0;
$w:
  mbarrier.try_wait.parity.shared::cta.b64 %p6, [mbar], %r12;
  @!%p6 bra $w;
  tcgen05.fence::after_thread_sync;
  shl.b32 %r13, %r2, {lanesh};
  add.u32 %r14, %r9, %r13;
  tcgen05.ld.sync.aligned.32x32b.x8.b32 {%r30, %r31, %r32, %r33, %r34, %r35, %r36, %r37}, [%r14];
  tcgen05.ld.sync.aligned.32x32b.x8.b32 {%r40, %r41, %r42, %r43, %r44, %r45, %r46, %r47}, [%r14+8];
  tcgen05.ld.sync.aligned.32x32b.x8.b32 {%r50, %r51, %r52, %r53, %r54, %r55, %r56, %r57}, [%r14+16];
  tcgen05.ld.sync.aligned.32x32b.x8.b32 {%r22, %r23, %r24, %r25, %r26, %r27, %r28, %r29}, [%r14+24];
  tcgen05.wait::ld.sync.aligned;
  mul.wide.u32 %rd10, %r1, 128;
  add.s64 %rd11, %rd3, %rd10;
  st.global.v4.u32 [%rd11], {%r30, %r31, %r32, %r33};
  st.global.v4.u32 [%rd11+16], {%r34, %r35, %r36, %r37};
  st.global.v4.u32 [%rd11+32], {%r40, %r41, %r42, %r43};
  st.global.v4.u32 [%rd11+48], {%r44, %r45, %r46, %r47};
  st.global.v4.u32 [%rd11+64], {%r50, %r51, %r52, %r53};
  st.global.v4.u32 [%rd11+80], {%r54, %r55, %r56, %r57};
  st.global.v4.u32 [%rd11+96], {%r22, %r23, %r24, %r25};
  st.global.v4.u32 [%rd11+112], {%r26, %r27, %r28, %r29};
  tcgen05.fence::before_thread_sync;
  bar.sync 0;
  @!%p3 bra $end;
  tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r9, 32;
$end:
  ret;"""
DECLS = (
    ".shared .align 1024 .b8 sa[4096];\n.shared .align 1024 .b8 sb[1024];\n.shared .align 8 .b64 mbar;\n"
    ".shared .align 4 .b32 tslot;\n"
)
PARAMS = (
    ".param .u64 ga, .param .u64 gb, .param .u64 out, .param .u64 dhi, .param .u32 idesc, .param .u32 acc"
)


def _canonical(mat: np.ndarray, swizzle: int) -> tuple[np.ndarray, int]:
    """Lay out a rows x 16 matrix of 16-bit values K-major in shared memory; return (image, desc high bits)."""
    rows = mat.shape[0]
    r = np.arange(rows)[:, None]
    k = np.arange(16)[None, :]
    if swizzle == 0:
        lbo, sbo = 128, 256
        addr = (r // 8) * sbo + (k // 8) * lbo + (r % 8) * 16 + (k % 8) * 2
        mode = 0
    else:
        sbo, lbo = 256, 16  # 32-byte swizzle: 32-byte rows, 8-row atoms of 256 bytes
        addr = (r // 8) * sbo + (r % 8) * 32 + k * 2
        addr = addr ^ (((addr >> 7) & 1) << 4)
        mode = 6
    size = max(int(addr.max()) + 2, rows * 32)
    img = np.zeros(size // 2, np.uint16)
    img[(addr // 2).reshape(-1)] = mat.reshape(-1)
    hi = ((lbo >> 4) << 16) | ((sbo >> 4) << 32) | (1 << 46) | (mode << 61)
    return img, hi


@pytest.mark.parametrize("swizzle,acc", [(0, 1), (0, 0), (32, 0)])
def test_tcgen05_mma_bf16(swizzle, acc):
    rng = np.random.default_rng(swizzle + acc)
    A = f32_to_bf16(rng.standard_normal((128, 16)).astype(np.float32))
    B = f32_to_bf16(rng.standard_normal((N, 16)).astype(np.float32))
    ia, hi = _canonical(A, swizzle)
    ib, _ = _canonical(B, swizzle)
    ga = np.zeros(2048, np.uint16)
    ga[: min(ia.size, 2048)] = ia[:2048]
    gb = np.zeros(512, np.uint16)
    gb[: min(ib.size, 512)] = ib[:512]
    idesc = (1 << 4) | (1 << 7) | (1 << 10) | ((N >> 3) << 17) | ((128 >> 4) << 24)
    out = np.zeros((128, 32), np.float32)
    k = ptx_kernel(BODY.replace("{lanesh}", "21"), params=PARAMS, decls=DECLS, target="sm_100a")
    run_kernel(k, "k", block=128, args=[ga, gb, out, hi, idesc, acc])
    ref = bf16_to_f32(A).astype(np.float64) @ bf16_to_f32(B).astype(np.float64).T * 2  # two MMAs
    np.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-5)


def test_tcgen05_ld_outside_warp_quadrant_reported():
    A = np.zeros((128, 16), np.uint16)
    ia, hi = _canonical(A, 0)
    idesc = (1 << 4) | ((N >> 3) << 17) | ((128 >> 4) << 24)
    k = ptx_kernel(BODY.replace("{lanesh}", "20"), params=PARAMS, decls=DECLS, target="sm_100a")
    with pytest.raises(EmuError) as e:
        run_kernel(
            k,
            "k",
            block=128,
            args=[ia, np.zeros(512, np.uint16), np.zeros((128, 32), np.float32), hi, idesc, 0],
        )
    assert e.value.kind == "tmem-access"


def test_tcgen05_mma_mn_major_b():
    # B (N x 16) stored MN-major, no swizzle (PTX ISA ((T,1,m),(8,k)) : ((1,T,SBO),(1T,LBO))): core matrices
    # of 8 K-rows x 8 N-elements; with the same LBO = 128 / SBO = 256 as A's K-major image, and bit 16 of the
    # instruction descriptor set. Without the bit the same image must give a different product.
    rng = np.random.default_rng(16)
    A = rng.standard_normal((128, 16)).astype(np.float16).view(np.uint16)
    B = rng.standard_normal((N, 16)).astype(np.float16).view(np.uint16)
    ia, hi = _canonical(A, 0)
    n = np.arange(N)[:, None]
    kk = np.arange(16)[None, :]
    addr = (n // 8) * 256 + (kk // 8) * 128 + (kk % 8) * 16 + (n % 8) * 2
    gb = np.zeros(512, np.uint16)
    gb[(addr // 2).reshape(-1)] = B.reshape(-1)
    ga = np.zeros(2048, np.uint16)
    ga[: min(ia.size, 2048)] = ia[:2048]
    k = ptx_kernel(BODY.replace("{lanesh}", "21"), params=PARAMS, decls=DECLS, target="sm_100a")
    ref = A.view(np.float16).astype(np.float64) @ B.view(np.float16).astype(np.float64).T * 2  # two MMAs
    for transpose_b in (1, 0):
        idesc = (1 << 4) | (transpose_b << 16) | ((N >> 3) << 17) | ((128 >> 4) << 24)
        out = np.zeros((128, 32), np.float32)
        run_kernel(k, "k", block=128, args=[ga, gb, out, hi, idesc, 0])
        if transpose_b:
            np.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-4)
        else:
            assert not np.allclose(out, ref, rtol=1e-3, atol=1e-2)
