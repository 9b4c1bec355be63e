// arch: sm_80
// sm_80 staging loop where each thread's cp.async copies signal an mbarrier through
// cp.async.mbarrier.arrive, and every thread also arrives as a consumer; the barrier expects one arrival
// per thread per phase. out[b, t] = sum_k x[b, k, 127 - t].
// Bug: the .noinc form is used. .noinc does not increment the pending count before arriving, so each
// thread contributes two arrivals to a barrier initialised for one: each step completes two phases and the
// parity of the next wait is already "complete" before that step's copies land.
#include <cstdint>

static __device__ __forceinline__ uint32_t to_smem(const void* p) { return (uint32_t)__cvta_generic_to_shared(p); }

extern "C" __global__ void __launch_bounds__(128)
    staged_reverse_sum(const float* __restrict__ x, float* __restrict__ out, int ntiles)
{
    __shared__ float tile[128];
    __shared__ __align__(8) uint64_t bar;
    const int t = threadIdx.x;
    if (t == 0) asm volatile("mbarrier.init.shared.b64 [%0], %1;" ::"r"(to_smem(&bar)), "r"(128) : "memory");
    __syncthreads();
    const float* src = x + (size_t)blockIdx.x * ntiles * 128;
    float acc = 0.f;
    for (int k = 0; k < ntiles; ++k) {
        asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" ::"r"(to_smem(&tile[t])), "l"(src + k * 128 + t)
                     : "memory");
#ifdef IRC_BUG
        asm volatile("cp.async.mbarrier.arrive.noinc.shared.b64 [%0];" ::"r"(to_smem(&bar)) : "memory");  // EXPECT: mbarrier-arrival-mismatch
#else
        asm volatile("cp.async.mbarrier.arrive.shared.b64 [%0];" ::"r"(to_smem(&bar)) : "memory");
#endif
        asm volatile("{\n\t.reg .b64 st;\n\tmbarrier.arrive.shared.b64 st, [%0];\n\t}" ::"r"(to_smem(&bar)) : "memory");
        uint32_t done = 0;
        while (!done)
            asm volatile(
                "{\n\t.reg .pred p;\n\tmbarrier.test_wait.parity.shared.b64 p, [%1], %2;\n\tselp.u32 %0, 1, 0, p;\n\t}"
                : "=r"(done)
                : "r"(to_smem(&bar)), "r"(k & 1)
                : "memory");
        acc += tile[127 - t];
        __syncthreads();  // the tile is overwritten by the next step
    }
    out[blockIdx.x * 128 + t] = acc;
}
