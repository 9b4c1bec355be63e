// BUG: a two-stage cp.async SGEMM (cuda::pipeline with thread scope, 32x32 tiles, 256 threads each
// computing a 1x4 strip) without the barrier at the end of the loop body: the copy of tile k+2 into
// stage k % 2, issued at the top of iteration k+1, overwrites the stage other threads are still reading
// in iteration k.
#include <cuda/pipeline>

#define BT 32

__global__ void __launch_bounds__(256) sgemm2(const float* A, const float* B, float* C, int n, int ktiles)
{
    __shared__ __align__(16) float sa[2][BT][BT];
    __shared__ __align__(16) float sb[2][BT][BT];
    auto pipe = cuda::make_pipeline();
    int tr = threadIdx.x / 8, tc = (threadIdx.x % 8) * 4;
    int row = blockIdx.y * BT, col = blockIdx.x * BT;
    auto fetch = [&](int kt, int st) {
        pipe.producer_acquire();
        if (kt < ktiles) {
            for (int q = 0; q < 4; ++q) {
                cuda::memcpy_async(&sa[st][tr][tc + q], &A[(size_t)(row + tr) * n + kt * BT + tc + q],  // EXPECT: shared-race (the copy into sa of tile k+2)
                                   sizeof(float), pipe);
                cuda::memcpy_async(&sb[st][tr][tc + q], &B[(size_t)(kt * BT + tr) * n + col + tc + q],  // EXPECT: shared-race (the copy into sb)
                                   sizeof(float), pipe);
            }
        }
        pipe.producer_commit();
    };
    float acc[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    fetch(0, 0);
    for (int kt = 0; kt < ktiles; ++kt) {
        fetch(kt + 1, (kt + 1) % 2);  // fetches tile k+1; its copies (lines 20, 22) race with iteration k's reads
        cuda::pipeline_consumer_wait_prior<1>(pipe);
        __syncthreads();
        int st = kt % 2;
        for (int j = 0; j < BT; ++j)
            for (int q = 0; q < 4; ++q)
                acc[q] += sa[st][tr][j] * sb[st][j][tc + q];
        pipe.consumer_release();
    }
    for (int q = 0; q < 4; ++q)
        C[(size_t)(row + tr) * n + col + tc + q] = acc[q];
}
