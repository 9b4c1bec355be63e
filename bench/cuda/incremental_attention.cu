// CUDA equivalent of examples/incremental_attention.kdsl: decoding attention, one warp per head (4 heads
// per block of 128), lane l owns dimensions l, l + 32, ...; plus the KV-cache scatter of the new token.
#define HEAD_DIM 64
#define DPL (HEAD_DIM / 32)
#define LOG2E 1.4426950408889634f

extern "C" __global__ void __launch_bounds__(128)
incremental_attention(float* out, const float* q, const float* k_cache, const float* v_cache, unsigned num_heads,
                      unsigned max_seq_len, unsigned seq_len, float scale) {
    unsigned head = blockIdx.x * 4 + threadIdx.x / 32, lane = threadIdx.x % 32;
    if (head >= num_heads) return;
    float qv[DPL], acc[DPL];
    for (int e = 0; e < DPL; e++) {
        qv[e] = q[head * HEAD_DIM + lane + 32 * e] * scale * LOG2E;
        acc[e] = 0.0f;
    }
    float m = -__int_as_float(0x7f800000), l = 0.0f;
    const float* kh = k_cache + (size_t)head * max_seq_len * HEAD_DIM;
    const float* vh = v_cache + (size_t)head * max_seq_len * HEAD_DIM;
    for (unsigned t = 0; t < seq_len; t++) {
        float s = 0.0f;
        for (int e = 0; e < DPL; e++) s += qv[e] * kh[t * HEAD_DIM + lane + 32 * e];
        for (int d = 16; d >= 1; d /= 2) s += __shfl_xor_sync(0xffffffffu, s, d);
        float mn = fmaxf(m, s), a = exp2f(m - mn), p = exp2f(s - mn);
        l = l * a + p;
        for (int e = 0; e < DPL; e++) acc[e] = acc[e] * a + p * vh[t * HEAD_DIM + lane + 32 * e];
        m = mn;
    }
    for (int e = 0; e < DPL; e++) out[head * HEAD_DIM + lane + 32 * e] = l > 0.0f ? acc[e] / l : 0.0f;
}

extern "C" __global__ void __launch_bounds__(128)
kv_cache_scatter(float* k_cache, float* v_cache, const float* k_new, const float* v_new, unsigned num_heads,
                 unsigned max_seq_len, unsigned pos) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= num_heads * HEAD_DIM || pos >= max_seq_len) return;
    unsigned h = i / HEAD_DIM, d = i % HEAD_DIM;
    k_cache[((size_t)h * max_seq_len + pos) * HEAD_DIM + d] = k_new[i];
    v_cache[((size_t)h * max_seq_len + pos) * HEAD_DIM + d] = v_new[i];
}
