// arch: sm_90a
// Each of the 4 warps holds a 16x16 f16 tile in registers, in the mma fragment layout (lane l holds row
// l / 4, columns 2 (l % 4) and 2 (l % 4) + 1 of each 8x8 quarter), and writes it to shared memory with one
// stmatrix.x4; then every warp converts the tile of the *next* warp to f32: out[w] = x[(w + 1) % 4].
// Bug: no __syncthreads between the stmatrix of one warp and the reads of another.
#include <cuda_fp16.h>
#include <cstdint>

__global__ void __launch_bounds__(128) stmatrix_rotate(const __half* __restrict__ x, float* __restrict__ out)
{
    __shared__ __align__(16) __half tiles[4][16][16];
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const __half* src = x + warp * 256;
    // quarter q: rows 8 (q & 1) .., columns 8 (q >> 1) ..; register q holds its two values of quarter q
    uint32_t frag[4];
    for (int q = 0; q < 4; ++q) {
        const int r = 8 * (q & 1) + lane / 4, c = 8 * (q >> 1) + 2 * (lane % 4);
        const __half2 v = __halves2half2(src[r * 16 + c], src[r * 16 + c + 1]);
        frag[q] = *reinterpret_cast<const uint32_t*>(&v);
    }
    // lane 8q + i gives the address of row i of quarter q
    const int q = lane / 8, i = lane % 8;
    const uint32_t row_addr =
        static_cast<uint32_t>(__cvta_generic_to_shared(&tiles[warp][8 * (q & 1) + i][8 * (q >> 1)]));
    asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};" ::"r"(row_addr), "r"(frag[0]),
                 "r"(frag[1]), "r"(frag[2]), "r"(frag[3])
                 : "memory");
#ifdef IRC_BUG
    // (no barrier: the next warp's tile may not be stored yet)
#else
    __syncthreads();
#endif
    const int other = (warp + 1) % 4;
    for (int e = lane; e < 256; e += 32) out[warp * 256 + e] = __half2float(tiles[other][e / 16][e % 16]);  // EXPECT: shared-race
}
