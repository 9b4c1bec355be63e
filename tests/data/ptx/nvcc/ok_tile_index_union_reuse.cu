// OK: a persistent radix pass in the style of a one-sweep sort. Thread 0 takes the tile index with an
// atomic and broadcasts it through shared memory behind a barrier; every thread reads it, then (in the
// same barrier interval, after the read) bumps per-warp digit counters at a data-dependent index that
// the analyzer cannot bound. The same bytes are reused later (a union) by 8-byte per-thread stores,
// behind barriers. A later write in the read's interval could only change what another thread reads by
// racing with that read, so the tile index stays block-uniform and the `__syncwarp()` under the
// full-tile test is fine.
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
ok_tile_index_union_reuse(const unsigned int* __restrict__ keys, unsigned int* __restrict__ counter,
                          unsigned long long* __restrict__ out, int n, int shift, int bits)
{
    __shared__ Storage s;
    const int warp = threadIdx.x / 32;
    if (threadIdx.x == 0) s.tile = atomicAdd(counter, 1u);
    __syncthreads();
    const int tile = s.tile;
    const unsigned int mask = ~(~0u << bits);
    const int base = tile * THREADS;
    const unsigned int key = base + (int)threadIdx.x < n ? keys[base + threadIdx.x] : 0u;
    const unsigned int digit = (key >> shift) & mask;
    atomicAdd(&s.warp_hist[warp][digit], 1u);
    __syncthreads();
    unsigned int total = 0;
    for (int w = 0; w < WARPS; ++w) total += s.warp_hist[w][threadIdx.x % DIGITS];
    __syncthreads();
    s.offsets[threadIdx.x] = (unsigned long long)total << 8;
    __syncthreads();
    if (base + THREADS <= n) {
        unsigned long long v = s.offsets[(threadIdx.x + 1) % THREADS];
        __syncwarp();
        out[base + threadIdx.x] = v + __shfl_xor_sync(0xffffffffu, v, 1);
    }
}
