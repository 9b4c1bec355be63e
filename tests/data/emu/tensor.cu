// Tensor-core and async-copy kernels for the emulator tests (sm_80). Regenerate with ./regen.sh.
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <mma.h>
using namespace nvcuda;

// C[16x8] = A[16x16] (row-major) * B[16x8] (row-major) via cp.async -> smem, ldmatrix, mma.sync.
template <typename T>
__device__ void mma_tile(const T* A, const T* B, float* C, int trans_b) {
    __shared__ __align__(128) T As[16 * 16];
    __shared__ __align__(128) T Bs[16 * 8];
    int lane = threadIdx.x;
    // 16x16 halves = 512 bytes = 32 x 16-byte chunks; 16x8 halves = 256 bytes = 16 chunks
    unsigned sa = (unsigned)__cvta_generic_to_shared(As + lane * 8);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" :: "r"(sa), "l"(A + lane * 8));
    if (lane < 16) {
        unsigned sb = (unsigned)__cvta_generic_to_shared(Bs + lane * 8);
        asm volatile("cp.async.ca.shared.global [%0], [%1], 16;" :: "r"(sb), "l"(B + lane * 8));
    }
    asm volatile("cp.async.commit_group;");
    asm volatile("cp.async.wait_group 0;");
    __syncwarp();
    unsigned a[4], b[2];
    unsigned pa = (unsigned)__cvta_generic_to_shared(As + (lane % 16) * 16 + (lane / 16) * 8);
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
                 : "=r"(a[0]), "=r"(a[1]), "=r"(a[2]), "=r"(a[3]) : "r"(pa));
    if (trans_b) {  // Bs holds B row-major (16 x 8): transposing load
        unsigned pb = (unsigned)__cvta_generic_to_shared(Bs + (lane % 16) * 8);
        asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0,%1}, [%2];"
                     : "=r"(b[0]), "=r"(b[1]) : "r"(pb));
    } else {  // Bs holds B^T row-major (8 x 16)
        unsigned pb = (unsigned)__cvta_generic_to_shared(Bs + (lane % 8) * 16 + ((lane / 8) % 2) * 8);
        asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0,%1}, [%2];"
                     : "=r"(b[0]), "=r"(b[1]) : "r"(pb));
    }
    float c[4] = {0.f, 0.f, 0.f, 0.f};
    int g = lane >> 2, t = lane & 3;
    c[0] = C[g * 8 + 2 * t]; c[1] = C[g * 8 + 2 * t + 1];
    c[2] = C[(g + 8) * 8 + 2 * t]; c[3] = C[(g + 8) * 8 + 2 * t + 1];
    if (sizeof(T) == 2 && __is_same(T, __half)) {
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
                     "{%0,%1,%2,%3};"
                     : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
    } else {
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
                     "{%8,%9}, {%0,%1,%2,%3};"
                     : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
    }
    C[g * 8 + 2 * t] = c[0]; C[g * 8 + 2 * t + 1] = c[1];
    C[(g + 8) * 8 + 2 * t] = c[2]; C[(g + 8) * 8 + 2 * t + 1] = c[3];
}

extern "C" __global__ void mma_f16(const __half* A, const __half* B, float* C, int trans_b) {
    mma_tile<__half>(A + blockIdx.x * 256, B + blockIdx.x * 128, C + blockIdx.x * 128, trans_b);
}

extern "C" __global__ void mma_bf16(const __nv_bfloat16* A, const __nv_bfloat16* B, float* C, int trans_b) {
    mma_tile<__nv_bfloat16>(A + blockIdx.x * 256, B + blockIdx.x * 128, C + blockIdx.x * 128, trans_b);
}

// One warp per 16x16 output tile, K loop; wmma fragments (emulator layout is internal).
extern "C" __global__ void wmma_gemm(const __half* A, const __half* B, float* C, int M, int N, int K) {
    int tm = blockIdx.y, tn = blockIdx.x;
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;
    wmma::fill_fragment(fc, 0.0f);
    for (int k = 0; k < K; k += 16) {
        wmma::load_matrix_sync(fa, A + tm * 16 * K + k, K);
        wmma::load_matrix_sync(fb, B + tn * 16 * K + k, K);  // B given as N x K row-major = K x N col-major
        wmma::mma_sync(fc, fa, fb, fc);
    }
    wmma::store_matrix_sync(C + tm * 16 * N + tn * 16, fc, N, wmma::mem_row_major);
}

// Warp collectives beyond shuffles: redux, match, elect-like activemask and partial-mask shuffles.
extern "C" __global__ void warp_misc(const unsigned* x, unsigned* out) {
    int lane = threadIdx.x & 31;
    unsigned v = x[threadIdx.x];
    unsigned s = __reduce_add_sync(0xffffffff, v);
    unsigned mn = __reduce_min_sync(0xffffffff, v);
    unsigned mt = __match_any_sync(0xffffffff, v & 3);
    unsigned am = 0, sub = 0;
    if (lane < 20) {
        am = __activemask();
        sub = __shfl_sync(0x000fffff, v, (lane + 3) % 20);
    }
    unsigned up = __shfl_up_sync(0xffffffff, v, 3, 16);
    out[threadIdx.x * 6 + 0] = s;
    out[threadIdx.x * 6 + 1] = mn;
    out[threadIdx.x * 6 + 2] = mt;
    out[threadIdx.x * 6 + 3] = am;
    out[threadIdx.x * 6 + 4] = sub;
    out[threadIdx.x * 6 + 5] = up;
}
