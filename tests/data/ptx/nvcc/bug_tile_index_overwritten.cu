// Near miss of ok_tile_index_union_reuse: the per-warp digit counters at a data-dependent index are
// bumped after the barrier but BEFORE the tile index is read, in the same barrier interval. Such a write
// may land on the tile index before some threads read it, so the full-tile test is not known to be
// uniform and the full-mask shuffle under it is flagged.
#define THREADS 256
#define WARPS (THREADS / 32)
#define DIGITS 256

struct Storage {
    union {
        unsigned int warp_hist[WARPS][DIGITS];
        unsigned long long offsets[THREADS + 32];
    };
    unsigned int tile;
};

__global__ void __launch_bounds__(THREADS)
bug_tile_index_overwritten(const unsigned int* __restrict__ keys, unsigned int* __restrict__ counter,
                           unsigned long long* __restrict__ out, int n, int shift, int bits)
{
    __shared__ Storage s;
    const int warp = threadIdx.x / 32;
    if (threadIdx.x == 0) s.tile = atomicAdd(counter, 1u);
    __syncthreads();
    const unsigned int mask = ~(~0u << bits);
    const unsigned int key = keys[blockIdx.x * THREADS + threadIdx.x];
    atomicAdd(&s.warp_hist[warp][(key >> shift) & mask], 1u);
    const int tile = s.tile;
    const int base = tile * THREADS;
    __syncthreads();
    unsigned int total = 0;
    for (int w = 0; w < WARPS; ++w) total += s.warp_hist[w][threadIdx.x % DIGITS];
    if (base + THREADS <= n) {
        unsigned long long v = (unsigned long long)total << 8;
        out[base + threadIdx.x] = v + __shfl_xor_sync(0xffffffffu, v, 1);  // EXPECT: warp-sync-divergence
    }
}
