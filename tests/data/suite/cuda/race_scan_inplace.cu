// arch: sm_80
// Inclusive scan of 256 values per block (Hillis-Steele) in one shared array: in step `off` thread t adds
// s[t - off]. Done in place, each step needs a barrier between reading s[t - off] and writing s[t].
// Bug: the step reads and writes with only the barrier at the end of the step: thread t reads s[t - off]
// while thread t - off is writing it.
__global__ void __launch_bounds__(256) scan256(const float* __restrict__ x, float* __restrict__ y)
{
    __shared__ float s[256];
    const int t = threadIdx.x;
    s[t] = x[blockIdx.x * 256 + t];
    __syncthreads();
    for (int off = 1; off < 256; off *= 2) {
#ifdef IRC_BUG
        if (t >= off) s[t] += s[t - off];  // EXPECT: shared-race
#else
        const float add = t >= off ? s[t - off] : 0.f;
        __syncthreads();
        s[t] += add;
#endif
        __syncthreads();
    }
    y[blockIdx.x * 256 + t] = s[t];
}
