// arch: sm_90a
// Strided sums of a float vector streamed through shared memory in 4 KiB chunks by 1-D bulk copies
// (cuda::ptx::cp_async_bulk): out[t] = sum of x[i] over i % 128 == t. n is a multiple of 4, so every
// copy is a multiple of 16 bytes; the last chunk is shorter than the others.
// Bug: arrive.expect_tx always announces a whole chunk, but the last copy brings fewer bytes, so the last
// phase never completes.
#include <cuda/ptx>
#include <cstdint>

namespace ptx = cuda::ptx;
constexpr int CHUNK = 1024;

__global__ void __launch_bounds__(128) strided_sum(const float* __restrict__ x, float* __restrict__ out, int n)
{
    __shared__ alignas(16) float buf[CHUNK];
    __shared__ uint64_t bar;
    if (threadIdx.x == 0) {
        ptx::mbarrier_init(&bar, 1);
        ptx::fence_mbarrier_init(ptx::sem_release, ptx::scope_cluster);
    }
    __syncthreads();
    float acc = 0.f;
    const int nchunks = (n + CHUNK - 1) / CHUNK;
    for (int c = 0; c < nchunks; ++c) {
        const int count = min(CHUNK, n - c * CHUNK);
        if (threadIdx.x == 0) {
            const uint32_t bytes = count * sizeof(float);
#ifdef IRC_BUG
            ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared, &bar, CHUNK * sizeof(float));  // EXPECT: mbarrier-tx-mismatch
#else
            ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared, &bar, bytes);
#endif
            ptx::cp_async_bulk(ptx::space_cluster, ptx::space_global, buf, x + (size_t)c * CHUNK, bytes, &bar);
        }
        while (!ptx::mbarrier_try_wait_parity(&bar, c & 1)) {
        }
        for (int i = threadIdx.x; i < count; i += 128) acc += buf[i];
        __syncthreads();  // the buffer is refilled by the next chunk
    }
    out[threadIdx.x] = acc;
}
