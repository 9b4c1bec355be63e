// CUDA stand-in for examples/tma_gemm_sm100.kdsl (built for sm_100a): the same C = A * B^T tiling (a
// 128 x 64 tile of C per block of 128 threads, a 2-stage shared-memory pipeline over k in steps of 16)
// with cp.async and mma.sync instead of TMA and tcgen05 (CUDA C++ has no portable spelling of those without
// the CUTLASS headers). It stands for nvcc's cost on a kernel of this size, not for the same instructions.
#include "mma_common.cuh"

extern "C" __global__ void __launch_bounds__(128)
tma_gemm_sm100(unsigned* c, const unsigned short* a, const unsigned short* b, unsigned m, unsigned n, unsigned k) {
    __shared__ __align__(16) unsigned short as[2][128 * 16], bs[2][64 * 16];
    int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    unsigned row0 = blockIdx.y * 128, col0 = blockIdx.x * 64;
    float acc[2][8][4] = {};
    unsigned kt_n = k / 16;
    auto fill = [&](int st, unsigned kt) {
        for (int i = threadIdx.x; i < 128 * 2; i += 128)
            cp_async16(&as[st][(i / 2) * 16 + (i % 2) * 8], &a[(size_t)(row0 + i / 2) * k + kt * 16 + (i % 2) * 8]);
        for (int i = threadIdx.x; i < 64 * 2; i += 128)
            cp_async16(&bs[st][(i / 2) * 16 + (i % 2) * 8], &b[(size_t)(col0 + i / 2) * k + kt * 16 + (i % 2) * 8]);
    };
    fill(0, 0);
    for (unsigned kt = 0; kt < kt_n; kt++) {
        int st = kt % 2;
        cp_async_wait_all();
        __syncthreads();
        if (kt + 1 < kt_n) fill(st ^ 1, kt + 1);
        for (int i = 0; i < 2; i++) {
            unsigned fa[4];
            load_a(fa, as[st] + (warp * 32 + i * 16) * 16, 16, lane);
            for (int j = 0; j < 8; j++) {
                unsigned fb[2];
                load_b(fb, bs[st] + j * 8 * 16, 16, lane);
                mma16816(acc[i][j], fa, fb);
            }
        }
        __syncthreads();
    }
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 8; j++)
            for (int e = 0; e < 4; e++) {
                unsigned r = row0 + warp * 32 + i * 16 + lane / 4 + (e / 2) * 8;
                unsigned cc = col0 + j * 8 + (lane % 4) * 2 + e % 2;
                if (r < m && cc < n) c[(size_t)r * n + cc] = __float_as_uint(acc[i][j][e]);
            }
}
