// arch: sm_80
// Double buffering with the pipeline primitives: out[b, t] = sum_k x[b, k, 127 - t]. Step k prefetches
// tile k + 1 into stage (k + 1) % 2 (only while there is a next tile) and sums tile k from stage k % 2.
// Bug: the sum reads stage (k + 1) % 2, the one the prefetch is filling, before the wait.
#include <cuda_pipeline.h>

constexpr int T = 128;

__global__ void __launch_bounds__(T) reversed_tile_sum(const float* __restrict__ x, float* __restrict__ out, int ntiles)
{
    __shared__ float stage[2][T];
    const int t = threadIdx.x;
    const float* src = x + (size_t)blockIdx.x * ntiles * T;

    __pipeline_memcpy_async(&stage[0][t], &src[t], sizeof(float));
    __pipeline_commit();
    __pipeline_wait_prior(0);
    __syncthreads();

    float acc = 0.f;
    for (int k = 0; k < ntiles; ++k) {
        if (k + 1 < ntiles) {
            __pipeline_memcpy_async(&stage[(k + 1) % 2][t], &src[(size_t)(k + 1) * T + t], sizeof(float));
        }
        __pipeline_commit();
#ifdef IRC_BUG
        acc += stage[(k + 1) % 2][T - 1 - t];  // EXPECT: async-unwaited
#else
        acc += stage[k % 2][T - 1 - t];
#endif
        __pipeline_wait_prior(0);
        __syncthreads();  // tile k + 1 is in for every thread, and stage k % 2 is free for step k + 1
    }
    out[blockIdx.x * T + t] = acc;
}
