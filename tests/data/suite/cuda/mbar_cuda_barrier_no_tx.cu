// arch: sm_90a
// The programming guide's pattern for bulk copies with cuda::barrier: thread 0 issues
// cuda::device::memcpy_async_tx into shared memory and arrives with the transaction count, the other
// threads arrive, everyone waits on its token. out[b, i] = 2 * x[b, 1023 - i] (1024 floats per block).
// Bug: thread 0 arrives with a plain bar.arrive(): the copy's bytes are never announced (expect_tx), so
// its complete_tx drives the transaction count below zero and the phase does not wait for the data.
#include <cuda/barrier>
#include <utility>

using block_barrier = cuda::barrier<cuda::thread_scope_block>;
constexpr int N = 1024;

__global__ void __launch_bounds__(256) reverse_double(const float* __restrict__ x, float* __restrict__ out)
{
    __shared__ alignas(16) float buf[N];
#pragma nv_diag_suppress static_var_with_dynamic_init
    __shared__ block_barrier bar;
    if (threadIdx.x == 0) {
        init(&bar, blockDim.x);
        cuda::device::experimental::fence_proxy_async_shared_cta();
    }
    __syncthreads();
    block_barrier::arrival_token token;
    if (threadIdx.x == 0) {
        cuda::device::memcpy_async_tx(buf, x + (size_t)blockIdx.x * N, cuda::aligned_size_t<16>(sizeof(buf)), bar);  // EXPECT: mbarrier-tx-mismatch (the copy whose bytes nobody announces)
#ifdef IRC_BUG
        token = bar.arrive();  // EXPECT: mbarrier-tx-mismatch
#else
        token = cuda::device::barrier_arrive_tx(bar, 1, sizeof(buf));
#endif
    } else {
        token = bar.arrive();
    }
    bar.wait(std::move(token));
    for (int i = threadIdx.x; i < N; i += blockDim.x) out[(size_t)blockIdx.x * N + i] = 2.f * buf[N - 1 - i];
}
