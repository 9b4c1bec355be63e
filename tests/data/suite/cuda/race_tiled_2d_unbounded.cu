// arch: sm_80
// Classic shared-memory tiled matrix multiply, C = A * B (n x n, n a multiple of 16), launched with
// dim3(16, 16) blocks and no __launch_bounds__: each thread stages one element of A's and B's 16x16 tiles.
// Bug: no barrier between staging the tiles and reading them.
#define TILE 16

__global__ void matmul_tiled(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int n)
{
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
    float sum = 0.f;
    for (int t = 0; t < n / TILE; ++t) {
        As[ty][tx] = A[row * n + t * TILE + tx];
        Bs[ty][tx] = B[(t * TILE + ty) * n + col];
#ifdef IRC_BUG
        // (no barrier: the reads below may see another thread's old tile element)
#else
        __syncthreads();
#endif
        for (int k = 0; k < TILE; ++k) sum += As[ty][k] * Bs[k][tx];  // EXPECT: shared-race
        __syncthreads();
    }
    C[row * n + col] = sum;
}
