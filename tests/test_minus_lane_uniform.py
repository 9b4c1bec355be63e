"""A grid-stride loop that runs while any lane of the warp is in range, `for (i = base + tid; i - lane < n;
i += stride)`, keeps the warp converged: `i - (tid & 31)` is the warp's first index, uniform per warp, so
a full-mask ballot in the loop is not divergent (warp-aggregated atomics written elsewhere). Near misses
keep the finding: a lane of 16 (`tid & 15`), a doubled index (`2 * tid`), and a step that is not uniform
(`i += tid + 1`). The emulator runs the uniform kernel to the right count."""

from __future__ import annotations

import numpy as np
import pytest

from irc.compiler import check_ptx
from irc.diagnostics import Severity
from irc.emu import run_kernel
from irc.frontend.ptx.parser import parse_ptx
from irc.ptxas import find_ptxas, run_ptxas

# count[0] += the number of keys below 100, one atomic per warp and step (ballot + popc)
KERNEL = """.version 8.0
.target sm_80
.address_size 64
.visible .entry count_small(.param .u64 keys, .param .u32 n, .param .u64 count)
{{
  .reg .pred %p<8>;
  .reg .b32 %r<40>;
  .reg .b64 %rd<10>;
  ld.param.u64 %rd1, [keys];
  ld.param.u32 %r1, [n];
  ld.param.u64 %rd2, [count];
  mov.u32 %r2, %tid.x;
  and.b32 %r3, %r2, {lanemask};
  mov.u32 %r4, %ntid.x;
  mov.u32 %r5, %ctaid.x;
  mov.u32 %r6, %nctaid.x;
  mul.lo.s32 %r7, %r6, %r4;
  {start}
  sub.s32 %r9, %r8, %r3;
  setp.ge.s32 %p1, %r9, %r1;
  @%p1 bra DONE;
LOOP:
  setp.lt.s32 %p2, %r8, %r1;
  mov.pred %p3, 0;
  @!%p2 bra TESTED;
  mul.wide.s32 %rd3, %r8, 4;
  add.s64 %rd4, %rd1, %rd3;
  ld.global.u32 %r10, [%rd4];
  setp.lt.u32 %p3, %r10, 100;
TESTED:
  vote.sync.ballot.b32 %r11, %p3, -1;
  setp.eq.s32 %p4, %r11, 0;
  @%p4 bra NEXT;
  and.b32 %r12, %r2, 31;
  setp.ne.s32 %p5, %r12, 0;
  @%p5 bra NEXT;
  popc.b32 %r13, %r11;
  atom.global.add.u32 %r14, [%rd2], %r13;
NEXT:
  {step}
  sub.s32 %r9, %r8, %r3;
  setp.lt.s32 %p6, %r9, %r1;
  @%p6 bra LOOP;
DONE:
  ret;
}}
"""
START = "mad.lo.s32 %r8, %r5, %r4, %r2;"  # i = ctaid * ntid + tid
STEP = "add.s32 %r8, %r8, %r7;"  # i += nctaid * ntid


def kernel(lanemask: int = 31, start: str = START, step: str = STEP) -> str:
    return KERNEL.format(lanemask=lanemask, start=start, step=step)


def sub_levels(text: str) -> list:
    """The uniformity level of every `i - lane` (the entry test and the loop's own)."""
    from irc.analysis.checks.common import FunctionContext
    from irc.frontend.ptx.lift import lift_ptx

    mod, _ = lift_ptx(text, "k.ptx")
    fn = mod.functions[0]
    facts = FunctionContext(fn, mod, "sm_80").facts
    return [facts.level(op.results[0]) for op in fn.ops() if op.name == "sub"]


def divergence(text: str) -> list:
    return [
        d
        for d in check_ptx(text, "k.ptx")
        if d.severity == Severity.ERROR and d.check == "warp-sync-divergence"
    ]


def test_warp_first_index_keeps_the_ballot_converged() -> None:
    text = kernel()
    if find_ptxas():
        assert run_ptxas(text, "sm_80").ok
    from irc.analysis.uniformity import Level

    levels = sub_levels(text)
    assert len(levels) == 2 and all(lv >= Level.WARP for lv in levels), levels
    assert [d.check for d in check_ptx(text, "k.ptx")] == []  # no finding, and nothing left undecided
    keys = np.random.default_rng(3).integers(0, 200, 1000).astype(np.uint32)
    count = np.zeros(1, np.uint32)
    run_kernel(
        parse_ptx(text), "count_small", grid=3, block=64, args=[keys, np.uint32(1000), count], schedules=2
    )
    assert int(count[0]) == int((keys < 100).sum())


@pytest.mark.parametrize(
    "name,text",
    [
        ("half-warp lane", kernel(lanemask=15)),
        ("doubled index", kernel(start="shl.b32 %r15, %r2, 1;\n  mad.lo.s32 %r8, %r5, %r4, %r15;")),
        ("step not uniform", kernel(step="add.s32 %r16, %r2, 1;\n  add.s32 %r8, %r8, %r16;")),
    ],
)
def test_near_misses_stay_divergent(name: str, text: str) -> None:
    from irc.analysis.uniformity import Level

    assert any(lv < Level.WARP for lv in sub_levels(text)), name
    assert divergence(text), name
