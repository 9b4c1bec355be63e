// BUG: a 32x32 tile transpose stages the tile with cp.async (inline PTX, 16-byte copies of four
// floats) and waits for its own copies with `cp.async.wait_all`, but reads other threads' elements
// without a block barrier after the wait: wait_all only orders the issuing thread's copies.
#define TD 32

__global__ void __launch_bounds__(256) transpose32(const float* __restrict__ in, float* __restrict__ out, int n)
{
    __shared__ __align__(16) float tile[TD][TD + 4];
    int bx = blockIdx.x * TD, by = blockIdx.y * TD;
    int r = threadIdx.x / 8, c4 = (threadIdx.x % 8) * 4;
    unsigned dst = (unsigned)__cvta_generic_to_shared(&tile[r][c4]);
    const float* src = &in[(size_t)(by + r) * n + bx + c4];
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(dst), "l"(src) : "memory");
    asm volatile("cp.async.wait_all;" ::: "memory");
    for (int j = 0; j < 4; ++j)
        out[(size_t)(bx + r) * n + by + c4 + j] = tile[c4 + j][r];  // EXPECT: shared-race
}
