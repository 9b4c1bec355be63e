// arch: sm_80
// Masked block sums: thread t of block b contributes x[i] when keep[i] != 0 and i < n; out[b] is the sum.
// The block reduction is a __noinline__ helper with its own __syncthreads.
// Bug: only the threads that pass the filter (an `&&` of the mask and the bound) call the helper, so the
// barrier inside it is reached by some threads of the block only.
__device__ __noinline__ float block_sum128(float* s, float v)
{
    s[threadIdx.x] = v;
    __syncthreads();  // EXPECT: barrier-divergence
    if (threadIdx.x == 0) {
        float acc = 0.f;
        for (int k = 0; k < 128; ++k) acc += s[k];
        s[128] = acc;
    }
    __syncthreads();
    return s[128];
}

__global__ void __launch_bounds__(128)
    masked_sum(const float* __restrict__ x, const int* __restrict__ keep, float* __restrict__ out, int n)
{
    __shared__ float s[129];
    const int i = blockIdx.x * 128 + threadIdx.x;
    const bool take = i < n && keep[i] != 0;
#ifdef IRC_BUG
    float total = 0.f;
    if (take) total = block_sum128(s, x[i]);  // EXPECT: barrier-divergence
#else
    const float total = block_sum128(s, take ? x[i] : 0.f);
#endif
    if (threadIdx.x == 0) out[blockIdx.x] = total;
}
