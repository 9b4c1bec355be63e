// OK: warp-level tree reduction through shared memory ordered by __syncwarp() (whole warps only).
__global__ void ok_syncwarp(const float* __restrict__ in, float* __restrict__ out)
{
    __shared__ float buf[256];
    int t = threadIdx.x, lane = t % 32;
    buf[t] = in[blockIdx.x * blockDim.x + t];
    __syncwarp();
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) {
        float other = lane < o ? buf[t + o] : 0.0f;
        __syncwarp();
        buf[t] += other;
        __syncwarp();
    }
    if (lane == 0) out[blockIdx.x * (blockDim.x / 32) + t / 32] = buf[t];
}
