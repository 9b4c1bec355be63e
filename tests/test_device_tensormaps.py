"""Descriptors built in the kernel (Triton's `tl.make_tensor_descriptor`): `tensormap.replace` writes the
box and element type into a scratch copy and `tensormap.cp_fenceproxy` publishes it; a tensor copy
through the published descriptor then has a known box, so `mbarrier-tx-mismatch` compares its bytes with
the `expect_tx` (the two are predicated, `@p`, as Triton emits them). The near misses: an element type
whose size the PTX ISA and the driver disagree on, and a box extent computed at run time, leave the box
unknown and the check silent (not a guess)."""

from __future__ import annotations

import pytest

from irc.compiler import check_ptx
from irc.ptxas import find_ptxas, run_ptxas

_PTX = """\
.version 8.3
.target sm_90a
.address_size 64
.extern .shared .align 1024 .b8 global_smem[];

.visible .entry k(.param .u64 .ptr .global .align 1 scratch, .param .u64 src, .param .u32 n)
.reqntid 128, 1, 1
{{
  .reg .pred %p<4>;
  .reg .b32 %r<20>;
  .reg .b64 %rd<12>;
  ld.param.u64 %rd1, [scratch];
  ld.param.u64 %rd2, [src];
  ld.param.u32 %r10, [n];
  mov.u32 %r1, %tid.x;
  setp.eq.u32 %p1, %r1, 0;
  mov.b32 %r2, global_smem;
  cvt.u64.u32 %rd3, %r2;
  tensormap.replace.tile.global_address.shared::cta.b1024.b64 [%rd3], %rd2;
  tensormap.replace.tile.rank.shared::cta.b1024.b32 [%rd3], 1;
  mov.b32 %r3, 64;
  tensormap.replace.tile.box_dim.shared::cta.b1024.b32 [%rd3], 0, {inner};
  mov.b32 %r4, 128;
  tensormap.replace.tile.box_dim.shared::cta.b1024.b32 [%rd3], 1, %r4;
  tensormap.replace.tile.elemtype.shared::cta.b1024.b32 [%rd3], {elem};
  cvt.u64.u32 %rd4, %r2;
  @%p1 tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned [%rd1], [%rd4], 128;
  @%p1 fence.proxy.tensormap::generic.acquire.gpu [%rd1], 128;
  cvta.global.u64 %rd5, %rd1;
  add.s32 %r5, %r2, 32768;
  @%p1 mbarrier.init.shared::cta.b64 [%r5], 1;
  fence.mbarrier_init.release.cluster;
  bar.sync 0;
  add.s32 %r6, %r2, 1024;
  mov.b32 %r7, 0;
  @%p1 mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r5], {bytes};
  @%p1 cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%r6], [%rd5, {{%r7, %r7}}], [%r5];
  mov.b32 %r9, 0;
$L_wait:
  mbarrier.try_wait.parity.shared::cta.b64 %p2, [%r5], %r9;
  @!%p2 bra $L_wait;
  ret;
}}
"""


def _tx(inner: str = "%r3", elem: int = 6, bytes_: int = 16384) -> list[int]:
    text = _PTX.format(inner=inner, elem=elem, bytes=bytes_)
    if find_ptxas():
        r = run_ptxas(text, "sm_90a")
        assert r.ok, r.stderr
    return [d.span.line for d in check_ptx(text, "k.ptx") if d.check == "mbarrier-tx-mismatch"]


def test_announcement_matching_the_device_built_box_is_clean() -> None:
    assert _tx() == []  # 64 x 128 f16 = 16,384 bytes


def test_announcement_short_of_the_device_built_box_is_reported() -> None:
    text = _PTX.format(inner="%r3", elem=6, bytes=8192)
    line = next(i for i, ln in enumerate(text.splitlines(), 1) if "expect_tx" in ln)
    assert _tx(bytes_=8192) == [line]


@pytest.mark.parametrize(("inner", "elem"), [("%r3", 9), ("%r10", 6)])
def test_box_the_lifter_cannot_size_decides_nothing(inner: str, elem: int) -> None:
    assert _tx(inner=inner, elem=elem, bytes_=8192) == []
