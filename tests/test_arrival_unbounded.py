"""`mbarrier-arrival-mismatch` with no launch bound: a block still has at most 1,024 threads, so an init
count above what they can all deliver (a byte count, 16384) never completes a phase. Near misses: the
count of one arrival, and a count of 1,024 that every thread of a full block can meet."""

from __future__ import annotations

import pytest

from irc.compiler import check_ptx
from irc.ptxas import find_ptxas, run_ptxas

_PTX = """\
.version 8.0
.target sm_80
.address_size 64

.visible .entry k(.param .u64 out)
{{
  .shared .align 8 .b64 bar;
  .reg .pred %p<4>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, bar;
  setp.eq.u32 %p1, %r1, 0;
  @%p1 mbarrier.init.shared.b64 [%r2], {count};
  bar.sync 0;
  {guard}
  mbarrier.arrive.shared.b64 %rd1, [%r2];
  mov.u32 %r3, 0;
$L_wait:
  mbarrier.test_wait.parity.shared.b64 %p2, [%r2], %r3;
  @!%p2 bra $L_wait;
  ld.param.u64 %rd2, [out];
  st.global.u32 [%rd2], %r1;
  ret;
}}
"""


@pytest.mark.parametrize(
    "count,guard,bad",
    [
        (16384, "@!%p1 bra $L_wait;", True),  # the tile's bytes as the count, one arriving thread
        (1, "@!%p1 bra $L_wait;", False),
        (1024, "", False),  # every thread of a 1,024-thread block arrives: reachable
        (2048, "", True),  # more than any block can deliver
    ],
)
def test_count_against_the_largest_block(count: int, guard: str, bad: bool) -> None:
    text = _PTX.format(count=count, guard=guard)
    if find_ptxas():
        r = run_ptxas(text, "sm_80")
        assert r.ok, r.stderr
    found = [d for d in check_ptx(text, "k.ptx") if d.check == "mbarrier-arrival-mismatch"]
    assert bool(found) == bad, [d.message for d in found]
