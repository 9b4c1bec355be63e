// OK: early exit depends on blockIdx.x only (block-uniform), so every thread of a live block
// reaches the barriers.
__global__ void ok_blockidx_exit(const float* __restrict__ in, float* __restrict__ out, int nblocks_param)
{
    __shared__ float tile[256];
    if (blockIdx.x >= nblocks_param) return;
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    tile[t] = in[i];
    __syncthreads();
    float v = tile[blockDim.x - 1 - t];
    __syncthreads();
    tile[t] = v * 0.5f;
    __syncthreads();
    out[i] = tile[(t + 1) % blockDim.x] + v;
}
