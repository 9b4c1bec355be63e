// arch: sm_90a
// Each block bulk-copies 256 floats into a shared struct that keeps its mbarrier next to the data, and
// writes out[b, i] = x[b, i] + x[b, 255 - i]. Written with cuda::ptx.
// Bug: the data array follows the 8-byte mbarrier with no alignment: it starts at offset 8, while a bulk
// copy's shared-memory destination must be 16-byte aligned.
#include <cuda/ptx>
#include <cstdint>

namespace ptx = cuda::ptx;

struct Stage {
    uint64_t full;
#ifdef IRC_BUG
    float data[256];
#else
    alignas(16) float data[256];
#endif
};

__global__ void __launch_bounds__(128) mirror_add(const float* __restrict__ x, float* __restrict__ out)
{
    __shared__ alignas(16) Stage st;
    if (threadIdx.x == 0) {
        ptx::mbarrier_init(&st.full, 1);
        ptx::fence_mbarrier_init(ptx::sem_release, ptx::scope_cluster);
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared, &st.full, sizeof(st.data));
        ptx::cp_async_bulk(ptx::space_cluster, ptx::space_global, st.data, x + blockIdx.x * 256, sizeof(st.data), &st.full);  // EXPECT: tma-misaligned
    }
    while (!ptx::mbarrier_try_wait_parity(&st.full, 0)) {
    }
    for (int i = threadIdx.x; i < 256; i += 128) out[blockIdx.x * 256 + i] = st.data[i] + st.data[255 - i];
}
