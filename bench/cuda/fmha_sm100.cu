// CUDA stand-in for examples/fmha_sm100.kdsl (built for sm_100a): flash attention forward with the same
// tiling (128 queries per block, tiles of 64 keys, HEAD_DIM = 64, a 2-stage K/V pipeline and an online
// softmax in base 2), on cp.async and mma.sync instead of TMA, mbarriers and tcgen05 (see
// tma_gemm_sm100.cu). Four warps each own 32 query rows. It stands for nvcc's cost on a kernel of this
// size, not for the same instructions.
#include "mma_common.cuh"
#define HEAD_DIM 64
#define BLOCK_M 128
#define BLOCK_N 64
#define LOG2E 1.4426950408889634f

__device__ __forceinline__ unsigned pack_half2(float lo, float hi) {
    unsigned d;
    asm("cvt.rn.f16x2.f32 %0, %1, %2;\n" : "=r"(d) : "f"(hi), "f"(lo));
    return d;
}

extern "C" __global__ void __launch_bounds__(128)
fmha_sm100(float* o, const unsigned short* q, const unsigned short* k, const unsigned short* v, unsigned seq_len,
           float scale, bool causal) {
    __shared__ __align__(16) unsigned short qs[BLOCK_M * HEAD_DIM], ks[2][BLOCK_N * HEAD_DIM], vt[2][HEAD_DIM * BLOCK_N];
    int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    unsigned q0 = blockIdx.x * BLOCK_M;
    size_t base = (size_t)blockIdx.y * seq_len * HEAD_DIM;
    for (int i = threadIdx.x; i < BLOCK_M * HEAD_DIM / 8; i += 128) {
        unsigned r = i / (HEAD_DIM / 8), c8 = (i % (HEAD_DIM / 8)) * 8;
        cp_async16(&qs[r * HEAD_DIM + c8], &q[base + (size_t)min(q0 + r, seq_len - 1) * HEAD_DIM + c8]);
    }
    unsigned ntiles = causal ? (q0 + BLOCK_M + BLOCK_N - 1) / BLOCK_N : (seq_len + BLOCK_N - 1) / BLOCK_N;
    auto fill = [&](int st, unsigned t) {
        for (int i = threadIdx.x; i < BLOCK_N * HEAD_DIM / 8; i += 128) {
            unsigned r = i / (HEAD_DIM / 8), c8 = (i % (HEAD_DIM / 8)) * 8;
            cp_async16(&ks[st][r * HEAD_DIM + c8], &k[base + (size_t)min(t * BLOCK_N + r, seq_len - 1) * HEAD_DIM + c8]);
        }
        for (int i = threadIdx.x; i < BLOCK_N * HEAD_DIM; i += 128) {
            unsigned r = i / HEAD_DIM, d = i % HEAD_DIM;
            vt[st][d * BLOCK_N + r] = v[base + (size_t)min(t * BLOCK_N + r, seq_len - 1) * HEAD_DIM + d];
        }
    };
    fill(0, 0);
    float acc[2][8][4] = {}, mrow[2][2], lrow[2][2] = {};
    for (int i = 0; i < 2; i++) mrow[i][0] = mrow[i][1] = -__int_as_float(0x7f800000);
    for (unsigned t = 0; t < ntiles; t++) {
        int st = t % 2;
        cp_async_wait_all();
        __syncthreads();
        if (t + 1 < ntiles) fill(st ^ 1, t + 1);
        for (int i = 0; i < 2; i++) {
            float sc[8][4] = {};
            for (int kk = 0; kk < HEAD_DIM / 16; kk++) {
                unsigned fa[4];
                load_a(fa, qs + (warp * 32 + i * 16) * HEAD_DIM + kk * 16, HEAD_DIM, lane);
                for (int j = 0; j < 8; j++) {
                    unsigned fb[2];
                    load_b(fb, ks[st] + j * 8 * HEAD_DIM + kk * 16, HEAD_DIM, lane);
                    mma16816(sc[j], fa, fb);
                }
            }
            float mn[2] = {mrow[i][0], mrow[i][1]};
            for (int j = 0; j < 8; j++)
                for (int e = 0; e < 4; e++) {
                    unsigned key = t * BLOCK_N + j * 8 + (lane % 4) * 2 + e % 2;
                    unsigned qr = q0 + warp * 32 + i * 16 + lane / 4 + (e / 2) * 8;
                    bool ok = key < seq_len && (!causal || key <= qr);
                    sc[j][e] = ok ? sc[j][e] * (scale * LOG2E) : -__int_as_float(0x7f800000);
                    mn[e / 2] = fmaxf(mn[e / 2], sc[j][e]);
                }
            float alpha[2], bias[2], s[2] = {};
            for (int h = 0; h < 2; h++) {
                for (int d = 1; d <= 2; d *= 2) mn[h] = fmaxf(mn[h], __shfl_xor_sync(0xffffffffu, mn[h], d));
                bias[h] = mn[h] == -__int_as_float(0x7f800000) ? 0.0f : mn[h];
                alpha[h] = exp2f(mrow[i][h] - bias[h]);
                mrow[i][h] = mn[h];
            }
            for (int j = 0; j < 8; j++)
                for (int e = 0; e < 4; e++) {
                    sc[j][e] = exp2f(sc[j][e] - bias[e / 2]);
                    s[e / 2] += sc[j][e];
                }
            for (int h = 0; h < 2; h++) lrow[i][h] = lrow[i][h] * alpha[h] + s[h];
            for (int j = 0; j < 8; j++)
                for (int e = 0; e < 4; e++) acc[i][j][e] *= alpha[e / 2];
            for (int kk = 0; kk < BLOCK_N / 16; kk++) {
                unsigned fp[4] = {pack_half2(sc[2 * kk][0], sc[2 * kk][1]), pack_half2(sc[2 * kk][2], sc[2 * kk][3]),
                                  pack_half2(sc[2 * kk + 1][0], sc[2 * kk + 1][1]),
                                  pack_half2(sc[2 * kk + 1][2], sc[2 * kk + 1][3])};
                for (int j = 0; j < 8; j++) {
                    unsigned fb[2];
                    load_b(fb, vt[st] + j * 8 * BLOCK_N + kk * 16, BLOCK_N, lane);
                    mma16816(acc[i][j], fp, fb);
                }
            }
        }
        __syncthreads();
    }
    for (int i = 0; i < 2; i++)
        for (int h = 0; h < 2; h++)
            for (int d = 1; d <= 2; d *= 2) lrow[i][h] += __shfl_xor_sync(0xffffffffu, lrow[i][h], d);
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 8; j++)
            for (int e = 0; e < 4; e++) {
                unsigned r = q0 + warp * 32 + i * 16 + lane / 4 + (e / 2) * 8, c = j * 8 + (lane % 4) * 2 + e % 2;
                float l = lrow[i][e / 2];
                if (r < seq_len) o[base + (size_t)r * HEAD_DIM + c] = l > 0.0f ? acc[i][j][e] / l : 0.0f;
            }
}
