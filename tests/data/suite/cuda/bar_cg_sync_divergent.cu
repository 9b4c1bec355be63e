// arch: sm_80
// Cooperative-groups block exchange: the first `active` threads of the block publish a value, and each of
// them reads the value of its mirror thread among the active ones: out[i] = x[b * 128 + active - 1 - t].
// Threads t >= active write 0.
// Bug: block.sync() is called inside `if (t < active)`; the threads t >= active never reach it.
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

__global__ void __launch_bounds__(128) mirror_active(const float* __restrict__ x, float* __restrict__ out, int active)
{
    __shared__ float s[128];
    cg::thread_block block = cg::this_thread_block();
    const int t = block.thread_rank();
    float v = 0.f;
#ifdef IRC_BUG
    if (t < active) {
        s[t] = x[blockIdx.x * 128 + t];
        block.sync();  // EXPECT: barrier-divergence
        v = s[active - 1 - t];
    }
#else
    if (t < active) s[t] = x[blockIdx.x * 128 + t];
    block.sync();
    if (t < active) v = s[active - 1 - t];
#endif
    out[blockIdx.x * 128 + t] = v;
}
