// Scales rows of a matrix. Launched with exactly one warp per block (see launch_scale_rows), so the
// barrier under `threadIdx.x < 32` is reached by the whole block in every launch irc cannot see.
#include "tile.cuh"

__global__ void scale_rows(float* x, int cols, float s) {
  __shared__ float factor;
  if (threadIdx.x == 0) factor = s;
  if (threadIdx.x < 32) {
    __syncthreads();  // irc: allow(barrier-divergence) one warp per block: every thread gets here
  }
  for (int c = threadIdx.x; c < cols; c += blockDim.x) {
    x[blockIdx.x * cols + c] *= factor;
  }
}

void launch_scale_rows(float* x, int rows, int cols, float s) {
  scale_rows<<<rows, 32>>>(x, cols, s);
}
