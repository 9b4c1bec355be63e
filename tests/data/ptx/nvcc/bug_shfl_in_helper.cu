// A full-mask warp reduction in a __noinline__ helper, called only by the lanes whose element is
// positive: the other lanes of the warp never join the shuffles.
__device__ __noinline__ float warp_total(float v)
{
    for (int o = 16; o > 0; o /= 2)
        v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}

__global__ void call_shfl_in_branch(const float *in, float *out, int n)
{
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    float v = gid < n ? in[gid] : 0.0f;
    if (v > 0.0f) {
        v = warp_total(v); // EXPECT: warp-sync-divergence
    }
    if (gid < n)
        out[gid] = v;
}
