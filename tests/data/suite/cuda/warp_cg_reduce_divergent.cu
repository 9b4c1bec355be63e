// arch: sm_80
// Sum of the positive values per block with cooperative groups: threads holding a positive value reduce it
// and one of them adds the result to out[blockIdx.x].
// Bug: inside the data-dependent branch the reduction runs on the 32-thread tile (tiled_partition<32>),
// whose collective operations need all 32 lanes; the twin reduces over cg::coalesced_threads(), the lanes
// that are actually in the branch.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

namespace cg = cooperative_groups;

__global__ void __launch_bounds__(128) positive_sum(const int* __restrict__ x, int* __restrict__ out)
{
    cg::thread_block block = cg::this_thread_block();
    const int v = x[blockIdx.x * blockDim.x + threadIdx.x];
    if (v > 0) {
#ifdef IRC_BUG
        cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
        const int s = cg::reduce(tile, v, cg::plus<int>());  // EXPECT: warp-sync-divergence
        if (tile.thread_rank() == 0) atomicAdd(&out[blockIdx.x], s);
#else
        cg::coalesced_group active = cg::coalesced_threads();
        const int s = cg::reduce(active, v, cg::plus<int>());
        if (active.thread_rank() == 0) atomicAdd(&out[blockIdx.x], s);
#endif
    }
}
