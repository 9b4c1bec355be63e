// arch: sm_80
// Stage a 256-float tile with cp.async (every thread copies one 16-byte chunk of 4 floats: 64 threads),
// then every thread reads a value other threads copied: y[b, i] = x[b, 255 - i].
// Bug: only thread 0 waits for the copies ("one thread waits, the barrier tells the others"): a thread's
// cp.async.wait_all covers its own copies only, so the other threads' chunks may not have landed.
#include <cstdint>

__device__ __forceinline__ void cp16(float* dst, const float* src)
{
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"((uint32_t)__cvta_generic_to_shared(dst)), "l"(src)
                 : "memory");
}

extern "C" __global__ void __launch_bounds__(64) reverse256(const float* __restrict__ x, float* __restrict__ y)
{
    __shared__ __align__(16) float tile[256];
    const float* src = x + blockIdx.x * 256;
    cp16(&tile[4 * threadIdx.x], src + 4 * threadIdx.x);
#ifdef IRC_BUG
    if (threadIdx.x == 0) asm volatile("cp.async.wait_all;" ::: "memory");
#else
    asm volatile("cp.async.wait_all;" ::: "memory");
#endif
    __syncthreads();
    for (int i = threadIdx.x; i < 256; i += 64) y[blockIdx.x * 256 + i] = tile[255 - i];  // EXPECT: async-unwaited
}
