// arch: sm_80
// Register-blocked SGEMM: 32x32 output tile per block of 256 threads, each thread computing a 1x4 strip;
// K advances in steps of 8 (K a multiple of 8, M and N multiples of 32). A's 32x8 and B's 8x32 slices are
// staged in shared memory, one element of each per thread.
// Bug: the __syncthreads between storing the slices and reading them is missing.
#define BM 32
#define BN 32
#define BK 8

__global__ void __launch_bounds__(256)
    sgemm_1x4(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int M, int N, int K)
{
    __shared__ float As[BM][BK + 1];
    __shared__ float Bs[BK][BN];
    const int t = threadIdx.x;
    const int r = t / 8, c4 = (t % 8) * 4;  // this thread's output strip
    const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
    float acc[4] = {0.f, 0.f, 0.f, 0.f};
    for (int k0 = 0; k0 < K; k0 += BK) {
        As[t / BK][t % BK] = A[(size_t)(m0 + t / BK) * K + k0 + t % BK];
        Bs[t / BN][t % BN] = B[(size_t)(k0 + t / BN) * N + n0 + t % BN];
#ifdef IRC_BUG
        // (no barrier between the stores and the reads)
#else
        __syncthreads();
#endif
#pragma unroll
        for (int k = 0; k < BK; ++k) {
            const float a = As[r][k];  // EXPECT: shared-race
#pragma unroll
            for (int j = 0; j < 4; ++j) acc[j] += a * Bs[k][c4 + j];  // EXPECT: shared-race
        }
        __syncthreads();
    }
#pragma unroll
    for (int j = 0; j < 4; ++j) C[(size_t)(m0 + r) * N + n0 + c4 + j] = acc[j];
}
