// OK: the double-buffered cp.async GEMM of bug_cpa_read_filling.cu computing on stage k % 2, whose group
// `__pipeline_wait_prior(1)` has completed, while tile k+1 lands in the other stage.
#include <cuda_pipeline.h>

#define T 16

struct Smem {
    float a[2][T][T];
    float b[2][T][T];
};

static __device__ __forceinline__ void load_tile(Smem& s, int stage, const float* A, const float* B, int lda,
                                                 int ldb, int row, int col, int k0)
{
    int ty = threadIdx.y, tx = threadIdx.x;
    __pipeline_memcpy_async(&s.a[stage][ty][tx], &A[(row + ty) * lda + k0 + tx], sizeof(float));
    __pipeline_memcpy_async(&s.b[stage][ty][tx], &B[(k0 + ty) * ldb + col + tx], sizeof(float));
}

static __device__ __forceinline__ float mma_tile(const Smem& s, int stage, float acc)
{
#pragma unroll
    for (int j = 0; j < T; ++j)
        acc += s.a[stage][threadIdx.y][j] * s.b[stage][j][threadIdx.x];
    return acc;
}

__global__ void __launch_bounds__(256) gemm_db(const float* A, const float* B, float* C, int M, int N, int K)
{
    __shared__ Smem s;
    int row = blockIdx.y * T, col = blockIdx.x * T;
    int nk = K / T;
    load_tile(s, 0, A, B, K, N, row, col, 0);
    __pipeline_commit();
    float acc = 0.0f;
    for (int k = 0; k < nk; ++k) {
        if (k + 1 < nk)
            load_tile(s, (k + 1) % 2, A, B, K, N, row, col, (k + 1) * T);
        __pipeline_commit();
        __pipeline_wait_prior(1);
        __syncthreads();
        acc = mma_tile(s, k % 2, acc);
        __syncthreads();
    }
    C[(row + threadIdx.y) * N + col + threadIdx.x] = acc;
}
