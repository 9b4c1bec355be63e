// CUDA equivalent of examples/mma_gemm_sm80.kdsl (written for bench/bench_sass.py): cp.async double
// buffering, ldmatrix and mma.sync m16n8k16 through inline PTX, as the .kdsl intrinsics spell them.
#include <cuda_fp16.h>

__device__ __forceinline__ unsigned smem_addr(const void* p) { return (unsigned)__cvta_generic_to_shared(p); }

__device__ __forceinline__ void cp_async16(void* dst, const void* src) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(smem_addr(dst)), "l"(src));
}

__device__ __forceinline__ void ldmatrix_x4(unsigned (&r)[4], const void* p) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(smem_addr(p)));
}

__device__ __forceinline__ void mma16816(float (&d)[4], const unsigned (&a)[4], unsigned b0, unsigned b1) {
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
                 "{%0,%1,%2,%3};"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

extern "C" __global__ void __launch_bounds__(32)
mma_gemm_sm80(float* c, const __half* a, const __half* bt, unsigned m, unsigned n, unsigned k) {
    __shared__ __align__(128) __half a_s[2][16][16];
    __shared__ __align__(128) __half b_s[2][16][16];
    unsigned lane = threadIdx.x & 31;
    unsigned row0 = blockIdx.y * 16, col0 = blockIdx.x * 16;
    unsigned r = lane / 2, c8 = (lane % 2) * 8;
    unsigned ktiles = k / 16;
    cp_async16(&a_s[0][r][c8], a + (row0 + r) * k + c8);
    cp_async16(&b_s[0][r][c8], bt + (col0 + r) * k + c8);
    asm volatile("cp.async.commit_group;");
    float acc0[4] = {0, 0, 0, 0}, acc1[4] = {0, 0, 0, 0};
    for (unsigned kt = 0; kt < ktiles; kt++) {
        unsigned cur = kt % 2;
        if (kt + 1 < ktiles) {
            unsigned nxt = (kt + 1) % 2, k1 = (kt + 1) * 16;
            cp_async16(&a_s[nxt][r][c8], a + (row0 + r) * k + k1 + c8);
            cp_async16(&b_s[nxt][r][c8], bt + (col0 + r) * k + k1 + c8);
        }
        asm volatile("cp.async.commit_group;");
        asm volatile("cp.async.wait_group 1;");
        __syncthreads();
        unsigned af[4], bf[4];
        ldmatrix_x4(af, &a_s[cur][lane % 16][(lane / 16) * 8]);
        ldmatrix_x4(bf, &b_s[cur][(lane % 8) + (lane / 16) * 8][((lane / 8) % 2) * 8]);
        mma16816(acc0, af, bf[0], bf[1]);
        mma16816(acc1, af, bf[2], bf[3]);
        __syncthreads();
    }
    unsigned g = lane / 4, t4 = lane % 4;
    float* lo = c + (row0 + g) * n + col0 + t4 * 2;
    float* hi = c + (row0 + g + 8) * n + col0 + t4 * 2;
    lo[0] = acc0[0];
    lo[1] = acc0[1];
    lo[8] = acc1[0];
    lo[9] = acc1[1];
    hi[0] = acc0[2];
    hi[1] = acc0[3];
    hi[8] = acc1[2];
    hi[9] = acc1[3];
}
