// Helpers shared by the tensor-core CUDA equivalents: one m16n8k16 f16 -> f32 mma.sync and cp.async.
#pragma once

__device__ __forceinline__ void mma16816(float* c, const unsigned* a, const unsigned* b) {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
        "{%0,%1,%2,%3};\n"
        : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

__device__ __forceinline__ void cp_async16(void* smem, const void* gmem) {
    unsigned s = (unsigned)__cvta_generic_to_shared(smem);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(s), "l"(gmem));
}

__device__ __forceinline__ void cp_async_wait_all() { asm volatile("cp.async.wait_all;\n" ::); }

// Fragment of a 16x16 f16 tile in shared memory (row-major, `ld` halfs per row) for operand A.
__device__ __forceinline__ void load_a(unsigned* a, const unsigned short* s, int ld, int lane) {
    int r = lane / 4, c = (lane % 4) * 2;
    a[0] = *(const unsigned*)&s[r * ld + c];
    a[1] = *(const unsigned*)&s[(r + 8) * ld + c];
    a[2] = *(const unsigned*)&s[r * ld + c + 8];
    a[3] = *(const unsigned*)&s[(r + 8) * ld + c + 8];
}

// Fragment of an 8(n) x 16(k) f16 tile stored n-major (`ld` halfs per row) for operand B.
__device__ __forceinline__ void load_b(unsigned* b, const unsigned short* s, int ld, int lane) {
    int n = lane / 4, k = (lane % 4) * 2;
    b[0] = *(const unsigned*)&s[n * ld + k];
    b[1] = *(const unsigned*)&s[n * ld + k + 8];
}
