// arch: sm_90a
// Vertical variation out[c] = sum_r |x[r, c] - x[r - 1, c]| down each column, 8x32 row tiles through a
// 3-stage TMA ring. The first row of a tile needs the last row of the tile before, which the consumers
// read from the previous stage (still theirs: the refill of a stage waits for the barrier that ends the
// step after it).
// Bug: the byte count announced for a tile is that of its first four rows. The copy delivers twice that:
// the transaction count passes zero without stopping there (a hang), or the phase completes on part of
// the tile and the rest is read while still in flight.
#include <cuda.h>
#include <cstdint>

#define ROWS 8
#define COLS 32
#define STAGES 3
#define TILE_BYTES (ROWS * COLS * 4)

__device__ __forceinline__ uint32_t smem_u32(const void* p) { return (uint32_t)__cvta_generic_to_shared(p); }

__global__ void __launch_bounds__(COLS) lagged_rows(const __grid_constant__ CUtensorMap xmap, float* out, int ntiles)
{
    __shared__ alignas(128) float tile[STAGES][ROWS][COLS];
    __shared__ alignas(8) uint64_t full[STAGES];
    const int c = threadIdx.x;
    if (c == 0) {
        for (int s = 0; s < STAGES; ++s) asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem_u32(&full[s])));
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
    __syncthreads();
    float acc = 0.f;
    for (int t = 0; t < ntiles; ++t) {
        const int s = t % STAGES;
        if (c == 0) {
#ifdef IRC_BUG
            asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem_u32(&full[s])),  // EXPECT: mbarrier-tx-mismatch
                         "n"(TILE_BYTES / 2)
                         : "memory");
#else
            asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem_u32(&full[s])),
                         "n"(TILE_BYTES)
                         : "memory");
#endif
            asm volatile(
                "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], "
                "[%4];" ::"r"(smem_u32(&tile[s][0][0])),
                "l"(&xmap), "r"((int)(blockIdx.x * COLS)), "r"(t * ROWS), "r"(smem_u32(&full[s]))
                : "memory");
        }
        asm volatile(
            "{\n.reg .pred p;\nWAIT:\nmbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n@!p bra WAIT;\n}" ::"r"(
                smem_u32(&full[s])),
            "r"((t / STAGES) & 1)
            : "memory");
        float above = t > 0 ? tile[(s + STAGES - 1) % STAGES][ROWS - 1][c] : tile[s][0][c];
        for (int r = 0; r < ROWS; ++r) {
            const float v = tile[s][r][c];
            acc += fabsf(v - above);
            above = v;
        }
        __syncthreads();  // the copy into stage (t + 1) % STAGES, two steps later, comes after every read
    }
    out[blockIdx.x * COLS + c] = acc;
}
