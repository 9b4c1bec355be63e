// arch: sm_80
// The classic reduction with the last warp unrolled (256 threads): tree steps with __syncthreads down to
// 64 values, then warp 0 finishes through a volatile pointer, warp-synchronously. out[b] = block sum.
// Bug: the warp-synchronous tail has no __syncwarp: since Volta the lanes of a warp are not in lockstep,
// so lane t may read s[t + 16] before lane t + 16 has written it.
__device__ void warp_reduce(volatile float* s, int t)
{
#ifdef IRC_BUG
    s[t] += s[t + 32];
    s[t] += s[t + 16];  // EXPECT: shared-race
    s[t] += s[t + 8];
    s[t] += s[t + 4];
    s[t] += s[t + 2];
    s[t] += s[t + 1];
#else
    float v = s[t];
    for (int off = 32; off > 0; off /= 2) {
        v += s[t + off];
        __syncwarp();
        s[t] = v;
        __syncwarp();
    }
#endif
}

__global__ void __launch_bounds__(256) reduce_unrolled(const float* __restrict__ x, float* __restrict__ out)
{
    __shared__ float s[256];
    const int t = threadIdx.x;
    s[t] = x[blockIdx.x * 256 + t];
    __syncthreads();
    for (int k = 128; k > 32; k >>= 1) {
        if (t < k) s[t] += s[t + k];
        __syncthreads();
    }
    if (t < 32) warp_reduce(s, t);
    if (t == 0) out[blockIdx.x] = s[0];
}
