// BUG: per-thread data-dependent `break` leaves the loop before a __syncthreads() inside it.
__global__ void bug_break_before_barrier(const float* __restrict__ in, float* __restrict__ out, int iters)
{
    __shared__ float tile[2][256];
    int t = threadIdx.x;
    float acc = 0.0f;
#pragma unroll 1
    for (int k = 0; k < iters; ++k) {
        float v = in[(blockIdx.x * iters + k) * blockDim.x + t];
        if (v < 0.0f) break;
        tile[k & 1][t] = v;
        __syncthreads();  // EXPECT: barrier-divergence
        acc += tile[k & 1][blockDim.x - 1 - t];
    }
    out[blockIdx.x * blockDim.x + t] = acc;
}
