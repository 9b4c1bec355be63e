// arch: sm_100a
// D[128 x 64] = A[128 x K] * B[64 x K]^T (f16 in, f32 accumulated in tensor memory by tcgen05.mma),
// K = 16 * ktiles. One mbarrier serves two purposes in turn: in every K step its first phase completes when
// the TMA copies of the A and B slices land (arrive.expect_tx by thread 0), its second when the MMA that
// reads them completes (tcgen05.commit). So each step completes two phases and the waits use parity 0 for
// the copies and 1 for the MMA in every step.
// Operands are K-major with no swizzle: TMA brings [rows][8] slabs of 8 K values (16 bytes per row), two per
// operand and step; LBO is the distance between the two slabs, SBO the 128 bytes of one 8-row core matrix.
// A parity wait only tells the current phase from the one before it, so no phase may complete twice while a
// thread has not yet waited for it: a __syncthreads() after each wait keeps every warp within one phase (the
// emulator's interleaved schedules showed a starved warp waiting for a phase that never comes without them).
// Bug: the author reasoned "one phase per step" and waits for the MMA with the step's parity kt & 1, like
// the copy wait: in step 0 the MMA wait returns at once (phase 0 is the copies' phase).
#include <cuda.h>
#include <cstdint>

constexpr uint32_t M = 128, N = 64;
constexpr uint32_t A_BYTES = M * 16 * 2, B_BYTES = N * 16 * 2;

__device__ __forceinline__ uint32_t sptr(const void* p) { return uint32_t(__cvta_generic_to_shared(p)); }
__device__ __forceinline__ void wait_phase(uint32_t bar, uint32_t parity)
{
    asm volatile("{\n .reg .pred p;\n WAIT:\n mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n @!p bra WAIT;\n}" ::"r"(
                     bar),
                 "r"(parity)
                 : "memory");
}
__device__ __forceinline__ void tma_slab(uint32_t dst, const CUtensorMap* map, int k, uint32_t bar)
{
    asm volatile(
        "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];" ::"r"(
            dst),
        "l"(map), "r"(k), "r"(0), "r"(bar)
        : "memory");
}
// shared-memory matrix descriptor without swizzle: start, LBO and SBO in 16-byte units, version 1 at bit 46
__device__ __forceinline__ uint64_t smem_desc(uint32_t addr, uint32_t lbo, uint32_t sbo)
{
    return uint64_t((addr >> 4) & 0x3FFF) | (uint64_t((lbo >> 4) & 0x3FFF) << 16) |
           (uint64_t((sbo >> 4) & 0x3FFF) << 32) | (1ull << 46);
}

__global__ void __launch_bounds__(128) gemm_tcgen05(const __grid_constant__ CUtensorMap amap,
                                                    const __grid_constant__ CUtensorMap bmap, float* __restrict__ d,
                                                    int ktiles)
{
    __shared__ alignas(1024) uint16_t a_s[2][M][8];
    __shared__ alignas(1024) uint16_t b_s[2][N][8];
    __shared__ alignas(8) uint64_t bar;
    __shared__ uint32_t tmem_slot;
    const uint32_t warp = threadIdx.x / 32, sbar = sptr(&bar);
    if (threadIdx.x == 0) {
        asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(sbar) : "memory");
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
    if (warp == 0) {
        asm volatile("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%0], 64;" ::"r"(sptr(&tmem_slot))
                     : "memory");
        asm volatile("tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;" ::: "memory");
    }
    asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
    __syncthreads();
    asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
    const uint32_t taddr = *static_cast<volatile uint32_t*>(&tmem_slot);
    // kind::f16 instruction descriptor: f32 D (bit 4), f16 A and B, K-major B, N >> 3 at 17, M >> 4 at 24
    const uint32_t idesc = (1u << 4) | ((N >> 3) << 17) | ((M >> 4) << 24);

    uint32_t phase = 0;
    for (int kt = 0; kt < ktiles; ++kt) {
        if (threadIdx.x == 0) {
            asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(sbar), "n"(A_BYTES + B_BYTES)
                         : "memory");
            for (int c = 0; c < 2; ++c) {
                tma_slab(sptr(a_s[c]), &amap, kt * 16 + c * 8, sbar);
                tma_slab(sptr(b_s[c]), &bmap, kt * 16 + c * 8, sbar);
            }
        }
#ifdef IRC_BUG
        wait_phase(sbar, kt & 1);  // the copies have landed
#else
        wait_phase(sbar, phase);  // the copies have landed
        phase ^= 1;
#endif
        __syncthreads();  // every thread has seen the copies' phase before the MMA's can complete
        if (threadIdx.x == 0) {
            asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
            const uint64_t adesc = smem_desc(sptr(a_s), M * 16, 128), bdesc = smem_desc(sptr(b_s), N * 16, 128);
            asm volatile(
                "{\n .reg .pred acc;\n setp.ne.u32 acc, %4, 0;\n tcgen05.mma.cta_group::1.kind::f16 [%0], %1, %2, %3, "
                "acc;\n}" ::"r"(taddr),
                "l"(adesc), "l"(bdesc), "r"(idesc), "r"(uint32_t(kt))
                : "memory");
            asm volatile("tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%0];" ::"r"(sbar)
                         : "memory");
        }
#ifdef IRC_BUG
        wait_phase(sbar, kt & 1);  // EXPECT: mbarrier-phase
#else
        wait_phase(sbar, phase);  // the MMA is done with a_s / b_s (and D holds the partial sum)
        phase ^= 1;
#endif
        __syncthreads();  // every thread has seen the MMA's phase before the next copies' can complete
    }
    asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
    const uint32_t row = warp * 32 + threadIdx.x % 32;
    for (uint32_t c = 0; c < N; c += 16) {
        uint32_t v[16];
        asm volatile(
            "tcgen05.ld.sync.aligned.32x32b.x16.b32 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, "
            "%15}, [%16];"
            : "=r"(v[0]), "=r"(v[1]), "=r"(v[2]), "=r"(v[3]), "=r"(v[4]), "=r"(v[5]), "=r"(v[6]), "=r"(v[7]),
              "=r"(v[8]), "=r"(v[9]), "=r"(v[10]), "=r"(v[11]), "=r"(v[12]), "=r"(v[13]), "=r"(v[14]), "=r"(v[15])
            : "r"(taddr + ((warp * 32) << 16) + c)
            : "memory");
        asm volatile("tcgen05.wait::ld.sync.aligned;" ::: "memory");
        for (int j = 0; j < 16; ++j) d[row * N + c + j] = __uint_as_float(v[j]);
    }
    asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
    __syncthreads();
    if (warp == 0) {
        asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
        asm volatile("tcgen05.dealloc.cta_group::1.sync.aligned.b32 %0, 64;" ::"r"(taddr) : "memory");
    }
}
