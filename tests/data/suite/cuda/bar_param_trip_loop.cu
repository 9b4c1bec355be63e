// arch: sm_80
// Subtract each 128-element chunk's mean: y[i] = x[i] - mean(chunk of i), for an n that is not a multiple
// of 128 (the last chunk's mean is over its valid elements). One block walks all chunks.
// Bug: the loop is written per thread (`for (i = threadIdx.x; i < n; i += blockDim.x)`), so in the last
// chunk the threads past n leave the loop and skip its __syncthreads.
__global__ void __launch_bounds__(128) center_chunks(const float* __restrict__ x, float* __restrict__ y, int n)
{
    __shared__ float s[128];
    __shared__ float mean;
    const int t = threadIdx.x;
#ifdef IRC_BUG
    for (int i = t; i < n; i += blockDim.x) {
        const int base = i - t;
        const float v = x[i];
#else
    for (int base = 0; base < n; base += blockDim.x) {
        const int i = base + t;
        const float v = i < n ? x[i] : 0.f;
#endif
        s[t] = v;
        __syncthreads();  // EXPECT: barrier-divergence
        if (t == 0) {
            float sum = 0.f;
            const int cnt = min(int(blockDim.x), n - base);
            for (int k = 0; k < cnt; ++k) sum += s[k];
            mean = sum / cnt;
        }
        __syncthreads();
        if (i < n) y[i] = v - mean;
        __syncthreads();  // s and mean are rewritten by the next chunk
    }
}
