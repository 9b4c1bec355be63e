"""A warp collective that every lane of the warp reaches, some through a branch that split them (nvcc's
jump threading: `if (tid == 0) {...}` then `if (warp == 0) { collective }` becomes thread 0 jumping
straight into the second body), is not divergent; the near miss where thread 0's path skips the
collective is."""

from __future__ import annotations

from irc.compiler import check_ptx

PTX = """.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 out) .reqntid 128, 1, 1
{{
  .reg .pred %p<8>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  setp.ne.s32 %p2, %r1, 0;
  @%p2 bra L2;
  st.global.u32 [%rd1], %r1;
  bra.uni {target};
L2:
  setp.gt.u32 %p4, %r1, 31;
  @%p4 bra L4;
L3:
  shfl.sync.bfly.b32 %r5, %r1, 1, 31, -1;
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r5;
L4:
  ret;
}}
"""


def checks(target: str) -> list[str]:
    return [d.check for d in check_ptx(PTX.format(target=target), "t.ptx") if d.severity == "error"]


def test_all_lanes_reach_the_collective_through_different_paths() -> None:
    assert checks("L3") == []


def test_thread_zero_skipping_the_collective_is_divergent() -> None:
    assert checks("L4") == ["warp-sync-divergence"]
