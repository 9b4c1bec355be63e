// BUG: a persistent TMA tile loop (sm_90a, inline PTX helpers of tma_driver.cuh) that re-initialises
// its mbarrier at the start of every tile so that each tile can wait on parity 0. Without an
// mbarrier.inval at the end of the tile, the init hits a barrier that is still valid: undefined
// behaviour (PTX requires invalidating an mbarrier before its memory is initialised again).
#include "tma_driver.cuh"

extern "C" __global__ void __launch_bounds__(128) tiles_reinit(const __grid_constant__ CUtensorMap map,
                                                               float* out, int ntiles)
{
    __shared__ __align__(128) float tile[TILE_ROWS * TILE_COLS];
    __shared__ __align__(8) uint64_t full;
    unsigned sbar = smem_addr(&full);
    for (int t = blockIdx.x; t < ntiles; t += gridDim.x) {
        if (threadIdx.x == 0) {
            bar_init(sbar, 1);  // EXPECT: mbarrier-reuse
            bar_init_fence();
        }
        __syncthreads();
        if (threadIdx.x == 0) {
            bar_arrive_tx(sbar, TILE_BYTES);
            tma_load_tile(smem_addr(tile), &map, 0, t * TILE_ROWS, sbar);
        }
        bar_wait(sbar, 0);
        if (threadIdx.x < TILE_COLS) {
            float acc = 0.0f;
            for (int r = 0; r < TILE_ROWS; ++r)
                acc += tile[r * TILE_COLS + threadIdx.x];
            out[t * TILE_COLS + threadIdx.x] = acc;
        }
        __syncthreads();
    }
}
