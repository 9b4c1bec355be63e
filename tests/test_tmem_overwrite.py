"""`async-overwrite` on tensor memory: columns written while a `tcgen05.ld` of them may be in flight.

Each kernel loads 8 columns at `base + 64` and then writes columns: with its own `tcgen05.st`, or with a
`tcgen05.mma` issued by thread 0 after a barrier. The bug has no `tcgen05.wait::ld` between; the near misses
wait first, write other columns (`base + 72`, an MMA of N = 64 at `base + 0`), or store through another
lane quarter, and are clean. Every kernel is valid PTX for sm_100a (ptxas), and the Triton twin
`attn_fwd.tmem-st-before-wait` (the rescaled accumulator stored back before the wait) is in
`tests/test_triton_suite.py`.
"""

from __future__ import annotations

import pytest

from irc.compiler import check_ptx
from irc.ptxas import find_ptxas, run_ptxas

pytest.importorskip("z3")

HEAD = """.version 8.6
.target sm_100a
.address_size 64
.shared .align 4 .b32 tslot;
.visible .entry k(.param .u64 p)
{
  .reg .b32 r<64>;
  .reg .b64 rd<32>;
  .reg .pred p<8>;
  ld.param.u64 rd1, [p];
  cvta.to.global.u64 rd2, rd1;
  mov.u32 r0, %tid.x;
  setp.eq.u32 p0, r0, 0;
  and.b32 r1, r0, 96;
  shl.b32 r2, r1, 16;
  ld.shared.b32 r5, [tslot];
  add.s32 r6, r5, r2;
  add.s32 r7, r6, 64;
  tcgen05.ld.sync.aligned.32x32b.x8.b32 {r10, r11, r12, r13, r14, r15, r16, r17}, [r7];
"""
TAIL = """  add.u32 r20, r10, r17;
  st.global.u32 [rd2], r20;
  ret;
}
"""
ST = "  tcgen05.st.sync.aligned.32x32b.x8.b32 [{addr}], {{r0, r0, r0, r0, r0, r0, r0, r0}};\n"
WAIT = "  tcgen05.wait::ld.sync.aligned;\n"
MMA = """  bar.sync 0;
  mov.u64 rd10, 0;
  mov.u64 rd11, 0;
  mov.u32 r30, {idesc};
  @p0 tcgen05.mma.cta_group::1.kind::f16 [{addr}], rd10, rd11, r30, p0;
"""
N64 = (64 >> 3) << 17 | (128 >> 4) << 24  # an instruction descriptor with N = 64, M = 128


def _kernel(body: str, wait: bool = False) -> str:
    return HEAD + (WAIT if wait else "") + body + ("" if wait else WAIT) + TAIL


BUGS = {
    "st_same_columns": _kernel(ST.format(addr="r7")),
    "st_overlapping": _kernel("  add.s32 r8, r6, 68;\n" + ST.format(addr="r8")),
    "mma_over_the_load": _kernel("  add.s32 r9, r5, 64;\n" + MMA.format(addr="r9", idesc=N64)),
    "mma_wide_from_zero": _kernel(MMA.format(addr="r5", idesc=(128 >> 3) << 17 | (128 >> 4) << 24)),
}
CLEAN = {
    "st_after_wait": _kernel(ST.format(addr="r7"), wait=True),
    "st_other_columns": _kernel("  add.s32 r8, r6, 72;\n" + ST.format(addr="r8")),
    "st_other_lanes": _kernel("  add.s32 r8, r5, 64;\n  add.s32 r8, r8, 2097152;\n" + ST.format(addr="r8")),
    "mma_below_the_load": _kernel(MMA.format(addr="r5", idesc=N64)),
    "mma_after_wait": _kernel("  add.s32 r9, r5, 64;\n" + MMA.format(addr="r9", idesc=N64), wait=True),
}


def _found(src: str) -> list[str]:
    return [d.check for d in check_ptx(src, "k.ptx") if d.check == "async-overwrite"]


@pytest.mark.parametrize("name", sorted(BUGS))
def test_write_before_wait_is_found(name: str) -> None:
    assert _found(BUGS[name]) == ["async-overwrite"], name


@pytest.mark.parametrize("name", sorted(CLEAN))
def test_near_misses_are_clean(name: str) -> None:
    assert _found(CLEAN[name]) == [], name


def test_finding_names_the_load_and_carries_a_witness() -> None:
    (d,) = [d for d in check_ptx(BUGS["st_same_columns"], "k.ptx") if d.check == "async-overwrite"]
    assert d.span is not None and d.span.line == HEAD.count("\n") + 1  # the tcgen05.st
    assert any(lb.span is not None and lb.span.line == HEAD.count("\n") for lb in d.labels)  # the load
    assert d.witness is not None and d.witness.get("threads")


@pytest.mark.skipif(find_ptxas() is None, reason="ptxas not installed")
@pytest.mark.parametrize("name", sorted(BUGS) + sorted(CLEAN))
def test_kernels_assemble(name: str) -> None:
    res = run_ptxas({**BUGS, **CLEAN}[name], "sm_100a")
    assert res.ok, res.errors[:3]
