// BUG: the loader "waits" for the tensor copy with cp.async.commit_group / wait_group, which track only
// cp.async (non-bulk) copies. Nothing waits on the mbarrier the copy completes: the tile is read while
// the copy may still be in flight.
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
            asm volatile("cp.async.commit_group;\n\tcp.async.wait_group 0;" ::: "memory");  // EXPECT: async-unwaited
        }
        __syncthreads();
        if (threadIdx.x < TILE_COLS)
            for (int r = 0; r < TILE_ROWS; ++r)
                acc += tile[r * TILE_COLS + threadIdx.x];
        __syncthreads();
    }
    if (threadIdx.x < TILE_COLS)
        out[blockIdx.x * TILE_COLS + threadIdx.x] = acc;
}
