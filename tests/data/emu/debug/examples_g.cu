// CUDA versions of irc's examples with their helpers kept as real device functions (`__noinline__`),
// compiled with `nvcc -G` (every function, CUDA's intrinsics included, is a `.func`; arguments and results
// go through `.param`): the emulator inlines each call (irc/emu/inline.py) and must match numpy.
// Regenerate: tests/data/emu/debug/regen.sh

// examples/vector_add.kdsl, with the addition in a helper
__device__ __noinline__ float add(float a, float b) { return a + b; }

__global__ void vector_add(float *out, const float *x, const float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = add(x[i], y[i]);
}

// examples/softmax.kdsl: warp reductions as helpers (their shuffles are calls of CUDA's own functions)
__device__ __noinline__ float warp_max(float v)
{
    for (int d = 16; d > 0; d /= 2)
        v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, d));
    return v;
}

__device__ __noinline__ float warp_sum(float v)
{
    for (int d = 16; d > 0; d /= 2)
        v += __shfl_xor_sync(0xffffffffu, v, d);
    return v;
}

__global__ void __launch_bounds__(128) softmax(float *out, const float *x, int n)
{
    __shared__ float red[4];
    const float *row = x + blockIdx.x * n;
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    float m = -INFINITY;
    for (int i = threadIdx.x; i < n; i += 128)
        m = fmaxf(m, row[i]);
    m = warp_max(m);
    if (lane == 0)
        red[warp] = m;
    __syncthreads();
    m = fmaxf(fmaxf(red[0], red[1]), fmaxf(red[2], red[3]));
    __syncthreads();
    float s = 0.f;
    for (int i = threadIdx.x; i < n; i += 128)
        s += expf(row[i] - m);
    s = warp_sum(s);
    if (lane == 0)
        red[warp] = s;
    __syncthreads();
    s = red[0] + red[1] + red[2] + red[3];
    for (int i = threadIdx.x; i < n; i += 128)
        out[blockIdx.x * n + i] = expf(row[i] - m) / s;
}

// examples/layernorm.kdsl: a block reduction helper with its barriers inside the device function
__device__ __noinline__ float block_sum(float v, float *red)
{
    const float s = warp_sum(v);
    if (threadIdx.x % 32 == 0)
        red[threadIdx.x / 32] = s;
    __syncthreads();
    const float total = red[0] + red[1] + red[2] + red[3];
    __syncthreads();
    return total;
}

__global__ void __launch_bounds__(128)
    layernorm(float *y, const float *x, const float *gamma, const float *beta, int n)
{
    __shared__ float red[4];
    const float *row = x + blockIdx.x * n;
    float s = 0.f;
    for (int i = threadIdx.x; i < n; i += 128)
        s += row[i];
    const float mean = block_sum(s, red) / n;
    float q = 0.f;
    for (int i = threadIdx.x; i < n; i += 128) {
        const float d = row[i] - mean;
        q += d * d;
    }
    const float rstd = rsqrtf(block_sum(q, red) / n + 1e-5f);
    for (int i = threadIdx.x; i < n; i += 128)
        y[blockIdx.x * n + i] = (row[i] - mean) * rstd * gamma[i] + beta[i];
}

// examples/persistent_rmsnorm.kdsl: a grid-stride loop over rows, the row in a helper returning a struct
struct Stats {
    float ss;
    int count;
};

__device__ __noinline__ Stats row_stats(const float *row, int n)
{
    Stats st{0.f, 0};
    for (int i = threadIdx.x; i < n; i += blockDim.x) {
        st.ss += row[i] * row[i];
        st.count += 1;
    }
    return st;
}

__global__ void __launch_bounds__(128) persistent_rmsnorm(float *y, const float *x, const float *w, int rows, int n)
{
    __shared__ float red[4];
    for (int r = blockIdx.x; r < rows; r += gridDim.x) {
        const Stats st = row_stats(x + r * n, n);
        const float tot = block_sum(st.ss, red);
        const float inv = rsqrtf(tot / n + 1e-6f);
        for (int i = threadIdx.x; i < n; i += 128)
            y[r * n + i] = x[r * n + i] * inv * w[i];
    }
}

// examples/mma_gemm_sm80.kdsl's data flow on CUDA cores: a 16x16 tiled matmul whose tile loads are a helper
__device__ __noinline__ void load_tile(float (*tile)[17], const float *m, int rows, int cols, int r0, int c0)
{
    const int r = r0 + threadIdx.y, c = c0 + threadIdx.x;
    tile[threadIdx.y][threadIdx.x] = (r < rows && c < cols) ? m[r * cols + c] : 0.f;
}

__global__ void tiled_matmul(float *C, const float *A, const float *B, int M, int N, int K)
{
    __shared__ float As[16][17], Bs[16][17];
    const int row = blockIdx.y * 16 + threadIdx.y, col = blockIdx.x * 16 + threadIdx.x;
    float acc = 0.f;
    for (int k0 = 0; k0 < K; k0 += 16) {
        load_tile(As, A, M, K, blockIdx.y * 16, k0);
        load_tile(Bs, B, K, N, k0, blockIdx.x * 16);
        __syncthreads();
        for (int k = 0; k < 16; ++k)
            acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];
        __syncthreads();
    }
    if (row < M && col < N)
        C[row * N + col] = acc;
}

// Calls the emulator must follow beyond plain helpers: recursion and virtual functions (a vtable in a
// .global initializer, an indirect call through the loaded function pointer).
__device__ __noinline__ int fib(int k) { return k < 2 ? k : fib(k - 1) + fib(k - 2); }

struct Shape {
    __device__ virtual float area(float s) const = 0;
};
struct Square : Shape {
    __device__ float area(float s) const override { return s * s; }
};
struct Triangle : Shape {
    __device__ float area(float s) const override { return 0.5f * s * s; }
};

__global__ void calls(float *area, int *fibs, const float *x, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    Square sq;
    Triangle tr;
    const Shape *s = (i & 1) ? static_cast<const Shape *>(&sq) : static_cast<const Shape *>(&tr);
    if (i < n) {
        area[i] = s->area(x[i]);
        fibs[i] = fib(i % 8);
    }
}
