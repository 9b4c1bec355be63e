// arch: sm_80
// Warp sums over a block of 80 threads (a row of 80 features per block): out[b, w] = sum of the values of
// warp w, for warps 0, 1 and the 16-lane warp 2.
// Bug: the shuffle reduction uses the full mask in the last, partial warp, whose lanes 16..31 do not
// exist: lanes 0..15 add values "shuffled" from absent lanes, which are undefined (the twin computes each
// warp's mask and discards values from lanes beyond it).
__global__ void __launch_bounds__(80) warp_sums80(const float* __restrict__ x, float* __restrict__ out)
{
    const int t = threadIdx.x, lane = t % 32, warp = t / 32;
    float v = x[blockIdx.x * blockDim.x + t];
    const int in_warp = min(32, int(blockDim.x) - warp * 32);
#ifdef IRC_BUG
    for (int off = 16; off > 0; off /= 2) v += __shfl_down_sync(0xffffffffu, v, off);  // EXPECT: warp-sync-divergence
#else
    const unsigned mask = in_warp == 32 ? 0xffffffffu : (1u << in_warp) - 1;
    for (int off = 16; off > 0; off /= 2) {
        const float other = __shfl_down_sync(mask, v, off);
        if (lane + off < in_warp) v += other;
    }
#endif
    if (lane == 0) out[blockIdx.x * 3 + warp] = v;
}
