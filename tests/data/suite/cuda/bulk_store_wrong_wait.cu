// arch: sm_90a
// y = x * x + 1, streamed through one 4 KiB shared staging buffer that a 1-D bulk store
// (cp.async.bulk global <- shared, bulk async-group) writes back per chunk. Before the threads overwrite
// the staging buffer for the next chunk, thread 0 waits until the previous store has read it, and a
// __syncthreads passes that on.
// Bug: the wait is cp.async.wait_all, which waits for non-bulk cp.async groups: the bulk store may still
// be reading the buffer when the next chunk overwrites it.
#include <cstdint>

#define CHUNK 1024

static __device__ __forceinline__ uint32_t shared_addr(const void* p) { return (uint32_t)__cvta_generic_to_shared(p); }

extern "C" __global__ void __launch_bounds__(256)
    square_plus_one(const float* __restrict__ x, float* __restrict__ y, int nchunks)
{
    __shared__ __align__(128) float staging[CHUNK];
    for (int c = 0; c < nchunks; ++c) {
        if (c > 0) {
            if (threadIdx.x == 0) {
#ifdef IRC_BUG
                asm volatile("cp.async.wait_all;" ::: "memory");  // EXPECT: async-overwrite
#else
                asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
#endif
            }
            __syncthreads();
        }
        for (int i = threadIdx.x; i < CHUNK; i += 256) {
            const float v = x[(size_t)c * CHUNK + i];
            staging[i] = v * v + 1.f;
        }
        asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
        __syncthreads();
        if (threadIdx.x == 0) {
            asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(y + (size_t)c * CHUNK),
                         "r"(shared_addr(staging)), "n"(CHUNK * 4)
                         : "memory");
            asm volatile("cp.async.bulk.commit_group;" ::: "memory");
        }
    }
    if (threadIdx.x == 0) asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
}
