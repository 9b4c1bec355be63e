// OK: layernorm over a row per block; mean and variance by block reductions through shared memory.
__device__ __forceinline__ float warp_sum(float v)
{
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}

__device__ float block_sum(float v, float* red)
{
    int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    v = warp_sum(v);
    if (lane == 0) red[warp] = v;
    __syncthreads();
    v = lane < (int)(blockDim.x / 32) ? red[lane] : 0.0f;
    v = warp_sum(v);
    __syncthreads();
    return v;
}

__global__ void ok_layernorm(const float* __restrict__ x, const float* __restrict__ gamma,
                             const float* __restrict__ beta, float* __restrict__ y, int ncols, float eps)
{
    __shared__ float red[32];
    const float* row = x + (size_t)blockIdx.x * ncols;
    float* orow = y + (size_t)blockIdx.x * ncols;
    float s = 0.0f;
    for (int c = threadIdx.x; c < ncols; c += blockDim.x) s += row[c];
    float mean = block_sum(s, red) / ncols;
    float q = 0.0f;
    for (int c = threadIdx.x; c < ncols; c += blockDim.x) {
        float d = row[c] - mean;
        q += d * d;
    }
    float rstd = rsqrtf(block_sum(q, red) / ncols + eps);
    for (int c = threadIdx.x; c < ncols; c += blockDim.x)
        orow[c] = (row[c] - mean) * rstd * gamma[c] + beta[c];
}
