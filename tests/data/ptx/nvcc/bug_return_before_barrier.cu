// BUG (PARITY-114): out-of-range threads return before __syncthreads(); the rest hang.
__global__ void bug_return_before_barrier(const float* __restrict__ in, float* __restrict__ out, int n)
{
    __shared__ float tile[256];
    int i = threadIdx.x + blockIdx.x * blockDim.x;
    if (i >= n) return;
    tile[threadIdx.x] = in[i] * 2.0f;
    __syncthreads();  // EXPECT: barrier-divergence
    out[i] = tile[(threadIdx.x + 1) % blockDim.x];
}
