// arch: sm_80
// Written the way Triton pipelines a loop on sm_80: one dynamic `global_smem` buffer addressed by offsets,
// NUM_STAGES = 3 stages of cp.async copies with zero-fill masking of the K tail (src-size 0), one group per
// step and `cp.async.wait_group NUM_STAGES - 2` before a `bar.sync 0`. y[r] = sum_k x[r, k] * w[k]
// (K is a parameter), 4 rows per block of 128 threads, 32 K values per step.
// Bug: the prefetch of step k + 2 is written into stage k % 3 (the one this step reads) instead of
// (k + 2) % 3, the stage freed by the previous step.
#include <cstdint>

#define NUM_STAGES 3
#define BK 32
#define XS_BYTES (4 * BK * 4)
#define WS_OFF (NUM_STAGES * XS_BYTES)

static __device__ __forceinline__ void cp4_zfill(uint32_t dst, const float* src, bool valid)
{
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;" ::"r"(dst), "l"(src), "r"(valid ? 4 : 0) : "memory");
}

extern "C" __global__ void __launch_bounds__(128)
    triton_like_gemv(const float* __restrict__ x, const float* __restrict__ w, float* __restrict__ y, int K)
{
    extern __shared__ __align__(16) unsigned char global_smem[];
    const uint32_t base = (uint32_t)__cvta_generic_to_shared(global_smem);
    const int t = threadIdx.x, rr = t / 32, l = t % 32;
    const int row = blockIdx.x * 4 + rr;
    const int nk = (K + BK - 1) / BK;
    auto load = [&](int k, int stage) {
        const int kk = k * BK + l;
        const bool valid = k < nk && kk < K;
        cp4_zfill(base + stage * XS_BYTES + 4 * (rr * BK + l), x + (size_t)row * K + (valid ? kk : 0), valid);
        if (t < BK) cp4_zfill(base + WS_OFF + stage * BK * 4 + 4 * l, w + (valid ? kk : 0), valid);
        asm volatile("cp.async.commit_group;" ::: "memory");
    };
    for (int s = 0; s < NUM_STAGES - 1; ++s) load(s, s);
    float acc = 0.f;
    for (int k = 0; k < nk; ++k) {
        asm volatile("cp.async.wait_group %0;" ::"n"(NUM_STAGES - 2) : "memory");
        asm volatile("bar.sync 0;" ::: "memory");
#ifdef IRC_BUG
        load(k + NUM_STAGES - 1, k % NUM_STAGES);
#else
        load(k + NUM_STAGES - 1, (k + NUM_STAGES - 1) % NUM_STAGES);
#endif
        const int s = k % NUM_STAGES;
        const float* xs = reinterpret_cast<const float*>(global_smem + s * XS_BYTES);
        const float* ws = reinterpret_cast<const float*>(global_smem + WS_OFF + s * BK * 4);
        acc += xs[rr * BK + l] * ws[l];  // EXPECT: async-unwaited
    }
    for (int d = 16; d > 0; d /= 2) acc += __shfl_xor_sync(0xffffffffu, acc, d);
    if (l == 0) y[row] = acc;
}
