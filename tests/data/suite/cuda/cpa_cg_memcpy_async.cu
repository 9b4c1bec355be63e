// arch: sm_80
// Row RMS normalisation with cooperative groups: the block copies its row into shared memory with
// cg::memcpy_async, sums squares (strided loop + warp reduction with cg::reduce + one shared slot per warp),
// and writes y = x * rsqrt(mean(x^2) + eps). One row of `cols` (<= 1024) floats per block of 128 threads.
// Bug: cg::wait(block) was moved below the sum of squares, which already reads the row.
#include <cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>
#include <cooperative_groups/reduce.h>

namespace cg = cooperative_groups;

__global__ void __launch_bounds__(128) rms_norm_rows(const float* __restrict__ x, float* __restrict__ y, int cols, float eps)
{
    __shared__ float row[1024];
    __shared__ float warp_sums[4];
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    const float* src = x + (size_t)blockIdx.x * cols;

    cg::memcpy_async(block, row, src, sizeof(float) * cols);
#ifdef IRC_BUG
    // (the wait comes after the first loop below)
#else
    cg::wait(block);
#endif
    float ss = 0.f;
    for (int i = block.thread_rank(); i < cols; i += block.size()) ss += row[i] * row[i];  // EXPECT: async-unwaited
#ifdef IRC_BUG
    cg::wait(block);
#endif
    ss = cg::reduce(warp, ss, cg::plus<float>());
    if (warp.thread_rank() == 0) warp_sums[warp.meta_group_rank()] = ss;
    block.sync();
    const float total = warp_sums[0] + warp_sums[1] + warp_sums[2] + warp_sums[3];
    const float inv = rsqrtf(total / cols + eps);
    for (int i = block.thread_rank(); i < cols; i += block.size()) y[(size_t)blockIdx.x * cols + i] = row[i] * inv;
}
