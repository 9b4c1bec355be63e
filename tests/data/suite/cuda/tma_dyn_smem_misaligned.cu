// arch: sm_90a
// A 2-stage TMA loop over 32x16 tiles with all shared memory in one dynamic buffer, carved by hand: the
// two mbarriers first, then the tiles. out[b * 16 + c] = sum of column b * 16 + c over ntiles tiles.
// Bug: the tiles start right after the 16 bytes of barriers; a tensor copy's shared-memory destination
// must be 128-byte aligned (the twin rounds the offset up to 128).
#include <cuda.h>
#include <cstdint>

#define ROWS 32
#define COLS 16
#define TILE_FLOATS (ROWS * COLS)
#ifdef IRC_BUG
#define TILE_OFFSET (2 * sizeof(uint64_t))
#else
#define TILE_OFFSET 128
#endif

__device__ __forceinline__ uint32_t saddr(const void* p) { return (uint32_t)__cvta_generic_to_shared(p); }

__global__ void __launch_bounds__(128) colsum_dynsmem(const __grid_constant__ CUtensorMap map, float* out, int ntiles)
{
    extern __shared__ __align__(1024) unsigned char smem[];
    uint64_t* bars = reinterpret_cast<uint64_t*>(smem);
    float* tiles = reinterpret_cast<float*>(smem + TILE_OFFSET);
    if (threadIdx.x == 0) {
        for (int s = 0; s < 2; ++s) asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(saddr(&bars[s])));
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
    __syncthreads();
    float acc = 0.f;
    for (int t = 0; t < ntiles; ++t) {
        const int s = t & 1;
        if (threadIdx.x == 0) {
            asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(saddr(&bars[s])),
                         "n"(TILE_FLOATS * 4)
                         : "memory");
            asm volatile(
                "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];" ::"r"(  // EXPECT: tma-misaligned
                    saddr(tiles + s * TILE_FLOATS)),
                "l"(&map), "r"(int(blockIdx.x) * COLS), "r"(t * ROWS), "r"(saddr(&bars[s]))  // EXPECT: tma-misaligned (nvcc's .loc names this line of the asm)
                : "memory");
        }
        asm volatile("{\n.reg .pred p;\nW:\nmbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n@!p bra W;\n}" ::"r"(
                         saddr(&bars[s])),
                     "r"((t >> 1) & 1)
                     : "memory");
        if (threadIdx.x < COLS)
            for (int r = 0; r < ROWS; ++r) acc += tiles[s * TILE_FLOATS + r * COLS + threadIdx.x];
        __syncthreads();
    }
    if (threadIdx.x < COLS) out[blockIdx.x * COLS + threadIdx.x] = acc;
}
