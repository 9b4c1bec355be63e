// CUDA equivalent of examples/flash_attention_tc.kdsl: HEAD_DIM = 16, tiles of 16 queries x 16 keys, one
// warp per tile; S = Q K^T with mma.sync m16n8k16, an online softmax in base 2, O += P V.
#include "mma_common.cuh"
#define LOG2E 1.4426950408889634f

__device__ __forceinline__ unsigned pack_half2(float lo, float hi) {
    unsigned d;
    asm("cvt.rn.f16x2.f32 %0, %1, %2;\n" : "=r"(d) : "f"(hi), "f"(lo));
    return d;
}

extern "C" __global__ void __launch_bounds__(32)
flash_attention_tc(float* o, const unsigned short* q, const unsigned short* k, const unsigned short* v,
                   unsigned num_heads, unsigned seq_len, float scale, bool causal) {
    __shared__ __align__(16) unsigned short qs[16 * 16], ks[16 * 16], vt[16 * 16];
    int lane = threadIdx.x;
    unsigned head = blockIdx.y, q0 = blockIdx.x * 16;
    if (head >= num_heads) return;
    const unsigned short* qh = q + (size_t)head * seq_len * 16;
    const unsigned short* kh = k + (size_t)head * seq_len * 16;
    const unsigned short* vh = v + (size_t)head * seq_len * 16;
    for (int e = lane; e < 256; e += 32) qs[e] = q0 + e / 16 < seq_len ? qh[(q0 + e / 16) * 16 + e % 16] : 0;
    __syncwarp();
    unsigned fq[4];
    load_a(fq, qs, 16, lane);
    float acc[2][4] = {}, m_lo = -__int_as_float(0x7f800000), m_hi = m_lo, l_lo = 0.0f, l_hi = 0.0f;
    unsigned ntiles = causal ? blockIdx.x + 1 : (seq_len + 15) / 16;
    for (unsigned t = 0; t < ntiles; t++) {
        unsigned k0 = t * 16;
        __syncwarp();
        for (int e = lane; e < 256; e += 32) {
            ks[e] = k0 + e / 16 < seq_len ? kh[(k0 + e / 16) * 16 + e % 16] : 0;
            vt[(e % 16) * 16 + e / 16] = k0 + e / 16 < seq_len ? vh[(k0 + e / 16) * 16 + e % 16] : 0;
        }
        __syncwarp();
        float sc[2][4] = {};
        for (int j = 0; j < 2; j++) {
            unsigned fb[2];
            load_b(fb, ks + j * 8 * 16, 16, lane);
            mma16816(sc[j], fq, fb);
        }
        float mn_lo = m_lo, mn_hi = m_hi;
        for (int j = 0; j < 2; j++)
            for (int e = 0; e < 4; e++) {
                unsigned key = k0 + j * 8 + (lane % 4) * 2 + e % 2, qr = q0 + lane / 4 + (e / 2) * 8;
                bool ok = key < seq_len && (!causal || key <= qr);
                sc[j][e] = ok ? sc[j][e] * (scale * LOG2E) : -__int_as_float(0x7f800000);
                if (e < 2) mn_lo = fmaxf(mn_lo, sc[j][e]); else mn_hi = fmaxf(mn_hi, sc[j][e]);
            }
        for (int d = 1; d <= 2; d *= 2) {
            mn_lo = fmaxf(mn_lo, __shfl_xor_sync(0xffffffffu, mn_lo, d));
            mn_hi = fmaxf(mn_hi, __shfl_xor_sync(0xffffffffu, mn_hi, d));
        }
        float b_lo = mn_lo == -__int_as_float(0x7f800000) ? 0.0f : mn_lo;
        float b_hi = mn_hi == -__int_as_float(0x7f800000) ? 0.0f : mn_hi;
        float alpha_lo = exp2f(m_lo - b_lo), alpha_hi = exp2f(m_hi - b_hi);
        float s_lo = 0.0f, s_hi = 0.0f;
        for (int j = 0; j < 2; j++)
            for (int e = 0; e < 4; e++) {
                sc[j][e] = exp2f(sc[j][e] - (e < 2 ? b_lo : b_hi));
                if (e < 2) s_lo += sc[j][e]; else s_hi += sc[j][e];
            }
        l_lo = l_lo * alpha_lo + s_lo;
        l_hi = l_hi * alpha_hi + s_hi;
        m_lo = mn_lo;
        m_hi = mn_hi;
        for (int j = 0; j < 2; j++)
            for (int e = 0; e < 4; e++) acc[j][e] *= e < 2 ? alpha_lo : alpha_hi;
        unsigned fp[4] = {pack_half2(sc[0][0], sc[0][1]), pack_half2(sc[0][2], sc[0][3]),
                          pack_half2(sc[1][0], sc[1][1]), pack_half2(sc[1][2], sc[1][3])};
        for (int j = 0; j < 2; j++) {
            unsigned fb[2];
            load_b(fb, vt + j * 8 * 16, 16, lane);
            mma16816(acc[j], fp, fb);
        }
    }
    for (int d = 1; d <= 2; d *= 2) {
        l_lo += __shfl_xor_sync(0xffffffffu, l_lo, d);
        l_hi += __shfl_xor_sync(0xffffffffu, l_hi, d);
    }
    float inv_lo = l_lo > 0.0f ? 1.0f / l_lo : 0.0f, inv_hi = l_hi > 0.0f ? 1.0f / l_hi : 0.0f;
    float* oh = o + (size_t)head * seq_len * 16;
    for (int j = 0; j < 2; j++)
        for (int e = 0; e < 4; e++) {
            unsigned r = q0 + lane / 4 + (e / 2) * 8, c = j * 8 + (lane % 4) * 2 + e % 2;
            if (r < seq_len) oh[r * 16 + c] = acc[j][e] * (e < 2 ? inv_lo : inv_hi);
        }
}
