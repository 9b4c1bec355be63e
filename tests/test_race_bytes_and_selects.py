"""`shared-race` on two shapes of Triton's layout conversions, each with its near miss.

- `st.shared.b8 [p], %r` of a 32-bit register writes one byte (int8 tiles are stored a byte at a time):
  neighbouring threads' bytes do not overlap. The near miss stores two bytes from each thread at
  consecutive byte addresses, so neighbours do overlap.
- A masked load `mov 0; @p ld` is `p ? load : 0`. Warps that hold the same lanes' data (a replicated
  layout) store the same value to one slot when `p` and the address are the same for those lanes. The near
  miss takes `p` from the thread index rather than the lane, so lane 0 of warp 0 may load while lane 0 of
  warp 1 stores 0.
"""

from __future__ import annotations

import pytest

from irc.compiler import check_ptx
from irc.ptxas import find_ptxas, run_ptxas

_HEAD = """\
.version 8.0
.target sm_80
.address_size 64
.shared .align 4 .b8 buf[512];

.visible .entry k(.param .u64 in, .param .u64 out, .param .u32 n)
.reqntid 128, 1, 1
{{
  .reg .pred %p<4>;
  .reg .b32 %r<20>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [in];
  ld.param.u64 %rd2, [out];
  ld.param.u32 %r10, [n];
  mov.u32 %r1, %tid.x;
  and.b32 %r2, %r1, 31;
  mov.u32 %r9, buf;
{body}
  bar.sync 0;
  shl.b32 %r15, %r2, 2;
  add.s32 %r16, %r9, %r15;
  ld.shared.u32 %r17, [%r16];
  mul.wide.u32 %rd6, %r1, 4;
  add.s64 %rd7, %rd2, %rd6;
  st.global.u32 [%rd7], %r17;
  ret;
}}
"""

_BYTES = """\
  mul.lo.u32 %r3, %r1, 257;
  add.s32 %r4, %r9, %r1;
  st.shared.{ty} [%r4], %r3;
"""

_MASKED = """\
  setp.lt.u32 %p1, {pred}, %r10;
  mul.wide.u32 %rd3, %r2, 4;
  add.s64 %rd4, %rd1, %rd3;
  mov.u32 %r5, 0;
  @%p1 ld.global.u32 %r5, [%rd4];
  shl.b32 %r6, %r2, 2;
  add.s32 %r7, %r9, %r6;
  st.shared.u32 [%r7], %r5;
"""


def _races(body: str) -> int:
    text = _HEAD.format(body=body)
    if find_ptxas():
        r = run_ptxas(text, "sm_80")
        assert r.ok, r.stderr
    return sum(d.check == "shared-race" for d in check_ptx(text, "k.ptx"))


def test_byte_stores_of_wide_registers_write_one_byte_each() -> None:
    assert _races(_BYTES.format(ty="b8")) == 0


def test_two_byte_stores_at_consecutive_bytes_still_race() -> None:
    assert _races(_BYTES.format(ty="b16")) == 1


def test_replicated_masked_loads_store_one_value() -> None:
    assert _races(_MASKED.format(pred="%r2")) == 0  # the mask and the address depend on the lane only


@pytest.mark.parametrize("pred", ["%r1"])
def test_masked_loads_whose_mask_differs_across_warps_still_race(pred: str) -> None:
    assert _races(_MASKED.format(pred=pred)) == 1
