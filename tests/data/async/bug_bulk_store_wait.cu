// BUG: a tiled scale kernel (sm_90a, cuda::ptx) writing each result tile back with a bulk store
// (cp.async.bulk.global.shared::cta.bulk_group) and reusing the staging buffer for the next tile. It
// commits the bulk group and then waits with cp.async.wait_all, which tracks only non-bulk cp.async
// groups: the next tile overwrites the staging buffer while the bulk store may still be reading it.
#include <cuda/ptx>

namespace ptx = cuda::ptx;

#define TN 2048

__global__ void __launch_bounds__(256) scale_tiles(const float* __restrict__ x, float* __restrict__ y, float a, int ntiles)
{
    __shared__ alignas(128) float stage[TN];
    for (int t = blockIdx.x; t < ntiles; t += gridDim.x) {
        for (int i = threadIdx.x; i < TN; i += 256)
            stage[i] = a * x[(size_t)t * TN + i];
        ptx::fence_proxy_async(ptx::space_shared);
        __syncthreads();
        if (threadIdx.x == 0) {
            ptx::cp_async_bulk(ptx::space_global, ptx::space_shared, y + (size_t)t * TN, stage, sizeof(stage));
            ptx::cp_async_bulk_commit_group();
            asm volatile("cp.async.wait_all;" ::: "memory");  // EXPECT: async-overwrite
        }
        __syncthreads();
    }
}
