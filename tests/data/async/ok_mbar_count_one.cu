// OK: the mbarrier block reduction of bug_mbar_count_one.cu with the barrier initialised to the 128
// arrivals of one phase: warp 0's wait returns only once every partial sum is stored.
#include <cstdint>

#define NT 128

static __device__ __forceinline__ unsigned sa(const void* p) { return (unsigned)__cvta_generic_to_shared(p); }

__global__ void __launch_bounds__(NT) block_sum(const float* __restrict__ x, float* __restrict__ out, int n)
{
    __shared__ float part[NT];
    __shared__ __align__(8) uint64_t done;
    if (threadIdx.x == 0)
        asm volatile("mbarrier.init.shared.b64 [%0], %1;" ::"r"(sa(&done)), "r"(NT));
    __syncthreads();
    float s = 0.0f;
    for (int i = blockIdx.x * NT + threadIdx.x; i < n; i += gridDim.x * NT)
        s += x[i];
    part[threadIdx.x] = s;
    uint64_t token;
    asm volatile("mbarrier.arrive.shared.b64 %0, [%1];" : "=l"(token) : "r"(sa(&done)) : "memory");
    if (threadIdx.x < 32) {
        unsigned ok = 0;
        while (!ok)
            asm volatile("{\n\t.reg .pred p;\n\tmbarrier.test_wait.shared.b64 p, [%1], %2;\n\tselp.u32 %0, 1, 0, p;\n}"
                         : "=r"(ok) : "r"(sa(&done)), "l"(token) : "memory");
        float v = part[threadIdx.x] + part[threadIdx.x + 32] + part[threadIdx.x + 64] + part[threadIdx.x + 96];
        for (int o = 16; o > 0; o >>= 1)
            v += __shfl_xor_sync(0xffffffffu, v, o);
        if (threadIdx.x == 0)
            atomicAdd(out, v);
    }
}
