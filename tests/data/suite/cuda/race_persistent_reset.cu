// arch: sm_80
// A persistent kernel: each block walks rows (blockIdx.x, + gridDim.x, ...) of 256 values, sums the row
// into one shared accumulator with shared atomics, and every thread centres its element with the row
// mean: y[r, t] = x[r, t] - sum(x[r, :]) / 256 (small integers: the float sums are exact). Thread 0 resets
// the accumulator for the next row.
// Bug: the reset is in the same barrier interval as the other threads' reads of the accumulator: thread 0
// may zero it before a slower thread has read this row's sum.
__global__ void __launch_bounds__(256) center_rows(const float* __restrict__ x, float* __restrict__ y, int nrows)
{
    __shared__ float acc;
    if (threadIdx.x == 0) acc = 0.f;
    __syncthreads();
    for (int r = blockIdx.x; r < nrows; r += gridDim.x) {
        const float v = x[(size_t)r * 256 + threadIdx.x];
        atomicAdd(&acc, v);
        __syncthreads();
        const float mean = acc / 256.f;  // EXPECT: shared-race (the read the reset races with)
        y[(size_t)r * 256 + threadIdx.x] = v - mean;
#ifdef IRC_BUG
        if (threadIdx.x == 0) acc = 0.f;  // EXPECT: shared-race
        __syncthreads();
#else
        __syncthreads();  // every thread has read this row's sum
        if (threadIdx.x == 0) acc = 0.f;
        __syncthreads();
#endif
    }
}
