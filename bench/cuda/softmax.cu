// CUDA equivalent of examples/softmax.kdsl: row softmax, one block of 128 threads per row.
#define LOG2E 1.4426950408889634f

__device__ __forceinline__ float warp_max(float x) {
    for (int d = 16; d >= 1; d /= 2) x = fmaxf(x, __shfl_xor_sync(0xffffffffu, x, d));
    return x;
}

__device__ __forceinline__ float warp_sum(float x) {
    for (int d = 16; d >= 1; d /= 2) x += __shfl_xor_sync(0xffffffffu, x, d);
    return x;
}

extern "C" __global__ void __launch_bounds__(128) softmax(float* out, const float* x, unsigned n) {
    __shared__ float red[4];
    const float* row = x + blockIdx.x * n;
    unsigned warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    float m = -__int_as_float(0x7f800000);
    for (unsigned i = threadIdx.x; i < n; i += 128) m = fmaxf(m, row[i]);
    m = warp_max(m);
    if (lane == 0) red[warp] = m;
    __syncthreads();
    m = fmaxf(fmaxf(red[0], red[1]), fmaxf(red[2], red[3]));
    __syncthreads();
    float s = 0.0f;
    for (unsigned i = threadIdx.x; i < n; i += 128) s += exp2f((row[i] - m) * LOG2E);
    s = warp_sum(s);
    if (lane == 0) red[warp] = s;
    __syncthreads();
    float inv = 1.0f / (red[0] + red[1] + red[2] + red[3]);
    float* dst = out + blockIdx.x * n;
    for (unsigned i = threadIdx.x; i < n; i += 128) dst[i] = exp2f((row[i] - m) * LOG2E) * inv;
}
