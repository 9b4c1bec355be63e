// Test kernels for the SIMT emulator (tests/test_emu_nvcc.py). Regenerate PTX with ./regen.sh.
#include <cuda_fp16.h>

extern "C" __global__ void vadd(const float* a, const float* b, float* c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}

// Block reduction: shared memory tree down to 32, then warp shuffles.
extern "C" __global__ void reduce_sum(const float* in, float* out, int n) {
    __shared__ float s[256];
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x * 2 + t;
    float v = 0.f;
    if (i < n) v += in[i];
    if (i + blockDim.x < n) v += in[i + blockDim.x];
    s[t] = v;
    __syncthreads();
    for (int k = blockDim.x / 2; k >= 32; k >>= 1) {
        if (t < k) s[t] += s[t + k];
        __syncthreads();
    }
    if (t < 32) {
        float x = s[t];
        for (int o = 16; o > 0; o >>= 1) x += __shfl_down_sync(0xffffffff, x, o);
        if (t == 0) out[blockIdx.x] = x;
    }
}

// One block per row: max, sum of exp, normalize.
extern "C" __global__ void softmax_row(const float* x, float* y, int cols) {
    __shared__ float red[32];
    const float* row = x + (size_t)blockIdx.x * cols;
    float* out = y + (size_t)blockIdx.x * cols;
    int t = threadIdx.x, lane = t & 31, warp = t >> 5, nw = blockDim.x >> 5;
    float m = -INFINITY;
    for (int c = t; c < cols; c += blockDim.x) m = fmaxf(m, row[c]);
    for (int o = 16; o; o >>= 1) m = fmaxf(m, __shfl_xor_sync(0xffffffff, m, o));
    if (lane == 0) red[warp] = m;
    __syncthreads();
    m = lane < nw ? red[lane] : -INFINITY;
    for (int o = 16; o; o >>= 1) m = fmaxf(m, __shfl_xor_sync(0xffffffff, m, o));
    __syncthreads();
    float s = 0.f;
    for (int c = t; c < cols; c += blockDim.x) s += __expf(row[c] - m);
    for (int o = 16; o; o >>= 1) s += __shfl_xor_sync(0xffffffff, s, o);
    if (lane == 0) red[warp] = s;
    __syncthreads();
    s = lane < nw ? red[lane] : 0.f;
    for (int o = 16; o; o >>= 1) s += __shfl_xor_sync(0xffffffff, s, o);
    float inv = 1.f / s;
    for (int c = t; c < cols; c += blockDim.x) out[c] = __expf(row[c] - m) * inv;
}

#define TILE 16
extern "C" __global__ void matmul_tiled(const float* A, const float* B, float* C, int M, int N, int K) {
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    int row = blockIdx.y * TILE + threadIdx.y, col = blockIdx.x * TILE + threadIdx.x;
    float acc = 0.f;
    for (int k0 = 0; k0 < K; k0 += TILE) {
        int ak = k0 + threadIdx.x, bk = k0 + threadIdx.y;
        As[threadIdx.y][threadIdx.x] = (row < M && ak < K) ? A[row * K + ak] : 0.f;
        Bs[threadIdx.y][threadIdx.x] = (bk < K && col < N) ? B[bk * N + col] : 0.f;
        __syncthreads();
#pragma unroll
        for (int k = 0; k < TILE; ++k) acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];
        __syncthreads();
    }
    if (row < M && col < N) C[row * N + col] = acc;
}

extern "C" __global__ void histogram(const unsigned char* data, unsigned int* hist, int n) {
    __shared__ unsigned int h[256];
    for (int i = threadIdx.x; i < 256; i += blockDim.x) h[i] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        atomicAdd(&h[data[i]], 1u);
    __syncthreads();
    for (int i = threadIdx.x; i < 256; i += blockDim.x)
        if (h[i]) atomicAdd(&hist[i], h[i]);
}

extern "C" __global__ void saxpy_gridstride(float a, const float* x, float* y, long long n) {
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)blockDim.x * gridDim.x)
        y[i] = a * x[i] + y[i];
}

// Divergent if/else and data-dependent loops.
extern "C" __global__ void collatz(const unsigned int* start, unsigned int* steps, int* kind, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned int x = start[i], s = 0;
    while (x != 1 && s < 1000) {
        if (x & 1) x = 3 * x + 1;
        else x >>= 1;
        ++s;
    }
    steps[i] = s;
    if (s % 3 == 0) kind[i] = -(int)s / 3;
    else if (s % 3 == 1) kind[i] = (int)(s * s) % 7;
    else kind[i] = __popc(s) + __clz(s);
}

