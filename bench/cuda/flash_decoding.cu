// CUDA equivalent of examples/flash_decoding.kdsl: split-K flash decoding, one warp per chunk of one head
// of one sequence (grouped-query attention), then a reduction of the chunks' partial results.
#define HEAD_DIM 64
#define DPL (HEAD_DIM / 32)
#define LOG2E 1.4426950408889634f

extern "C" __global__ void __launch_bounds__(32)
flash_decoding_chunk(float* partial, const float* q, float* const* k_ptrs, float* const* v_ptrs, const unsigned* lens,
                     unsigned num_heads, unsigned num_kv_heads, unsigned max_len, unsigned chunk, float scale) {
    unsigned c = blockIdx.x, h = blockIdx.y, b = blockIdx.z, lane = threadIdx.x;
    unsigned num_chunks = gridDim.x, kvh = h * num_kv_heads / num_heads, len = lens[b];
    const float* kh = k_ptrs[b] + (size_t)kvh * max_len * HEAD_DIM;
    const float* vh = v_ptrs[b] + (size_t)kvh * max_len * HEAD_DIM;
    float qv[DPL], acc[DPL];
    for (int e = 0; e < DPL; e++) {
        qv[e] = q[(b * num_heads + h) * HEAD_DIM + lane + 32 * e] * scale * LOG2E;
        acc[e] = 0.0f;
    }
    float m = -__int_as_float(0x7f800000), l = 0.0f;
    unsigned end = min(len, (c + 1) * chunk);
    for (unsigned t = c * chunk; t < end; t++) {
        float s = 0.0f;
        for (int e = 0; e < DPL; e++) s += qv[e] * kh[t * HEAD_DIM + lane + 32 * e];
        for (int d = 16; d >= 1; d /= 2) s += __shfl_xor_sync(0xffffffffu, s, d);
        float mn = fmaxf(m, s), a = exp2f(m - mn), p = exp2f(s - mn);
        l = l * a + p;
        for (int e = 0; e < DPL; e++) acc[e] = acc[e] * a + p * vh[t * HEAD_DIM + lane + 32 * e];
        m = mn;
    }
    float* dst = partial + ((size_t)(b * num_heads + h) * num_chunks + c) * (HEAD_DIM + 2);
    for (int e = 0; e < DPL; e++) dst[lane + 32 * e] = acc[e];
    if (lane == 0) {
        dst[HEAD_DIM] = m;
        dst[HEAD_DIM + 1] = l;
    }
}

extern "C" __global__ void __launch_bounds__(32)
flash_decoding_reduce(float* out, const float* partial, unsigned num_heads, unsigned num_chunks) {
    unsigned h = blockIdx.x, b = blockIdx.y, lane = threadIdx.x;
    const float* src = partial + (size_t)(b * num_heads + h) * num_chunks * (HEAD_DIM + 2);
    float m = -__int_as_float(0x7f800000);
    for (unsigned c = 0; c < num_chunks; c++) m = fmaxf(m, src[c * (HEAD_DIM + 2) + HEAD_DIM]);
    float l = 0.0f, acc[DPL] = {};
    for (unsigned c = 0; c < num_chunks; c++) {
        const float* p = src + c * (HEAD_DIM + 2);
        float a = p[HEAD_DIM + 1] > 0.0f ? exp2f(p[HEAD_DIM] - m) : 0.0f;
        l += a * p[HEAD_DIM + 1];
        for (int e = 0; e < DPL; e++) acc[e] += a * p[lane + 32 * e];
    }
    for (int e = 0; e < DPL; e++) out[(b * num_heads + h) * HEAD_DIM + lane + 32 * e] = l > 0.0f ? acc[e] / l : 0.0f;
}
