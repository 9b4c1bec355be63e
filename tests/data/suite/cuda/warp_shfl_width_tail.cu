// arch: sm_80
// Sums of groups of 8 consecutive values with width-8 butterfly shuffles; the array length n is not a
// multiple of 32, and only lanes with data take part: out[g] = sum of x[8g .. 8g + 7] (missing values
// count as 0), written by the group's first lane.
// Bug: the shuffles sit inside the `if (i < n)` tail guard with a full mask: in the last warp only some
// lanes execute them.
__global__ void __launch_bounds__(128) group8_sums(const float* __restrict__ x, float* __restrict__ out, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
#ifdef IRC_BUG
    if (i < n) {
        float v = x[i];
        for (int off = 4; off > 0; off /= 2) v += __shfl_xor_sync(0xffffffffu, v, off, 8);  // EXPECT: warp-sync-divergence
        if (i % 8 == 0) out[i / 8] = v;
    }
#else
    float v = i < n ? x[i] : 0.f;
    for (int off = 4; off > 0; off /= 2) v += __shfl_xor_sync(0xffffffffu, v, off, 8);
    if (i < n && i % 8 == 0) out[i / 8] = v;
#endif
}
