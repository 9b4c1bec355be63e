// arch: sm_80
// Two arrays carved by hand out of one dynamic shared buffer: `vals` (blockDim.x floats) and `sq`
// (blockDim.x floats) after it. Thread t stores x and x * x of its element, and the block then reads both
// arrays reversed: out[b, t] = vals[127 - t] - sq[127 - t].
// Bug: `sq` is placed blockDim.x *bytes* after `vals` (the offset is added to the char pointer without
// sizeof(float)), so the arrays overlap and threads overwrite each other's elements.
extern "C" __global__ void __launch_bounds__(128) carve(const float* __restrict__ x, float* __restrict__ out)
{
    extern __shared__ __align__(16) unsigned char smem[];
    float* vals = reinterpret_cast<float*>(smem);
#ifdef IRC_BUG
    float* sq = reinterpret_cast<float*>(smem + blockDim.x);
#else
    float* sq = reinterpret_cast<float*>(smem + blockDim.x * sizeof(float));
#endif
    const int t = threadIdx.x;
    const float v = x[blockIdx.x * blockDim.x + t];
    vals[t] = v;
    sq[t] = v * v;  // EXPECT: shared-race
    __syncthreads();
    out[blockIdx.x * blockDim.x + t] = vals[blockDim.x - 1 - t] - sq[blockDim.x - 1 - t];
}
