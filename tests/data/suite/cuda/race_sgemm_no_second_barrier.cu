// arch: sm_80
// The textbook 16x16 shared-memory tiled SGEMM, C = A * B for n x n matrices (n a multiple of 16), with a
// 1-D block of 256 threads viewed as 16 x 16 and the K loop's trip count n / 16 from a parameter.
// Bug: the second __syncthreads (end of the K step) is missing: a fast thread stores the next step's
// tile while slower threads still read the current one.
#define TILE 16

__global__ void __launch_bounds__(TILE * TILE)
    sgemm_tiled(float* __restrict__ C, const float* __restrict__ A, const float* __restrict__ B, int n)
{
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    const int tx = threadIdx.x % TILE, ty = threadIdx.x / TILE;
    const int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
    float acc = 0.f;
    for (int t = 0; t < n / TILE; ++t) {
        As[ty][tx] = A[row * n + t * TILE + tx];  // EXPECT: shared-race
        Bs[ty][tx] = B[(t * TILE + ty) * n + col];  // EXPECT: shared-race
        __syncthreads();
        for (int k = 0; k < TILE; ++k) acc += As[ty][k] * Bs[k][tx];
#ifdef IRC_BUG
        // (no barrier before the next step overwrites As and Bs)
#else
        __syncthreads();
#endif
    }
    C[row * n + col] = acc;
}
