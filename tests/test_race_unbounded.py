"""`shared-race` on a kernel with no launch bound (`.reqntid`/`.maxntid`, `__launch_bounds__`): a kernel that
reads only x coordinates is written for 1-D blocks, and a race the per-thread evaluation finds with each
of 128, 256 and 1,024 threads is reported, with the shapes it assumed in the witness. Near misses stay
silent: the barrier in place, a race that needs a block larger than 512 threads. A kernel that reads
`tid.y` is judged with the common 2-D blocks instead (`tests/test_race_2d_guess.py`): its neighbour race
is in every one of them."""

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
  .shared .align 4 .b8 s[4096];
  .reg .b32 %r<12>;
  .reg .b64 %rd<6>;
  mov.u32 %r1, %tid.x;
  {extra}
  and.b32 %r2, %r1, {mask};
  shl.b32 %r3, %r2, 2;
  mov.u32 %r4, s;
  add.u32 %r5, %r4, %r3;
  st.shared.u32 [%r5], %r1;
  {sync}
  add.u32 %r6, %r1, 1;
  and.b32 %r6, %r6, {mask};
  shl.b32 %r7, %r6, 2;
  add.u32 %r8, %r4, %r7;
  ld.shared.u32 %r9, [%r8];
  ld.param.u64 %rd1, [out];
  mul.wide.u32 %rd2, %r1, 4;
  add.u64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r9;
  ret;
}}
"""


def _races(sync: str = "", mask: int = 1023, extra: str = "") -> list:
    text = _PTX.format(sync=sync, mask=mask, extra=extra)
    if find_ptxas():
        r = run_ptxas(text, "sm_80")
        assert r.ok, r.stderr
    return [d for d in check_ptx(text, "k.ptx") if d.check == "shared-race"]


@pytest.mark.parametrize(
    "kw,racy",
    [
        ({}, True),  # each thread reads its neighbour's slot with no barrier: any block races
        ({"sync": "bar.sync 0;"}, False),
        # slots t & 511: two writers of one slot only in blocks of more than 512 threads (1,024 races,
        # 128 and 256 do not): not every common shape, so not reported
        ({"mask": 511, "sync": "bar.sync 0;"}, False),
        # a 2-D kernel (it reads tid.y): judged with 16x16, 32x8, 8x8 and 32x32 blocks, in each of which
        # thread (x, y) reads slot x + y + 1, which threads of other warps write
        ({"extra": "mov.u32 %r10, %tid.y;\n  add.u32 %r1, %r1, %r10;"}, True),
    ],
)
def test_unbounded_one_dimensional_kernel(kw: dict, racy: bool) -> None:
    found = _races(**kw)
    assert bool(found) == racy, [d.message for d in found]
    if racy:
        text = found[0].witness["text"]
        shapes = "16x16, 32x8, 8x8, 32x32" if kw.get("extra") else "128, 256, 1024"
        assert "no launch bound" in text and shapes in text


def test_the_large_block_race_is_real_with_a_bound() -> None:
    """The third case's race exists for 1,024 threads: with that launch bound it is reported."""
    text = _PTX.format(sync="bar.sync 0;", mask=511, extra="").replace(
        "{\n  .shared", ".reqntid 1024, 1, 1\n{\n  .shared", 1
    )
    assert any(d.check == "shared-race" for d in check_ptx(text, "k.ptx"))
