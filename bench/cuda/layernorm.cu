// CUDA equivalent of examples/layernorm.kdsl: y = (x - mean) / sqrt(var + eps) * gamma + beta per row.
#define EPS 0.00001f

__device__ __forceinline__ float block_sum(float v, float* red) {
    for (int d = 16; d >= 1; d /= 2) v += __shfl_xor_sync(0xffffffffu, v, d);
    if (threadIdx.x % 32 == 0) red[threadIdx.x / 32] = v;
    __syncthreads();
    float t = red[0] + red[1] + red[2] + red[3];
    __syncthreads();
    return t;
}

extern "C" __global__ void __launch_bounds__(128)
layernorm(float* y, const float* x, const float* gamma, const float* beta, unsigned n) {
    __shared__ float red[4];
    const float* row = x + blockIdx.x * n;
    float s = 0.0f;
    for (unsigned i = threadIdx.x; i < n; i += 128) s += row[i];
    float mean = block_sum(s, red) / (float)n;
    float v = 0.0f;
    for (unsigned i = threadIdx.x; i < n; i += 128) {
        float d = row[i] - mean;
        v += d * d;
    }
    float rstd = rsqrtf(block_sum(v, red) / (float)n + EPS);
    float* dst = y + blockIdx.x * n;
    for (unsigned i = threadIdx.x; i < n; i += 128) dst[i] = (row[i] - mean) * rstd * gamma[i] + beta[i];
}
