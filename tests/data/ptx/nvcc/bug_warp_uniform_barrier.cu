// BUG: barrier inside a warp-uniform but not block-uniform branch (only warp 0 reaches it).
__global__ void bug_warp_uniform_barrier(const float* __restrict__ in, float* __restrict__ out)
{
    __shared__ float tile[256];
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    float v = in[i];
    if (threadIdx.x / 32 == 0) {
        tile[t] = v * v;
        __syncthreads();  // EXPECT: barrier-divergence
        v += tile[31 - t];
    }
    out[i] = v;
}
