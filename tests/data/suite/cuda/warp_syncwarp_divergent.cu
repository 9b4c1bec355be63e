// arch: sm_80
// Lanes 0..15 of each warp exchange values through shared memory (a reversal within the half-warp):
// out[i] = x[i'] with i' the mirror of i in its half-warp, for the low half; the high half copies x[i].
// Bug: __syncwarp() with the default full mask inside `if (lane < 16)`: lanes 16..31 never reach it.
__global__ void __launch_bounds__(64) half_reverse(const float* __restrict__ x, float* __restrict__ out)
{
    __shared__ float s[64];
    const int t = threadIdx.x, lane = t % 32, i = blockIdx.x * 64 + t;
    if (lane < 16) {
        s[t] = x[i];
#ifdef IRC_BUG
        __syncwarp();  // EXPECT: warp-sync-divergence
#else
        __syncwarp(0x0000ffffu);
#endif
        out[i] = s[t - lane + 15 - lane];
    } else {
        out[i] = x[i];
    }
}
