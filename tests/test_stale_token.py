"""`mbarrier-phase` for a wait on a stale state token: `mbarrier.test_wait` with the token of an arrive
taken once, before the loop, asks about the same completed phase in every iteration. Near misses: the
token taken by this iteration's arrive, and a token carried from the end of one iteration to the next."""

from __future__ import annotations

import pytest

from irc.compiler import check_ptx
from irc.ptxas import find_ptxas, run_ptxas

_PTX = """\
.version 8.0
.target sm_80
.address_size 64

.visible .entry k(.param .u64 out, .param .u32 n)
.reqntid 128, 1, 1
{{
  .shared .align 8 .b64 bar;
  .shared .align 4 .b8 vals[512];
  .reg .pred %p<4>;
  .reg .b32 %r<12>;
  .reg .b64 %rd<6>;
  .reg .f32 %f<4>;
  mov.u32 %r1, %tid.x;
  ld.param.u32 %r2, [n];
  mov.u32 %r3, bar;
  setp.eq.u32 %p1, %r1, 0;
  @%p1 mbarrier.init.shared.b64 [%r3], 128;
  bar.sync 0;
  shl.b32 %r4, %r1, 2;
  mov.u32 %r5, vals;
  add.u32 %r6, %r5, %r4;
  add.u32 %r9, %r1, 1;
  and.b32 %r9, %r9, 127;
  shl.b32 %r9, %r9, 2;
  add.u32 %r9, %r5, %r9;
  mov.f32 %f1, 0f00000000;
  mov.u32 %r7, 0;
{before}
$L_loop:
  setp.ge.u32 %p2, %r7, %r2;
  @%p2 bra $L_done;
  cvt.rn.f32.u32 %f2, %r7;
  st.shared.f32 [%r6], %f2;
{inside}
$L_poll:
  mbarrier.test_wait.shared.b64 %p3, [%r3], %rd1;
  @!%p3 bra $L_poll;
  ld.shared.f32 %f3, [%r9];
  add.f32 %f1, %f1, %f3;
{after}
  add.u32 %r7, %r7, 1;
  bra.uni $L_loop;
$L_done:
  ld.param.u64 %rd4, [out];
  mul.wide.u32 %rd5, %r1, 4;
  add.u64 %rd4, %rd4, %rd5;
  st.global.f32 [%rd4], %f1;
  ret;
}}
"""

ARRIVE = "  mbarrier.arrive.shared.b64 %rd1, [%r3];"


def _phase(before: str, inside: str, after: str) -> list:
    text = _PTX.format(before=before, inside=inside, after=after)
    if find_ptxas():
        r = run_ptxas(text, "sm_80")
        assert r.ok, r.stderr
    return [d for d in check_ptx(text, "k.ptx") if d.check == "mbarrier-phase"]


@pytest.mark.parametrize(
    "before,inside,after,bad",
    [
        (ARRIVE, "", "", True),  # the token of the one arrival before the loop, waited on every iteration
        ("", ARRIVE, "", False),  # each iteration arrives and waits on its own phase
        # the next iteration's token taken at the end of this one (the register is loop-carried)
        (ARRIVE, "", ARRIVE, False),
    ],
)
def test_state_token_per_iteration(before: str, inside: str, after: str, bad: bool) -> None:
    found = _phase(before, inside, after)
    assert bool(found) == bad, [d.message for d in found]
    if bad:
        d = found[0]
        assert "stale state token" in d.message
        assert d.witness is not None and "iteration 1" in d.witness["text"]


_POLL = """\
.version 8.0
.target sm_90
.address_size 64

.visible .entry k(.param .u64 out)
.reqntid 128, 1, 1
{
  .shared .align 8 .b64 bar;
  .reg .pred %p<4>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  mov.u32 %r1, %tid.x;
  mov.u32 %r3, bar;
  setp.eq.u32 %p1, %r1, 0;
  @%p1 mbarrier.init.shared.b64 [%r3], 128;
  bar.sync 0;
  mbarrier.arrive.shared.b64 %rd1, [%r3];
  bra.uni $L_try;
$L_sleep:
  mov.u32 %r4, 1000;
  nanosleep.u32 %r4;
$L_try:
  mbarrier.try_wait.shared.b64 %p2, [%r3], %rd1;
  @!%p2 bra $L_sleep;
  ld.param.u64 %rd2, [out];
  st.global.u32 [%rd2], %r1;
  ret;
}
"""


def test_a_polling_loop_with_backoff_is_not_an_iteration() -> None:
    """libcu++'s `barrier::wait(token)` polls `try_wait` with a `nanosleep` backoff: the loop repeats one
    wait on one phase until it completes, which is not a stale token."""
    if find_ptxas():
        r = run_ptxas(_POLL, "sm_90")
        assert r.ok, r.stderr
    assert [d for d in check_ptx(_POLL, "k.ptx") if d.check == "mbarrier-phase"] == []


_CARRIED = """\
.version 8.0
.target sm_80
.address_size 64

.visible .entry k(.param .u64 out, .param .u32 n)
.reqntid 128, 1, 1
{{
  .shared .align 8 .b64 bar;
  .reg .pred %p<6>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<8>;
  mov.u32 %r1, %tid.x;
  ld.param.u32 %r2, [n];
  mov.u32 %r3, bar;
  setp.eq.u32 %p1, %r1, 0;
  @%p1 mbarrier.init.shared.b64 [%r3], 128;
  bar.sync 0;
  mbarrier.arrive.shared.b64 %rd1, [%r3];
$L_w0:
  mbarrier.test_wait.shared.b64 %p2, [%r3], %rd1;
  @!%p2 bra $L_w0;
  mov.u32 %r4, 0;
$L_loop:
  setp.ge.u32 %p3, %r4, %r2;
  @%p3 bra $L_done;
  mbarrier.arrive.shared.b64 {mid}, [%r3];
$L_w1:
  mbarrier.test_wait.shared.b64 %p4, [%r3], %rd1;
  @!%p4 bra $L_w1;
  mbarrier.arrive.shared.b64 %rd1, [%r3];
$L_w2:
  mbarrier.test_wait.shared.b64 %p5, [%r3], %rd1;
  @!%p5 bra $L_w2;
  add.u32 %r4, %r4, 1;
  bra.uni $L_loop;
$L_done:
  ld.param.u64 %rd6, [out];
  st.global.u32 [%rd6], %r4;
  ret;
}}
"""


@pytest.mark.parametrize("mid,bad", [("%rd2", True), ("%rd1", False)])
def test_a_token_already_waited_on_is_stale(mid: str, bad: bool) -> None:
    """The middle wait of the body uses the token carried from the end of the previous iteration (or
    from before the loop), which that iteration already waited on; the twin takes a fresh token from the
    middle arrive (`mid` is the register the arrive writes)."""
    text = _CARRIED.format(mid=mid)
    if find_ptxas():
        r = run_ptxas(text, "sm_80")
        assert r.ok, r.stderr
    found = [d for d in check_ptx(text, "k.ptx") if d.check == "mbarrier-phase"]
    assert bool(found) == bad, [d.message for d in found]
    if bad:
        assert "already waited on" in found[0].message and "iteration 0" in found[0].witness["text"]
