// CUDA equivalent of examples/tma_gemm_sm100.kdsl, same instructions (bench/bench_sass.py): TMA loads,
// mbarrier pipeline, tcgen05.mma into tensor memory, warp 0 producer / warp 1 MMA issuer, all four warps
// read the accumulator. Inline PTX spells each .kdsl intrinsic as irc emits it.
#include <cuda.h>
#include <cstdint>

#define DEV __device__ __forceinline__

namespace {

constexpr uint32_t TILE_M = 128, TILE_N = 64;
constexpr uint32_t STAGE_BYTES = 2 * 128 * 8 * 2 + 2 * 64 * 8 * 2;
constexpr uint32_t IDESC = (1u << 4) | ((64u >> 3) << 17) | ((128u >> 4) << 24);

DEV uint32_t saddr(const void* p) { return static_cast<uint32_t>(__cvta_generic_to_shared(p)); }

DEV void bar_init(uint32_t b, uint32_t n) {
    asm volatile("mbarrier.init.shared.b64 [%0], %1;" ::"r"(b), "r"(n) : "memory");
}
DEV void bar_expect(uint32_t b, uint32_t bytes) {
    asm volatile("mbarrier.arrive.expect_tx.shared.b64 _, [%0], %1;" ::"r"(b), "r"(bytes) : "memory");
}
DEV void bar_wait(uint32_t b, uint32_t parity) {
    asm volatile("{\n .reg .pred p;\n POLL:\n mbarrier.try_wait.parity.shared.b64 p, [%0], %1;\n @!p bra POLL;\n}" ::"r"(b),
                 "r"(parity)
                 : "memory");
}
DEV bool elect() {
    uint32_t one;
    asm volatile("{\n .reg .pred p;\n elect.sync _|p, 0xffffffff;\n selp.u32 %0, 1, 0, p;\n}" : "=r"(one));
    return one != 0;
}
DEV void tma2d(uint32_t dst, const CUtensorMap* map, int c0, int c1, uint32_t b) {
    asm volatile(
        "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];" ::"r"(
            dst),
        "l"(map), "r"(c0), "r"(c1), "r"(b)
        : "memory");
}
DEV void fence_before() { asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory"); }
DEV void fence_after() { asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory"); }
DEV uint64_t desc(uint32_t a, uint32_t lbo, uint32_t sbo) {
    return static_cast<uint64_t>((a >> 4) & 0x3FFF) | (static_cast<uint64_t>((lbo >> 4) & 0x3FFF) << 16) |
           (static_cast<uint64_t>((sbo >> 4) & 0x3FFF) << 32) | (1ull << 46);
}
DEV void mma(uint32_t d, uint64_t a, uint64_t b, uint32_t acc) {
    asm volatile("{\n .reg .pred p;\n setp.ne.u32 p, %3, 0;\n tcgen05.mma.cta_group::1.kind::f16 [%0], %1, %2, %4, p;\n}" ::"r"(
                     d),
                 "l"(a), "l"(b), "r"(acc), "n"(IDESC)
                 : "memory");
}
DEV void commit(uint32_t b) {
    asm volatile("tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%0];" ::"r"(b) : "memory");
}
DEV void ld8(uint32_t t, uint32_t* v) {
    asm volatile("tcgen05.ld.sync.aligned.32x32b.x8.b32 {%0, %1, %2, %3, %4, %5, %6, %7}, [%8];"
                 : "=r"(v[0]), "=r"(v[1]), "=r"(v[2]), "=r"(v[3]), "=r"(v[4]), "=r"(v[5]), "=r"(v[6]), "=r"(v[7])
                 : "r"(t)
                 : "memory");
    asm volatile("tcgen05.wait::ld.sync.aligned;" ::: "memory");
}

}  // namespace

extern "C" __global__ void __launch_bounds__(128)
tma_gemm_sm100(uint32_t* c, const __grid_constant__ CUtensorMap a_map, const __grid_constant__ CUtensorMap b_map,
               uint32_t n, uint32_t k) {
    __shared__ __align__(1024) uint16_t a_s[2][256][8];
    __shared__ __align__(1024) uint16_t b_s[2][128][8];
    __shared__ __align__(8) uint64_t full[2], empty[2], done;
    __shared__ uint32_t tslot;
    uint32_t warp = threadIdx.x / 32, lane = threadIdx.x & 31;
    uint32_t m0 = blockIdx.y * TILE_M, n0 = blockIdx.x * TILE_N, ktiles = k / 16;
    if (threadIdx.x == 0) {
        bar_init(saddr(&full[0]), 1);
        bar_init(saddr(&full[1]), 1);
        bar_init(saddr(&empty[0]), 1);
        bar_init(saddr(&empty[1]), 1);
        bar_init(saddr(&done), 1);
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
    if (warp == 0) {
        asm volatile("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%0], %1;" ::"r"(saddr(&tslot)),
                     "n"(TILE_N)
                     : "memory");
        asm volatile("tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;" ::: "memory");
    }
    fence_before();
    __syncthreads();
    fence_after();
    uint32_t taddr = tslot;
    if (warp == 0) {
        if (elect()) {
            for (uint32_t kt = 0; kt < ktiles; kt++) {
                uint32_t s = kt % 2;
                if (kt >= 2) bar_wait(saddr(&empty[s]), (kt / 2 - 1) % 2);
                int kk = static_cast<int>(kt * 16);
                uint32_t f = saddr(&full[s]);
                bar_expect(f, STAGE_BYTES);
                tma2d(saddr(&a_s[s][0][0]), &a_map, static_cast<int>(m0), kk, f);
                tma2d(saddr(&a_s[s][128][0]), &a_map, static_cast<int>(m0), kk + 8, f);
                tma2d(saddr(&b_s[s][0][0]), &b_map, static_cast<int>(n0), kk, f);
                tma2d(saddr(&b_s[s][64][0]), &b_map, static_cast<int>(n0), kk + 8, f);
            }
        }
    } else if (warp == 1) {
        if (elect()) {
            for (uint32_t kt = 0; kt < ktiles; kt++) {
                uint32_t s = kt % 2;
                bar_wait(saddr(&full[s]), (kt / 2) % 2);
                fence_after();
                mma(taddr, desc(saddr(&a_s[s][0][0]), 2048, 128), desc(saddr(&b_s[s][0][0]), 1024, 128), kt > 0);
                commit(saddr(&empty[s]));
            }
            commit(saddr(&done));
        }
    }
    bar_wait(saddr(&done), 0);
    fence_after();
    uint32_t row = m0 + warp * 32 + lane;
    uint32_t lanes = taddr + ((warp * 32) << 16);
#pragma unroll
    for (uint32_t cc = 0; cc < 8; cc++) {
        uint32_t v[8];
        ld8(lanes + cc * 8, v);
#pragma unroll
        for (uint32_t j = 0; j < 8; j++) c[row * n + n0 + cc * 8 + j] = v[j];
    }
    fence_before();
    __syncthreads();
    if (warp == 0)
        asm volatile("tcgen05.dealloc.cta_group::1.sync.aligned.b32 %0, %1;" ::"r"(taddr), "n"(TILE_N) : "memory");
}
