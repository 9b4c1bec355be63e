// BUG: __syncthreads() inside a branch on threadIdx.x compared with a runtime parameter.
__global__ void bug_barrier_in_tid_branch(const float* __restrict__ in, float* __restrict__ out, int n_param)
{
    __shared__ float tile[256];
    int i = threadIdx.x + blockIdx.x * blockDim.x;
    if (threadIdx.x < n_param) {
        tile[threadIdx.x] = in[i];
        __syncthreads();  // EXPECT: barrier-divergence
        out[i] = tile[n_param - 1 - threadIdx.x];
    }
}
