// arch: sm_90a
// Per-row feature scaling: rows of 37 features stored with a pitch of 40 floats. Each block brings its row
// into shared memory with one 1-D bulk copy (cp.async.bulk, completing on an mbarrier) and writes
// out[row, j] = x[row, j] * w[j] for the 37 features.
// Bug: the copy moves exactly the 37 features, 148 bytes: a bulk copy's size must be a multiple of 16
// (the padded row, 160 bytes, is the right copy).
#include <cstdint>

#define FEATURES 37
#define PITCH 40

__device__ __forceinline__ uint32_t smem_of(const void* p) { return (uint32_t)__cvta_generic_to_shared(p); }

extern "C" __global__ void __launch_bounds__(64)
    scale_features(const float* __restrict__ x, const float* __restrict__ w, float* __restrict__ out)
{
    __shared__ __align__(16) float row[PITCH];
    __shared__ __align__(8) uint64_t bar;
#ifdef IRC_BUG
    const uint32_t bytes = FEATURES * sizeof(float);
#else
    const uint32_t bytes = PITCH * sizeof(float);
#endif
    if (threadIdx.x == 0) {
        asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem_of(&bar)) : "memory");
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
        asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem_of(&bar)), "r"(bytes) : "memory");
        asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(  // EXPECT: tma-misaligned
                         smem_of(row)),
                     "l"(x + (size_t)blockIdx.x * PITCH), "r"(bytes), "r"(smem_of(&bar))  // EXPECT: tma-misaligned (nvcc's .loc names this line of the asm)
                     : "memory");
    }
    __syncthreads();  // the barrier is initialised before anyone polls it
    asm volatile("{\n\t.reg .pred p;\nWAIT_ROW:\n\tmbarrier.try_wait.parity.shared::cta.b64 p, [%0], 0;\n\t@!p bra WAIT_ROW;\n}" ::"r"(
                     smem_of(&bar))
                 : "memory");
    if (threadIdx.x < FEATURES) out[(size_t)blockIdx.x * PITCH + threadIdx.x] = row[threadIdx.x] * w[threadIdx.x];
}
