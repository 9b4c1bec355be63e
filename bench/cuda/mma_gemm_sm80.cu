// CUDA equivalent of examples/mma_gemm_sm80.kdsl: C = A * B on tensor cores, one warp per 16x16 tile of C,
// a double-buffered k loop filled by cp.async (A [m, k], bt = B^T [n, k] f16 row-major, C [m, n] f32).
#include "mma_common.cuh"

extern "C" __global__ void __launch_bounds__(32)
mma_gemm_sm80(float* c, const unsigned short* a, const unsigned short* bt, unsigned m, unsigned n, unsigned k) {
    __shared__ __align__(16) unsigned short as[2][16 * 16], bs[2][16 * 16];
    int lane = threadIdx.x;
    unsigned row0 = blockIdx.y * 16, col0 = blockIdx.x * 16;
    float acc[2][4] = {};
    int r = lane / 2, h = (lane % 2) * 8;
    cp_async16(&as[0][r * 16 + h], &a[(row0 + r) * k + h]);
    cp_async16(&bs[0][r * 16 + h], &bt[(col0 + r) * k + h]);
    unsigned kt_n = k / 16;
    for (unsigned kt = 0; kt < kt_n; kt++) {
        int st = kt % 2;
        cp_async_wait_all();
        __syncwarp();
        if (kt + 1 < kt_n) {
            cp_async16(&as[st ^ 1][r * 16 + h], &a[(row0 + r) * k + (kt + 1) * 16 + h]);
            cp_async16(&bs[st ^ 1][r * 16 + h], &bt[(col0 + r) * k + (kt + 1) * 16 + h]);
        }
        unsigned fa[4], fb[2];
        load_a(fa, as[st], 16, lane);
        for (int j = 0; j < 2; j++) {
            load_b(fb, bs[st] + j * 8 * 16, 16, lane);
            mma16816(acc[j], fa, fb);
        }
        __syncwarp();
    }
    for (int j = 0; j < 2; j++) {
        unsigned rr = row0 + lane / 4, cc = col0 + j * 8 + (lane % 4) * 2;
        c[rr * n + cc] = acc[j][0];
        c[rr * n + cc + 1] = acc[j][1];
        c[(rr + 8) * n + cc] = acc[j][2];
        c[(rr + 8) * n + cc + 1] = acc[j][3];
    }
}
