// CUDA equivalent of examples/layernorm.kdsl (written for bench/bench_sass.py).
#define EPS 0.00001f

__device__ __forceinline__ float warp_sum(float v) {
    for (int d = 16; d >= 1; d /= 2) v += __shfl_xor_sync(0xffffffffu, v, d);
    return v;
}

__device__ __forceinline__ float block_sum(float v, float* red) {
    float s = warp_sum(v);
    if ((threadIdx.x & 31) == 0) red[threadIdx.x / 32] = s;
    __syncthreads();
    float total = red[0] + red[1] + red[2] + red[3];
    __syncthreads();
    return total;
}

extern "C" __global__ void __launch_bounds__(128)
layernorm(float* y, const float* x, const float* gamma, const float* beta, unsigned n) {
    __shared__ float red[4];
    const float* row = x + blockIdx.x * n;
    float s = 0.0f;
    for (unsigned i = threadIdx.x; i < n; i += 128) s += row[i];
    float mean = block_sum(s, red) / (float)n;
    float ss = 0.0f;
    for (unsigned i = threadIdx.x; i < n; i += 128) {
        float d = row[i] - mean;
        ss += d * d;
    }
    float rstd = rsqrtf(block_sum(ss, red) / (float)n + EPS);
    float* out = y + blockIdx.x * n;
    for (unsigned i = threadIdx.x; i < n; i += 128) out[i] = (row[i] - mean) * rstd * gamma[i] + beta[i];
}
