// CUDA equivalent of examples/flash_decoding.kdsl (written for bench/bench_sass.py).
#ifndef HEAD_DIM
#define HEAD_DIM 64u
#endif
#define DIMS_PER_LANE (HEAD_DIM / 32)
#define LOG2E 1.4426950408889634f

__device__ __forceinline__ float warp_sum(float v) {
    for (int d = 16; d >= 1; d /= 2) v += __shfl_xor_sync(0xffffffffu, v, d);
    return v;
}

extern "C" __global__ void __launch_bounds__(32)
flash_decoding_chunk(float* partial, const float* q, float* const* k_ptrs, float* const* v_ptrs,
                     const unsigned* seq_lens, unsigned num_heads, unsigned num_kv_heads, unsigned max_len,
                     unsigned chunk_size, float scale) {
    unsigned lane = threadIdx.x & 31;
    unsigned chunk = blockIdx.x, head = blockIdx.y, b = blockIdx.z;
    unsigned len = seq_lens[b];
    unsigned kv_head = head * num_kv_heads / num_heads;
    const float* kc = k_ptrs[b] + kv_head * max_len * HEAD_DIM;
    const float* vc = v_ptrs[b] + kv_head * max_len * HEAD_DIM;
    const float* qh = q + (b * num_heads + head) * HEAD_DIM;
    float qv[DIMS_PER_LANE], acc[DIMS_PER_LANE];
#pragma unroll
    for (unsigned j = 0; j < DIMS_PER_LANE; j++) {
        qv[j] = qh[lane + j * 32] * scale;
        acc[j] = 0.0f;
    }
    unsigned start = chunk * chunk_size;
    unsigned end = min(start + chunk_size, len);
    float m = -INFINITY, l = 0.0f;
    for (unsigned t = start; t < end; t++) {
        float part = 0.0f;
#pragma unroll
        for (unsigned j = 0; j < DIMS_PER_LANE; j++) part += qv[j] * kc[t * HEAD_DIM + lane + j * 32];
        float s = warp_sum(part);
        float m_old = m;
        m = fmaxf(m, s);
        float alpha = exp2f((m_old - m) * LOG2E);
        float p = exp2f((s - m) * LOG2E);
        l = l * alpha + p;
#pragma unroll
        for (unsigned j = 0; j < DIMS_PER_LANE; j++) acc[j] = acc[j] * alpha + p * vc[t * HEAD_DIM + lane + j * 32];
    }
    float* dst = partial + ((b * num_heads + head) * gridDim.x + chunk) * (HEAD_DIM + 2);
    float inv = l > 0.0f ? 1.0f / l : 0.0f;
#pragma unroll
    for (unsigned j = 0; j < DIMS_PER_LANE; j++) dst[lane + j * 32] = acc[j] * inv;
    if (lane == 0) {
        dst[HEAD_DIM] = m;
        dst[HEAD_DIM + 1] = l;
    }
}

extern "C" __global__ void __launch_bounds__(32)
flash_decoding_reduce(float* out, const float* partial, unsigned num_heads, unsigned num_chunks) {
    unsigned lane = threadIdx.x & 31;
    unsigned head = blockIdx.x, b = blockIdx.y;
    const float* base = partial + (b * num_heads + head) * num_chunks * (HEAD_DIM + 2);
    float gm = -INFINITY;
    for (unsigned c = 0; c < num_chunks; c++) gm = fmaxf(gm, base[c * (HEAD_DIM + 2) + HEAD_DIM]);
    float acc[DIMS_PER_LANE];
#pragma unroll
    for (unsigned j = 0; j < DIMS_PER_LANE; j++) acc[j] = 0.0f;
    float total = 0.0f;
    if (gm > -INFINITY) {
        for (unsigned c = 0; c < num_chunks; c++) {
            const float* p = base + c * (HEAD_DIM + 2);
            float w = p[HEAD_DIM + 1] * exp2f((p[HEAD_DIM] - gm) * LOG2E);
            total += w;
#pragma unroll
            for (unsigned j = 0; j < DIMS_PER_LANE; j++) acc[j] += w * p[lane + j * 32];
        }
    }
    float inv = total > 0.0f ? 1.0f / total : 0.0f;
    float* o = out + (b * num_heads + head) * HEAD_DIM;
#pragma unroll
    for (unsigned j = 0; j < DIMS_PER_LANE; j++) o[lane + j * 32] = acc[j] * inv;
}
