// arch: sm_80
// 32x32 tile transpose of an n x n matrix (n a multiple of 32) staged with cp.async. 256 threads per block
// viewed as 32 x 8; each thread copies four elements of the tile and then writes four elements of the
// transposed tile, which other threads copied.
// Bug: after its own cp.async.wait_group the thread reads elements that *other* threads copied, with no
// __syncthreads in between: a thread's wait covers only its own copies.
#include <cuda_pipeline.h>

#define TILE 32
#define ROWS 8

__global__ void __launch_bounds__(TILE * ROWS)
    transpose_cp_async(float* __restrict__ out, const float* __restrict__ in, int n)
{
    __shared__ float tile[TILE][TILE + 1];
    const int tx = threadIdx.x % TILE, ty = threadIdx.x / TILE;
    const int bx = blockIdx.x * TILE, by = blockIdx.y * TILE;
#pragma unroll
    for (int j = 0; j < TILE; j += ROWS)
        __pipeline_memcpy_async(&tile[ty + j][tx], &in[(size_t)(by + ty + j) * n + bx + tx], sizeof(float));
    __pipeline_commit();
    __pipeline_wait_prior(0);
#ifdef IRC_BUG
    // (missing __syncthreads: the wait covers this thread's copies only)
#else
    __syncthreads();
#endif
#pragma unroll
    for (int j = 0; j < TILE; j += ROWS)
        out[(size_t)(bx + ty + j) * n + by + tx] = tile[tx][ty + j];  // EXPECT: shared-race
}
