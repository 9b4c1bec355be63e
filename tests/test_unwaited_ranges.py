"""`async-unwaited` on one `global_smem` buffer (Triton's layout): a read of bytes the tensor copy cannot
write is not a read of its destination.

Triton keeps tiles, mbarriers and small flags (the warp-specialised dispatch byte) in one `.extern`
array, and often builds its descriptors at run time, so the box is unknown to the IR. The copy's extent is
then bounded by the bytes its barrier's `expect_tx` announces. The near misses: a read inside that bound,
and a bound the IR cannot read (bytes from a register), are still reported.
"""

from __future__ import annotations

import pytest

from irc.compiler import check_ptx
from irc.ptxas import find_ptxas, run_ptxas

_PTX = """\
.version 8.0
.target sm_90a
.address_size 64
.extern .shared .align 1024 .b8 global_smem[];

.visible .entry k(.param .u64 .ptr .align 64 desc, .param .u64 out, .param .u32 nbytes)
{{
  .reg .pred %p<4>;
  .reg .b32 %r<20>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [desc];
  ld.param.u64 %rd2, [out];
  ld.param.u32 %r10, [nbytes];
  mov.u32 %r1, %tid.x;
  mov.b32 %r2, global_smem;
  add.s32 %r3, %r2, 4096;
  setp.eq.u32 %p1, %r1, 0;
  @%p1 mbarrier.init.shared::cta.b64 [%r3], 1;
  fence.mbarrier_init.release.cluster;
  bar.sync 0;
  @%p1 mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r3], {bytes};
  mov.b32 %r4, 0;
  @%p1 cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%r2], [%rd1, {{%r4, %r4}}], [%r3];
  shr.u32 %r5, %r1, 5;
  shfl.sync.idx.b32 %r6, %r5, 0, 31, -1;
  add.s32 %r7, %r2, %r6;
  ld.shared.u8 %r8, [%r7+{off}];
  mov.b32 %r9, 0;
$L_wait:
  mbarrier.try_wait.parity.shared::cta.b64 %p2, [%r3], %r9;
  @!%p2 bra $L_wait;
  ld.shared.u32 %r11, [%r2];
  add.s32 %r12, %r11, %r8;
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd2, %rd3;
  st.global.u32 [%rd4], %r12;
  ret;
}}
"""


def _findings(bytes_: str, off: int) -> list[str]:
    text = _PTX.format(bytes=bytes_, off=off)
    if find_ptxas():
        r = run_ptxas(text, "sm_90a")
        assert r.ok, r.stderr
    return [d.check for d in check_ptx(text, "k.ptx") if d.severity == "error"]


def test_flag_beside_the_announced_bytes_is_not_the_copys_destination() -> None:
    # The copy lands in bytes [0, 2048) (its barrier expects 2048); the dispatch byte sits at 3072 + warp.
    assert "async-unwaited" not in _findings("2048", 3072)


@pytest.mark.parametrize(
    ("bytes_", "off"),
    [
        ("2048", 1024),  # near miss: the read is inside the announced bytes
        ("2048", 2040),  # near miss: the warp index reaches into the last bytes of the box
        ("%r10", 3072),  # near miss: the announcement is a run-time value, so nothing bounds the copy
    ],
)
def test_read_that_may_touch_the_copy_is_reported(bytes_: str, off: int) -> None:
    assert "async-unwaited" in _findings(bytes_, off)
