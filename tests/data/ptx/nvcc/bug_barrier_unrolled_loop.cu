// A barrier inside a fully unrolled loop, under a per-thread bound: nvcc makes 16 copies of the
// __syncthreads(); the analyzer reports one finding with "(16 instances)".
__global__ void unrolled_barrier(const float *in, float *out, int n)
{
    __shared__ float tile[256];
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    float acc = 0.0f;
    if (gid < n) {
#pragma unroll
        for (int k = 0; k < 16; ++k) {
            tile[threadIdx.x] = in[gid * 16 + k];
            __syncthreads(); // EXPECT: barrier-divergence
            acc += tile[(threadIdx.x + k) % 256];
        }
        out[gid] = acc;
    }
}
