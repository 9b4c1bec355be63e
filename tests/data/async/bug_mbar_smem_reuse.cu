// BUG: a TMA kernel with its barrier in dynamic shared memory (sm_90a). After the main loop the epilogue
// reuses the start of the dynamic buffer, where the barrier lives, as a reduction scratch area without
// invalidating the barrier first (mbarrier.inval): ordinary stores into a valid mbarrier object are
// undefined behaviour.
#include "tma_driver.cuh"

extern "C" __global__ void __launch_bounds__(128) tiles_dyn(const __grid_constant__ CUtensorMap map, float* out,
                                                            int ntiles)
{
    extern __shared__ __align__(128) unsigned char dyn[];
    uint64_t* full = reinterpret_cast<uint64_t*>(dyn);
    float* tile = reinterpret_cast<float*>(dyn + 128);
    float* scratch = reinterpret_cast<float*>(dyn);
    unsigned sbar = smem_addr(full);
    if (threadIdx.x == 0) {
        bar_init(sbar, 1);
        bar_init_fence();
    }
    __syncthreads();
    float acc = 0.0f;
    for (int t = 0; t < ntiles; ++t) {
        if (threadIdx.x == 0) {
            bar_arrive_tx(sbar, TILE_BYTES);
            tma_load_tile(smem_addr(tile), &map, blockIdx.x * TILE_COLS, t * TILE_ROWS, sbar);
        }
        bar_wait(sbar, t & 1);
        if (threadIdx.x < TILE_COLS)
            for (int r = 0; r < TILE_ROWS; ++r)
                acc += tile[r * TILE_COLS + threadIdx.x];
        __syncthreads();
    }
    if (threadIdx.x < TILE_COLS)
        scratch[threadIdx.x] = acc;  // EXPECT: mbarrier-reuse
    __syncthreads();
    if (threadIdx.x == 0) {
        float s = 0.0f;
        for (int c = 0; c < TILE_COLS; ++c)
            s += scratch[c];
        out[blockIdx.x] = s;
    }
}
