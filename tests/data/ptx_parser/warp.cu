// Warp collectives and atomics.
__global__ void k_warp(const int* in, int* out, unsigned* hist) {
  int v = in[blockIdx.x * blockDim.x + threadIdx.x];
  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
  unsigned b = __ballot_sync(0xffffffffu, v > 0);
  atomicAdd(&hist[v & 15], 1u);
  if ((threadIdx.x & 31) == 0) out[blockIdx.x] = v + __popc(b);
}
