// arch: sm_90a
// A 3-stage TMA ring with consumer_wait / consumer_release helpers in the CUTLASS manner. Warp 0 (lane 0)
// produces, warps 1..3 consume (96 arrivals release a stage). Each tile is 32 x 16 floats; consumer thread
// c < 16 sums column c, so out[b * 16 + c] is the column sum over ntiles tiles.
// Bug: consumer_release is handed the next stage, so the consumer frees stage (s + 1) % 3 while it is
// done with stage s: the producer refills a stage whose readers may not be finished.
#include <cuda.h>
#include <cstdint>

#define STAGES 3
#define ROWS 32
#define COLS 16

struct Ring {
    alignas(128) float tile[STAGES][ROWS][COLS];
    alignas(8) uint64_t full[STAGES];
    alignas(8) uint64_t empty[STAGES];
};

__device__ __forceinline__ uint32_t u32(const void* p) { return static_cast<uint32_t>(__cvta_generic_to_shared(p)); }

__device__ __forceinline__ void consumer_wait(Ring& r, int stage, uint32_t phase)
{
    asm volatile("{\n.reg .pred p;\nCW:\nmbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n@!p bra CW;\n}" ::"r"(
                     u32(&r.full[stage])),
                 "r"(phase)
                 : "memory");
}
__device__ __forceinline__ void consumer_release(Ring& r, int stage)
{
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(u32(&r.empty[stage])) : "memory");
}
__device__ __forceinline__ void producer_acquire(Ring& r, int stage, uint32_t phase)
{
    asm volatile("{\n.reg .pred p;\nPA:\nmbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n@!p bra PA;\n}" ::"r"(
                     u32(&r.empty[stage])),
                 "r"(phase ^ 1)
                 : "memory");
}

__global__ void __launch_bounds__(128) ring_colsum(const __grid_constant__ CUtensorMap map, float* out, int ntiles)
{
    __shared__ Ring ring;
    if (threadIdx.x == 0) {
        for (int s = 0; s < STAGES; ++s) {
            asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(u32(&ring.full[s])));
            asm volatile("mbarrier.init.shared::cta.b64 [%0], 96;" ::"r"(u32(&ring.empty[s])));
        }
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
    __syncthreads();
    int stage = 0;
    uint32_t phase = 0;
    if (threadIdx.x < 32) {
        if (threadIdx.x == 0) {
            for (int k = 0; k < ntiles; ++k) {
                producer_acquire(ring, stage, phase);
                asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(u32(&ring.full[stage])),
                             "n"(ROWS * COLS * 4)
                             : "memory");
                asm volatile(
                    "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], "
                    "[%4];" ::"r"(u32(&ring.tile[stage][0][0])),
                    "l"(&map), "r"(int(blockIdx.x) * COLS), "r"(k * ROWS), "r"(u32(&ring.full[stage]))
                    : "memory");
                if (++stage == STAGES) {
                    stage = 0;
                    phase ^= 1;
                }
            }
        }
    } else {
        const int c = threadIdx.x - 32;
        float acc = 0.f;
        for (int k = 0; k < ntiles; ++k) {
            consumer_wait(ring, stage, phase);
            if (c < COLS)
#pragma unroll 4
                for (int r = 0; r < ROWS; ++r) acc += ring.tile[stage][r][c];
#ifdef IRC_BUG
            consumer_release(ring, (stage + 1) % STAGES);  // EXPECT: mbarrier-stage-mismatch
#else
            consumer_release(ring, stage);
#endif
            if (++stage == STAGES) {
                stage = 0;
                phase ^= 1;
            }
        }
        if (c < COLS) out[blockIdx.x * COLS + c] = acc;
    }
}
