// arch: sm_90a
// Written the way Triton lays out shared memory: one dynamic `global_smem` buffer, the NUM_STAGES tiles at
// offset 0 and the mbarriers at BAR_OFF, addressed by byte offsets. A 3-stage TMA pipeline over 32x16
// tiles; thread 0 produces, everyone consumes; out[b * 16 + c] = column sums.
// Bug: the init loop stops one stage short (`< NUM_STAGES - 1`), so the last stage's mbarrier is used
// without ever being initialised.
#include <cuda.h>
#include <cstdint>

#define NUM_STAGES 3
#define TILE_BYTES (32 * 16 * 4)
#define BAR_OFF (NUM_STAGES * TILE_BYTES)

extern "C" __global__ void __launch_bounds__(128)
    triton_like_colsum(const __grid_constant__ CUtensorMap desc, float* __restrict__ out, int ntiles)
{
    extern __shared__ __align__(128) unsigned char global_smem[];
    const uint32_t base = (uint32_t)__cvta_generic_to_shared(global_smem);
    if (threadIdx.x == 0) {
#ifdef IRC_BUG
        for (int s = 0; s < NUM_STAGES - 1; ++s)
#else
        for (int s = 0; s < NUM_STAGES; ++s)
#endif
            asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(base + BAR_OFF + 8 * s) : "memory");
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
    __syncthreads();
    float acc = 0.f;
    if (threadIdx.x == 0) {
        for (int s = 0; s < NUM_STAGES - 1 && s < ntiles; ++s) {
            asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(base + BAR_OFF + 8 * s),
                         "n"(TILE_BYTES)
                         : "memory");
            asm volatile(
                "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];" ::"r"(
                    base + s * TILE_BYTES),
                "l"(&desc), "r"(int(blockIdx.x) * 16), "r"(s * 32), "r"(base + BAR_OFF + 8 * s)
                : "memory");
        }
    }
    for (int k = 0; k < ntiles; ++k) {
        const int s = k % NUM_STAGES;
        const int nk = k + NUM_STAGES - 1;  // the tile to prefetch, into the stage freed in step k - 1
        if (threadIdx.x == 0 && nk < ntiles) {
            const int ns = nk % NUM_STAGES;
            asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(base + BAR_OFF + 8 * ns),  // EXPECT: mbarrier-uninitialized
                         "n"(TILE_BYTES)
                         : "memory");
            asm volatile(
                "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];" ::"r"(
                    base + ns * TILE_BYTES),
                "l"(&desc), "r"(int(blockIdx.x) * 16), "r"(nk * 32), "r"(base + BAR_OFF + 8 * ns)
                : "memory");
        }
        asm volatile("{\n.reg .pred p;\nWAIT:\nmbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n@!p bra WAIT;\n}" ::"r"(  // EXPECT: mbarrier-uninitialized
                         base + BAR_OFF + 8 * s),
                     "r"((k / NUM_STAGES) & 1)
                     : "memory");
        const float* tile = reinterpret_cast<const float*>(global_smem + s * TILE_BYTES);
        if (threadIdx.x < 16)
            for (int r = 0; r < 32; ++r) acc += tile[r * 16 + threadIdx.x];
        __syncthreads();  // stage s is refilled in step k + 1
    }
    if (threadIdx.x < 16) out[blockIdx.x * 16 + threadIdx.x] = acc;
}
