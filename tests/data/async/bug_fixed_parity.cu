// BUG: the wait parity is fixed at 0 while the loop reuses the barrier tile after tile. From the second
// tile on, the wait on parity 0 returns at once (phase 0 completed long ago): stale or torn data.
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
            bar_arrive_tx(sbar, TILE_BYTES);
            tma_load_tile(stile, &map, blockIdx.x * TILE_COLS, t * TILE_ROWS, sbar);
        }
        bar_wait(sbar, 0);  // EXPECT: mbarrier-phase
        if (threadIdx.x < TILE_COLS)
            for (int r = 0; r < TILE_ROWS; ++r)
                acc += tile[r * TILE_COLS + threadIdx.x];
        __syncthreads();
    }
    if (threadIdx.x < TILE_COLS)
        out[blockIdx.x * TILE_COLS + threadIdx.x] = acc;
}
