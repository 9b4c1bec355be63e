"""`async-unwaited` on a kernel with no launch bound (1-D): a stale read must happen with each common
block (128, 256 and 1,024 threads), not only with a shape the solver picked. Here threads read
`buf[t]` while their copies into `buf[256 + t]` are pending: with more than 256 threads, thread 256
reads thread 0's destination, which a host launching 128 or 256 threads never does; reading one's own
pending copy is stale with every shape."""

from __future__ import annotations

import pytest

from irc.compiler import check_ptx
from irc.ptxas import find_ptxas, run_ptxas

_PTX = """\
.version 8.0
.target sm_80
.address_size 64

.visible .entry k(.param .u64 x, .param .u64 out)
{{
  .shared .align 16 .b8 buf[2048];
  .reg .b32 %r<8>;
  .reg .b64 %rd<8>;
  mov.u32 %r1, %tid.x;
  shl.b32 %r2, %r1, 2;
  mov.u32 %r3, buf;
  add.u32 %r4, %r3, %r2;
  ld.param.u64 %rd1, [x];
  cvta.to.global.u64 %rd2, %rd1;
  mul.wide.u32 %rd3, %r1, 4;
  add.u64 %rd4, %rd2, %rd3;
  cp.async.ca.shared.global [%r4+1024], [%rd4], 4;
  cp.async.commit_group;
  ld.shared.u32 %r5, [%r4+{off}];
  cp.async.wait_all;
  ld.param.u64 %rd5, [out];
  cvta.to.global.u64 %rd6, %rd5;
  add.u64 %rd7, %rd6, %rd3;
  st.global.u32 [%rd7], %r5;
  ret;
}}
"""


@pytest.mark.parametrize("off,bad", [(1024, True), (0, False)])
def test_stale_read_needs_every_common_block(off: int, bad: bool) -> None:
    text = _PTX.format(off=off)
    if find_ptxas():
        r = run_ptxas(text, "sm_80")
        assert r.ok, r.stderr
    found = [d for d in check_ptx(text, "k.ptx") if d.check == "async-unwaited"]
    assert bool(found) == bad, [d.message for d in found]
    if bad:
        assert "no launch bound" in found[0].witness["text"]


def test_the_large_block_read_is_reported_with_that_bound() -> None:
    """The silent case is a real stale read for a 1,024-thread launch: with that bound it is reported."""
    text = _PTX.format(off=0).replace("{\n  .shared", ".reqntid 1024, 1, 1\n{\n  .shared", 1)
    assert any(d.check == "async-unwaited" for d in check_ptx(text, "k.ptx"))
