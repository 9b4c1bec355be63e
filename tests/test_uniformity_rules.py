"""Issue 12's uniformity rules on hand-written PTX, each with a near miss that is still reported:
linear thread ids (cooperative groups' `thread_rank()`/`meta_group_rank()`), `(ctaid.x*ntid.x+tid.x)/32`,
loops bounded by warp-uniform values, the xor-butterfly all-reduce, and shared flags tracked per location."""

from __future__ import annotations

import pytest

from irc.compiler import check_ptx
from irc.diagnostics import Severity

HEAD = ".version 8.0\n.target sm_80\n.address_size 64\n"
REGS = "  .reg .pred %p<8>;\n  .reg .b32 %r<40>;\n  .reg .f32 %f<8>;\n  .reg .b64 %rd<8>;\n"


def kernel(body: str, directives: str = "", shared: str = "") -> str:
    return (
        HEAD
        + shared
        + f".visible .entry k(.param .u64 out, .param .u32 n){directives}\n{{\n{REGS}"
        + "  ld.param.u64 %rd1, [out];\n  ld.param.u32 %r30, [n];\n"
        + body
        + "\n  ret;\n}\n"
    )


def errors(text: str) -> list[tuple[str, int]]:
    return [
        (d.check, d.span.line if d.span else 0)
        for d in check_ptx(text, "t.ptx")
        if d.severity == Severity.ERROR
    ]


LINEAR = """  mov.u32 %r1, %ntid.y;
  mov.u32 %r2, %tid.z;
  mov.u32 %r3, %tid.y;
  mad.lo.s32 %r4, %r1, %r2, %r3;
  mov.u32 %r5, %ntid.x;
  mov.u32 %r6, %tid.x;
  mad.lo.s32 %r7, %r4, %r5, %r6;
"""
SHFL = "  shfl.sync.bfly.b32 %r20, %r7, 1, 31, -1;\n  st.global.u32 [%rd1], %r20;\n"


def guarded(cond: str) -> str:
    return f"{cond}\n  @%p1 bra SKIP;\n{SHFL}SKIP:\n"


@pytest.mark.parametrize("maxntid", ["", "\n.maxntid 48, 2, 1"])
def test_meta_group_rank_is_warp_uniform(maxntid: str) -> None:
    """`thread_rank() / 32` is the warp index for any block shape (also 48x2, where tid.x / 32 is not)."""
    text = kernel(LINEAR + guarded("  shr.u32 %r8, %r7, 5;\n  setp.ne.s32 %p1, %r8, 0;"), maxntid)
    assert errors(text) == []


@pytest.mark.parametrize("maxntid", ["", "\n.maxntid 48, 2, 1"])
def test_thread_rank_below_32_is_warp_zero(maxntid: str) -> None:
    assert errors(kernel(LINEAR + guarded("  setp.ge.u32 %p1, %r7, 32;"), maxntid)) == []


@pytest.mark.parametrize(
    "cond", ["  shr.u32 %r8, %r7, 4;\n  setp.ne.s32 %p1, %r8, 0;", "  setp.ge.u32 %p1, %r7, 16;"]
)
def test_thread_rank_near_miss_half_warp(cond: str) -> None:
    """`thread_rank() / 16` and `thread_rank() < 16` split a warp: still reported."""
    assert [c for c, _ in errors(kernel(LINEAR + guarded(cond)))] == ["warp-sync-divergence"]


def test_partial_linear_id_is_not_exact_without_shape() -> None:
    """`tid.y * ntid.x + tid.x` is only the linear id when there is one z plane; with a 48-wide block it is
    not known to be warp-structured, so its `/ 32` stays thread-varying."""
    body = """  mov.u32 %r3, %tid.y;
  mov.u32 %r5, %ntid.x;
  mov.u32 %r6, %tid.x;
  mad.lo.s32 %r7, %r3, %r5, %r6;
"""
    text = kernel(body + guarded("  shr.u32 %r8, %r7, 5;\n  setp.ne.s32 %p1, %r8, 0;"), "\n.maxntid 48, 2, 2")
    assert [c for c, _ in errors(text)] == ["warp-sync-divergence"]


GRID_LINEAR = """  mov.u32 %r1, %ctaid.x;
  mov.u32 %r5, %ntid.x;
  mov.u32 %r6, %tid.x;
  mad.lo.s32 %r7, %r1, %r5, %r6;
"""


def test_global_warp_index_is_warp_uniform() -> None:
    text = kernel(GRID_LINEAR + guarded("  shr.u32 %r8, %r7, 5;\n  setp.ge.u32 %p1, %r8, %r30;"))
    assert errors(text) == []


def test_global_warp_index_near_misses() -> None:
    half = kernel(GRID_LINEAR + guarded("  shr.u32 %r8, %r7, 4;\n  setp.ge.u32 %p1, %r8, %r30;"))
    assert [c for c, _ in errors(half)] == ["warp-sync-divergence"]
    odd_block = kernel(
        GRID_LINEAR + guarded("  shr.u32 %r8, %r7, 5;\n  setp.ge.u32 %p1, %r8, %r30;"), "\n.maxntid 48, 1, 1"
    )
    # block 1 of a 48-wide launch: its warp 0 has grid ids 48..79, whose `/ 32` is 1 or 2
    assert [c for c, _ in errors(odd_block)] == ["warp-sync-divergence"]


