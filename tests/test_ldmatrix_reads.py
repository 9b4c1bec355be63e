"""`async-unwaited` for cp.async read back with `ldmatrix .x4` (how every sm_80 tensor-core GEMM reads
its stages): each lane's 16-byte row is a shared read at that lane's address plus the instruction's
offset. The wait that covers the group makes the kernel clean; its near misses, no wait or a wait that
leaves the group pending, are reported."""

from __future__ import annotations

import pytest

from irc.compiler import check_ptx
from irc.ptxas import find_ptxas, run_ptxas

_PTX = """\
.version 8.0
.target sm_80
.address_size 64
.shared .align 128 .b8 buf[2048];

.visible .entry k(.param .u64 src, .param .u64 out)
.reqntid 64, 1, 1
{{
  .reg .b32 %r<20>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [src];
  ld.param.u64 %rd2, [out];
  mov.u32 %r1, %tid.x;
  mov.u32 %r9, buf;
  shl.b32 %r2, %r1, 4;
  add.s32 %r3, %r9, %r2;
  cvta.to.global.u64 %rd3, %rd1;
  mul.wide.u32 %rd4, %r1, 16;
  add.s64 %rd5, %rd3, %rd4;
  cp.async.cg.shared.global [%r3], [%rd5], 16;
  cp.async.commit_group;
{wait}
  bar.sync 0;
  xor.b32 %r4, %r2, 512;
  add.s32 %r5, %r9, %r4;
  ldmatrix.sync.aligned.m8n8.x4.shared.b16 {{%r11, %r12, %r13, %r14}}, [%r5+{off}];
  add.s32 %r15, %r11, %r14;
  cvta.to.global.u64 %rd6, %rd2;
  mul.wide.u32 %rd7, %r1, 4;
  add.s64 %rd6, %rd6, %rd7;
  st.global.u32 [%rd6], %r15;
  ret;
}}
"""


def _found(wait: str, off: int = 0) -> bool:
    text = _PTX.format(wait=wait, off=off)
    if find_ptxas():
        r = run_ptxas(text, "sm_80")
        assert r.ok, r.stderr
    return any(d.check == "async-unwaited" for d in check_ptx(text, "k.ptx"))


def test_ldmatrix_after_the_covering_wait_is_clean() -> None:
    assert not _found("  cp.async.wait_group 0;")


@pytest.mark.parametrize("wait", ["", "  cp.async.wait_group 1;"])
def test_ldmatrix_of_a_stage_in_flight_is_reported(wait: str) -> None:
    assert _found(wait)


def test_ldmatrix_offset_past_the_copies_is_not_their_destination() -> None:
    # rows at buf + 1024.. lie past the 64 threads' 1,024 copied bytes: nothing in flight is read
    assert not _found("", 1024)
