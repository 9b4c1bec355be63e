"""`async-unwaited` on wgmma accumulators: registers written by `wgmma.mma_async` are read only after a
`wgmma.wait_group` retires their group (PTX ISA). Each shape comes with its near miss: the kernel one
wait away from correct."""

from __future__ import annotations

import pytest

from irc.compiler import check_ptx
from irc.ptxas import find_ptxas, run_ptxas

_HEAD = """\
.version 8.0
.target sm_90a
.address_size 64

.visible .entry k(.param .u64 da, .param .u64 db, .param .u64 out, .param .u32 n)
.reqntid 128, 1, 1
{{
  .reg .pred %p<4>;
  .reg .b32 %r<20>;
  .reg .f32 %f<40>;
  .reg .b64 %rd<12>;
  ld.param.u64 %rd1, [da];
  ld.param.u64 %rd2, [db];
  ld.param.u64 %rd3, [out];
  ld.param.u32 %r10, [n];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd4, %r1, 16;
  add.s64 %rd5, %rd3, %rd4;
  mov.f32 %f1, 0f00000000;
  mov.f32 %f2, 0f00000000;
  mov.f32 %f3, 0f00000000;
  mov.f32 %f4, 0f00000000;
  mov.f32 %f11, 0f00000000;
  mov.f32 %f12, 0f00000000;
  mov.f32 %f13, 0f00000000;
  mov.f32 %f14, 0f00000000;
  setp.ne.u32 %p1, %r10, 0;
{body}
  st.global.v4.f32 [%rd5], {{%f1, %f2, %f3, %f4}};
  ret;
}}
"""

_MMA = (
    "  wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%f1, %f2, %f3, %f4}, %rd1, %rd2, %p1, 1, 1, 0, 0;"
)
_FENCE = "  wgmma.fence.sync.aligned;"
_COMMIT = "  wgmma.commit_group.sync.aligned;"
_MMA_B = _MMA.replace("{%f1, %f2, %f3, %f4}", "{%f11, %f12, %f13, %f14}")
_READ_A = "  mul.f32 %f5, %f1, 0f3F000000;"
_READ_B = "  mul.f32 %f6, %f11, 0f3F000000;"


def _wait(n: int) -> str:
    return f"  wgmma.wait_group.sync.aligned {n};"


def _loop(inner: list[str], after: list[str]) -> list[str]:
    """A K loop of `n` trips (at least one) around `inner`, then `after`."""
    return [
        "  mov.u32 %r2, 0;",
        "$L_k:",
        *inner,
        "  add.s32 %r2, %r2, 1;",
        "  setp.lt.u32 %p2, %r2, %r10;",
        "  @%p2 bra $L_k;",
        *after,
    ]


def _found(lines: list[str]) -> list[int]:
    text = _HEAD.format(body="\n".join(lines))
    if find_ptxas():
        r = run_ptxas(text, "sm_90a")
        assert r.ok, r.stderr
    return [d.span.line for d in check_ptx(text, "k.ptx") if d.check == "async-unwaited"]


CASES = {
    # name: (body, reported)
    "chain_commit_wait0": ([_FENCE, _MMA, _MMA, _COMMIT, _wait(0)], False),
    "no_wait": ([_FENCE, _MMA, _MMA, _COMMIT], True),
    "wait1_one_group": ([_FENCE, _MMA, _COMMIT, _wait(1)], True),  # near miss: leaves the only group pending
    "wait_before_commit": ([_FENCE, _MMA, _wait(0), _COMMIT], True),  # the wait covers committed groups only
    "pipelined_loop_wait0_after": (_loop([_FENCE, _MMA, _COMMIT, _wait(1)], [_wait(0)]), False),
    "pipelined_loop_no_final_wait": (_loop([_FENCE, _MMA, _COMMIT, _wait(1)], []), True),
    # two register sets in flight (FA3's ping-pong, the loop unrolled by two): each set is read after the
    # `wait_group 1` that follows the other set's issue has retired it
    "pingpong_reads_retired_set": (
        _loop(
            [_FENCE, _MMA, _COMMIT, _wait(1), _READ_B, _FENCE, _MMA_B, _COMMIT, _wait(1), _READ_A], [_wait(0)]
        ),
        False,
    ),
    # near miss: set B is read before the wait that retires it
    "pingpong_reads_set_in_flight": (
        _loop(
            [_FENCE, _MMA, _COMMIT, _READ_B, _wait(1), _FENCE, _MMA_B, _COMMIT, _wait(1), _READ_A], [_wait(0)]
        ),
        True,
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_wgmma_accumulator_reads(name: str) -> None:
    body, reported = CASES[name]
    assert bool(_found(body)) == reported
