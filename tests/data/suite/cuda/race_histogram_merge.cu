// arch: sm_80
// 64-bin histogram of byte values (v % 64): each block builds a private histogram in shared memory with
// shared atomics, then threads 0..63 merge their bin into the global histogram.
// Bug: no __syncthreads between building and merging: a thread reads its bin (plain load) while other
// threads' atomicAdds to that bin may still be in flight, and the merge misses counts.
#define BINS 64

__global__ void __launch_bounds__(256)
    histogram64(const unsigned char* __restrict__ data, int n, unsigned int* __restrict__ hist)
{
    __shared__ unsigned int s_hist[BINS];
    if (threadIdx.x < BINS) s_hist[threadIdx.x] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        atomicAdd(&s_hist[data[i] % BINS], 1u);
#ifdef IRC_BUG
    // (no barrier: the merge reads bins other threads are still adding to)
#else
    __syncthreads();
#endif
    if (threadIdx.x < BINS) {
        const unsigned int c = s_hist[threadIdx.x];  // EXPECT: shared-race
        if (c) atomicAdd(&hist[threadIdx.x], c);
    }
}
