// OK: double-buffered global->shared copies with cp.async (__pipeline_memcpy_async), sm_80+.
#include <cuda_pipeline.h>

__global__ void ok_cp_async(const float4* __restrict__ in, float4* __restrict__ out, int ntiles)
{
    __shared__ float4 buf[2][128];
    int t = threadIdx.x;  // blockDim.x == 128
    const float4* src = in + (size_t)blockIdx.x * ntiles * 128;
    float4 acc = make_float4(0.f, 0.f, 0.f, 0.f);
    __pipeline_memcpy_async(&buf[0][t], &src[t], sizeof(float4));
    __pipeline_commit();
    for (int k = 0; k < ntiles; ++k) {
        if (k + 1 < ntiles)
            __pipeline_memcpy_async(&buf[(k + 1) & 1][t], &src[(k + 1) * 128 + t], sizeof(float4));
        __pipeline_commit();
        __pipeline_wait_prior(1);
        __syncthreads();
        float4 x = buf[k & 1][127 - t];
        acc.x += x.x; acc.y += x.y; acc.z += x.z; acc.w += x.w;
        __syncthreads();
    }
    out[blockIdx.x * 128 + t] = acc;
}
