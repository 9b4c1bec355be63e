"""`mbarrier-arrival-mismatch` for a barrier that counts every thread of the block (`init(&bar, blockDim.x)`)
when threads past a length loaded for the block (`if (tid >= len[blockIdx.x]) return;`) leave without
`arrive_drop`: every phase stays one arrival short and the others hang. The loaded length is one value for
the whole block, so which threads leave is exact for the solver. The twin drops its arrivals before it
returns. Near misses: an exit that no thread takes (`tid >= blockDim.x`), and an exit on each thread's own
loaded value (not judged: a value per thread), are silent."""

from __future__ import annotations

import numpy as np
import pytest

from irc.compiler import check_ptx
from irc.diagnostics import Severity
from irc.emu import DeadlockError, run_kernel
from irc.frontend.ptx.parser import parse_ptx
from irc.ptxas import find_ptxas, run_ptxas

KERNEL = """.version 8.0
.target sm_80
.address_size 64
.shared .align 8 .b8 bar[8];
.visible .entry ragged(.param .u64 lens, .param .u64 out, .param .u32 steps)
{{
  .reg .pred %p<8>;
  .reg .b32 %r<30>;
  .reg .b64 %rd<12>;
  ld.param.u64 %rd1, [lens];
  ld.param.u64 %rd2, [out];
  ld.param.u32 %r1, [steps];
  mov.u32 %r2, %tid.x;
  mov.u32 %r3, %ctaid.x;
  mov.u32 %r4, %ntid.x;
  mov.u32 %r5, bar;
  setp.ne.u32 %p1, %r2, 0;
  @%p1 bra INITED;
  mbarrier.init.shared.b64 [%r5], %r4;
INITED:
  bar.sync 0;
  {limit}
  setp.ge.u32 %p2, %r2, %r7;
  @!%p2 bra STAY;
  {leave}
  ret;
STAY:
  mov.u32 %r10, 0;
  setp.lt.s32 %p3, %r1, 1;
  @%p3 bra DONE;
STEP:
  mbarrier.arrive.shared.b64 %rd5, [%r5];
WAIT:
  mbarrier.test_wait.shared.b64 %p4, [%r5], %rd5;
  @!%p4 bra WAIT;
  add.s32 %r10, %r10, 1;
  setp.lt.s32 %p5, %r10, %r1;
  @%p5 bra STEP;
DONE:
  mad.lo.s32 %r11, %r3, %r4, %r2;
  mul.wide.u32 %rd6, %r11, 4;
  add.s64 %rd7, %rd2, %rd6;
  st.global.u32 [%rd7], %r10;
  ret;
}}
"""
ROW_LENGTH = "mul.wide.u32 %rd3, %r3, 4;\n  add.s64 %rd4, %rd1, %rd3;\n  ld.global.u32 %r7, [%rd4];"
OWN_VALUE = "mul.wide.u32 %rd3, %r2, 4;\n  add.s64 %rd4, %rd1, %rd3;\n  ld.global.u32 %r7, [%rd4];"
NONE_LEAVE = "mov.u32 %r7, %r4;"
DROP = "mbarrier.arrive_drop.shared.b64 %rd8, [%r5];"


def kernel(limit: str = ROW_LENGTH, leave: str = "") -> str:
    return KERNEL.format(limit=limit, leave=leave)


def findings(text: str) -> list:
    return [d for d in check_ptx(text, "ragged.ptx") if d.severity == Severity.ERROR]


def emulate(text: str, lens: np.ndarray) -> np.ndarray:
    out = np.full(2 * 64, 7, np.uint32)
    run_kernel(parse_ptx(text), "ragged", grid=2, block=64, args=[lens, out, np.uint32(3)], schedules=2)
    return out


def test_leaving_past_the_row_length_is_found() -> None:
    text = kernel()
    if find_ptxas():
        assert run_ptxas(text, "sm_80").ok
    ds = findings(text)
    assert [d.check for d in ds] == ["mbarrier-arrival-mismatch"]
    assert "counts every thread of the block" in ds[0].message
    line = text.splitlines()[ds[0].span.line - 1]
    assert "bra STAY" in line  # the branch where the leaving threads turn away
    with pytest.raises(DeadlockError):
        emulate(text, np.array([40, 64], np.uint32))


def test_twin_drops_its_arrivals() -> None:
    text = kernel(leave=DROP)
    assert findings(text) == []
    out = emulate(text, np.array([40, 64], np.uint32))
    assert (out[:40] == 3).all() and (out[40:64] == 7).all() and (out[64:] == 3).all()


@pytest.mark.parametrize(("name", "limit"), [("no thread leaves", NONE_LEAVE), ("own value", OWN_VALUE)])
def test_near_misses_are_silent(name: str, limit: str) -> None:
    assert findings(kernel(limit=limit)) == [], name
