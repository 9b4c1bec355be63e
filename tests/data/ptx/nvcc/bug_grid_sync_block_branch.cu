// A cooperative-groups grid barrier that only the even blocks reach: the odd blocks never arrive, so the
// even ones spin forever. The branch is uniform per block, not across the grid.
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

__global__ void halo_exchange(float *buf, int n)
{
    cg::grid_group grid = cg::this_grid();
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    float mine = gid < n ? buf[gid] : 0.0f;
    if (blockIdx.x % 2 == 0) {
        grid.sync(); // EXPECT: barrier-divergence
        if (gid + 1 < n)
            buf[gid + 1] += mine;
    }
}
