"""`mbarrier-arrival-mismatch` per ring element: a stage barrier initialised for more arrivals than can
reach its first phase before the first wait on it (Triton's `mbarrier.init [full0], 2` with one
`expect_tx` arrival per stage and phase). Arrivals after the wait come from threads that must pass it
first, so they cannot help. Near misses: every count 1 (the twin), two arriving threads, and a producer
that does not wait (its later arrivals can complete the phase: silence). The bug hangs in the emulator;
the twin computes the sum."""

from __future__ import annotations

import numpy as np
import pytest

from irc.compiler import check_ptx
from irc.diagnostics import Severity
from irc.emu import DeadlockError, run_kernel
from irc.frontend.ptx.parser import parse_ptx
from irc.ptxas import find_ptxas, run_ptxas

# a 3-stage ring in `buf`, one mbarrier per stage in `bars`: thread 0 fills stages 0 and 1 before the loop
# (guarded by `tid == 0 && n > 0`, one predicate), then iteration k waits on stage k % 3 (parity
# (k / 3) & 1), every thread adds the stage's value, and after a barrier thread 0 refills stage (k + 2) % 3
RING = """.version 8.0
.target sm_90
.address_size 64
.shared .align 8 .b8 bars[24];
.shared .align 4 .b8 buf[12];
.visible .entry k(.param .u64 out, .param .u32 n) .reqntid 64, 1, 1
{{
  .reg .pred %p<12>;
  .reg .b32 %r<40>;
  .reg .b64 %rd<10>;
  ld.param.u64 %rd1, [out];
  ld.param.u32 %r1, [n];
  mov.u32 %r2, %tid.x;
  mov.u32 %r3, bars;
  mov.u32 %r30, buf;
  add.s32 %r4, %r3, 8;
  add.s32 %r5, %r3, 16;
  setp.eq.u32 %p1, %r2, 0;
  {who}
  @!%p1 bra INITED;
  mbarrier.init.shared.b64 [%r3], {count};
  mbarrier.init.shared.b64 [%r4], {count1};
  mbarrier.init.shared.b64 [%r5], 1;
INITED:
  bar.sync 0;
  setp.gt.s32 %p2, %r1, 0;
  and.pred %p3, %p10, %p2;
  @!%p3 bra PRO;
  st.shared.u32 [%r30], 100;
  mbarrier.arrive.shared.b64 %rd2, [%r3];
  st.shared.u32 [%r30+4], 101;
  mbarrier.arrive.shared.b64 %rd3, [%r4];
PRO:
  mov.u32 %r20, 0;
  mov.u32 %r10, 0;
  @!%p2 bra DONE;
LOOP:
  rem.u32 %r11, %r10, 3;
  div.u32 %r12, %r10, 3;
  and.b32 %r13, %r12, 1;
  shl.b32 %r14, %r11, 3;
  add.s32 %r15, %r3, %r14;
  {wait_guard}
WAIT:
  mbarrier.try_wait.parity.shared.b64 %p5, [%r15], %r13;
  @!%p5 bra WAIT;
  shl.b32 %r16, %r11, 2;
  add.s32 %r17, %r30, %r16;
  ld.shared.u32 %r18, [%r17];
  add.s32 %r20, %r20, %r18;
WAITED:
  bar.sync 0;
  add.s32 %r21, %r10, 2;
  setp.lt.s32 %p6, %r21, %r1;
  and.pred %p7, %p10, %p6;
  @!%p7 bra NEXT;
  rem.u32 %r22, %r21, 3;
  shl.b32 %r23, %r22, 2;
  add.s32 %r24, %r30, %r23;
  add.s32 %r25, %r21, 100;
  st.shared.u32 [%r24], %r25;
  shl.b32 %r26, %r22, 3;
  add.s32 %r27, %r3, %r26;
  mbarrier.arrive.shared.b64 %rd4, [%r27];
NEXT:
  add.s32 %r10, %r10, 1;
  setp.lt.s32 %p8, %r10, %r1;
  @%p8 bra LOOP;
DONE:
  mul.wide.u32 %rd5, %r2, 4;
  add.s64 %rd6, %rd1, %rd5;
  st.global.u32 [%rd6], %r20;
  ret;
}}
"""

ONE = "mov.pred %p10, %p1;"  # thread 0 arrives
TWO = "setp.lt.u32 %p10, %r2, 2;"  # threads 0 and 1 arrive


def ring(count: int, who: str = ONE, wait_guard: str = "", count1: int = 1) -> str:
    return RING.format(count=count, count1=count1, who=who, wait_guard=wait_guard)


def findings(text: str) -> list:
    return [d for d in check_ptx(text, "ring.ptx") if d.severity == Severity.ERROR]


def emulate(text: str, n: int) -> np.ndarray:
    out = np.zeros(64, np.uint32)
    run_kernel(parse_ptx(text), "k", grid=1, block=64, args=[out, np.uint32(n)], schedules=2)
    return out


def test_stage_count_two_with_one_arrival_is_found() -> None:
    text = ring(2)
    if find_ptxas():
        assert run_ptxas(text, "sm_90").ok
    ds = findings(text)
    assert [d.check for d in ds] == ["mbarrier-arrival-mismatch"]
    d = ds[0]
    assert d.span is not None and text.splitlines()[d.span.line - 1].strip().startswith("mbarrier.init")
    assert "`bars` is initialised with an arrival count of 2" in d.message
    assert "at most 1 arrival(s)" in d.message
    assert d.witness is not None and "iteration 0" in d.witness["text"]
    with pytest.raises(DeadlockError):
        emulate(text, 5)


def test_twin_counts_one_per_stage() -> None:
    text = ring(1)
    assert findings(text) == []
    n = 7
    assert (emulate(text, n) == sum(100 + k for k in range(n))).all()


def test_a_later_element_is_judged_on_its_own() -> None:
    """Stage 1's count of 2 with stage 0's right: the finding names stage 1's barrier."""
    ds = findings(ring(1, count1=2))
    assert [d.check for d in ds] == ["mbarrier-arrival-mismatch"]
    assert "`bars+8`" in ds[0].message
    # its first wait is in iteration 1: the witness launch runs at least two iterations
    assert "iteration 1" in ds[0].witness["text"] and ds[0].witness["params"]["n"] >= 2
    with pytest.raises(DeadlockError):
        emulate(ring(1, count1=2), 5)


def test_near_miss_two_arriving_threads() -> None:
    """Count 2 and two threads arriving at every site: each phase gets its two arrivals."""
    text = ring(2, who=TWO, count1=2).replace(
        "mbarrier.init.shared.b64 [%r5], 1;", "mbarrier.init.shared.b64 [%r5], 2;"
    )
    assert findings(text) == []
    n = 7
    assert (emulate(text, n) == sum(100 + k for k in range(n))).all()


def test_near_miss_producer_that_does_not_wait() -> None:
    """Thread 0 skips the wait (`@%p1 bra WAITED`): its arrival in iteration 1 needs no completed phase
    0, so it can complete stage 0's first phase; the rule stays silent rather than guess."""
    text = ring(2, wait_guard="@%p1 bra WAITED;")
    assert [d.check for d in findings(text)] == []
