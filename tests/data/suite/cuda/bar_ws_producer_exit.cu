// arch: sm_80
// Warp-specialised kernel: warp 0 produces (stages 128 values, scaled, and signals named barrier 1 with
// bar.arrive), then has nothing left to do and exits; warps 1..4 consume and, before their epilogue,
// synchronise once more. out[b * 128 + c] = staged[127 - c] + staged[c].
// Bug: the consumers' last synchronisation is __syncthreads (barrier 0 of the whole block), which the
// exited producer warp never reaches; it must be a named barrier for the 128 consumers.
__global__ void __launch_bounds__(160) ws_mirror(const float* __restrict__ x, float* __restrict__ out, float scale)
{
    __shared__ float staged[128];
    __shared__ float result[128];
    const int t = threadIdx.x;
    if (t < 32) {
        for (int k = t; k < 128; k += 32) staged[k] = scale * x[blockIdx.x * 128 + k];
        asm volatile("bar.arrive 1, 160;" ::: "memory");
        return;
    }
    const int c = t - 32;
    asm volatile("bar.sync 1, 160;" ::: "memory");
    result[c] = staged[127 - c] + staged[c];
#ifdef IRC_BUG
    __syncthreads();  // EXPECT: barrier-divergence
#else
    asm volatile("bar.sync 2, 128;" ::: "memory");
#endif
    out[blockIdx.x * 128 + c] = result[(c + 64) % 128];
}
