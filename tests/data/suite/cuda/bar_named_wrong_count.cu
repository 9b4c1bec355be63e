// arch: sm_80
// Warp specialisation with named barriers: warp 0 stages 96 values and signals barrier 1 with bar.arrive
// (32 producer + 96 consumer threads = 128); warps 1..3 wait on barrier 1, then reduce among themselves with
// barrier 2 (consumers only). out[b] = sum of the 96 staged values x[b, :] * 2.
// Bug: barrier 2 is given the count of barrier 1 (128), but only the 96 consumer threads ever reach it.
#define PRODUCER_THREADS 32
#define CONSUMER_THREADS 96

__device__ __forceinline__ void named_sync(int id, int count) { asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(count) : "memory"); }
__device__ __forceinline__ void named_arrive(int id, int count) { asm volatile("bar.arrive %0, %1;" ::"r"(id), "r"(count) : "memory"); }

__global__ void __launch_bounds__(128) ws_named(const float* __restrict__ x, float* __restrict__ out)
{
    __shared__ float staged[CONSUMER_THREADS];
    __shared__ float partial[3];
    const int t = threadIdx.x;
    if (t < PRODUCER_THREADS) {
        for (int k = t; k < CONSUMER_THREADS; k += PRODUCER_THREADS) staged[k] = 2.f * x[blockIdx.x * CONSUMER_THREADS + k];
        named_arrive(1, PRODUCER_THREADS + CONSUMER_THREADS);
    } else {
        const int c = t - PRODUCER_THREADS;
        named_sync(1, PRODUCER_THREADS + CONSUMER_THREADS);
        float v = staged[c];
        for (int off = 16; off > 0; off /= 2) v += __shfl_xor_sync(0xffffffffu, v, off);
        if (c % 32 == 0) partial[c / 32] = v;
#ifdef IRC_BUG
        named_sync(2, PRODUCER_THREADS + CONSUMER_THREADS);  // EXPECT: barrier-count
#else
        named_sync(2, CONSUMER_THREADS);
#endif
        if (c == 0) out[blockIdx.x] = partial[0] + partial[1] + partial[2];
    }
}
