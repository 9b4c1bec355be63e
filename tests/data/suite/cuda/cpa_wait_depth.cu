// arch: sm_80
// A 3-stage cp.async ring with the CUDA pipeline primitives (__pipeline_memcpy_async / __pipeline_commit /
// __pipeline_wait_prior): out[b, t] = sum_k w[k] * x[b, k, (t + 1) % 128], one 128-float tile per step.
// The prologue puts STAGES - 1 tiles in flight, and every step commits one group (possibly empty), so
// before using tile k the consumer may leave STAGES - 2 groups pending.
// Bug: the wait leaves STAGES - 1 groups pending (the depth of the ring, not the depth minus one), which
// includes the group of the tile about to be read.
#include <cuda_pipeline.h>

constexpr int STAGES = 3;
constexpr int T = 128;

__global__ void __launch_bounds__(T)
    ring_weighted_sum(const float* __restrict__ x, const float* __restrict__ w, float* __restrict__ out, int ntiles)
{
    __shared__ float buf[STAGES][T];
    const int t = threadIdx.x;
    const float* src = x + (size_t)blockIdx.x * ntiles * T;

    for (int s = 0; s < STAGES - 1; ++s) {
        if (s < ntiles) __pipeline_memcpy_async(&buf[s][t], &src[s * T + t], sizeof(float));
        __pipeline_commit();
    }
    float acc = 0.f;
    for (int k = 0; k < ntiles; ++k) {
#ifdef IRC_BUG
        __pipeline_wait_prior(STAGES - 1);
#else
        __pipeline_wait_prior(STAGES - 2);
#endif
        __syncthreads();  // every thread's copy of tile k is visible; stage (k - 1) % STAGES is free
        const int nk = k + STAGES - 1;
        if (nk < ntiles) __pipeline_memcpy_async(&buf[nk % STAGES][t], &src[nk * T + t], sizeof(float));
        __pipeline_commit();
        acc += w[k] * buf[k % STAGES][(t + 1) % T];  // EXPECT: async-unwaited
    }
    out[blockIdx.x * T + t] = acc;
}
