// BUG: a chunked vector scale (sm_90a) whose chunks are fetched with the bulk copy of libcu++
// (cuda::device::memcpy_async_tx on a cuda::barrier). Thread 0 issues the copy, but then arrives with a
// plain bar.arrive() instead of barrier_arrive_tx: no thread announces the chunk's bytes, so the
// phase completes on the arrivals alone and the block reads the chunk before it lands.
#include <cuda/barrier>
#include <utility>

#pragma nv_diag_suppress static_var_with_dynamic_init

using block_barrier = cuda::barrier<cuda::thread_scope_block>;
#define CHUNK 1024

__global__ void scale_chunks(const float* __restrict__ x, float* __restrict__ y, float a, int nchunks)
{
    __shared__ alignas(128) float buf[CHUNK];
    __shared__ block_barrier bar;
    if (threadIdx.x == 0) {
        init(&bar, blockDim.x);
        cuda::device::experimental::fence_proxy_async_shared_cta();
    }
    __syncthreads();
    for (int c = blockIdx.x; c < nchunks; c += gridDim.x) {
        block_barrier::arrival_token tok;
        if (threadIdx.x == 0) {
            cuda::device::memcpy_async_tx(buf, x + (size_t)c * CHUNK, cuda::aligned_size_t<16>(sizeof(buf)), bar);  // EXPECT: mbarrier-tx-mismatch
            tok = bar.arrive();
        } else {
            tok = bar.arrive();
        }
        bar.wait(std::move(tok));
        for (int i = threadIdx.x; i < CHUNK; i += blockDim.x)
            y[(size_t)c * CHUNK + i] = a * buf[i];
        __syncthreads();
    }
}
