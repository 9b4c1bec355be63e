// arch: sm_90a
// The programming guide's TMA pattern (cuda::barrier, cuda::device::experimental): each block loads a
// 64x32 tile, thread 0 issues the copy and arrives with the byte count, all threads wait on their token,
// and thread t writes the tile's row t % 64 shifted by the first element of the tile (the row's "bias"):
// out[r, c] = x[r, c] - x[r0, c0] for the block's tile, r = r0..r0+63, c = c0..c0+31.
// Bug: the bias is read from shared memory before bar.wait (hoisted "for latency"), while the copy may
// still be landing.
#include <cuda.h>
#include <cuda/barrier>
#include <utility>

using barrier = cuda::barrier<cuda::thread_scope_block>;
namespace cde = cuda::device::experimental;

constexpr int TR = 64, TC = 32;

__global__ void __launch_bounds__(128) subtract_corner(const __grid_constant__ CUtensorMap map, float* out, int ld)
{
    __shared__ alignas(128) float tile[TR][TC];
#pragma nv_diag_suppress static_var_with_dynamic_init
    __shared__ barrier bar;
    if (threadIdx.x == 0) {
        init(&bar, blockDim.x);
        cde::fence_proxy_async_shared_cta();
    }
    __syncthreads();
    const int r0 = blockIdx.y * TR, c0 = blockIdx.x * TC;
    barrier::arrival_token token;
    if (threadIdx.x == 0) {
        cde::cp_async_bulk_tensor_2d_global_to_shared(&tile[0][0], &map, c0, r0, bar);
        token = cuda::device::barrier_arrive_tx(bar, 1, sizeof(tile));
    } else {
        token = bar.arrive();
    }
#ifdef IRC_BUG
    const float bias = tile[0][0];  // EXPECT: async-unwaited
    bar.wait(std::move(token));
#else
    bar.wait(std::move(token));
    const float bias = tile[0][0];
#endif
    for (int i = threadIdx.x; i < TR * TC; i += blockDim.x)
        out[(size_t)(r0 + i / TC) * ld + c0 + i % TC] = tile[i / TC][i % TC] - bias;
}
