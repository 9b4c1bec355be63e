// The CUDA twin of examples/fmha_sm100.kdsl: flash attention forward on Blackwell (sm_100a) with TMA, an
// mbarrier pipeline and tcgen05.mma accumulating S and O in tensor memory. Written for irc's tests: its
// nvcc PTX (regen.sh) must check clean with `irc check`, run in irc's emulator and match numpy.
//
// q, k, v: [bh, seq_len, D] 16-bit (f16, or bf16 bits when `bf16` != 0), as 3-D tensor maps with boxes
// {8, rows, 1} (innermost first: 8 head dims x rows x one (batch, head)); o: [bh, seq_len, D] f32.
// Grid (ceil(seq_len / 128), bh), block 192, dynamic shared memory fmha_smem_bytes(D) (see below).
// Warp 0 loads (elected lane), warp 1 issues the MMAs (elected lane), warps 2..5 run the softmax, the
// correction of O in tensor memory and the epilogue; one query row per thread. The barriers, parities and
// shared layouts are those of the .kdsl kernel (see its header).
#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cstdint>

#define DEV __device__ __forceinline__

namespace {

constexpr int BM = 128;  // queries per CTA (TMEM lanes, MMA M)
constexpr int BN = 64;   // keys per tile
constexpr uint32_t S_COL = 0, O_COL = 128, TMEM_COLS = 256;

DEV uint32_t smem_addr(const void* p) { return static_cast<uint32_t>(__cvta_generic_to_shared(p)); }

DEV void mbar_init(uint32_t bar, uint32_t count) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(count) : "memory");
}
DEV void mbar_arrive_expect_tx(uint32_t bar, uint32_t bytes) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes) : "memory");
}
DEV void mbar_arrive(uint32_t bar) {
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(bar) : "memory");
}
// The polling loop is in PTX (`L: try_wait; @!p bra L`), the form CUTLASS uses; the label is local to the
// braces, so every inlined copy has its own. FMHA_C_POLL polls from C instead (the same protocol).
#ifdef FMHA_C_POLL
DEV bool mbar_try_wait(uint32_t bar, uint32_t parity) {
    uint32_t done;
    asm volatile(
        "{\n .reg .pred p;\n mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n selp.u32 %0, 1, 0, p;\n}"
        : "=r"(done)
        : "r"(bar), "r"(parity)
        : "memory");
    return done != 0;
}
DEV void mbar_wait(uint32_t bar, uint32_t parity) {
    while (!mbar_try_wait(bar, parity)) {
    }
}
#else
DEV void mbar_wait(uint32_t bar, uint32_t parity) {
    asm volatile(
        "{\n .reg .pred p;\n WAIT:\n mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n @!p bra WAIT;\n}" ::"r"(
            bar),
        "r"(parity)
        : "memory");
}
#endif

