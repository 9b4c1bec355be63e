// CUDA equivalent of examples/vector_add.kdsl (for bench/bench_startup.py): out = x + y.
extern "C" __global__ void __launch_bounds__(128) vector_add(float* out, const float* x, const float* y, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = x[i] + y[i];
}
