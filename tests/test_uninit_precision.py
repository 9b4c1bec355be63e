"""`uninitialized` on lifted PTX without false positives on guarded, partly written register arrays, with
near misses that are still reported (hand-written PTX in the shapes nvcc and cub produce)."""

from __future__ import annotations

from irc.compiler import check_ptx
from irc.diagnostics import Severity

HEAD = ".version 8.0\n.target sm_80\n.address_size 64\n"


def kernel(body: str) -> str:
    return (
        HEAD
        + ".visible .entry k(.param .u64 out, .param .u32 n)\n{\n"
        + "  .reg .pred %p<8>;\n  .reg .b32 %r<40>;\n  .reg .f32 %f<16>;\n  .reg .b64 %rd<8>;\n"
        + "  ld.param.u64 %rd1, [out];\n  ld.param.u32 %r30, [n];\n  mov.u32 %r1, %tid.x;\n"
        + body
        + "\n  ret;\n}\n"
    )


def checks(text: str) -> list[str]:
    return [d.check for d in check_ptx(text, "u.ptx") if d.severity == Severity.ERROR]


# `if (tid < n) v = in[tid]; ...; if (tid < n) out[tid] = v * 2` (the guard recomputed)
GUARDED = """  setp.ge.u32 %p1, %r1, %r30;
  @%p1 bra SKIP1;
  ld.global.f32 %f1, [%rd1];
SKIP1:
  bar.sync 0;
  setp.ge.u32 %p2, %r1, %r30;
  @%p2 bra SKIP2;
  add.f32 %f2, %f1, %f1;
  st.global.f32 [%rd1+4], %f2;
SKIP2:
"""


def test_written_and_read_under_the_same_guard() -> None:
    assert checks(kernel(GUARDED)) == []


def test_read_under_a_different_guard_is_reported() -> None:
    near = GUARDED.replace("setp.ge.u32 %p2, %r1, %r30;", "setp.ge.u32 %p2, %r1, 7;")
    assert checks(kernel(near)) == ["uninitialized"]


# cub's BlockLoad (guarded) then BlockStore to shared of the whole register array
STORED = """  setp.ge.u32 %p1, %r1, %r30;
  @%p1 bra SKIP1;
  ld.global.f32 %f1, [%rd1];
SKIP1:
  mov.b32 %r5, %f1;
  st.shared.u32 [%r1], %r5;
"""


def test_partly_written_array_stored_to_memory_is_silent() -> None:
    assert checks(kernel(STORED)) == []


def test_partly_written_value_used_in_arithmetic_is_reported() -> None:
    near = STORED.replace("mov.b32 %r5, %f1;", "add.f32 %f2, %f1, 0f3F800000;\n  mov.b32 %r5, %f2;")
    assert checks(kernel(near)) == ["uninitialized"]


# a struct shuffled word by word: the padding word is never written, its shuffle result never used
PADDING = """  mov.u32 %r2, 5;
  shfl.sync.down.b32 %r3, %r2, 1, 31, -1;
  shfl.sync.down.b32 %r4, %r9, 1, 31, -1;
  st.global.u32 [%rd1], %r3;
"""


def test_shuffled_struct_padding_is_silent() -> None:
    assert checks(kernel(PADDING)) == []


def test_shuffled_unwritten_value_that_is_used_is_reported() -> None:
    near = PADDING.replace(
        "st.global.u32 [%rd1], %r3;", "add.s32 %r5, %r3, %r4;\n  st.global.u32 [%rd1], %r5;"
    )
    assert checks(kernel(near)) == ["uninitialized"]


PAIR = """  ld.global.f32 %f1, [%rd1];
  mov.b32 %r8, %f1;
  mov.b64 %rd5, {%r9, %r8};
  { .reg .b32 tmp; mov.b64 {tmp, %r10}, %rd5; }
  add.s32 %r11, %r10, 1;
  st.global.u32 [%rd1], %r11;
"""


def test_register_pair_with_an_unused_unwritten_half_is_silent() -> None:
    """nvcc packs `{undef, x}` into a b64 to move `x` and unpacks only the high half."""
    assert checks(kernel(PAIR)) == []


def test_register_pair_whose_unwritten_half_is_used_is_reported() -> None:
    near = PAIR.replace("{ .reg .b32 tmp; mov.b64 {tmp, %r10}, %rd5; }", "mov.b64 {%r10, %r12}, %rd5;")
    assert checks(kernel(near)) == ["uninitialized"]


