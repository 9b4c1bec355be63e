// arch: sm_90a
// Row sums of a 33-column float matrix, one 32x32 box per block (columns 32.. are outside the box), by
// TMA. The kernel is right in both variants; the mistake is on the host, in the tensor map: the bug
// describes the matrix with its natural pitch of 33 floats (132 bytes), but cuTensorMapEncodeTiled needs
// every global stride to be a multiple of 16 bytes, so the matrix must be stored with a padded pitch
// (36 floats, 144 bytes). out[r] = sum of the first 32 columns of row r.
#include <cuda.h>
#include <cstdint>

#define COLS 33
#ifdef IRC_BUG
#define PITCH COLS
#else
#define PITCH 36
#endif

__device__ __forceinline__ unsigned sh(const void* p) { return (unsigned)__cvta_generic_to_shared(p); }

extern "C" __global__ void __launch_bounds__(32) rowsum_box(const __grid_constant__ CUtensorMap map, float* out)
{
    __shared__ __align__(128) float box[32][32];
    __shared__ __align__(8) uint64_t bar;
    if (threadIdx.x == 0) {
        asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;\n\tfence.mbarrier_init.release.cluster;" ::"r"(sh(&bar))
                     : "memory");
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        asm volatile(
            "mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], 4096;\n\t"
            "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%1], [%2, {%3, %4}], [%0];" ::"r"(
                sh(&bar)),
            "r"(sh(box)), "l"(&map), "r"(0), "r"(int(blockIdx.x) * 32)
            : "memory");
    }
    asm volatile("{\n.reg .pred p;\nW:\nmbarrier.try_wait.parity.shared::cta.b64 p, [%0], 0;\n@!p bra W;\n}" ::"r"(sh(&bar))
                 : "memory");
    float s = 0.f;
    for (int c = 0; c < 32; ++c) s += box[threadIdx.x][(c + threadIdx.x) % 32];
    out[blockIdx.x * 32 + threadIdx.x] = s;
}

// Host side (not part of the PTX): how the tensor map is built.
CUresult make_map(CUtensorMap* map, float* dev, unsigned rows)
{
    const cuuint64_t dims[2] = {COLS, rows};
    const cuuint64_t strides[1] = {PITCH * sizeof(float)};  // EXPECT: tensormap-stride
    const cuuint32_t box[2] = {32, 32};
    const cuuint32_t elem[2] = {1, 1};
    return cuTensorMapEncodeTiled(map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, dev, dims, strides, box, elem,
                                  CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
                                  CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
}
