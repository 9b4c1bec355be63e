// Kernels for `irc run FILE.ptx` (tests/test_run_ptx.py), written for irc's tests. C++ linkage on
// purpose: the entry names are mangled, and `scale` has two template instances (an ambiguous base name).
// Regenerate: nvcc -ptx -O3 -lineinfo -arch=sm_80 kernels.cu -o kernels.sm_80.ptx

// y = a * x + y for the first n elements
__global__ void saxpy(float a, const float* __restrict__ x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        y[i] = a * x[i] + y[i];
    }
}

// p[i] *= s, once for float and once for double
template <typename T>
__global__ void scale(T* p, T s, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        p[i] *= s;
    }
}
template __global__ void scale<float>(float*, float, int);
template __global__ void scale<double>(double*, double, int);

// out[r][c] = in[c][r] for an h x w matrix `in`, one thread per element, a 2-D grid
__global__ void transpose(const float* in, float* out, int w, int h) {
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    int r = blockIdx.y * blockDim.y + threadIdx.y;
    if (r < h && c < w) {
        out[c * h + r] = in[r * w + c];
    }
}

// a 64-bit count (a .u64 parameter that is an integer, not a pointer): out[i] = i for i < n
__global__ void iota64(unsigned long long* out, unsigned long long n) {
    unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = i;
    }
}
