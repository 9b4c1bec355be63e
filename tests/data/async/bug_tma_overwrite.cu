// BUG: the TMA loader loop of ok_tma_driver.cu without the block barrier at the end of each step: thread
// 0 issues the next tile's tensor copy into the buffer while the other readers may still be summing the
// current tile, so the copy overwrites data that is being read.
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
            tma_load_tile(stile, &map, blockIdx.x * TILE_COLS, t * TILE_ROWS, sbar);  // EXPECT: shared-race
        }
        bar_wait(sbar, t & 1);
        if (threadIdx.x < TILE_COLS)
            for (int r = 0; r < TILE_ROWS; ++r)
                acc += tile[r * TILE_COLS + threadIdx.x];
    }
    if (threadIdx.x < TILE_COLS)
        out[blockIdx.x * TILE_COLS + threadIdx.x] = acc;
}
