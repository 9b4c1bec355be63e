// arch: sm_80
// Block sum reduction in shared memory (blockDim.x a power of two): load, then halve the active range
// each step. out[b] = sum of x[b * blockDim.x .. + blockDim.x].
// Bug: the __syncthreads inside the halving loop is missing: in step s a thread reads sdata[t + s] that
// another thread is still writing in the same or the previous step.
__global__ void __launch_bounds__(256) block_sum(const float* __restrict__ x, float* __restrict__ out)
{
    __shared__ float sdata[256];
    const unsigned t = threadIdx.x;
    sdata[t] = x[blockIdx.x * blockDim.x + t];
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
        if (t < s) sdata[t] += sdata[t + s];  // EXPECT: shared-race
#ifdef IRC_BUG
        // (no barrier between the steps)
#else
        __syncthreads();
#endif
    }
    if (t == 0) out[blockIdx.x] = sdata[0];
}
