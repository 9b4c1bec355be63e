// arch: sm_80
// A 3-point smoothing stencil that stages its tile plus a one-element halo on each side with cp.async
// (raw inline PTX, 4-byte copies). Indices are clamped at the array ends.
// Bug: the copies are never committed to a group, so `cp.async.wait_group 0` (which waits for committed
// groups only) does not wait for them.

__device__ __forceinline__ void cp_async4(unsigned dst, const float* src)
{
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" ::"r"(dst), "l"(src) : "memory");
}

extern "C" __global__ void __launch_bounds__(128)
    smooth3(const float* __restrict__ in, float* __restrict__ out, int n)
{
    __shared__ float tile[128 + 2];
    const int g = blockIdx.x * 128 + threadIdx.x;
    const unsigned base = static_cast<unsigned>(__cvta_generic_to_shared(tile));
    cp_async4(base + 4 * (threadIdx.x + 1), in + min(g, n - 1));
    if (threadIdx.x == 0) cp_async4(base, in + max(g - 1, 0));
    if (threadIdx.x == 1) cp_async4(base + 4 * 129, in + min(int(blockIdx.x) * 128 + 128, n - 1));
#ifdef IRC_BUG
    // (no cp.async.commit_group)
#else
    asm volatile("cp.async.commit_group;" ::: "memory");
#endif
    asm volatile("cp.async.wait_group 0;" ::: "memory");
    __syncthreads();
    if (g < n)
        out[g] = 0.25f * tile[threadIdx.x] + 0.5f * tile[threadIdx.x + 1] + 0.25f * tile[threadIdx.x + 2];  // EXPECT: async-unwaited
}
