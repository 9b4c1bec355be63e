// arch: sm_80
// C (32x32, f32) = A (32x16, f16, row-major) * B (16x32, f16, col-major) with the wmma API: warp w computes
// the 16x16 block (w / 2, w % 2) and stores it into a shared staging tile; then all 128 threads write the
// staged tile to global memory, row-major, scaled by alpha (each thread writes elements other warps staged).
// Bug: no __syncthreads between the warps' store_matrix_sync and the block-wide read of the staging tile.
#include <mma.h>

using namespace nvcuda;

__global__ void __launch_bounds__(128)
    wmma_32x32(const __half* __restrict__ A, const __half* __restrict__ B, float* __restrict__ C, float alpha)
{
    __shared__ float Cs[32][32];
    const int warp = threadIdx.x / 32;
    const int bm = warp / 2, bn = warp % 2;
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> a;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::col_major> b;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
    wmma::fill_fragment(acc, 0.f);
    wmma::load_matrix_sync(a, A + bm * 16 * 16, 16);  // rows bm*16.., K = 16
    wmma::load_matrix_sync(b, B + bn * 16 * 16, 16);  // columns bn*16.. of the col-major B
    wmma::mma_sync(acc, a, b, acc);
    wmma::store_matrix_sync(&Cs[bm * 16][bn * 16], acc, 32, wmma::mem_row_major);
#ifdef IRC_BUG
    // (no barrier: other warps' blocks may not be staged yet)
#else
    __syncthreads();
#endif
    for (int e = threadIdx.x; e < 32 * 32; e += 128) C[e] = alpha * Cs[e / 32][e % 32];  // EXPECT: shared-race
}
