// arch: sm_90a
// Column-wise dot products of two row-major matrices, a[r, c] * b[r, c] summed over r, one 32x16 tile of
// each per step: two TMA copies complete their bytes on one mbarrier.
// Bug: arrive.expect_tx announces the bytes of the first tile only. The phase completes when the first
// copy lands (the tx-count reaches zero), and the second tile is read while it may still be in flight.
#include <cuda.h>
#include <cstdint>

#define ROWS 32
#define COLS 16
#define TILE_BYTES (ROWS * COLS * 4)

__device__ __forceinline__ uint32_t saddr(const void* p) { return (uint32_t)__cvta_generic_to_shared(p); }

__device__ __forceinline__ void tma2d(float* dst, const CUtensorMap* m, int x, int y, uint64_t* bar)
{
    asm volatile(
        "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];" ::"r"(
            saddr(dst)),
        "l"(m), "r"(x), "r"(y), "r"(saddr(bar))
        : "memory");
}

__global__ void __launch_bounds__(128) coldot(const __grid_constant__ CUtensorMap amap,
                                              const __grid_constant__ CUtensorMap bmap, float* out, int ntiles)
{
    __shared__ alignas(128) float ta[ROWS][COLS];
    __shared__ alignas(128) float tb[ROWS][COLS];
    __shared__ alignas(8) uint64_t bar;
    if (threadIdx.x == 0) {
        asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(saddr(&bar)));
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
    __syncthreads();
    float acc = 0.f;
    for (int t = 0; t < ntiles; ++t) {
        if (threadIdx.x == 0) {
#ifdef IRC_BUG
            asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(saddr(&bar)), "n"(TILE_BYTES)  // EXPECT: mbarrier-tx-mismatch
                         : "memory");
#else
            asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(saddr(&bar)),
                         "n"(2 * TILE_BYTES)
                         : "memory");
#endif
            tma2d(&ta[0][0], &amap, blockIdx.x * COLS, t * ROWS, &bar);
            tma2d(&tb[0][0], &bmap, blockIdx.x * COLS, t * ROWS, &bar);
        }
        asm volatile(
            "{\n.reg .pred p;\nL1:\nmbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n@!p bra L1;\n}" ::"r"(
                saddr(&bar)),
            "r"(t & 1)
            : "memory");
        if (threadIdx.x < COLS)
            for (int r = 0; r < ROWS; ++r) acc += ta[r][threadIdx.x] * tb[r][threadIdx.x];
        __syncthreads();
    }
    if (threadIdx.x < COLS) out[blockIdx.x * COLS + threadIdx.x] = acc;
}
