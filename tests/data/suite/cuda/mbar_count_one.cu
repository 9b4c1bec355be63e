// arch: sm_80
// Warp-specialised shared-memory ring on sm_80 mbarriers (hand-written inline PTX, test_wait polling).
// Warp 0 produces: its 32 lanes copy a 128-float tile from global into ring stage s and arrive on
// full[s] (32 arrivals per phase). Warps 1..4 consume: 128 threads wait for the tile, each reads one
// element another lane stored, and arrives on empty[s] to release the stage.
// out[b, c] = sum_k x[b, k, (c + 5) % 128]. Block of 160 threads, 2 stages.
// Bug: empty[s] is initialised with an arrival count of 1 while 128 consumer threads arrive on it, so one
// release completes 128 phases and the producer's parity no longer says which use was released.
#include <cstdint>

#define STAGES 2
#define TILE 128
#define CONSUMERS 128

static __device__ __forceinline__ uint32_t smem_u32(const void* p) { return (uint32_t)__cvta_generic_to_shared(p); }

static __device__ __forceinline__ void mbar_init(uint64_t* bar, uint32_t count)
{
    asm volatile("mbarrier.init.shared.b64 [%0], %1;" ::"r"(smem_u32(bar)), "r"(count) : "memory");
}
static __device__ __forceinline__ void mbar_arrive(uint64_t* bar)
{
    asm volatile("{\n\t.reg .b64 state;\n\tmbarrier.arrive.shared.b64 state, [%0];\n\t}" ::"r"(smem_u32(bar))
                 : "memory");
}
static __device__ __forceinline__ bool mbar_test(uint64_t* bar, uint32_t parity)
{
    uint32_t done;
    asm volatile(
        "{\n\t.reg .pred p;\n\tmbarrier.test_wait.parity.shared.b64 p, [%1], %2;\n\tselp.u32 %0, 1, 0, p;\n\t}"
        : "=r"(done)
        : "r"(smem_u32(bar)), "r"(parity)
        : "memory");
    return done != 0;
}
static __device__ __forceinline__ void mbar_wait(uint64_t* bar, uint32_t parity)
{
    while (!mbar_test(bar, parity)) {
    }
}

extern "C" __global__ void __launch_bounds__(32 + CONSUMERS)
    ring_consume(const float* __restrict__ x, float* __restrict__ out, int ntiles)
{
    __shared__ __align__(16) float ring[STAGES][TILE];
    __shared__ __align__(8) uint64_t full[STAGES], empty[STAGES];
    if (threadIdx.x == 0) {
        for (int s = 0; s < STAGES; ++s) {
            mbar_init(&full[s], 32);
#ifdef IRC_BUG
            mbar_init(&empty[s], 1);  // EXPECT: mbarrier-arrival-mismatch
#else
            mbar_init(&empty[s], CONSUMERS);
#endif
        }
    }
    __syncthreads();

    const float* src = x + (size_t)blockIdx.x * ntiles * TILE;
    if (threadIdx.x < 32) {
        const int lane = threadIdx.x;
        for (int k = 0; k < ntiles; ++k) {
            const int s = k % STAGES;
            if (k >= STAGES) mbar_wait(&empty[s], (k / STAGES - 1) & 1);  // use k - STAGES released
            reinterpret_cast<float4*>(ring[s])[lane] = reinterpret_cast<const float4*>(src + k * TILE)[lane];
            mbar_arrive(&full[s]);
        }
    } else {
        const int c = threadIdx.x - 32;
        float acc = 0.f;
        for (int k = 0; k < ntiles; ++k) {
            const int s = k % STAGES;
            mbar_wait(&full[s], (k / STAGES) & 1);
            acc += ring[s][(c + 5) % TILE];
            mbar_arrive(&empty[s]);
        }
        out[blockIdx.x * TILE + c] = acc;
    }
}
