"""Who arrives, past an inner loop and a polling wait: the only exit of a loop that holds the branch but not
the arrive (`@p bra INNER` of an unrolled dot product, `@!p bra WAIT` of a `try_wait`) selects no threads,
so the arrive's thread count stays exact. 256 threads arriving on a count of 8 (one per warp) is then
"too many" (beyond the solver's small-count question)
(held-out: every lane of 8 consumer warps releasing a stage counted in warps). The twin arrives from one
lane per warp. Near miss: an arrive behind a branch on loaded data is not counted exactly (silent)."""

from __future__ import annotations

import numpy as np
import pytest

from irc.compiler import check_ptx
from irc.diagnostics import Severity
from irc.emu import EmuError, run_kernel
from irc.frontend.ptx.parser import parse_ptx
from irc.ptxas import find_ptxas, run_ptxas

KERNEL = """.version 8.0
.target sm_90
.address_size 64
.shared .align 8 .b8 full[8];
.shared .align 8 .b8 empty[8];
.visible .entry k(.param .u64 out, .param .u64 x, .param .u32 n) .reqntid 256, 1, 1
{{
  .reg .pred %p<12>;
  .reg .b32 %r<30>;
  .reg .b64 %rd<10>;
  ld.param.u64 %rd1, [out];
  ld.param.u64 %rd7, [x];
  ld.param.u32 %r1, [n];
  mov.u32 %r2, %tid.x;
  and.b32 %r3, %r2, 31;
  mov.u32 %r4, empty;
  mov.u32 %r5, full;
  setp.ne.u32 %p1, %r2, 0;
  @%p1 bra INITED;
  mbarrier.init.shared.b64 [%r5], 1;
  mbarrier.init.shared.b64 [%r4], 8;
INITED:
  bar.sync 0;
  mov.u32 %r10, 0;
  mov.u32 %r20, 0;
  setp.lt.s32 %p2, %r1, 1;
  @%p2 bra DONE;
LOOP:
  and.b32 %r12, %r10, 1;
  @%p1 bra FILLED;
  mbarrier.arrive.shared.b64 %rd8, [%r5];
FILLED:
  mbarrier.try_wait.parity.shared.b64 %p7, [%r5], %r12;
  @!%p7 bra FILLED;
  mov.u32 %r11, 0;
INNER:
  add.s32 %r20, %r20, %r11;
  add.s32 %r11, %r11, 1;
  setp.lt.u32 %p3, %r11, 4;
  @%p3 bra INNER;
{guard}
  mbarrier.arrive.shared.b64 %rd2, [%r4];
ARRIVED:
  mbarrier.try_wait.parity.shared.b64 %p5, [%r4], %r12;
  @!%p5 bra ARRIVED;
  add.s32 %r10, %r10, 1;
  setp.lt.s32 %p6, %r10, %r1;
  @%p6 bra LOOP;
DONE:
  mul.wide.u32 %rd3, %r2, 4;
  add.s64 %rd4, %rd1, %rd3;
  st.global.u32 [%rd4], %r20;
  ret;
}}
"""
ONE_LANE = "  setp.ne.u32 %p4, %r3, 0;\n  @%p4 bra ARRIVED;"
LOADED = (
    "  mul.wide.u32 %rd5, %r2, 4;\n  add.s64 %rd6, %rd7, %rd5;\n  ld.global.u32 %r13, [%rd6];\n"
    "  setp.eq.u32 %p4, %r13, 0;\n  @%p4 bra ARRIVED;"
)


def kernel(guard: str) -> str:
    return KERNEL.format(guard=guard)


def findings(text: str) -> list:
    return [d for d in check_ptx(text, "k.ptx") if d.severity == Severity.ERROR]


def emulate(text: str, n: int = 3) -> np.ndarray:
    out = np.zeros(256, np.uint32)
    x = np.ones(256, np.uint32)
    run_kernel(parse_ptx(text), "k", grid=1, block=256, args=[out, x, np.uint32(n)], schedules=2)
    return out


def test_every_lane_arriving_on_a_warp_count_is_found() -> None:
    text = kernel("")
    if find_ptxas():
        assert run_ptxas(text, "sm_90").ok
    ds = findings(text)
    assert [d.check for d in ds] == ["mbarrier-arrival-mismatch"]
    assert "256 threads arrive in one phase" in ds[0].message
    with pytest.raises(EmuError):
        emulate(text)


def test_one_lane_per_warp_is_clean() -> None:
    text = kernel(ONE_LANE)
    assert findings(text) == []
    assert (emulate(text) == 3 * 6).all()


def test_near_miss_arrive_behind_loaded_data_is_not_counted() -> None:
    assert findings(kernel(LOADED)) == []
