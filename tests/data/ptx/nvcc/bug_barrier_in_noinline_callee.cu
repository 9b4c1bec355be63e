// A __syncthreads() hidden in a __noinline__ helper, called only by in-range threads: the threads with
// gid >= n never reach the barrier (PARITY-114 through a call).
__device__ __noinline__ void stage_and_sync(float *tile, const float *in, int gid)
{
    tile[threadIdx.x] = in[gid];
    __syncthreads();
}

__global__ void call_barrier_in_branch(const float *in, float *out, int n)
{
    __shared__ float tile[256];
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    if (gid < n) {
        stage_and_sync(tile, in, gid); // EXPECT: barrier-divergence
        out[gid] = tile[(threadIdx.x + 1) % 256];
    }
}
