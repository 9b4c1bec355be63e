// arch: sm_90a
// Rotate a 64x32 tile by one row and scale it: loaded with per-thread cp.async (16 bytes each), and written back
// with one bulk copy (cp.async.bulk global <- shared, bulk async-group). The author tracks everything with
// the bulk-group instructions.
// Bug: the non-bulk cp.async loads are "waited for" with cp.async.bulk.commit_group/wait_group, which
// track only bulk copies; the cp.async group ops (commit_group / wait_group) are the ones that cover them.
#include <cstdint>

#define ROWS 64
#define COLS 32
#define TILE_FLOATS (ROWS * COLS)

static __device__ __forceinline__ uint32_t sm(const void* p) { return (uint32_t)__cvta_generic_to_shared(p); }

extern "C" __global__ void __launch_bounds__(128)
    scale_tile(const float* __restrict__ in, float* __restrict__ out, float alpha)
{
    __shared__ __align__(128) float tile[TILE_FLOATS];
    __shared__ __align__(128) float res[TILE_FLOATS];
    const float* src = in + (size_t)blockIdx.x * TILE_FLOATS;
    float* dst = out + (size_t)blockIdx.x * TILE_FLOATS;
    // 2048 floats = 512 chunks of 16 bytes: 4 per thread
    for (int c = threadIdx.x; c < TILE_FLOATS / 4; c += blockDim.x)
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(sm(tile + 4 * c)), "l"(src + 4 * c)
                     : "memory");
#ifdef IRC_BUG
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
    asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");  // EXPECT: async-unwaited
#else
    asm volatile("cp.async.commit_group;" ::: "memory");
    asm volatile("cp.async.wait_group 0;" ::: "memory");
#endif
    __syncthreads();
    // rotate by one row while scaling: each thread reads chunks other threads copied
    for (int i = threadIdx.x; i < TILE_FLOATS; i += blockDim.x) res[i] = alpha * tile[(i + COLS) % TILE_FLOATS];
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");  // the bulk store reads what st.shared wrote
    __syncthreads();
    if (threadIdx.x == 0) {
        asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(dst), "r"(sm(res)),
                     "n"(TILE_FLOATS * 4)
                     : "memory");
        asm volatile("cp.async.bulk.commit_group;" ::: "memory");
        asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
    }
}
