// arch: sm_80
// sm_80 mbarrier with state tokens: each step every thread stages one value, arrives (getting the phase's
// token) and polls mbarrier.test_wait with that token until the phase completes; then it reads a
// neighbour's value. out[b, t] = sum_k x[b, k, (t + 1) % 128].
// Bug: the token is taken once, before the loop, and reused: from step 1 on, test_wait asks about a phase
// that completed long ago and returns at once, before the other threads have stored their values.
#include <cstdint>

__device__ __forceinline__ uint32_t sptr(const void* p) { return (uint32_t)__cvta_generic_to_shared(p); }
__device__ __forceinline__ uint64_t arrive(uint64_t* bar)
{
    uint64_t state;
    asm volatile("mbarrier.arrive.shared.b64 %0, [%1];" : "=l"(state) : "r"(sptr(bar)) : "memory");
    return state;
}
__device__ __forceinline__ bool test_wait(uint64_t* bar, uint64_t state)
{
    uint32_t done;
    asm volatile("{\n .reg .pred p;\n mbarrier.test_wait.shared.b64 p, [%1], %2;\n selp.u32 %0, 1, 0, p;\n}"
                 : "=r"(done)
                 : "r"(sptr(bar)), "l"(state)
                 : "memory");
    return done != 0;
}

extern "C" __global__ void __launch_bounds__(128) token_exchange(const float* __restrict__ x, float* __restrict__ out, int nsteps)
{
    __shared__ float vals[2][128];
    __shared__ __align__(8) uint64_t bar;
    const int t = threadIdx.x;
    if (t == 0) asm volatile("mbarrier.init.shared.b64 [%0], 128;" ::"r"(sptr(&bar)) : "memory");
    __syncthreads();
    const float* src = x + (size_t)blockIdx.x * nsteps * 128;
    float acc = 0.f;
#ifdef IRC_BUG
    vals[0][t] = src[t];
    uint64_t token = arrive(&bar);
    for (int k = 0; k < nsteps; ++k) {
        if (k > 0) {
            vals[k & 1][t] = src[k * 128 + t];
        }
        while (!test_wait(&bar, token)) {  // EXPECT: mbarrier-phase
        }
#else
    for (int k = 0; k < nsteps; ++k) {
        vals[k & 1][t] = src[k * 128 + t];
        const uint64_t token = arrive(&bar);
        while (!test_wait(&bar, token)) {
        }
#endif
        acc += vals[k & 1][(t + 1) % 128];
    }
    out[blockIdx.x * 128 + t] = acc;
}
