// OK: the bulk-store tile loop of bug_bulk_store_wait.cu waiting with cp.async.bulk.wait_group.read 0
// before the staging buffer is overwritten.
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
            ptx::cp_async_bulk_wait_group_read(ptx::n32_t<0>());
        }
        __syncthreads();
    }
}
