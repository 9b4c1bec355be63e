// BUG: loop trip count depends on threadIdx.x, with __syncthreads() inside the loop body.
__global__ void bug_tid_trip_loop(const float* __restrict__ in, float* __restrict__ out)
{
    __shared__ float tile[2][256];
    int t = threadIdx.x;
    int trips = (t & 7) + 1;
    float acc = 0.0f;
#pragma unroll 1
    for (int k = 0; k < trips; ++k) {
        tile[k & 1][t] = in[blockIdx.x * blockDim.x * 8 + k * blockDim.x + t];
        __syncthreads();  // EXPECT: barrier-divergence
        acc += tile[k & 1][(t + k) % blockDim.x];
    }
    out[blockIdx.x * blockDim.x + t] = acc;
}
