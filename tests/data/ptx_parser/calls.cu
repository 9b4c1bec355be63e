// Device calls: nvcc emits call sequences with .param declarations inside nested scopes.
__device__ __noinline__ float helper(const float* p, int n) {
  float s = 0.f;
  for (int i = 0; i < n; ++i) s += p[i] * 0.5f;
  return s;
}
typedef float (*fn_t)(const float*, int);
__device__ fn_t table[1] = {helper};

__global__ void __launch_bounds__(128, 2) k_calls(const float* in, float* out, int n, int which) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = helper(in + i, n);
  v += table[which](in, n);  // indirect call: .callprototype
  out[i] = v;
}
