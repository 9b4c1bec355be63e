// arch: sm_80
// A persistent kernel: each block walks tiles blockIdx.x, blockIdx.x + gridDim.x, ... and prefetches the
// next tile it owns with cp.async while it works on the current one (two buffers, wait_group 1).
// out[tile * 128 + t] = x[tile * 128 + (t + 1) % 128] * (tile + 1): the tile rotated by one element.
// Bug: the commit is inside the `if (next < ntiles)` prefetch guard. In the block's last step no group is
// committed, so `wait_group 1` leaves the group of the current tile pending.
#include <cuda_pipeline.h>

#define T 128

__global__ void __launch_bounds__(T) persistent_rotate(const float* __restrict__ x, float* __restrict__ out, int ntiles)
{
    __shared__ float buf[2][T];
    const int t = threadIdx.x;
    int tile = blockIdx.x;
    if (tile < ntiles) __pipeline_memcpy_async(&buf[0][t], &x[(size_t)tile * T + t], sizeof(float));
    __pipeline_commit();
    for (int it = 0; tile < ntiles; ++it, tile += gridDim.x) {
        const int next = tile + gridDim.x;
#ifdef IRC_BUG
        if (next < ntiles) {
            __pipeline_memcpy_async(&buf[(it + 1) & 1][t], &x[(size_t)next * T + t], sizeof(float));
            __pipeline_commit();
        }
#else
        if (next < ntiles) __pipeline_memcpy_async(&buf[(it + 1) & 1][t], &x[(size_t)next * T + t], sizeof(float));
        __pipeline_commit();  // also when nothing was issued: the wait below counts groups
#endif
        __pipeline_wait_prior(1);
        __syncthreads();
        out[(size_t)tile * T + t] = buf[it & 1][(t + 1) % T] * float(tile + 1);  // EXPECT: async-unwaited
        __syncthreads();  // buf[it & 1] is refilled in the next step
    }
}
