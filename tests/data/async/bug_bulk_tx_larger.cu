// BUG: a two-stage bulk-copy pipeline (cuda::ptx wrappers, sm_90a) that copies rows of ROW floats.
// The row length was doubled, but the announcement still uses the old byte count: each phase expects
// OLD_BYTES while the copy completes ROW_BYTES on the barrier. The transaction count goes negative,
// the phase completes while bytes are still landing, and the next phase is corrupted.
#include <cuda/ptx>
#include <cstdint>

namespace ptx = cuda::ptx;

#define ROW 512
#define ROW_BYTES (ROW * 4)
#define OLD_BYTES (ROW_BYTES / 2)

__global__ void __launch_bounds__(128) row_norms(const float* __restrict__ m, float* __restrict__ norms, int nrows)
{
    __shared__ alignas(128) float rows[2][ROW];
    __shared__ alignas(8) uint64_t full[2];
    __shared__ float red[4];
    if (threadIdx.x == 0) {
        ptx::mbarrier_init(&full[0], 1);
        ptx::mbarrier_init(&full[1], 1);
        ptx::fence_mbarrier_init(ptx::sem_release, ptx::scope_cluster);
    }
    __syncthreads();
    int first = blockIdx.x, step = gridDim.x;
    int n = first < nrows ? (nrows - first + step - 1) / step : 0;
    if (threadIdx.x == 0 && n > 0) {
        ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared, &full[0], OLD_BYTES);  // EXPECT: mbarrier-tx-mismatch
        ptx::cp_async_bulk(ptx::space_cluster, ptx::space_global, &rows[0][0], m + (size_t)first * ROW, ROW_BYTES,
                           &full[0]);
    }
    for (int i = 0; i < n; ++i) {
        int s = i & 1;
        if (threadIdx.x == 0 && i + 1 < n) {
            ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared, &full[s ^ 1], OLD_BYTES);  // EXPECT: mbarrier-tx-mismatch
            ptx::cp_async_bulk(ptx::space_cluster, ptx::space_global, &rows[s ^ 1][0],
                               m + (size_t)(first + (i + 1) * step) * ROW, ROW_BYTES, &full[s ^ 1]);
        }
        while (!ptx::mbarrier_try_wait_parity(&full[s], (i >> 1) & 1)) {
        }
        float acc = 0.0f;
        for (int j = threadIdx.x; j < ROW; j += 128)
            acc += rows[s][j] * rows[s][j];
        for (int o = 16; o > 0; o >>= 1)
            acc += __shfl_xor_sync(0xffffffffu, acc, o);
        if ((threadIdx.x & 31) == 0)
            red[threadIdx.x >> 5] = acc;
        __syncthreads();
        if (threadIdx.x == 0)
            norms[first + i * step] = sqrtf(red[0] + red[1] + red[2] + red[3]);
        __syncthreads();
    }
}
