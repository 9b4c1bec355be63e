// OK: branches at warp boundaries (threadIdx.x > 63, warp >= 2) are warp-uniform, so the full-mask
// shuffles inside are executed by whole warps. Block size is bounded to 128 threads.
__device__ __forceinline__ float warp_sum(float v)
{
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}

__global__ void __launch_bounds__(128) ok_warp_boundary_shfl(const float* __restrict__ in, float* __restrict__ out)
{
    int t = threadIdx.x;
    int warp = t / 32;
    int i = blockIdx.x * 128 + t;
    float v = in[i];
    if (t > 63) {
        v = warp_sum(v * v);
    } else {
        v = __shfl_sync(0xffffffffu, v, 0);
    }
    if (warp >= 2) {
        v += __shfl_down_sync(0xffffffffu, v, 4);
    }
    out[i] = v;
}
