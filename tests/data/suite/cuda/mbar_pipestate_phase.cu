// arch: sm_90a
// A CUTLASS-style 4-stage TMA pipeline with a PipelineState (stage index + phase bit) advanced once per
// use. Warp 0 (one elected lane) produces: acquire stage (wait for the consumers' release), announce the
// bytes, issue the TMA. Warps 1..3 consume: wait for the stage, sum column c of the 32x16 tile, release.
// out[b * 16 + c] = sum of column b * 16 + c over ntiles tiles.
// Bug: PipelineState::advance flips the phase on every advance instead of when the index wraps around, so
// with 4 stages stage 0 is waited on with parity 0 at uses 0, 4, 8, ... (both roles use the state: the
// producer's second acquire waits for a release that needs the tile it has not loaded yet).
#include <cuda.h>
#include <cstdint>

#define STAGES 4
#define ROWS 32
#define COLS 16
#define TILE_BYTES (ROWS * COLS * 4)
#define CONSUMERS 96

struct PipeState {
    uint32_t index = 0, phase = 0;
    __device__ void advance()
    {
#ifdef IRC_BUG
        phase ^= 1;
        if (++index == STAGES) index = 0;
#else
        if (++index == STAGES) {
            index = 0;
            phase ^= 1;
        }
#endif
    }
};

__device__ __forceinline__ uint32_t cvta_smem(const void* p) { return (uint32_t)__cvta_generic_to_shared(p); }
__device__ __forceinline__ void wait_parity(uint64_t* bar, uint32_t phase)
{
    asm volatile(
        "{\n .reg .pred ready;\n LAB_WAIT:\n"
        " mbarrier.try_wait.parity.shared::cta.b64 ready, [%0], %1;\n"
        " @!ready bra LAB_WAIT;\n}" ::"r"(cvta_smem(bar)),
        "r"(phase)
        : "memory");
}
__device__ __forceinline__ bool elect_one()
{
    uint32_t pred = 0;
    asm volatile("{\n .reg .pred p;\n elect.sync _|p, 0xffffffff;\n selp.u32 %0, 1, 0, p;\n}" : "=r"(pred));
    return pred != 0;
}

__global__ void __launch_bounds__(128) colsum_pipeline(const __grid_constant__ CUtensorMap map, float* out, int ntiles)
{
    __shared__ alignas(128) float tiles[STAGES][ROWS][COLS];
    __shared__ alignas(8) uint64_t full[STAGES], empty[STAGES];
    if (threadIdx.x == 0) {
        for (int s = 0; s < STAGES; ++s) {
            asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(cvta_smem(&full[s])));
            asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(cvta_smem(&empty[s])), "n"(CONSUMERS));
        }
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
    __syncthreads();

    if (threadIdx.x / 32 == 0) {
        if (elect_one()) {
            PipeState st;
            st.phase = 1;  // the producer starts one phase ahead: every stage is free
            for (int k = 0; k < ntiles; ++k, st.advance()) {
                wait_parity(&empty[st.index], st.phase);  // EXPECT: mbarrier-phase
                asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(cvta_smem(&full[st.index])),
                             "n"(TILE_BYTES)
                             : "memory");
                asm volatile(
                    "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], "
                    "[%4];" ::"r"(cvta_smem(&tiles[st.index][0][0])),
                    "l"(&map), "r"(int(blockIdx.x * COLS)), "r"(k * ROWS), "r"(cvta_smem(&full[st.index]))
                    : "memory");
            }
        }
    } else {
        const int c = threadIdx.x - 32;
        float acc = 0.f;
        PipeState st;
        for (int k = 0; k < ntiles; ++k, st.advance()) {
            wait_parity(&full[st.index], st.phase);  // EXPECT: mbarrier-phase
            if (c < COLS)
                for (int r = 0; r < ROWS; ++r) acc += tiles[st.index][r][c];
            asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(cvta_smem(&empty[st.index])) : "memory");
        }
        if (c < COLS) out[blockIdx.x * COLS + c] = acc;
    }
}