DEV bool elect_one() {
    uint32_t is_leader;
    asm volatile("{\n .reg .pred p;\n .reg .b32 r;\n elect.sync r|p, 0xffffffff;\n selp.u32 %0, 1, 0, p;\n}"
                 : "=r"(is_leader));
    return is_leader != 0;
}
DEV void tma_load_3d(uint32_t dst, const CUtensorMap* map, int c0, int c1, int c2, uint32_t bar) {
    asm volatile(
        "cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4}], "
        "[%5];" ::"r"(dst),
        "l"(map), "r"(c0), "r"(c1), "r"(c2), "r"(bar)
        : "memory");
}
DEV void tc_fence_before() { asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory"); }
DEV void tc_fence_after() { asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory"); }

// Shared-memory matrix descriptor, no swizzle: start >> 4, LBO >> 4 at bit 16, SBO >> 4 at bit 32, version 1
// at bit 46.
DEV uint64_t sdesc(uint32_t addr, uint32_t lbo, uint32_t sbo) {
    return static_cast<uint64_t>((addr >> 4) & 0x3FFF) | (static_cast<uint64_t>((lbo >> 4) & 0x3FFF) << 16) |
           (static_cast<uint64_t>((sbo >> 4) & 0x3FFF) << 32) | (1ull << 46);
}
DEV void umma_f16(uint32_t d_tmem, uint64_t a, uint64_t b, uint32_t idesc, uint32_t accumulate) {
    asm volatile(
        "{\n .reg .pred p;\n setp.ne.u32 p, %4, 0;\n tcgen05.mma.cta_group::1.kind::f16 [%0], %1, %2, %3, p;\n}" ::"r"(
            d_tmem),
        "l"(a), "l"(b), "r"(idesc), "r"(accumulate)
        : "memory");
}
DEV void umma_commit(uint32_t bar) {
    asm volatile("tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%0];" ::"r"(bar)
                 : "memory");
}
// 16 columns of this warp's 32 TMEM lanes: thread l gets lane (taddr >> 16) + l, columns taddr + 0..15.
DEV void tmem_ld16(uint32_t taddr, float* v) {
    asm volatile(
        "tcgen05.ld.sync.aligned.32x32b.x16.b32 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, "
        "%15}, [%16];"
        : "=f"(v[0]), "=f"(v[1]), "=f"(v[2]), "=f"(v[3]), "=f"(v[4]), "=f"(v[5]), "=f"(v[6]), "=f"(v[7]),
          "=f"(v[8]), "=f"(v[9]), "=f"(v[10]), "=f"(v[11]), "=f"(v[12]), "=f"(v[13]), "=f"(v[14]), "=f"(v[15])
        : "r"(taddr)
        : "memory");
}
DEV void tmem_st16(uint32_t taddr, const float* v) {
    asm volatile(
        "tcgen05.st.sync.aligned.32x32b.x16.b32 [%0], {%1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, "
        "%14, %15, %16};" ::"r"(taddr),
        "f"(v[0]), "f"(v[1]), "f"(v[2]), "f"(v[3]), "f"(v[4]), "f"(v[5]), "f"(v[6]), "f"(v[7]), "f"(v[8]),
        "f"(v[9]), "f"(v[10]), "f"(v[11]), "f"(v[12]), "f"(v[13]), "f"(v[14]), "f"(v[15])
        : "memory");
}
DEV void tmem_wait_ld() { asm volatile("tcgen05.wait::ld.sync.aligned;" ::: "memory"); }
DEV void tmem_wait_st() { asm volatile("tcgen05.wait::st.sync.aligned;" ::: "memory"); }

// kind::f16 instruction descriptor: f32 D, f16/bf16 A and B, optional MN-major B, N >> 3, M >> 4.
DEV uint32_t idesc_f16(uint32_t ab, uint32_t transpose_b, uint32_t n) {
    return (1u << 4) | (ab << 7) | (ab << 10) | (transpose_b << 16) | ((n >> 3) << 17) | ((BM >> 4) << 24);
}

// Dynamic shared memory carve-up (offsets from a 1024-byte aligned base): Q [D/8][128][8], K and V
// [2][D/8][64][8], P [8][128][8] (16-bit elements). The mbarriers and the TMEM address slot are static
// __shared__ variables (so their addresses are shared symbols in the PTX).
template <int D>
struct Layout {
    static constexpr uint32_t q = 0;
    static constexpr uint32_t k = q + BM * D * 2;
    static constexpr uint32_t v = k + 2 * BN * D * 2;
    static constexpr uint32_t p = v + 2 * BN * D * 2;
    static constexpr uint32_t bytes = p + BM * BN * 2 + 1024;  // + slack to align the base
};

template <int D>
DEV void fmha(float* __restrict__ o, const CUtensorMap* qm, const CUtensorMap* km, const CUtensorMap* vm,
              uint32_t seq_len, float scale, uint32_t causal, uint32_t bf16) {
    using L = Layout<D>;
    extern __shared__ uint8_t dyn_smem[];
    const uint32_t base = (smem_addr(dyn_smem) + 1023u) & ~1023u;
    uint8_t* gbase = dyn_smem + (base - smem_addr(dyn_smem));
    const uint32_t q_s = base + L::q, k_s = base + L::k, v_s = base + L::v, p_s = base + L::p;
    __shared__ __align__(8) uint64_t bars[8];  // q_full, kv_full[2], kv_empty[2], s_full, p_full, o_done
    __shared__ uint32_t tslot;
    const uint32_t q_full = smem_addr(&bars[0]), s_full = smem_addr(&bars[5]), p_full = smem_addr(&bars[6]),
                   o_done = smem_addr(&bars[7]);
    auto kv_full = [&](uint32_t s) { return smem_addr(&bars[1 + s]); };
    auto kv_empty = [&](uint32_t s) { return smem_addr(&bars[3 + s]); };
    uint16_t* p_gen = reinterpret_cast<uint16_t*>(gbase + L::p);

    const uint32_t warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const uint32_t bh = blockIdx.y, q0 = blockIdx.x * BM;
    const uint32_t n_all = (seq_len + BN - 1) / BN;
    const uint32_t n_kv = causal ? min(n_all, (q0 + BM + BN - 1) / BN) : n_all;

    if (threadIdx.x == 0) {
        mbar_init(q_full, 1);
        for (uint32_t s = 0; s < 2; ++s) {
            mbar_init(kv_full(s), 1);
            mbar_init(kv_empty(s), 1);
        }
        mbar_init(s_full, 1);
        mbar_init(p_full, 128);
        mbar_init(o_done, 1);
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
    if (warp == 0) {
        asm volatile("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%0], %1;" ::"r"(smem_addr(&tslot)),
                     "r"(TMEM_COLS)
                     : "memory");
        asm volatile("tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;" ::: "memory");
    }
    tc_fence_before();
    __syncthreads();
    tc_fence_after();
    const uint32_t taddr = *static_cast<volatile uint32_t*>(&tslot);

    if (warp == 0) {
        // load role
        if (elect_one()) {
            mbar_arrive_expect_tx(q_full, BM * D * 2);
#pragma unroll
            for (int c = 0; c < D / 8; ++c) tma_load_3d(q_s + c * BM * 16, qm, c * 8, q0, bh, q_full);
#ifndef FMHA_UNROLLED_PRODUCER  // one key tile per iteration (nvcc would unroll this loop 4x otherwise)
#pragma unroll 1
#endif
            for (uint32_t j = 0; j < n_kv; ++j) {
                const uint32_t s = j % 2;
#ifdef FMHA_BUG_PRODUCER_PARITY  // the injected mistake: the producer always waits on parity 1
                if (j >= 2) mbar_wait(kv_empty(s), 1);
#else
                if (j >= 2) mbar_wait(kv_empty(s), (j / 2 - 1) % 2);
#endif
#ifdef FMHA_BUG_NO_EXPECT_TX
                mbar_arrive(kv_full(s));  // the injected mistake: the K/V bytes are never announced
#else
                mbar_arrive_expect_tx(kv_full(s), 2 * BN * D * 2);
#endif
#pragma unroll
                for (int c = 0; c < D / 8; ++c) {
                    const uint32_t off = s * BN * D * 2 + c * BN * 16;
                    tma_load_3d(k_s + off, km, c * 8, j * BN, bh, kv_full(s));
                    tma_load_3d(v_s + off, vm, c * 8, j * BN, bh, kv_full(s));
                }
            }
        }
    } else if (warp == 1) {
        // MMA role
        if (elect_one()) {
            const uint32_t idesc_s = idesc_f16(bf16, 0, BN), idesc_o = idesc_f16(bf16, 1, D);
            mbar_wait(q_full, 0);
#pragma unroll 1  // one key tile per iteration
            for (uint32_t j = 0; j < n_kv; ++j) {
                const uint32_t s = j % 2;
#ifdef FMHA_BUG_PARITY
                mbar_wait(kv_full(s), 0);  // the injected mistake: a fixed parity (passes on stale phases)
#else
                mbar_wait(kv_full(s), (j / 2) % 2);
#endif
                tc_fence_after();
#pragma unroll
                for (int kk = 0; kk < D / 16; ++kk) {
                    const uint64_t a = sdesc(q_s + 2 * kk * BM * 16, BM * 16, 128);
                    const uint64_t b = sdesc(k_s + s * BN * D * 2 + 2 * kk * BN * 16, BN * 16, 128);
                    umma_f16(taddr + S_COL, a, b, idesc_s, kk > 0);
                }
                umma_commit(s_full);
                mbar_wait(p_full, j % 2);  // P_j stored and O rescaled
                tc_fence_after();
#pragma unroll
                for (int kk = 0; kk < BN / 16; ++kk) {
                    const uint64_t a = sdesc(p_s + 2 * kk * BM * 16, BM * 16, 128);
                    // V is MN-major: LBO steps 8 keys (128 bytes), SBO one 8-column chunk (BN * 16 bytes)
                    const uint64_t b = sdesc(v_s + s * BN * D * 2 + kk * 16 * 16, 128, BN * 16);
                    umma_f16(taddr + O_COL, a, b, idesc_o, j > 0 || kk > 0);
                }
                umma_commit(kv_empty(s));
                umma_commit(o_done);
            }
        }
    } else {
        // softmax + correction + epilogue: one query row per thread
        const uint32_t quad = warp % 4, row = quad * 32 + lane, qrow = q0 + row;
        const uint32_t lanes = taddr + ((quad * 32) << 16);
        const float qk_scale = scale * 1.4426950408889634f;
        float m = -INFINITY, l = 0.0f;
#pragma unroll 1
        for (uint32_t j = 0; j < n_kv; ++j) {
            mbar_wait(s_full, j % 2);
            tc_fence_after();
            float sc[BN];
#pragma unroll
            for (int c = 0; c < BN; c += 16) tmem_ld16(lanes + S_COL + c, sc + c);
            tmem_wait_ld();
            float mx = -INFINITY;
#pragma unroll
            for (int e = 0; e < BN; ++e) {
                const uint32_t key = j * BN + e;
                const bool ok = key < seq_len && (!causal || key <= qrow);
                sc[e] = ok ? sc[e] * qk_scale : -INFINITY;
                mx = fmaxf(mx, sc[e]);
            }
            const float m_old = m;  // the running max before the update: the rescale needs it
            m = fmaxf(m, mx);
            const float alpha = exp2f(m_old - m);
            float rs = 0.0f;
#pragma unroll
            for (int e = 0; e < BN; ++e) {
                sc[e] = exp2f(sc[e] - m);
                rs += sc[e];
            }
            l = l * alpha + rs;
            if (j > 0) {
                mbar_wait(o_done, (j - 1) % 2);  // P·V of tile j - 1 is complete
                tc_fence_after();
#pragma unroll
                for (int c = 0; c < D; c += 16) {
                    float ov[16];
                    tmem_ld16(lanes + O_COL + c, ov);
                    tmem_wait_ld();
#pragma unroll
                    for (int e = 0; e < 16; ++e) ov[e] *= alpha;
                    tmem_st16(lanes + O_COL + c, ov);
                }
                tmem_wait_st();
            }
#pragma unroll
            for (int e = 0; e < BN; ++e) {
                const uint16_t bits = bf16 ? __bfloat16_as_ushort(__float2bfloat16_rn(sc[e]))
                                           : __half_as_ushort(__float2half_rn(sc[e]));
                p_gen[(e / 8) * BM * 8 + row * 8 + e % 8] = bits;
            }
            asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
            tc_fence_before();
            mbar_arrive(p_full);
        }
        mbar_wait(o_done, (n_kv - 1) % 2);
        tc_fence_after();
        const float inv = 1.0f / l;
        float* orow = o + (static_cast<size_t>(bh) * seq_len + qrow) * D;
#pragma unroll
        for (int c = 0; c < D; c += 16) {
            float ov[16];
            tmem_ld16(lanes + O_COL + c, ov);
            tmem_wait_ld();
            if (qrow < seq_len) {
#pragma unroll
                for (int e = 0; e < 16; ++e) orow[c + e] = ov[e] * inv;
            }
        }
    }
    tc_fence_before();
    __syncthreads();
    if (warp == 0) {
        asm volatile("tcgen05.dealloc.cta_group::1.sync.aligned.b32 %0, %1;" ::"r"(taddr), "r"(TMEM_COLS)
                     : "memory");
    }
}

}  // namespace

extern "C" __global__ void __launch_bounds__(192, 1)
    fmha_sm100_d64(float* o, const __grid_constant__ CUtensorMap q_map, const __grid_constant__ CUtensorMap k_map,
                   const __grid_constant__ CUtensorMap v_map, uint32_t seq_len, float scale, uint32_t causal,
                   uint32_t bf16) {
    fmha<64>(o, &q_map, &k_map, &v_map, seq_len, scale, causal, bf16);
}

extern "C" __global__ void __launch_bounds__(192, 1)
    fmha_sm100_d128(float* o, const __grid_constant__ CUtensorMap q_map, const __grid_constant__ CUtensorMap k_map,
                    const __grid_constant__ CUtensorMap v_map, uint32_t seq_len, float scale, uint32_t causal,
                    uint32_t bf16) {
    fmha<128>(o, &q_map, &k_map, &v_map, seq_len, scale, causal, bf16);
}

// Host side (not compiled by regen.sh): dynamic shared bytes per head dim.
extern "C" __host__ __device__ constexpr uint32_t fmha_smem_bytes(int d) {
    return d == 64 ? Layout<64>::bytes : Layout<128>::bytes;
}
