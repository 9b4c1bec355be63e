"""`mbarrier-tx-mismatch` when the readers after the wait read more bytes of the copies' destinations
than `expect_tx` announces, for tensor maps built by the host (the box is not in the PTX): a copy writes
a prefix of its destination, so a byte read bounds its box from below. Near misses: the announcement of
both tiles, and readers that stay inside what was announced."""

from __future__ import annotations

import pytest

from irc.compiler import check_ptx
from irc.ptxas import find_ptxas, run_ptxas

_PTX = """\
.version 8.0
.target sm_90a
.address_size 64

.visible .entry coldot(
  .param .align 64 .b8 amap[128],
  .param .align 64 .b8 bmap[128],
  .param .u64 out,
  .param .u32 n
)
.reqntid 128, 1, 1
{{
  .reg .pred %p<6>;
  .reg .b32 %r<40>;
  .reg .b64 %rd<8>;
  .reg .f32 %f<8>;
  .shared .align 128 .b8 ta[2048];
  .shared .align 128 .b8 tb[2048];
  .shared .align 8 .u64 bar;
  mov.b64 %rd1, amap;
  mov.b64 %rd2, bmap;
  ld.param.u32 %r2, [n];
  mov.u32 %r1, %tid.x;
  mov.u32 %r3, bar;
  mov.u32 %r4, ta;
  mov.u32 %r5, tb;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra $L_init_done;
  mbarrier.init.shared::cta.b64 [%r3], 1;
  fence.mbarrier_init.release.cluster;
$L_init_done:
  bar.sync 0;
  mov.f32 %f1, 0f00000000;
  mov.u32 %r6, 0;
$L_tile:
  setp.ge.u32 %p2, %r6, %r2;
  @%p2 bra $L_end;
  @%p1 bra $L_issued;
  shl.b32 %r7, %r6, 5;
  mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r3], {bytes};
  cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%r4], [%rd1, {{%r7, %r7}}], [%r3];
  cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%r5], [%rd2, {{%r7, %r7}}], [%r3];
$L_issued:
  and.b32 %r8, %r6, 1;
$L_wait:
  mbarrier.try_wait.parity.shared::cta.b64 %p3, [%r3], %r8;
  @!%p3 bra $L_wait;
  setp.ge.u32 %p4, %r1, 16;
  @%p4 bra $L_next;
  shl.b32 %r9, %r1, 2;
  mov.u32 %r10, 0;
$L_row:
  shl.b32 %r11, %r10, 6;
  add.u32 %r12, %r11, %r9;
  add.u32 %r13, %r4, %r12;
  add.u32 %r14, %r5, %r12;
  ld.shared.f32 %f2, [%r13];
  ld.shared.f32 %f3, [%r14];
  fma.rn.f32 %f1, %f2, %f3, %f1;
  add.u32 %r10, %r10, 1;
  setp.lt.u32 %p5, %r10, {rows};
  @%p5 bra $L_row;
$L_next:
  bar.sync 0;
  add.u32 %r6, %r6, 1;
  bra.uni $L_tile;
$L_end:
  ld.param.u64 %rd3, [out];
  mul.wide.u32 %rd4, %r1, 4;
  add.u64 %rd3, %rd3, %rd4;
  st.global.f32 [%rd3], %f1;
  ret;
}}
"""


def _tx(bytes_: int, rows: int) -> list:
    text = _PTX.format(bytes=bytes_, rows=rows)
    if find_ptxas():
        r = run_ptxas(text, "sm_90a")
        assert r.ok, r.stderr
    return [d for d in check_ptx(text, "k.ptx") if d.check == "mbarrier-tx-mismatch"]


@pytest.mark.parametrize(
    "bytes_,rows,bad",
    [
        (2048, 32, True),  # one tile announced, both tiles read in full
        (4096, 32, False),  # both tiles announced
        (2048, 16, False),  # half of each tile read: 1024 + 1024 bytes fit the announcement
        (2048, 17, True),  # one row more of each: 1088 + 1088 > 2048
    ],
)
def test_reads_against_the_announcement(bytes_: int, rows: int, bad: bool) -> None:
    found = _tx(bytes_, rows)
    assert bool(found) == bad, [d.message for d in found]
    if bad:
        d = found[0]
        assert f"announces {bytes_} bytes" in d.message
        lines = _PTX.format(bytes=bytes_, rows=rows).split("\n")
        assert d.span is not None and "expect_tx" in lines[d.span.line - 1]
        assert d.witness is not None and "after the wait" in d.witness["text"]
