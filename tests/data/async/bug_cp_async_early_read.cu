// BUG: each thread stages one float with cp.async, commits the group and reads the element back before
// cp.async.wait_group: the read may see the old shared contents (the wait comes one line too late).
#include <cuda_pipeline.h>

extern "C" __global__ void cp_async_early_read(const float* __restrict__ x, float* __restrict__ y)
{
    __shared__ float buf[128];
    int i = blockIdx.x * 128 + threadIdx.x;
    __pipeline_memcpy_async(&buf[threadIdx.x], &x[i], sizeof(float));
    __pipeline_commit();
    float v = *(volatile float*)&buf[threadIdx.x];  // EXPECT: async-unwaited
    __pipeline_wait_prior(0);
    y[i] = v * 2.0f;
}
