// arch: sm_90a
// Column sums of a row-major matrix, one 32x16 tile per step loaded by TMA, written with libcu++'s
// cuda::ptx wrappers. Thread 0 initialises the mbarrier; each step it announces the tile's bytes and
// issues the tensor copy; every thread waits on the phase (parity t & 1) and thread c < 16 sums column c.
// Bug: no fence.mbarrier_init (or fence.proxy.async) after mbarrier.init: the init is a generic-proxy write
// that the TMA unit's complete_tx (async proxy) is not guaranteed to observe; __syncthreads alone does not
// order it for the async proxy.
#include <cuda.h>
#include <cuda/ptx>
#include <cstdint>

namespace ptx = cuda::ptx;

constexpr int ROWS = 32, COLS = 16;
#define TILE_BYTES uint32_t(ROWS * COLS * sizeof(float))

__global__ void __launch_bounds__(128)
    colsum_tma(const __grid_constant__ CUtensorMap map, float* __restrict__ out, int ntiles)
{
    __shared__ alignas(128) float tile[ROWS][COLS];
    __shared__ uint64_t bar;
    if (threadIdx.x == 0) {
        ptx::mbarrier_init(&bar, 1);
#ifdef IRC_BUG
        // (no fence: the async proxy may not see the initialised barrier)
#else
        ptx::fence_mbarrier_init(ptx::sem_release, ptx::scope_cluster);
#endif
    }
    __syncthreads();
    float acc = 0.f;
    for (int t = 0; t < ntiles; ++t) {
        if (threadIdx.x == 0) {
            ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared, &bar, TILE_BYTES);
            const int32_t coords[2] = {int32_t(blockIdx.x * COLS), int32_t(t * ROWS)};
            ptx::cp_async_bulk_tensor(ptx::space_cluster, ptx::space_global, &tile[0][0], &map, coords, &bar);  // EXPECT: async-proxy-fence
        }
        while (!ptx::mbarrier_try_wait_parity(&bar, t & 1)) {
        }
        if (threadIdx.x < COLS)
            for (int r = 0; r < ROWS; ++r) acc += tile[r][threadIdx.x];
        __syncthreads();  // the tile is overwritten by the next step's copy
    }
    if (threadIdx.x < COLS) out[blockIdx.x * COLS + threadIdx.x] = acc;
}
