// BUG: a row-softmax that stages its row with inline-PTX cp.async, then waits with
// `cp.async.wait_group 0` without committing the copies first. wait_group only waits for committed
// groups, so the copies it should cover are not waited for at all.
#include <cstdint>

#define COLS 256

static __device__ __forceinline__ void cp_async4(float* dst, const float* src)
{
    unsigned d = (unsigned)__cvta_generic_to_shared(dst);
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" ::"r"(d), "l"(src) : "memory");
}

static __device__ __forceinline__ float block_max(float v, float* red)
{
    for (int o = 16; o > 0; o >>= 1)
        v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
    if ((threadIdx.x & 31) == 0)
        red[threadIdx.x >> 5] = v;
    __syncthreads();
    float m = red[0];
    for (int w = 1; w < COLS / 32; ++w)
        m = fmaxf(m, red[w]);
    __syncthreads();
    return m;
}

__global__ void __launch_bounds__(COLS) row_softmax(const float* __restrict__ x, float* __restrict__ y)
{
    __shared__ float row[COLS];
    __shared__ float red[COLS / 32];
    const float* src = x + (size_t)blockIdx.x * COLS;
    cp_async4(&row[threadIdx.x], &src[threadIdx.x]);
    asm volatile("cp.async.wait_group 0;" ::: "memory");
    __syncthreads();
    float v = row[(threadIdx.x * 5) % COLS];  // EXPECT: async-unwaited
    float m = block_max(v, red);
    y[(size_t)blockIdx.x * COLS + threadIdx.x] = __expf(row[threadIdx.x] - m);
}
