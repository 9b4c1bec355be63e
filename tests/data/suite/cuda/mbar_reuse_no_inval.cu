// arch: sm_90a
// Sum of a 32x32 tile per block: TMA brings the top and bottom halves on two mbarriers; the barriers'
// 16 bytes are then recycled (a union) as the per-warp partial sums of the block reduction.
// Bug: the mbarrier memory is reused as data with no mbarrier.inval after the barriers' last use; the PTX
// ISA requires an mbarrier object to be invalidated before its memory is used for any other purpose.
#include <cuda.h>
#include <cstdint>

union Scratch {
    uint64_t bar[2];
    float partial[4];
};

static __device__ __forceinline__ uint32_t sa(const void* p) { return (uint32_t)__cvta_generic_to_shared(p); }

extern "C" __global__ void __launch_bounds__(128) tile_sum(const __grid_constant__ CUtensorMap map, float* out)
{
    __shared__ alignas(128) float tile[32][32];
    __shared__ alignas(8) Scratch scratch;
    if (threadIdx.x == 0) {
        asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(sa(&scratch.bar[0])) : "memory");
        asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(sa(&scratch.bar[1])) : "memory");
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        for (int h = 0; h < 2; ++h) {
            asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], 2048;" ::"r"(sa(&scratch.bar[h]))
                         : "memory");
            asm volatile(
                "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], "
                "[%4];" ::"r"(sa(&tile[16 * h][0])),
                "l"(&map), "r"(0), "r"(int(blockIdx.x) * 32 + 16 * h), "r"(sa(&scratch.bar[h]))
                : "memory");
        }
    }
    float v = 0.f;
    for (int h = 0; h < 2; ++h) {
        asm volatile(
            "{\n.reg .pred p;\nW:\nmbarrier.try_wait.parity.shared::cta.b64 p, [%0], 0;\n@!p bra W;\n}" ::"r"(
                sa(&scratch.bar[h]))
            : "memory");
        for (int i = threadIdx.x; i < 512; i += 128) v += tile[16 * h + i / 32][i % 32];
    }
    for (int d = 16; d > 0; d /= 2) v += __shfl_xor_sync(0xffffffffu, v, d);
    __syncthreads();  // every thread is past its waits
#ifdef IRC_BUG
    // (no mbarrier.inval before the memory becomes partial[])
#else
    if (threadIdx.x == 0) {
        asm volatile("mbarrier.inval.shared::cta.b64 [%0];" ::"r"(sa(&scratch.bar[0])) : "memory");
        asm volatile("mbarrier.inval.shared::cta.b64 [%0];" ::"r"(sa(&scratch.bar[1])) : "memory");
    }
    __syncthreads();
#endif
    if (threadIdx.x % 32 == 0) scratch.partial[threadIdx.x / 32] = v;  // EXPECT: mbarrier-reuse
    __syncthreads();
    if (threadIdx.x == 0)
        out[blockIdx.x] = scratch.partial[0] + scratch.partial[1] + scratch.partial[2] + scratch.partial[3];
}
