// arch: sm_90a
// Tiled transpose through TMA in both directions, with cuda::ptx: the 32x32 tile (x, y) of x is loaded by
// TMA, transposed in shared memory by ordinary stores, and stored by TMA as tile (y, x) of out.
// Bug: no fence.proxy.async between the threads' st.shared and the TMA store: the store (async proxy) may
// read the tile without seeing the generic-proxy writes; __syncthreads alone does not order them.
#include <cuda.h>
#include <cuda/ptx>
#include <cstdint>

namespace ptx = cuda::ptx;

__global__ void __launch_bounds__(256) transpose_tma(const __grid_constant__ CUtensorMap in_map,
                                                     const __grid_constant__ CUtensorMap out_map)
{
    __shared__ alignas(128) float in_tile[32][32];
    __shared__ alignas(128) float out_tile[32][32];
    __shared__ uint64_t bar;
    if (threadIdx.x == 0) {
        ptx::mbarrier_init(&bar, 1);
        ptx::fence_mbarrier_init(ptx::sem_release, ptx::scope_cluster);
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared, &bar, sizeof(in_tile));
        const int32_t c[2] = {int32_t(blockIdx.x * 32), int32_t(blockIdx.y * 32)};
        ptx::cp_async_bulk_tensor(ptx::space_cluster, ptx::space_global, &in_tile[0][0], &in_map, c, &bar);
    }
    while (!ptx::mbarrier_try_wait_parity(&bar, 0)) {
    }
    for (int i = threadIdx.x; i < 32 * 32; i += 256) out_tile[i % 32][i / 32] = in_tile[i / 32][i % 32];
#ifdef IRC_BUG
    // (no proxy fence)
#else
    ptx::fence_proxy_async(ptx::space_shared);  // make the st.shared above visible to the async proxy
#endif
    __syncthreads();
    if (threadIdx.x == 0) {
        const int32_t c[2] = {int32_t(blockIdx.y * 32), int32_t(blockIdx.x * 32)};
        ptx::cp_async_bulk_tensor(ptx::space_global, ptx::space_shared, &out_map, c, &out_tile[0][0]);  // EXPECT: async-proxy-fence
        ptx::cp_async_bulk_commit_group();
        ptx::cp_async_bulk_wait_group_read(ptx::n32_t<0>());
    }
}
