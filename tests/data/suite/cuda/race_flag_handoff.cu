// arch: sm_80
// Warp 0 computes the inclusive prefix sums of 32 values and hands them to warps 1..3 through shared
// memory and a flag (libcu++ atomic_ref at block scope): out[c] = prefix[c % 32] + y[c] for the 96
// consumer threads c. The flag is published with a release store and polled with acquire loads, which
// orders the payload stores before the consumers' payload reads.
// Bug: both sides use memory_order_relaxed, so seeing the flag says nothing about the payload.
#include <cuda/atomic>

#ifdef IRC_BUG
#define PUBLISH cuda::std::memory_order_relaxed
#define OBSERVE cuda::std::memory_order_relaxed
#else
#define PUBLISH cuda::std::memory_order_release
#define OBSERVE cuda::std::memory_order_acquire
#endif

__global__ void __launch_bounds__(128) prefix_handoff(const float* __restrict__ x, const float* __restrict__ y,
                                                      float* __restrict__ out)
{
    __shared__ float payload[32];
    __shared__ int flag;
    if (threadIdx.x == 0) flag = 0;
    __syncthreads();
    cuda::atomic_ref<int, cuda::thread_scope_block> ready(flag);
    const float* xb = x + blockIdx.x * 32;
    if (threadIdx.x < 32) {
        const int lane = threadIdx.x;
        float v = xb[lane];
        for (int d = 1; d < 32; d *= 2) {
            const float u = __shfl_up_sync(0xffffffffu, v, d);
            if (lane >= d) v += u;
        }
        payload[lane] = v;
        __syncwarp();
        if (lane == 0) ready.store(1, PUBLISH);
    } else {
        while (ready.load(OBSERVE) == 0) {
        }
        const int c = threadIdx.x - 32;
        out[blockIdx.x * 96 + c] = payload[c % 32] + y[blockIdx.x * 96 + c];  // EXPECT: shared-race
    }
}
