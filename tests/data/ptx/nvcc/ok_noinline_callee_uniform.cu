// Correct: the helper with the barrier is called by every thread of the block (the early exit depends on
// the block index only), and the helper with the shuffles by every lane of a warp (warp-uniform guard).
__device__ __noinline__ void stage_and_sync(float *tile, const float *in, int gid, int n)
{
    tile[threadIdx.x] = gid < n ? in[gid] : 0.0f;
    __syncthreads();
}

__device__ __noinline__ float warp_total(float v)
{
    for (int o = 16; o > 0; o /= 2)
        v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}

__global__ void __launch_bounds__(256) call_uniform(const float *in, float *out, int n, int nblocks)
{
    __shared__ float tile[256];
    if (blockIdx.x >= nblocks)
        return;
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    stage_and_sync(tile, in, gid, n);
    float v = tile[(threadIdx.x + 1) % 256];
    if (threadIdx.x / 32 < 4)
        v = warp_total(v);
    if (gid < n)
        out[gid] = v;
}
