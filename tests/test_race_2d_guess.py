"""`shared-race` on a 2-D kernel with no launch bound: the block shapes it is judged with.

The PTX of a kernel that reads `threadIdx.x` and `threadIdx.y` but declares no `__launch_bounds__` says
nothing of its block. A race is reported when it happens in every common 2-D block (16x16, 32x8, 8x8,
32x32), between threads of different warps (whether two threads of a guessed tile share a warp depends on
the guess). A shape under which some thread indexes past every shared array is one the kernel was not
written for, and is left out: a 4x4 warp-synchronous transpose (GPUVerify's `warpsync/2d` test, launched
with 4x4 blocks) indexes `tile[x][y]` with x up to 15 of a 4x4 tile under a 16x16 guess, and would get
three false races. The textbook 16x16 tiled matmul without its first barrier
(`race_tiled_2d_unbounded` in the suite) is found under every shape, with the shape in its witness.
"""

from __future__ import annotations

from pathlib import Path

from irc.compiler import check_ptx

SUITE = Path(__file__).parent / "data" / "suite" / "cuda"

# nvcc 13 -O3 -arch=sm_80 of:
#   __global__ void transpose4(float* A) {
#       __shared__ float tile[4][4];
#       int x = threadIdx.x, y = threadIdx.y;
#       tile[x][y] = A[(blockIdx.x * 4 + y) * 4 + x];
#       __syncwarp();
#       tile[x][y] = tile[y][x] * 2.0f;
#       __syncthreads();
#       A[(blockIdx.x * 4 + y) * 4 + x] = tile[x][y];
#   }
TRANSPOSE4 = """.version 9.0
.target sm_80
.address_size 64
.visible .entry _Z10transpose4Pf(
	.param .u64 _Z10transpose4Pf_param_0
)
{
	.reg .f32 	%f<5>;
	.reg .b32 	%r<17>;
	.reg .b64 	%rd<5>;
	.shared .align 4 .b8 _ZZ10transpose4PfE4tile[64];
	ld.param.u64 	%rd1, [_Z10transpose4Pf_param_0];
	cvta.to.global.u64 	%rd2, %rd1;
	mov.u32 	%r1, %tid.x;
	mov.u32 	%r2, %tid.y;
	mov.u32 	%r3, %ctaid.x;
	shl.b32 	%r4, %r3, 2;
	add.s32 	%r5, %r4, %r2;
	shl.b32 	%r6, %r5, 2;
	add.s32 	%r7, %r6, %r1;
	mul.wide.u32 	%rd3, %r7, 4;
	add.s64 	%rd4, %rd2, %rd3;
	ld.global.f32 	%f1, [%rd4];
	shl.b32 	%r8, %r1, 4;
	mov.u32 	%r9, _ZZ10transpose4PfE4tile;
	add.s32 	%r10, %r9, %r8;
	shl.b32 	%r11, %r2, 2;
	add.s32 	%r12, %r10, %r11;
	st.shared.f32 	[%r12], %f1;
	bar.warp.sync 	-1;
	shl.b32 	%r13, %r2, 4;
	add.s32 	%r14, %r9, %r13;
	shl.b32 	%r15, %r1, 2;
	add.s32 	%r16, %r14, %r15;
	ld.shared.f32 	%f2, [%r16];
	add.f32 	%f3, %f2, %f2;
	st.shared.f32 	[%r12], %f3;
	bar.sync 	0;
	ld.shared.f32 	%f4, [%r12];
	st.global.f32 	[%rd4], %f4;
	ret;
}
"""


def _races(text: str, name: str) -> list:
    return [d for d in check_ptx(text, name) if d.check == "shared-race"]


def test_small_tile_kernel_is_not_judged_with_shapes_it_overflows() -> None:
    assert _races(TRANSPOSE4, "transpose4.ptx") == []


def test_tiled_matmul_missing_barrier_is_found_under_every_shape() -> None:
    bug = SUITE / "race_tiled_2d_unbounded.bug.sm_80.ptx"
    (d,) = _races(bug.read_text(), str(bug))
    assert d.witness is not None and "2-D block" in str(d.witness)
    ok = SUITE / "race_tiled_2d_unbounded.ok.sm_80.ptx"
    assert _races(ok.read_text(), str(ok)) == []
