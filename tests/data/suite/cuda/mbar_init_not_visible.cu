// arch: sm_90a
// Warp-specialised TMA loader: thread 0 initialises the full/empty barriers of a 2-stage ring and then goes
// on as the producer (warp 0); warps 1..3 wait on `full` and release `empty`.
// out[b * 16 + c] = sum over the ntiles tiles of column b * 16 + c (consumer threads c < 16).
// Bug: the author relied on fence.mbarrier_init and dropped the __syncthreads after the init. The fence
// orders the init for the async proxy and the cluster, but nothing makes it visible to the other warps
// of the block before they poll the barrier.
#include <cuda.h>
#include <cstdint>

constexpr int ROWS = 32, COLS = 16, STAGES = 2;
constexpr unsigned TILE_BYTES = ROWS * COLS * 4;

namespace {
__device__ __forceinline__ unsigned s_addr(const void* p) { return static_cast<unsigned>(__cvta_generic_to_shared(p)); }
__device__ __forceinline__ void bar_init(uint64_t& b, unsigned n)
{
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(s_addr(&b)), "r"(n) : "memory");
}
__device__ __forceinline__ void bar_wait(uint64_t& b, unsigned parity)
{
    asm volatile(
        "{\n.reg .pred P1;\nWAIT_LOOP:\nmbarrier.try_wait.parity.shared::cta.b64 P1, [%0], %1;\n@!P1 bra WAIT_LOOP;\n}" ::"r"(
            s_addr(&b)),
        "r"(parity)
        : "memory");
}
__device__ __forceinline__ void bar_arrive(uint64_t& b)
{
    asm volatile("mbarrier.arrive.release.cta.shared::cta.b64 _, [%0];" ::"r"(s_addr(&b)) : "memory");
}
}  // namespace

__global__ void __launch_bounds__(128) ws_colsum(const __grid_constant__ CUtensorMap tmap, float* out, int ntiles)
{
    __shared__ alignas(128) float ring[STAGES][ROWS * COLS];
    __shared__ alignas(8) uint64_t full[STAGES], empty[STAGES];
    if (threadIdx.x == 0) {
        for (int s = 0; s < STAGES; ++s) {
            bar_init(full[s], 1);
            bar_init(empty[s], 96);
        }
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
#ifdef IRC_BUG
    // (no __syncthreads: the fence above was thought to be enough)
#else
    __syncthreads();
#endif
    if (threadIdx.x < 32) {
        if (threadIdx.x == 0) {
            for (int k = 0; k < ntiles; ++k) {
                const int s = k % STAGES;
                if (k >= STAGES) bar_wait(empty[s], (k / STAGES + 1) & 1);
                asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(s_addr(&full[s])),
                             "r"(TILE_BYTES)
                             : "memory");
                asm volatile(
                    "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], "
                    "[%4];" ::"r"(s_addr(ring[s])),
                    "l"(&tmap), "r"(int(blockIdx.x) * COLS), "r"(k * ROWS), "r"(s_addr(&full[s]))
                    : "memory");
            }
        }
    } else {
        const int c = threadIdx.x - 32;
        float acc = 0.f;
        for (int k = 0; k < ntiles; ++k) {
            const int s = k % STAGES;
            bar_wait(full[s], (k / STAGES) & 1);  // EXPECT: mbarrier-uninitialized
            if (c < COLS)
                for (int r = 0; r < ROWS; ++r) acc += ring[s][r * COLS + c];
            bar_arrive(empty[s]);
        }
        if (c < COLS) out[blockIdx.x * COLS + c] = acc;
    }
}