def test_loop_bounded_by_warp_index() -> None:
    """`for (i = warp; i < n; i += 4) { shfl }`: every lane of a warp runs the same iterations."""
    body = (
        LINEAR
        + """  shr.u32 %r8, %r7, 5;
LOOP:
  setp.ge.u32 %p1, %r8, %r30;
  @%p1 bra DONE;
"""
        + SHFL
        + """  add.s32 %r8, %r8, 4;
  bra.uni LOOP;
DONE:
"""
    )
    assert errors(kernel(body)) == []
    near = body.replace("shr.u32 %r8, %r7, 5;", "shr.u32 %r8, %r7, 3;")
    assert [c for c, _ in errors(kernel(near))] == ["warp-sync-divergence"]


def test_warp_size_constant_divides_like_32() -> None:
    """nvcc writes `/ warpSize` as a division by PTX's predefined `WARP_SZ` (= 32)."""
    cond = "  mov.u32 %r9, WARP_SZ;\n  div.u32 %r8, %r7, %r9;\n  setp.ge.u32 %p1, %r8, %r30;"
    assert errors(kernel(GRID_LINEAR + guarded(cond))) == []
    near = cond.replace("div.u32 %r8, %r7, %r9;", "shr.u32 %r9, %r9, 1;\n  div.u32 %r8, %r7, %r9;")
    assert [c for c, _ in errors(kernel(GRID_LINEAR + guarded(near)))] == ["warp-sync-divergence"]


def test_match_with_a_computed_mask_is_the_authors_choice() -> None:
    """`match.any.sync` with the `activemask` of a coalesced group names its lanes: not flagged; the same
    instruction with a full constant mask under the divergent branch is."""
    body = (
        GRID_LINEAR
        + """  setp.ge.u32 %p1, %r7, %r30;
  @%p1 bra SKIP;
  activemask.b32 %r9;
  match.any.sync.b32 %r10, %r7, %r9;
  st.global.u32 [%rd1], %r10;
SKIP:
"""
    )
    assert errors(kernel(body)) == []
    full = body.replace("match.any.sync.b32 %r10, %r7, %r9;", "match.any.sync.b32 %r10, %r7, -1;")
    assert [c for c, _ in errors(kernel(full))] == ["warp-sync-divergence"]


def test_shifted_thread_rank_compare() -> None:
    """nvcc writes a tile's `meta_group_rank() == 0` as `(thread_rank << 11) > 65535`: warp 0 exactly."""
    cond = "  shl.b32 %r8, %r7, 11;\n  setp.gt.u32 %p1, %r8, 65535;"
    assert errors(kernel(LINEAR + guarded(cond))) == []
    near = cond.replace("65535", "32767")  # thread_rank > 15: splits warp 0
    assert [c for c, _ in errors(kernel(LINEAR + guarded(near)))] == ["warp-sync-divergence"]


def test_full_activemask_test_is_warp_uniform() -> None:
    """`if (__activemask() == ~0u) ballot(full)`: every lane sees the full mask or none does."""
    body = """  activemask.b32 %r9;
  setp.ne.s32 %p1, %r9, -1;
  @%p1 bra SKIP;
  shfl.sync.bfly.b32 %r20, %r9, 1, 31, -1;
  st.global.u32 [%rd1], %r20;
SKIP:
"""
    assert errors(kernel(body)) == []
    near = body.replace("setp.ne.s32 %p1, %r9, -1;", "setp.ne.s32 %p1, %r9, 65535;")
    assert [c for c, _ in errors(kernel(near))] == ["warp-sync-divergence"]


FULL_REGION = """  setp.ge.u32 %p3, %r7, %r30;
  @%p3 bra DONE;
  activemask.b32 %r9;
  setp.ne.s32 %p1, %r9, -1;
  @%p1 bra DONE;
  shfl.sync.bfly.b32 %r20, %r9, 1, 31, -1;
  st.global.u32 [%rd1], %r20;
DONE:
"""


def test_full_activemask_region_after_an_early_exit() -> None:
    """nvcc's coalesced-group specialization: after `if (gid >= n) return;`, the branch on
    `activemask() == ~0u` leads to code where every lane is present; full-mask collectives there are fine,
    but a divergent branch inside that region is still reported."""
    assert errors(kernel(GRID_LINEAR + FULL_REGION)) == []
    inside = FULL_REGION.replace(
        "  shfl.sync.bfly",
        "  and.b32 %r11, %r7, 1;\n  setp.ne.s32 %p2, %r11, 0;\n  @%p2 bra DONE;\n  shfl.sync.bfly",
    )
    assert [c for c, _ in errors(kernel(GRID_LINEAR + inside))] == ["warp-sync-divergence"]
