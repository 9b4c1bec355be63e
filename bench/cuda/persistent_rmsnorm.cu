// CUDA equivalent of examples/persistent_rmsnorm.kdsl: a persistent grid strides over the tokens;
// y[t, :] = x[t, :] * rsqrt(mean(x[t, :]^2) + eps) * w.
extern "C" __global__ void __launch_bounds__(128)
persistent_rmsnorm(float* y, const float* x, const float* w, unsigned num_tokens, unsigned dim, float eps) {
    __shared__ float red[4];
    if (blockIdx.x >= num_tokens) return;
    for (unsigned t = blockIdx.x; t < num_tokens; t += gridDim.x) {
        const float* row = x + t * dim;
        float s = 0.0f;
        for (unsigned i = threadIdx.x; i < dim; i += 128) s += row[i] * row[i];
        for (int d = 16; d >= 1; d /= 2) s += __shfl_xor_sync(0xffffffffu, s, d);
        if (threadIdx.x % 32 == 0) red[threadIdx.x / 32] = s;
        __syncthreads();
        float r = rsqrtf((red[0] + red[1] + red[2] + red[3]) / (float)dim + eps);
        __syncthreads();
        for (unsigned i = threadIdx.x; i < dim; i += 128) y[t * dim + i] = row[i] * r * w[i];
    }
}
