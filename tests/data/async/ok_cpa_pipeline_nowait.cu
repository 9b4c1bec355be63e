// OK: the stencil of bug_cpa_pipeline_nowait.cu with consumer_wait() before the block barrier: every
// thread waits for its own copy, and the barrier then publishes it to the neighbours.
#include <cuda/pipeline>

#define TILE 256

__global__ void __launch_bounds__(TILE) stencil3(const float* __restrict__ in, float* __restrict__ out, int n)
{
    __shared__ float s[TILE + 2];
    auto pipe = cuda::make_pipeline();
    int base = blockIdx.x * TILE;
    int i = base + threadIdx.x;
    pipe.producer_acquire();
    if (i < n)
        cuda::memcpy_async(&s[threadIdx.x + 1], &in[i], sizeof(float), pipe);
    pipe.producer_commit();
    if (threadIdx.x == 0) {
        s[0] = base > 0 ? in[base - 1] : 0.0f;
        s[TILE + 1] = base + TILE < n ? in[base + TILE] : 0.0f;
    }
    pipe.consumer_wait();
    __syncthreads();
    if (i < n)
        out[i] = 0.25f * s[threadIdx.x] + 0.5f * s[threadIdx.x + 1] + 0.25f * s[threadIdx.x + 2];
    pipe.consumer_release();
}
