// OK: a CUTLASS-style multi-stage ring (4 stages, warp-specialised). Thread 0 produces: it waits until
// the consumers have released the stage, announces the bytes and issues the TMA. Warps 1..3 consume:
// they wait for the stage to land, read it and release it (96 arrivals per phase on `empty`). Both roles
// carry a pipeline state (stage, phase) and flip the phase whenever the stage index wraps.
#include "tma_driver.cuh"

#define STAGES 4
#define CONSUMERS 96

struct PipeState {
    int stage;
    unsigned phase;
    __device__ void advance()
    {
        if (++stage == STAGES) {
            stage = 0;
            phase ^= 1;
        }
    }
};

extern "C" __global__ void __launch_bounds__(128) tma_ring(const __grid_constant__ CUtensorMap map,
                                                           float* out, int ntiles)
{
    __shared__ __align__(128) float tiles[STAGES][TILE_ROWS * TILE_COLS];
    __shared__ __align__(8) uint64_t full[STAGES];
    __shared__ __align__(8) uint64_t empty[STAGES];
    if (threadIdx.x == 0) {
        for (int s = 0; s < STAGES; ++s) {
            bar_init(smem_addr(&full[s]), 1);
            bar_init(smem_addr(&empty[s]), CONSUMERS);
        }
        bar_init_fence();
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        PipeState st{0, 0};
        for (int t = 0; t < ntiles; ++t) {
            if (t >= STAGES)
                bar_wait(smem_addr(&empty[st.stage]), st.phase ^ 1);  // released by use t - STAGES
            bar_arrive_tx(smem_addr(&full[st.stage]), TILE_BYTES);
            tma_load_tile(smem_addr(tiles[st.stage]), &map, blockIdx.x * TILE_COLS, t * TILE_ROWS,
                          smem_addr(&full[st.stage]));
            st.advance();
        }
    } else if (threadIdx.x >= 32) {
        int c = threadIdx.x - 32;
        float acc = 0.0f;
        PipeState st{0, 0};
        for (int t = 0; t < ntiles; ++t) {
            bar_wait(smem_addr(&full[st.stage]), st.phase);
            if (c < TILE_COLS)
                for (int r = 0; r < TILE_ROWS; ++r)
                    acc += tiles[st.stage][r * TILE_COLS + c];
            bar_arrive(smem_addr(&empty[st.stage]));
            st.advance();
        }
        if (c < TILE_COLS)
            out[blockIdx.x * TILE_COLS + c] = acc;
    }
}
