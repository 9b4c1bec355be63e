// arch: sm_80
// 1-D convolution with a radius-3 window, y[i] = sum_{d=-3..3} w[d + 3] x[i + d] (zero outside 0..n-1), with
// the block's 128 inputs plus a halo of 3 on each side staged in shared memory. The halo is loaded by the
// first and last 3 threads, each guarded with an `&&` of the thread's role and the array bounds.
// Bug: no __syncthreads between staging and the window reads, which read neighbours' and halo elements.
#define R 3
#define B 128

__global__ void __launch_bounds__(B)
    conv7(const float* __restrict__ x, const float* __restrict__ w, float* __restrict__ y, int n)
{
    __shared__ float s[B + 2 * R];
    const int t = threadIdx.x, i = blockIdx.x * B + t;
    s[t + R] = i < n ? x[i] : 0.f;
    if (t < R) s[t] = (i >= R && i - R < n) ? x[i - R] : 0.f;
    if (t >= B - R) s[t + 2 * R] = (i + R < n) ? x[i + R] : 0.f;
#ifdef IRC_BUG
    // (no barrier: neighbours' and halo elements may not be staged yet)
#else
    __syncthreads();
#endif
    float acc = 0.f;
#pragma unroll
    for (int d = 0; d <= 2 * R; ++d) acc += w[d] * s[t + d];  // EXPECT: shared-race
    if (i < n) y[i] = acc;
}
