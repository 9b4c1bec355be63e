// BUG: the producer arrives without expect_tx. The phase completes on the arrival alone (tx-count 0),
// before the copy has landed, and the copy's complete_tx then runs against a count of zero.
#include "tma_driver.cuh"

extern "C" __global__ void __launch_bounds__(128) tma_driver(const __grid_constant__ CUtensorMap map,
                                                             float* out, int ntiles)
{
    __shared__ __align__(128) float tile[TILE_ROWS * TILE_COLS];
    __shared__ __align__(8) uint64_t full;
    unsigned sbar = smem_addr(&full);
    unsigned stile = smem_addr(tile);
    if (threadIdx.x == 0) {
        bar_init(sbar, 1);
        bar_init_fence();
    }
    __syncthreads();
    float acc = 0.0f;
    for (int t = 0; t < ntiles; ++t) {
        if (threadIdx.x == 0) {
            bar_arrive(sbar);
            tma_load_tile(stile, &map, blockIdx.x * TILE_COLS, t * TILE_ROWS, sbar);  // EXPECT: mbarrier-tx-mismatch
        }
        bar_wait(sbar, t & 1);
        if (threadIdx.x < TILE_COLS)
            for (int r = 0; r < TILE_ROWS; ++r)
                acc += tile[r * TILE_COLS + threadIdx.x];
        __syncthreads();
    }
    if (threadIdx.x < TILE_COLS)
        out[blockIdx.x * TILE_COLS + threadIdx.x] = acc;
}
