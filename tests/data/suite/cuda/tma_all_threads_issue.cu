// arch: sm_90a
// A beginner's TMA tile load: one mbarrier, thread 0 announces the tile's bytes, the tile is copied by TMA,
// everyone waits and thread c < 32 writes the sum of column c of the 32x32 tile (one tile per block).
// Bug: the TMA copy is not guarded, so all 128 threads issue it: 128 copies complete 128 times the bytes
// announced on the barrier.
#include <cuda.h>
#include <cstdint>

static __device__ __forceinline__ uint32_t sa(const void* p) { return (uint32_t)__cvta_generic_to_shared(p); }

extern "C" __global__ void __launch_bounds__(128) tile_colsum(const __grid_constant__ CUtensorMap map, float* __restrict__ out)
{
    __shared__ __align__(128) float tile[32][32];
    __shared__ __align__(8) uint64_t bar;
    if (threadIdx.x == 0) {
        asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;\n\tfence.mbarrier_init.release.cluster;" ::"r"(sa(&bar))
                     : "memory");
    }
    __syncthreads();
    if (threadIdx.x == 0)
        asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], 4096;" ::"r"(sa(&bar)) : "memory");
#ifdef IRC_BUG
    {
#else
    if (threadIdx.x == 0) {
#endif
        asm volatile(
            "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];" ::"r"(  // EXPECT: mbarrier-tx-mismatch
                sa(&tile[0][0])),
            "l"(&map), "r"(0), "r"(int(blockIdx.x) * 32), "r"(sa(&bar))  // EXPECT: mbarrier-tx-mismatch (nvcc's .loc names this line of the asm)
            : "memory");
    }
    asm volatile("{\n.reg .pred p;\nW:\nmbarrier.try_wait.parity.shared::cta.b64 p, [%0], 0;\n@!p bra W;\n}" ::"r"(sa(&bar))
                 : "memory");
    if (threadIdx.x < 32) {
        float s = 0.f;
        for (int r = 0; r < 32; ++r) s += tile[r][threadIdx.x];
        out[blockIdx.x * 32 + threadIdx.x] = s;
    }
}