# eigenvalues' bisection: `if (gtid < n) rc = in[gtid]; ... if (gtid < n && !converged) use(rc)`: the read's
# guard is a conjunction that includes the write's guard (nvcc: `and.pred` then `not.pred` and a branch)
CONJ = """  setp.ge.u32 %p1, %r1, %r30;
  @%p1 bra SKIP1;
  ld.global.f32 %f1, [%rd1];
SKIP1:
  bar.sync 0;
  ld.global.u32 %r5, [%rd1+8];
  setp.lt.u32 %p2, %r1, %r30;
  setp.eq.s32 %p3, %r5, 0;
  and.pred %p4, %p2, %p3;
  not.pred %p5, %p4;
  @%p5 bra SKIP2;
  add.f32 %f2, %f1, %f1;
  st.global.f32 [%rd1+4], %f2;
SKIP2:
"""


def test_read_under_a_conjunction_that_includes_the_guard_is_silent() -> None:
    assert checks(kernel(CONJ)) == []


def test_read_under_a_disjunction_with_the_guard_is_reported() -> None:
    assert checks(kernel(CONJ.replace("and.pred", "or.pred"))) == ["uninitialized"]


def test_read_where_the_conjunction_is_false_is_reported() -> None:
    """The read runs when `!(gtid < n && flag)`: the conjunction proves nothing there."""
    assert checks(kernel(CONJ.replace("@%p5 bra SKIP2;", "@%p4 bra SKIP2;"))) == ["uninitialized"]


def test_read_under_a_conjunction_with_a_different_guard_is_reported() -> None:
    near = CONJ.replace("setp.lt.u32 %p2, %r1, %r30;", "setp.lt.u32 %p2, %r1, 7;")
    assert checks(kernel(near)) == ["uninitialized"]


# cub's block scan, if-converted by nvcc: `warp_prefix` is assigned with `selp` only in warps 1 and 2
# (`if (warp_id == k) warp_prefix = aggregate`), `warp_prefix + x` is computed in every thread and kept
# with a last `selp` only where `tid.x > 31` (the source's `if (warp_id != 0)`): warp 0 throws it away.
SELECTS = """  shr.u32 %r2, %r1, 5;
  ld.global.u32 %r20, [%rd1+16];
  setp.eq.s32 %p1, %r20, 0;
  @%p1 bra SKIP0;
  mov.u32 %r9, 7;
SKIP0:
  ld.global.u32 %r3, [%rd1];
  ld.global.u32 %r7, [%rd1+8];
  setp.eq.s32 %p2, %r2, 1;
  selp.b32 %r4, %r3, %r9, %p2;
  setp.eq.s32 %p3, %r2, 2;
  add.s32 %r5, %r3, 1;
  selp.b32 %r10, %r5, %r4, %p3;
  add.s32 %r6, %r10, %r7;
  setp.gt.u32 %p4, %r1, 31;
  selp.b32 %r8, %r6, %r7, %p4;
  st.global.u32 [%rd1+4], %r8;
"""


def bounded(body: str, threads: int | None) -> str:
    text = kernel(body)
    return text if threads is None else text.replace(")\n{", f")\n.maxntid {threads}, 1, 1\n{{", 1)


def test_unwritten_value_every_thread_discards_with_selects_is_silent() -> None:
    assert checks(bounded(SELECTS, 96)) == []


def test_a_warp_that_keeps_the_unwritten_value_is_reported() -> None:
    """Four warps: warp 3 is never assigned and `tid.x > 31` keeps its sum."""
    assert checks(bounded(SELECTS, 128)) == ["uninitialized"]


def test_without_a_thread_bound_the_discard_is_not_proven() -> None:
    assert checks(bounded(SELECTS, None)) == ["uninitialized"]


def test_lanes_that_keep_the_unwritten_sum_are_reported() -> None:
    """The last select keeps the sum for `tid.x > 15`: lanes 16..31 of warp 0 use the unwritten value."""
    assert checks(bounded(SELECTS.replace("%r1, 31;", "%r1, 15;"), 96)) == ["uninitialized"]


def test_select_on_a_loaded_condition_is_not_proven() -> None:
    near = SELECTS.replace("setp.gt.u32 %p4, %r1, 31;", "setp.gt.u32 %p4, %r20, 31;")
    assert checks(bounded(near, 96)) == ["uninitialized"]


# Triton (LLVM): `mov.b64 %rd, {%r10, %rX}` with %rX never written, unpacked later as `{%r, _}`
SINK_PAIR = """  ld.global.u32 %r10, [%rd1];
  mov.b64 %rd5, {%r10, %r20};
  mov.b64 {%r12, _}, %rd5;
  add.s32 %r13, %r12, 1;
  st.global.u32 [%rd1], %r13;
"""


def test_register_pair_whose_undefined_half_is_unpacked_into_a_sink_is_silent() -> None:
    assert checks(kernel(SINK_PAIR)) == []


def test_register_pair_whose_undefined_half_is_unpacked_and_used_is_reported() -> None:
    near = SINK_PAIR.replace("mov.b64 {%r12, _}, %rd5;", "mov.b64 {%r14, %r12}, %rd5;")
    assert checks(kernel(near)) == ["uninitialized"]
