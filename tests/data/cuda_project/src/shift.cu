// Each block loads a tile, then every thread reads its right neighbour's element.
#include "tile.cuh"

__global__ void shift_tile(const float* in, float* out, int n) {
  __shared__ float tile[256];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;  // the bug: threads past the end leave before the barrier
  tile[threadIdx.x] = in[i];
  __syncthreads();
  out[i] = tile[(threadIdx.x + 1) % blockDim.x];
}
