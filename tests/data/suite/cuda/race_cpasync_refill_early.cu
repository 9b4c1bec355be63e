// arch: sm_80
// A 3-stage cp.async ring in the CUTLASS manner with one barrier per step: wait for tile k, __syncthreads,
// then refill the stage that was read in step k - 1 and compute on stage k % 3. The barrier is what makes
// the refill safe: every thread has finished step k - 1 when any thread passes it.
// out[b, t] = sum_k x[b, k, (t + 7) % 128] * (k + 1).
// Bug: the refill is issued before the barrier, so it overwrites stage (k - 1) % 3 while slower threads
// may still be reading it in step k - 1.
#include <cuda_pipeline.h>

#define STAGES 3
#define T 128

__global__ void __launch_bounds__(T) ring_refill(const float* __restrict__ x, float* __restrict__ out, int ntiles)
{
    __shared__ float ring[STAGES][T];
    const int t = threadIdx.x;
    const float* src = x + (size_t)blockIdx.x * ntiles * T;
    for (int s = 0; s < STAGES - 1; ++s) {
        if (s < ntiles) __pipeline_memcpy_async(&ring[s][t], &src[s * T + t], sizeof(float));
        __pipeline_commit();
    }
    float acc = 0.f;
    for (int k = 0; k < ntiles; ++k) {
        __pipeline_wait_prior(STAGES - 2);
        const int nk = k + STAGES - 1;
#ifdef IRC_BUG
        if (nk < ntiles) __pipeline_memcpy_async(&ring[nk % STAGES][t], &src[nk * T + t], sizeof(float));  // EXPECT: shared-race
        __pipeline_commit();
        __syncthreads();
#else
        __syncthreads();
        if (nk < ntiles) __pipeline_memcpy_async(&ring[nk % STAGES][t], &src[nk * T + t], sizeof(float));
        __pipeline_commit();
#endif
        acc += ring[k % STAGES][(t + 7) % T] * float(k + 1);
    }
    out[blockIdx.x * T + t] = acc;
}
