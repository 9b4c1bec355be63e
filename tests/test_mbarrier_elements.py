"""`mbarrier-uninitialized` per barrier of one buffer: Triton keeps every mbarrier in `global_smem` at a
constant offset, so the buffer having inits says nothing about each barrier. A use at a constant offset
that no init names is reported; inits at offsets the analysis cannot pin (a loop over the stages) decide
nothing (silent, not a guess)."""

from __future__ import annotations

from irc.compiler import check_ptx
from irc.ptxas import find_ptxas, run_ptxas

_PTX = """\
.version 8.0
.target sm_90a
.address_size 64
.extern .shared .align 1024 .b8 global_smem[];

.visible .entry k(.param .u64 out)
.reqntid 128, 1, 1
{{
  .reg .pred %p<4>;
  .reg .b32 %r<20>;
  .reg .b64 %rd<4>;
  mov.u32 %r1, %tid.x;
  mov.b32 %r2, global_smem;
  setp.eq.u32 %p1, %r1, 0;
{inits}
  fence.mbarrier_init.release.cluster;
  bar.sync 0;
  @%p1 mbarrier.arrive.shared::cta.b64 _, [global_smem+4096];
  @%p1 mbarrier.arrive.shared::cta.b64 _, [global_smem+4104];
  mov.b32 %r9, 0;
$L_wait:
  mbarrier.try_wait.parity.shared::cta.b64 %p2, [global_smem+4096], %r9;
  @!%p2 bra $L_wait;
  ret;
}}
"""

_ALL = """\
  @%p1 mbarrier.init.shared::cta.b64 [global_smem+4096], 1;
  @%p1 mbarrier.init.shared::cta.b64 [global_smem+4104], 1;"""

_DROPPED = """\
  @%p1 mbarrier.init.shared::cta.b64 [global_smem+4104], 1;
  @%p1 mbarrier.init.shared::cta.b64 [global_smem+4112], 1;"""

# a loop over the stages: the offsets are not constants, so no element is judged
_LOOP = """\
  mov.u32 %r5, 0;
$L_init:
  shl.b32 %r6, %r5, 3;
  add.s32 %r7, %r2, %r6;
  @%p1 mbarrier.init.shared::cta.b64 [%r7+4104], 1;
  add.s32 %r5, %r5, 1;
  setp.lt.u32 %p3, %r5, 2;
  @%p3 bra $L_init;"""


def _findings(text: str, path: str) -> list:
    """`mbarrier-uninitialized` findings of `text`, which ptxas (when present) must accept."""
    if find_ptxas():
        r = run_ptxas(text, "sm_90a")
        assert r.ok, r.stderr
    return [d for d in check_ptx(text, path) if d.check == "mbarrier-uninitialized"]


def _uninit(inits: str) -> list[int]:
    return [d.span.line for d in _findings(_PTX.format(inits=inits), "k.ptx")]


def test_every_barrier_initialised_is_clean() -> None:
    assert _uninit(_ALL) == []


def test_barrier_whose_init_was_dropped_is_reported_at_its_first_use() -> None:
    text = _PTX.format(inits=_DROPPED)
    first_use = next(i for i, ln in enumerate(text.splitlines(), 1) if "[global_smem+4096]" in ln)
    assert _uninit(_DROPPED) == [first_use]


def test_inits_at_computed_offsets_decide_nothing() -> None:
    assert _uninit(_LOOP) == []


_RING = """\
.version 8.0
.target sm_90a
.address_size 64
.extern .shared .align 1024 .b8 global_smem[];

.visible .entry ring(.param .u32 n)
.reqntid 128, 1, 1
{{
  .reg .pred %p<4>;
  .reg .b32 %r<20>;
  ld.param.u32 %r10, [n];
  mov.u32 %r1, %tid.x;
  setp.eq.u32 %p1, %r1, 0;
  @%p1 mbarrier.init.shared::cta.b64 [global_smem+4096], 1;
  @%p1 mbarrier.init.shared::cta.b64 [global_smem+4104], 1;
{third}
  fence.mbarrier_init.release.cluster;
  bar.sync 0;
  mov.u32 %r2, 0;
  mov.b32 %r3, global_smem;
$L_k:
  rem.u32 %r4, %r2, 3;
  shl.b32 %r5, %r4, 3;
  add.s32 %r6, %r3, %r5;
  @%p1 mbarrier.arrive.shared::cta.b64 _, [%r6+4096];
  add.s32 %r2, %r2, 1;
  setp.lt.u32 %p2, %r2, %r10;
  @%p2 bra $L_k;
  ret;
}}
"""


def _ring(third: str) -> list:
    return _findings(_RING.format(third=third), "ring.ptx")


def test_stage_ring_over_initialised_barriers_is_clean() -> None:
    assert _ring("  @%p1 mbarrier.init.shared::cta.b64 [global_smem+4112], 1;") == []


def test_stage_ring_reaching_a_barrier_no_init_names_is_reported_with_its_iteration() -> None:
    got = _ring("")
    assert len(got) == 1 and "global_smem+4112" in got[0].message
    assert got[0].witness is not None and "iteration 2" in got[0].witness["text"]
