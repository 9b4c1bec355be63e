// BUG: a halo load (inline PTX, sm_90a): each block copies its 1024-float row plus a 2-float halo on each
// side with one cp.async.bulk starting two floats before the row. The global source address is then
// only 8-byte aligned, but cp.async.bulk needs 16-byte aligned addresses (and the destination, placed two
// floats into the buffer, is misaligned as well).
#include <cstdint>

#define W 1024

static __device__ __forceinline__ unsigned smem(const void* p) { return (unsigned)__cvta_generic_to_shared(p); }

__global__ void __launch_bounds__(256) smooth_rows(const float* __restrict__ img, float* __restrict__ out, int rows)
{
    __shared__ alignas(128) float row[W + 8];
    __shared__ alignas(8) uint64_t bar;
    int r = blockIdx.x;
    if (threadIdx.x == 0) {
        asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;\n\tfence.mbarrier_init.release.cluster;" ::"r"(smem(&bar)));
    }
    __syncthreads();
    if (r <= 0 || r >= rows - 1)
        return;
    if (threadIdx.x == 0) {
        asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem(&bar)), "r"((W + 4) * 4)
                     : "memory");
        asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
                     ::"r"(smem(&row[2])), "l"(img + (size_t)r * (W + 8) + 2), "r"((W + 4) * 4), "r"(smem(&bar))  // EXPECT: tma-misaligned
                     : "memory");
    }
    asm volatile("{\n\t.reg .pred P;\nW0:\n\tmbarrier.try_wait.parity.shared::cta.b64 P, [%0], 0;\n\t@!P bra W0;\n}"
                 ::"r"(smem(&bar)) : "memory");
    for (int i = threadIdx.x; i < W; i += 256)
        out[(size_t)r * W + i] = 0.25f * row[i + 2] + 0.5f * row[i + 4] + 0.25f * row[i + 6];
}
