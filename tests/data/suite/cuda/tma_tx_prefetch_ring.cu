// arch: sm_90a
// Column-wise dot products a[r, c] * b[r, c] summed over r, 32x16 tiles of a and b per step through a
// 2-stage TMA ring: one helper issues a step's two copies; it runs for step 0 before the loop and for step
// t + 1 inside it (the prefetch), so the byte count is announced at two sites.
// Bug: the helper announces the bytes of the a tile only. Each phase completes when that tile lands, and
// the b tile is read while it may still be in flight.
#include <cuda.h>
#include <cstdint>

#define ROWS 32
#define COLS 16
#define TILE_BYTES (ROWS * COLS * 4)

__device__ __forceinline__ uint32_t smem_u32(const void* p) { return (uint32_t)__cvta_generic_to_shared(p); }

struct Stage {
    float a[ROWS][COLS];
    float b[ROWS][COLS];
};

__device__ __forceinline__ void issue_step(Stage* st, uint64_t* full, const CUtensorMap* am, const CUtensorMap* bm,
                                           int col, int t)
{
#ifdef IRC_BUG
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem_u32(full)), "n"(TILE_BYTES)  // EXPECT: mbarrier-tx-mismatch
                 : "memory");
#else
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem_u32(full)), "n"(2 * TILE_BYTES)
                 : "memory");
#endif
    asm volatile(
        "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];" ::"r"(
            smem_u32(&st->a[0][0])),
        "l"(am), "r"(col), "r"(t * ROWS), "r"(smem_u32(full))
        : "memory");
    asm volatile(
        "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];" ::"r"(
            smem_u32(&st->b[0][0])),
        "l"(bm), "r"(col), "r"(t * ROWS), "r"(smem_u32(full))
        : "memory");
}

__global__ void __launch_bounds__(128) coldot_ring(const __grid_constant__ CUtensorMap amap,
                                                   const __grid_constant__ CUtensorMap bmap, float* out, int ntiles)
{
    __shared__ alignas(128) Stage stage[2];
    __shared__ alignas(8) uint64_t full[2];
    const int col = blockIdx.x * COLS;
    if (threadIdx.x == 0) {
        for (int s = 0; s < 2; ++s) asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem_u32(&full[s])));
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
    __syncthreads();
    if (threadIdx.x == 0 && ntiles > 0) issue_step(&stage[0], &full[0], &amap, &bmap, col, 0);
    float acc = 0.f;
    for (int t = 0; t < ntiles; ++t) {
        const int s = t & 1;
        // stage (t + 1) & 1 was read in step t - 1, and every thread has passed that step's final barrier
        if (threadIdx.x == 0 && t + 1 < ntiles) issue_step(&stage[s ^ 1], &full[s ^ 1], &amap, &bmap, col, t + 1);
        asm volatile(
            "{\n.reg .pred p;\nWAIT:\nmbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n@!p bra WAIT;\n}" ::"r"(
                smem_u32(&full[s])),
            "r"((t >> 1) & 1)
            : "memory");
        if (threadIdx.x < COLS)
            for (int r = 0; r < ROWS; ++r) acc += stage[s].a[r][threadIdx.x] * stage[s].b[r][threadIdx.x];
        __syncthreads();
    }
    if (threadIdx.x < COLS) out[blockIdx.x * COLS + threadIdx.x] = acc;
}
