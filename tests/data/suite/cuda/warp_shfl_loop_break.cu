// arch: sm_80
// Each lane walks its own list (len[i] entries of a padded row of 8); in every step the lane adds the
// current entry of the lane above it (shfl_down by 1, lane 31 gets 0). out[i] = sum over the lane's steps
// k < len[i] of row[i + 1][k] (the neighbour's entry; 0 past the neighbour's list or the warp's end).
// Bug: the loop runs to the lane's own length with a full-mask shuffle inside, so lanes with longer lists
// shuffle without the lanes that already left (the twin loops to the warp's longest list, `__any_sync`).
__global__ void __launch_bounds__(64)
    neighbour_walk(const float* __restrict__ rows, const int* __restrict__ len, float* __restrict__ out)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x, lane = threadIdx.x % 32;
    const int n = len[i];
    float acc = 0.f;
#ifdef IRC_BUG
    for (int k = 0; k < n; ++k) {
        const float mine = rows[i * 8 + k];
        const float up = __shfl_down_sync(0xffffffffu, mine, 1);  // EXPECT: warp-sync-divergence
        if (lane < 31 && k < len[i + 1]) acc += up;
    }
#else
    for (int k = 0; __any_sync(0xffffffffu, k < n); ++k) {
        const float mine = k < n ? rows[i * 8 + k] : 0.f;
        const float up = __shfl_down_sync(0xffffffffu, mine, 1);
        if (k < n && lane < 31) acc += up;
    }
#endif
    out[i] = acc;
}
