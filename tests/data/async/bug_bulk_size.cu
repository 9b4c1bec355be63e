// BUG: a particle update (sm_90a, cuda::ptx) that stages an array of 12-byte float3 records with one
// cp.async.bulk per block of 50 particles: 600 bytes is not a multiple of 16, which cp.async.bulk
// requires of its size (and of both addresses).
#include <cuda/ptx>
#include <cstdint>

namespace ptx = cuda::ptx;

#define NP 50

__global__ void __launch_bounds__(128) drift(const float3* __restrict__ pos, float3* __restrict__ out, float dt, int nblk)
{
    __shared__ alignas(16) float3 p[NP + 4];
    __shared__ alignas(8) uint64_t bar;
    if (threadIdx.x == 0) {
        ptx::mbarrier_init(&bar, 1);
        ptx::fence_mbarrier_init(ptx::sem_release, ptx::scope_cluster);
    }
    __syncthreads();
    int b = blockIdx.x;
    if (b >= nblk)
        return;
    if (threadIdx.x == 0) {
        ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared, &bar, NP * sizeof(float3));
        ptx::cp_async_bulk(ptx::space_cluster, ptx::space_global, p, pos + (size_t)b * NP, NP * sizeof(float3), &bar);  // EXPECT: tma-misaligned
    }
    while (!ptx::mbarrier_try_wait_parity(&bar, 0)) {
    }
    if (threadIdx.x < NP) {
        float3 q = p[threadIdx.x];
        out[(size_t)b * NP + threadIdx.x] = make_float3(q.x + dt, q.y + dt, q.z + dt);
    }
}
