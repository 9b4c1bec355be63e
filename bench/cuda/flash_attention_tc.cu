// CUDA equivalent of examples/flash_attention_tc.kdsl (written for bench/bench_sass.py): ldmatrix and
// mma.sync m16n8k16 through inline PTX, as the .kdsl intrinsics spell them.
#include <cuda_fp16.h>
#ifndef CAUSAL
#define CAUSAL false
#endif
#define LOG2E 1.4426950408889634f

__device__ __forceinline__ unsigned smem_addr(const void* p) { return (unsigned)__cvta_generic_to_shared(p); }

__device__ __forceinline__ void ldmatrix_x4(unsigned (&r)[4], const void* p) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(smem_addr(p)));
}

__device__ __forceinline__ void ldmatrix_x4_trans(unsigned (&r)[4], const void* p) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(smem_addr(p)));
}

__device__ __forceinline__ void mma16816(float (&d)[4], const unsigned (&a)[4], unsigned b0, unsigned b1) {
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
                 "{%0,%1,%2,%3};"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

__device__ __forceinline__ unsigned pack_half2(float lo, float hi) {
    __half2 h = __floats2half2_rn(lo, hi);
    return *reinterpret_cast<unsigned*>(&h);
}

extern "C" __global__ void __launch_bounds__(32)
flash_attention_tc(float* o, const __half* q, const __half* k, const __half* v, unsigned seq_len,
                   unsigned num_heads, float scale) {
    __shared__ __align__(128) __half qs[16][16];
    __shared__ __align__(128) __half ks[16][16];
    __shared__ __align__(128) __half vs[16][16];
    unsigned lane = threadIdx.x & 31;
    unsigned head = blockIdx.y;
    if (head >= num_heads) return;
    unsigned q0 = blockIdx.x * 16;
    const __half* qh = q + head * seq_len * 16;
    const __half* kh = k + head * seq_len * 16;
    const __half* vh = v + head * seq_len * 16;
    unsigned g = lane / 4, t4 = lane % 4, r = lane / 2, c0 = (lane % 2) * 8;
#pragma unroll
    for (unsigned e = 0; e < 8; e++) qs[r][c0 + e] = q0 + r < seq_len ? qh[(q0 + r) * 16 + c0 + e] : __half(0.0f);
    __syncthreads();
    unsigned qa[4];
    ldmatrix_x4(qa, &qs[lane % 16][(lane / 16) * 8]);
    float m_lo = -INFINITY, m_hi = -INFINITY, l_lo = 0.0f, l_hi = 0.0f;
    float o0[4] = {0, 0, 0, 0}, o1[4] = {0, 0, 0, 0};
    unsigned ntiles = CAUSAL ? blockIdx.x + 1 : (seq_len + 15) / 16;
    for (unsigned kt = 0; kt < ntiles; kt++) {
        unsigned k0 = kt * 16;
        __syncthreads();
#pragma unroll
        for (unsigned e = 0; e < 8; e++) {
            ks[r][c0 + e] = k0 + r < seq_len ? kh[(k0 + r) * 16 + c0 + e] : __half(0.0f);
            vs[r][c0 + e] = k0 + r < seq_len ? vh[(k0 + r) * 16 + c0 + e] : __half(0.0f);
        }
        __syncthreads();
        unsigned kb[4];
        ldmatrix_x4(kb, &ks[(lane % 8) + (lane / 16) * 8][((lane / 8) % 2) * 8]);
        float s0[4] = {0, 0, 0, 0}, s1[4] = {0, 0, 0, 0};
        mma16816(s0, qa, kb[0], kb[1]);
        mma16816(s1, qa, kb[2], kb[3]);
        float sc[8] = {s0[0], s0[1], s0[2], s0[3], s1[0], s1[1], s1[2], s1[3]};
#pragma unroll
        for (unsigned e = 0; e < 8; e++) {
            unsigned key = k0 + (e / 4) * 8 + t4 * 2 + e % 2;
            unsigned row = q0 + g + ((e / 2) % 2) * 8;
            bool ok = key < seq_len && (!CAUSAL || key <= row);
            sc[e] = ok ? sc[e] * (scale * LOG2E) : -INFINITY;
        }
        float mx_lo = fmaxf(fmaxf(sc[0], sc[1]), fmaxf(sc[4], sc[5]));
        float mx_hi = fmaxf(fmaxf(sc[2], sc[3]), fmaxf(sc[6], sc[7]));
        for (int d = 1; d <= 2; d++) {
            mx_lo = fmaxf(mx_lo, __shfl_xor_sync(0xffffffffu, mx_lo, d));
            mx_hi = fmaxf(mx_hi, __shfl_xor_sync(0xffffffffu, mx_hi, d));
        }
        float mn_lo = fmaxf(m_lo, mx_lo), mn_hi = fmaxf(m_hi, mx_hi);
        float b_lo = mn_lo == -INFINITY ? 0.0f : mn_lo;
        float b_hi = mn_hi == -INFINITY ? 0.0f : mn_hi;
        float alpha_lo = exp2f(m_lo - b_lo), alpha_hi = exp2f(m_hi - b_hi);
#pragma unroll
        for (unsigned e = 0; e < 8; e++) sc[e] = exp2f(sc[e] - ((e / 2) % 2 == 0 ? b_lo : b_hi));
        float rs_lo = sc[0] + sc[1] + sc[4] + sc[5];
        float rs_hi = sc[2] + sc[3] + sc[6] + sc[7];
        for (int d = 1; d <= 2; d++) {
            rs_lo += __shfl_xor_sync(0xffffffffu, rs_lo, d);
            rs_hi += __shfl_xor_sync(0xffffffffu, rs_hi, d);
        }
        l_lo = l_lo * alpha_lo + rs_lo;
        l_hi = l_hi * alpha_hi + rs_hi;
        m_lo = mn_lo;
        m_hi = mn_hi;
#pragma unroll
        for (unsigned e = 0; e < 4; e++) {
            float a = e < 2 ? alpha_lo : alpha_hi;
            o0[e] *= a;
            o1[e] *= a;
        }
        unsigned p[4] = {pack_half2(sc[0], sc[1]), pack_half2(sc[2], sc[3]), pack_half2(sc[4], sc[5]),
                         pack_half2(sc[6], sc[7])};
        unsigned vb[4];
        ldmatrix_x4_trans(vb, &vs[(lane % 8) + ((lane / 8) % 2) * 8][(lane / 16) * 8]);
        mma16816(o0, p, vb[0], vb[1]);
        mma16816(o1, p, vb[2], vb[3]);
    }
    float inv_lo = l_lo > 0.0f ? 1.0f / l_lo : 0.0f;
    float inv_hi = l_hi > 0.0f ? 1.0f / l_hi : 0.0f;
    float* oh = o + head * seq_len * 16;
    unsigned row_lo = q0 + g, row_hi = q0 + g + 8;
    if (row_lo < seq_len) {
        float* p = oh + row_lo * 16 + t4 * 2;
        p[0] = o0[0] * inv_lo;
        p[1] = o0[1] * inv_lo;
        p[8] = o1[0] * inv_lo;
        p[9] = o1[1] * inv_lo;
    }
    if (row_hi < seq_len) {
        float* p = oh + row_hi * 16 + t4 * 2;
        p[0] = o0[2] * inv_hi;
        p[1] = o0[3] * inv_hi;
        p[8] = o1[2] * inv_hi;
        p[9] = o1[3] * inv_hi;
    }
}
