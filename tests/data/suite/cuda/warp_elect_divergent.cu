// arch: sm_90a
// Count the valid items per block: lanes with an item (item[i] != 0) pick a leader with elect.sync, and
// the leader adds the warp's count (popc of the ballot) to count[blockIdx.x].
// Bug: elect.sync is executed under the `has_item` branch with the full member mask, so lanes without an
// item are named but absent (the twin passes the ballot of the lanes in the branch).
#include <cstdint>

__device__ __forceinline__ bool elect_sync(unsigned mask)
{
    uint32_t pred;
    asm volatile("{\n .reg .pred p;\n elect.sync _|p, %1;\n selp.u32 %0, 1, 0, p;\n}" : "=r"(pred) : "r"(mask));
    return pred != 0;
}

__global__ void __launch_bounds__(128) count_items(const int* __restrict__ item, unsigned* __restrict__ count)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const bool has_item = item[i] != 0;
    const unsigned members = __ballot_sync(0xffffffffu, has_item);
    if (has_item) {
#ifdef IRC_BUG
        if (elect_sync(0xffffffffu)) atomicAdd(&count[blockIdx.x], __popc(members));  // EXPECT: warp-sync-divergence
#else
        if (elect_sync(members)) atomicAdd(&count[blockIdx.x], __popc(members));
#endif
    }
}
