// arch: sm_80
// Persistent row normalisation: each block walks tiles of 128 rows (tile = blockIdx.x, + gridDim.x, ...),
// one row per thread, and writes y[r] = x[r] / (|x[r]| + |x[r ^ 1]|) using the partner row from shared
// memory. nrows is not a multiple of 128.
// Bug: a thread whose row is past the end returns inside the persistent loop, before the tile's
// __syncthreads (the twin keeps every thread to the end and guards the accesses).
__global__ void __launch_bounds__(128) pair_normalize(const float* __restrict__ x, float* __restrict__ y, int nrows)
{
    __shared__ float s[128];
    const int ntiles = (nrows + 127) / 128;
    for (int tile = blockIdx.x; tile < ntiles; tile += gridDim.x) {
        const int r = tile * 128 + threadIdx.x;
#ifdef IRC_BUG
        if (r >= nrows) return;
        s[threadIdx.x] = x[r];
#else
        s[threadIdx.x] = r < nrows ? x[r] : 0.f;
#endif
        __syncthreads();  // EXPECT: barrier-divergence
        const float a = s[threadIdx.x], b = s[threadIdx.x ^ 1];
        if (r < nrows) y[r] = a / (fabsf(a) + fabsf(b));
        __syncthreads();
    }
}
