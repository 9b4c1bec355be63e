// Correct: an inlined helper `d(a, b) = a - b` in an unrolled loop; at k = 0 both operands are the same
// corner, so nvcc leaves `sub.f32 %f, %fX, %fX` in one copy only. The other copies of the same source
// expression have different operands: a specialization, not an aliasing bug (no self-cancel).
__device__ __forceinline__ float d(float a, float b) { return a - b; }

__global__ void corner_deltas(const float *corners, float *out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float c[4];
#pragma unroll
    for (int k = 0; k < 4; ++k)
        c[k] = corners[i * 4 + k];
    float acc = 0.0f;
#pragma unroll
    for (int k = 0; k < 4; ++k)
        acc += d(c[k], c[0]) * (float)(k + 1);
    out[i] = acc;
}
