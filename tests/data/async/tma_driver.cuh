// Helpers of the TMA/mbarrier loader loop (sm_100a), written for irc's async tests.
// Every kernel in this folder loads 32x16 float tiles of a row-major matrix, one tile per loop step,
// into one shared-memory buffer guarded by one mbarrier, and sums each column of every tile.
#pragma once
#include <cuda.h>
#include <cstdint>

#define TILE_ROWS 32
#define TILE_COLS 16
#define TILE_BYTES (TILE_ROWS * TILE_COLS * 4)

static __device__ __forceinline__ unsigned smem_addr(const void* p)
{
    return (unsigned)__cvta_generic_to_shared(p);
}

static __device__ __forceinline__ void bar_init(unsigned bar, unsigned count)
{
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(count));
}

static __device__ __forceinline__ void bar_init_fence()
{
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}

static __device__ __forceinline__ void bar_arrive_tx(unsigned bar, unsigned bytes)
{
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes) : "memory");
}

static __device__ __forceinline__ void bar_arrive(unsigned bar)
{
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(bar) : "memory");
}

static __device__ __forceinline__ void bar_wait(unsigned bar, unsigned parity)
{
    asm volatile(
        "{\n\t.reg .pred done;\n"
        "WAIT_%=:\n\t"
        "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n\t"
        "@!done bra WAIT_%=;\n}" ::"r"(bar),
        "r"(parity)
        : "memory");
}

static __device__ __forceinline__ void tma_load_tile(unsigned dst, const CUtensorMap* map, int x, int y,
                                                     unsigned bar)
{
    asm volatile(
        "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
        ::"r"(dst), "l"(map), "r"(x), "r"(y), "r"(bar)
        : "memory");
}
