// OK: one block per row softmax with block-wide max and sum reductions.
__device__ __forceinline__ float warp_max(float v)
{
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
    return v;
}
__device__ __forceinline__ float warp_sum(float v)
{
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}

__global__ void ok_softmax_row(const float* __restrict__ x, float* __restrict__ y, int ncols)
{
    __shared__ float red[32];
    const float* row = x + (size_t)blockIdx.x * ncols;
    float* orow = y + (size_t)blockIdx.x * ncols;
    int t = threadIdx.x, lane = t % 32, warp = t / 32, nwarps = blockDim.x / 32;
    float m = -INFINITY;
    for (int c = t; c < ncols; c += blockDim.x) m = fmaxf(m, row[c]);
    m = warp_max(m);
    if (lane == 0) red[warp] = m;
    __syncthreads();
    m = lane < nwarps ? red[lane] : -INFINITY;
    m = warp_max(m);
    __syncthreads();
    float s = 0.0f;
    for (int c = t; c < ncols; c += blockDim.x) s += __expf(row[c] - m);
    s = warp_sum(s);
    if (lane == 0) red[warp] = s;
    __syncthreads();
    s = lane < nwarps ? red[lane] : 0.0f;
    s = warp_sum(s);
    float inv = 1.0f / s;
    for (int c = t; c < ncols; c += blockDim.x) orow[c] = __expf(row[c] - m) * inv;
}
