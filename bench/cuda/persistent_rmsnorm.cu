// CUDA equivalent of examples/persistent_rmsnorm.kdsl (written for bench/bench_sass.py).
__device__ __forceinline__ float warp_sum(float v) {
    for (int d = 16; d >= 1; d /= 2) v += __shfl_xor_sync(0xffffffffu, v, d);
    return v;
}

extern "C" __global__ void __launch_bounds__(128)
persistent_rmsnorm(float* y, const float* x, const float* w, unsigned num_tokens, unsigned dim, float eps) {
    __shared__ float red[4];
    if (blockIdx.x >= num_tokens) return;
    for (unsigned tok = blockIdx.x; tok < num_tokens; tok += gridDim.x) {
        const float* row = x + tok * dim;
        float ss = 0.0f;
        for (unsigned i = threadIdx.x; i < dim; i += 128) {
            float v = row[i];
            ss += v * v;
        }
        ss = warp_sum(ss);
        if ((threadIdx.x & 31) == 0) red[threadIdx.x / 32] = ss;
        __syncthreads();
        float total = red[0] + red[1] + red[2] + red[3];
        __syncthreads();
        float r = rsqrtf(total / (float)dim + eps);
        float* out = y + tok * dim;
        for (unsigned i = threadIdx.x; i < dim; i += 128) out[i] = row[i] * r * w[i];
    }
}
