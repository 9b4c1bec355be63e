// OK: warp-specialized producer/consumer. Warps 0-3 produce, warps 4-7 consume (blockDim.x == 256).
// Both roles execute the same sequence of named barriers (1 = full, 2 = empty) from different code.
__global__ void __launch_bounds__(256) ok_warp_specialized_named_barrier(const float* __restrict__ in,
                                                                         float* __restrict__ out, int ntiles)
{
    __shared__ float buf[128];
    int t = threadIdx.x;
    int warp = t / 32;
    if (warp < 4) {
#pragma unroll 1
        for (int k = 0; k < ntiles; ++k) {
            buf[t] = in[((size_t)blockIdx.x * ntiles + k) * 128 + t];
            asm volatile("bar.sync 1, 256;" ::: "memory");
            asm volatile("bar.sync 2, 256;" ::: "memory");
        }
    } else {
        int c = t - 128;
        float acc = 0.0f;
#pragma unroll 1
        for (int k = 0; k < ntiles; ++k) {
            asm volatile("bar.sync 1, 256;" ::: "memory");
            acc += buf[127 - c];
            asm volatile("bar.sync 2, 256;" ::: "memory");
        }
        out[blockIdx.x * 128 + c] = acc;
    }
}
