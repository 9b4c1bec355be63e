// CUDA equivalent of examples/incremental_attention.kdsl (written for bench/bench_sass.py).
#ifndef HEAD_DIM
#define HEAD_DIM 64u
#endif
#define DIMS_PER_LANE (HEAD_DIM / 32)
#define LOG2E 1.4426950408889634f

__device__ __forceinline__ float warp_sum(float v) {
    for (int d = 16; d >= 1; d /= 2) v += __shfl_xor_sync(0xffffffffu, v, d);
    return v;
}

extern "C" __global__ void __launch_bounds__(128)
incremental_attention(float* out, const float* q, const float* k_cache, const float* v_cache, unsigned seq_len,
                      unsigned max_seq_len, unsigned num_heads, float scale) {
    unsigned lane = threadIdx.x & 31;
    unsigned head = blockIdx.x * 4 + threadIdx.x / 32;
    if (head < num_heads) {
        const float* qh = q + head * HEAD_DIM;
        const float* kh = k_cache + head * max_seq_len * HEAD_DIM;
        const float* vh = v_cache + head * max_seq_len * HEAD_DIM;
        float qv[DIMS_PER_LANE], acc[DIMS_PER_LANE];
#pragma unroll
        for (unsigned j = 0; j < DIMS_PER_LANE; j++) {
            qv[j] = qh[lane + j * 32] * scale;
            acc[j] = 0.0f;
        }
        float m = -INFINITY, l = 0.0f;
        for (unsigned t = 0; t < seq_len; t++) {
            float part = 0.0f;
#pragma unroll
            for (unsigned j = 0; j < DIMS_PER_LANE; j++) part += qv[j] * kh[t * HEAD_DIM + lane + j * 32];
            float s = warp_sum(part);
            float m_old = m;
            m = fmaxf(m, s);
            float alpha = exp2f((m_old - m) * LOG2E);
            float p = exp2f((s - m) * LOG2E);
            l = l * alpha + p;
#pragma unroll
            for (unsigned j = 0; j < DIMS_PER_LANE; j++)
                acc[j] = acc[j] * alpha + p * vh[t * HEAD_DIM + lane + j * 32];
        }
        float inv = seq_len > 0 ? 1.0f / l : 0.0f;
        float* oh = out + head * HEAD_DIM;
#pragma unroll
        for (unsigned j = 0; j < DIMS_PER_LANE; j++) oh[lane + j * 32] = acc[j] * inv;
    }
}

extern "C" __global__ void __launch_bounds__(128)
kv_cache_scatter(float* k_cache, float* v_cache, const float* k_new, const float* v_new, unsigned pos,
                 unsigned max_seq_len, unsigned num_heads) {
    unsigned i = blockIdx.x * 128 + threadIdx.x;
    if (i < num_heads * HEAD_DIM) {
        unsigned h = i / HEAD_DIM, d = i % HEAD_DIM;
        unsigned dst = (h * max_seq_len + pos) * HEAD_DIM + d;
        k_cache[dst] = k_new[i];
        v_cache[dst] = v_new[i];
    }
}
