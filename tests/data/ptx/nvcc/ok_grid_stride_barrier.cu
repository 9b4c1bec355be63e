// OK: persistent grid-stride loop over tiles; the trip count depends only on blockIdx.x, gridDim.x
// and a parameter, so the barriers inside are reached by the whole block.
__global__ void ok_grid_stride_barrier(const float* __restrict__ in, float* __restrict__ out, int ntiles)
{
    __shared__ float tile[256];
    int t = threadIdx.x;
    for (int i = blockIdx.x; i < ntiles; i += gridDim.x) {
        tile[t] = in[i * blockDim.x + t];
        __syncthreads();
        out[i * blockDim.x + t] = tile[t] + tile[blockDim.x - 1 - t];
        __syncthreads();
    }
}
