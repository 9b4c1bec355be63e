// OK: PARITY-114 fixed. The bounds predicate is computed, every thread passes the barrier, and only
// the loads and stores are guarded.
__global__ void ok_parity114_fixed(const float* __restrict__ in, float* __restrict__ out, int n)
{
    __shared__ float tile[256];
    int i = threadIdx.x + blockIdx.x * blockDim.x;
    bool live = i < n;
    tile[threadIdx.x] = live ? in[i] * 2.0f : 0.0f;
    __syncthreads();
    if (live) out[i] = tile[(threadIdx.x + 1) % blockDim.x];
}
