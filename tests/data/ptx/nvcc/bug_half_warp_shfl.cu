// BUG: full-mask __shfl_down_sync executed by only half of each warp.
__global__ void bug_half_warp_shfl(const float* __restrict__ in, float* __restrict__ out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = in[i];
    if (threadIdx.x % 32 < 16) {
        v += __shfl_down_sync(0xffffffffu, v, 8);  // EXPECT: warp-sync-divergence
        out[i] = v;
    }
}
