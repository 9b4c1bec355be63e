// arch: sm_90a
// y = x * x + 1 in chunks of 1,024 floats, staged in two shared buffers that thread 0 writes back with 1-D
// bulk stores (cp.async.bulk global <- shared, one bulk group per chunk). Chunk c fills buffer c % 2 while
// the store of chunk c - 1 may still be reading the other one; before the fill, thread 0 waits until at
// most one bulk group is still reading its source, and a __syncthreads passes that on.
// Bug: the wait allows two groups in flight, so the store of chunk c - 2 may still read buffer c % 2.
#include <cstdint>

#define CHUNK 1024

static __device__ __forceinline__ uint32_t smem_u32(const void* p) { return (uint32_t)__cvta_generic_to_shared(p); }

extern "C" __global__ void __launch_bounds__(256)
    square_plus_one_2buf(const float* __restrict__ x, float* __restrict__ y, int nchunks)
{
    __shared__ __align__(128) float staging[2][CHUNK];
    const bool leader = threadIdx.x == 0;
    for (int c = 0; c < nchunks; ++c) {
        float* buf = staging[c & 1];
        if (leader) {
#ifdef IRC_BUG
            asm volatile("cp.async.bulk.wait_group.read 2;" ::: "memory");
#else
            asm volatile("cp.async.bulk.wait_group.read 1;" ::: "memory");
#endif
        }
        __syncthreads();
        for (int i = threadIdx.x; i < CHUNK; i += 256) {
            const float v = x[(size_t)c * CHUNK + i];
            buf[i] = v * v + 1.f;  // EXPECT: async-overwrite
        }
        asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
        __syncthreads();
        if (leader) {
            asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(y + (size_t)c * CHUNK),
                         "r"(smem_u32(buf)), "n"(CHUNK * 4)
                         : "memory");
            asm volatile("cp.async.bulk.commit_group;" ::: "memory");
        }
    }
    if (leader) asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
}
