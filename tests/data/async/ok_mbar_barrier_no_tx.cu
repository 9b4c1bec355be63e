// OK: the chunked vector scale of bug_mbar_barrier_no_tx.cu where thread 0 arrives with
// cuda::device::barrier_arrive_tx(bar, 1, bytes): the phase waits for the chunk's bytes.
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
            cuda::device::memcpy_async_tx(buf, x + (size_t)c * CHUNK, cuda::aligned_size_t<16>(sizeof(buf)), bar);
            tok = cuda::device::barrier_arrive_tx(bar, 1, sizeof(buf));
        } else {
            tok = bar.arrive();
        }
        bar.wait(std::move(tok));
        for (int i = threadIdx.x; i < CHUNK; i += blockDim.x)
            y[(size_t)c * CHUNK + i] = a * buf[i];
        __syncthreads();
    }
}