// Integer corner cases: div/rem signed, mul.hi, bit ops, shifts.
extern "C" __global__ void intops(const int* a, const int* b, int* out, long long* out64, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int x = a[i], y = b[i];
    int* o = out + 8 * i;
    o[0] = y != 0 ? x / y : 0;
    o[1] = y != 0 ? x % y : 0;
    o[2] = __mulhi(x, y);
    o[3] = (int)__umulhi((unsigned)x, (unsigned)y);
    o[4] = __brev(x) ^ __ffs(y);
    o[5] = (x >> (y & 31)) + (int)((unsigned)x >> (y & 15));
    o[6] = min(x, y) * 3 - max(x, y) + abs(x);
    o[7] = __byte_perm(x, y, 0x5140) + __popc(x & y);
    out64[i] = (long long)x * (long long)y + ((long long)x << 20) / (y | 1);
}

// Warp votes, ballot and warp-level atomics via CAS (float atomic max).
__device__ float atomicMaxFloat(float* addr, float v) {
    int* ai = (int*)addr;
    int old = *ai, assumed;
    do {
        assumed = old;
        if (__int_as_float(assumed) >= v) break;
        old = atomicCAS(ai, assumed, __float_as_int(v));
    } while (assumed != old);
    return __int_as_float(old);
}

extern "C" __global__ void warp_votes(const float* x, unsigned* ballots, int* counts, float* mx, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = i < n ? x[i] : 0.f;
    unsigned b = __ballot_sync(0xffffffff, v > 0.5f);
    int all = __all_sync(0xffffffff, v > 0.0f);
    int any = __any_sync(0xffffffff, v > 0.99f);
    if ((threadIdx.x & 31) == 0) {
        ballots[i >> 5] = b;
        counts[i >> 5] = __popc(b) + 100 * all + 1000 * any;
    }
    if (i < n) atomicMaxFloat(mx, v);
}

// Double precision and half conversions.
extern "C" __global__ void mixed_precision(const double* d, const __half* h, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    double v = d[i];
    float hf = __half2float(h[i]);
    out[3 * i] = (float)(sqrt(fabs(v)) * 2.0 + v / 3.0);
    out[3 * i + 1] = hf * 2.0f + (float)(int)v;
    out[3 * i + 2] = __half2float(__float2half(hf * 3.0f));
}

// Per-thread local array with dynamic indexing (nvcc puts it in .local memory).
extern "C" __global__ void local_array(const int* idx, int* out, int n) {
    volatile int buf[32];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    for (int k = 0; k < 32; ++k) buf[k] = k * i;
    out[i] = buf[idx[i] & 31] + buf[(idx[i] >> 5) & 31];
}

extern "C" __global__ void dyn_shared_reverse(const float* in, float* out) {
    extern __shared__ float s[];
    int t = threadIdx.x;
    s[t] = in[blockIdx.x * blockDim.x + t];
    __syncthreads();
    out[blockIdx.x * blockDim.x + t] = s[blockDim.x - 1 - t];
}

// A generic pointer that points to shared or global memory depending on a runtime flag.
extern "C" __global__ void generic_ptr(const float* g, float* out, int use_shared) {
    __shared__ float s[64];
    s[threadIdx.x] = threadIdx.x * 2.0f;
    __syncthreads();
    const float* p = use_shared ? s : g;
    out[threadIdx.x] = p[63 - threadIdx.x];
}

extern "C" __global__ void atomics_mix(int* ints, unsigned* u, float* f, double* d) {
    int t = threadIdx.x + blockIdx.x * blockDim.x;
    atomicMin(&ints[0], -t);
    atomicMax(&ints[1], t);
    atomicAdd(&ints[2], t);
    atomicExch(&ints[3], 7);
    atomicInc(&u[0], 10);
    atomicDec(&u[1], 5);
    atomicAnd(&u[2], ~(1u << (t % 32)));
    atomicOr(&u[3], 1u << (t % 32));
    atomicXor(&u[4], (unsigned)t);
    atomicAdd(&f[0], 0.5f);
    atomicAdd(&d[0], 0.25);
    unsigned old = atomicAdd(&u[5], 1u);
    u[6 + old] = (unsigned)t;
}
