#pragma once

// Sum over the 32 lanes of a warp (every lane must call it: full-mask shuffles).
__device__ __forceinline__ float warp_sum(float v) {
  for (int offset = 16; offset > 0; offset /= 2) {
    v += __shfl_xor_sync(0xffffffffu, v, offset);
  }
  return v;
}

// Sum over the block (every thread must call it: two barriers). `partials` holds one float per warp.
__device__ __forceinline__ float block_sum(float v, float* partials) {
  const int lane = threadIdx.x % 32;
  const int warp = threadIdx.x / 32;
  v = warp_sum(v);
  if (lane == 0) partials[warp] = v;
  __syncthreads();
  const int warps = (blockDim.x + 31) / 32;
  v = threadIdx.x < warps ? partials[threadIdx.x] : 0.0f;
  if (warp == 0) v = warp_sum(v);
  __syncthreads();
  return v;
}
