// arch: sm_80
// Layer statistics: each block computes the mean and the mean of squares of its 128-value slice with one
// reduction helper kept out of line (__noinline__), called twice. out[2b] = mean, out[2b + 1] = mean(x^2).
// Bug: the helper's halving loop has no barrier between its steps.
#define BLOCK 128

__device__ __noinline__ float block_reduce_sum(float* sdata, float v)
{
    const int t = threadIdx.x;
    sdata[t] = v;
    __syncthreads();
#pragma unroll 1
    for (int s = BLOCK / 2; s > 0; s >>= 1) {
        if (t < s) sdata[t] += sdata[t + s];  // EXPECT: shared-race
#ifdef IRC_BUG
        // (no barrier between the steps)
#else
        __syncthreads();
#endif
    }
    const float total = sdata[0];
    __syncthreads();  // sdata is reused by the next call
    return total;
}

__global__ void __launch_bounds__(BLOCK) moments(const float* __restrict__ x, float* __restrict__ out)
{
    __shared__ float sdata[BLOCK];
    const float v = x[blockIdx.x * BLOCK + threadIdx.x];
    const float s1 = block_reduce_sum(sdata, v);
    const float s2 = block_reduce_sum(sdata, v * v);
    if (threadIdx.x == 0) {
        out[2 * blockIdx.x] = s1 / BLOCK;
        out[2 * blockIdx.x + 1] = s2 / BLOCK;
    }
}
