// One partial sum per block: every thread passes both barriers of block_sum; only memory is guarded.
#include "tile.cuh"

__global__ void reduce_sum(const float* in, float* out, int n) {
  __shared__ float partials[32];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const float v = i < n ? in[i] : 0.0f;
  const float total = block_sum(v, partials);
  if (threadIdx.x == 0) out[blockIdx.x] = total;
}
