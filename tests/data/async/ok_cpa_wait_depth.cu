// OK: the three-stage cp.async ring of bug_cpa_wait_depth.cu waiting with __pipeline_wait_prior(STAGES - 2):
// only the groups of tiles k+1 .. k+STAGES-2 may still be pending when stage k % STAGES is read.
#include <cuda_pipeline.h>

#define STAGES 3
#define TILE 128

__global__ void __launch_bounds__(TILE) ring_sum(const float* __restrict__ x, float* __restrict__ out, int ntiles)
{
    __shared__ __align__(16) float buf[STAGES][TILE];
    const float* src = x + (size_t)blockIdx.x * ntiles * TILE;
    for (int s = 0; s < STAGES - 1; ++s) {
        if (s < ntiles)
            __pipeline_memcpy_async(&buf[s][threadIdx.x], &src[s * TILE + threadIdx.x], sizeof(float));
        __pipeline_commit();
    }
    float acc = 0.0f;
    for (int k = 0; k < ntiles; ++k) {
        __pipeline_wait_prior(STAGES - 2);
        __syncthreads();
        int next = k + STAGES - 1;
        if (next < ntiles)
            __pipeline_memcpy_async(&buf[next % STAGES][threadIdx.x], &src[next * TILE + threadIdx.x],
                                    sizeof(float));
        __pipeline_commit();
        const float* t = buf[k % STAGES];
        acc += t[threadIdx.x] * t[(threadIdx.x + 1) % TILE];
    }
    out[blockIdx.x * TILE + threadIdx.x] = acc;
}
