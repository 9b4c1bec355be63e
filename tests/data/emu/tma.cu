// sm_90 TMA + mbarrier kernel for the emulator tests (regen.sh builds it with -arch=sm_90).
#include <cuda.h>
#include <cstdint>

// Each CTA loads a 32x16 box (rows x cols) of a float matrix at tile (blockIdx.y, blockIdx.x) with TMA,
// waits on an mbarrier (expect_tx), adds 1 to every element in smem, and stores the box back with TMA.
extern "C" __global__ void tma_tile(const __grid_constant__ CUtensorMap in_map,
                                    const __grid_constant__ CUtensorMap out_map) {
    __shared__ __align__(128) float tile[32 * 16];
    __shared__ __align__(8) uint64_t bar;
    unsigned sbar = (unsigned)__cvta_generic_to_shared(&bar);
    unsigned stile = (unsigned)__cvta_generic_to_shared(tile);
    int x = blockIdx.x * 16, y = blockIdx.y * 32;
    if (threadIdx.x == 0) {
        asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" :: "r"(sbar), "r"(1));
        asm volatile("fence.proxy.async.shared::cta;");
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" :: "r"(sbar), "r"(32 * 16 * 4));
        asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
                     :: "r"(stile), "l"(&in_map), "r"(x), "r"(y), "r"(sbar) : "memory");
    }
    asm volatile("{\n.reg .pred p;\nWAIT:\n"
                 "mbarrier.try_wait.parity.shared::cta.b64 p, [%0], 0;\n"
                 "@!p bra WAIT;\n}" :: "r"(sbar) : "memory");
    for (int i = threadIdx.x; i < 32 * 16; i += blockDim.x) tile[i] += 1.0f;
    asm volatile("fence.proxy.async.shared::cta;");
    __syncthreads();
    if (threadIdx.x == 0) {
        asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%1, %2}], [%3];"
                     :: "l"(&out_map), "r"(x), "r"(y), "r"(stile) : "memory");
        asm volatile("cp.async.bulk.commit_group;");
        asm volatile("cp.async.bulk.wait_group.read 0;");
    }
}
