// arch: sm_90a
// Epilogue loop of a persistent kernel: for each of its 32x32 output tiles the block writes the tile into
// one shared staging buffer (ordinary stores), fences the async proxy and lets thread 0 store it by TMA.
// out tile (i, b) = 2 * i + x tile (i, b) for tiles i = 0..ntiles-1 of block column b.
// Bug: thread 0 does not wait for the previous TMA store to finish reading the staging buffer
// (cp.async.bulk.wait_group.read 0) before the __syncthreads that lets the threads overwrite it.
#include <cuda.h>
#include <cstdint>

__device__ __forceinline__ uint32_t cvta_s(const void* p) { return (uint32_t)__cvta_generic_to_shared(p); }

extern "C" __global__ void __launch_bounds__(256)
    epilogue_stores(const __grid_constant__ CUtensorMap out_map, const float* __restrict__ x, int ld, int ntiles)
{
    __shared__ __align__(128) float staging[32][32];
    for (int i = 0; i < ntiles; ++i) {
        if (i > 0) {
#ifdef IRC_BUG
            // (no wait for the previous store: the barrier alone does not cover it)
#else
            if (threadIdx.x == 0) asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
#endif
            __syncthreads();
        }
        for (int e = threadIdx.x; e < 32 * 32; e += 256) {
            const int r = e / 32, c = e % 32;
            staging[r][c] = 2.f * i + x[(size_t)(i * 32 + r) * ld + blockIdx.x * 32 + c];  // EXPECT: async-overwrite
        }
        asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
        __syncthreads();
        if (threadIdx.x == 0) {
            asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%1, %2}], [%3];" ::"l"(&out_map),
                         "r"(int(blockIdx.x) * 32), "r"(i * 32), "r"(cvta_s(staging))
                         : "memory");
            asm volatile("cp.async.bulk.commit_group;" ::: "memory");
        }
    }
    if (threadIdx.x == 0) asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
}
