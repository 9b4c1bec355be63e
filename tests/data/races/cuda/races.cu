// Shared-memory races and their fixes, written for irc's tests (compiled by regen.sh).
#define TILE 16

__global__ void __launch_bounds__(64) neighbour(float *out, const float *x) {
  __shared__ float tile[64];
  unsigned i = blockIdx.x * 64 + threadIdx.x;
  tile[threadIdx.x] = x[i];
  out[i] = tile[threadIdx.x ^ 1];  // no barrier since the store
}

// tiled SGEMM, n a multiple of TILE; `second` selects whether the loop ends with its second barrier
template <bool second>
__device__ void sgemm_body(float *c, const float *a, const float *b, int n) {
  __shared__ float As[TILE][TILE], Bs[TILE][TILE];
  int tx = threadIdx.x, ty = threadIdx.y;
  int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
  float acc = 0.f;
  for (int t = 0; t < n / TILE; ++t) {
    As[ty][tx] = a[row * n + t * TILE + tx];
    Bs[ty][tx] = b[(t * TILE + ty) * n + col];
    __syncthreads();
    for (int k = 0; k < TILE; ++k) acc += As[ty][k] * Bs[k][tx];
    if (second) __syncthreads();
  }
  c[row * n + col] = acc;
}
__global__ void sgemm_one_barrier(float *c, const float *a, const float *b, int n) { sgemm_body<false>(c, a, b, n); }
__global__ void sgemm_ok(float *c, const float *a, const float *b, int n) { sgemm_body<true>(c, a, b, n); }

// block tree reduction over blockDim.x (a power of two) values
template <bool inner>
__device__ void tree_body(float *out, const float *x) {
  extern __shared__ float sdata[];
  unsigned t = threadIdx.x;
  sdata[t] = x[blockIdx.x * blockDim.x + t];
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (t < s) sdata[t] += sdata[t + s];
    if (inner) __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = sdata[0];
}
__global__ void __launch_bounds__(256) tree_reduce(float *out, const float *x) { tree_body<false>(out, x); }
__global__ void __launch_bounds__(256) tree_reduce_ok(float *out, const float *x) { tree_body<true>(out, x); }

// the last warp of a reduction, warp-synchronous (pre-Volta style: `v[t] += v[t + s]` with no sync);
// `sync`: read, __syncwarp(), write, __syncwarp() (lane t + s writes what lane t reads in the same step)
template <bool sync>
__device__ void warp_body(float *out, const float *x) {
  __shared__ float sdata[64];
  unsigned t = threadIdx.x;
  sdata[t] = x[blockIdx.x * 64 + t];
  __syncthreads();
  if (t < 32) {
    volatile float *v = sdata;
    for (unsigned s = 32; s > 0; s >>= 1) {
      float o = v[t + s];
      if (sync) __syncwarp(0xffffffff);
      v[t] += o;
      if (sync) __syncwarp(0xffffffff);
    }
  }
  if (t == 0) out[blockIdx.x] = sdata[0];
}
__global__ void __launch_bounds__(64) warp_reduce(float *out, const float *x) { warp_body<false>(out, x); }
__global__ void __launch_bounds__(64) warp_reduce_ok(float *out, const float *x) { warp_body<true>(out, x); }
