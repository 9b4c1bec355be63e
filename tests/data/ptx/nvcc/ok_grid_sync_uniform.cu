// Correct: every block reaches both grid barriers; only the memory accesses are guarded.
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

__global__ void two_phase(float *buf, float *tmp, int n)
{
    cg::grid_group grid = cg::this_grid();
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    if (gid < n)
        tmp[gid] = buf[gid] * 2.0f;
    grid.sync();
    if (gid < n)
        buf[gid] = tmp[(gid + 1) % n];
    grid.sync();
}
