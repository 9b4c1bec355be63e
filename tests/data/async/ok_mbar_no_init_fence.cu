// OK: the one-tile gather of bug_mbar_no_init_fence.cu with `fence.mbarrier_init.release.cluster` right
// after the init, so the initialised barrier is visible to the async proxy before the copy completes on it.
#include <cstdint>

#define BLK 1024

static __device__ __forceinline__ unsigned smem(const void* p) { return (unsigned)__cvta_generic_to_shared(p); }

__global__ void __launch_bounds__(256) gather_block(const float* __restrict__ table, const int* __restrict__ idx,
                                                    float* __restrict__ out)
{
    __shared__ alignas(128) float blk[BLK];
    __shared__ alignas(8) uint64_t bar;
    int j = blockIdx.x;
    if (threadIdx.x == 0) {
        asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem(&bar)));
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
        asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem(&bar)), "r"(BLK * 4) : "memory");
        const float* src = table + (size_t)idx[j] * BLK;
        asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(smem(blk)), "l"(src), "r"(BLK * 4), "r"(smem(&bar)) : "memory");
    }
    __syncthreads();
    asm volatile("{\n\t.reg .pred P;\nW:\n\tmbarrier.try_wait.parity.shared::cta.b64 P, [%0], 0;\n\t@!P bra W;\n}"
                 ::"r"(smem(&bar)) : "memory");
    for (int i = threadIdx.x; i < BLK; i += 256)
        out[(size_t)j * BLK + i] = blk[i];
}
