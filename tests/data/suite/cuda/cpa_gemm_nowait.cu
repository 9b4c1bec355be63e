// arch: sm_80
// SGEMM with a double-buffered cp.async tile loader written with raw PTX inline asm: C = A * B,
// one 32x32 tile of C per block of 128 threads, K in steps of 16 (K a multiple of 16, M and N multiples
// of 32). Each thread copies one 16-byte chunk of A's and one of B's tile per step and computes 8 outputs.
// Bug: the cp.async.wait_group before the barrier was dropped, so the tile is read while it still lands.
#include <cstdint>

#define BM 32
#define BN 32
#define BK 16

__device__ __forceinline__ void cp_async16(void* smem, const void* gmem)
{
    const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(smem));
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(s), "l"(gmem) : "memory");
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
template <int N>
__device__ __forceinline__ void cp_async_wait()
{
    asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
}

extern "C" __global__ void __launch_bounds__(128)
    sgemm_cp_async(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int M, int N,
                   int K)
{
    __shared__ __align__(16) float As[2][BM][BK];
    __shared__ __align__(16) float Bs[2][BK][BN];
    const int tid = threadIdx.x;
    const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
    const int a_r = tid / 4, a_c = (tid % 4) * 4;  // As: 32 rows x 4 chunks of 4 floats
    const int b_r = tid / 8, b_c = (tid % 8) * 4;  // Bs: 16 rows x 8 chunks
    const float* a_src = A + (size_t)(row0 + a_r) * K + a_c;
    const float* b_src = B + (size_t)b_r * N + col0 + b_c;
    const int ntiles = K / BK;

    cp_async16(&As[0][a_r][a_c], a_src);
    cp_async16(&Bs[0][b_r][b_c], b_src);
    cp_async_commit();

    const int r = tid / 4, c0 = (tid % 4) * 8;
    float acc[8] = {};
    for (int t = 0; t < ntiles; ++t) {
        const int cur = t & 1;
        if (t + 1 < ntiles) {  // prefetch the next tile into the other buffer
            cp_async16(&As[cur ^ 1][a_r][a_c], a_src + (t + 1) * BK);
            cp_async16(&Bs[cur ^ 1][b_r][b_c], b_src + (size_t)(t + 1) * BK * N);
        }
        cp_async_commit();
#ifdef IRC_BUG
        // (the wait for tile t is missing)
#else
        cp_async_wait<1>();  // tile t has landed; tile t + 1 may still be in flight
#endif
        __syncthreads();
#pragma unroll
        for (int k = 0; k < BK; ++k) {
            const float a = As[cur][r][k];  // EXPECT: async-unwaited
#pragma unroll
            for (int j = 0; j < 8; ++j) acc[j] += a * Bs[cur][k][c0 + j];
        }
        __syncthreads();  // the buffer is refilled in the next step
    }
#pragma unroll
    for (int j = 0; j < 8; ++j) C[(size_t)(row0 + r) * N + col0 + c0 + j] = acc[j];
}
