"""A bitonic compare-exchange step keeps the minimum or the maximum of a lane pair by a direction flag taken
from one lane bit (Triton's `tl.sort` / `tl.topk`). When the flag does not depend on the pair's own bit, both
lanes of the pair keep the same value and may store it to one slot: not a race. The flag's lane bits come
from the per-thread evaluation of thread coordinates (`lanegroups`, exact for values of `tid` alone).

Near misses stay races: the flag taken from the pair's own bit (one lane keeps the minimum, the other the
maximum), from loaded data, or from `ctaid` mixed into the lane bits. Each case also runs in the emulator,
whose race check agrees on the ones it can decide. The packed variant moves the pair through
`mov.b64 {lo, hi}` as sm_100 code does (`collectives.strip_moves`); its near miss unpacks the wrong half."""

from __future__ import annotations

import numpy as np
import pytest

from irc.compiler import check_ptx
from irc.diagnostics import Severity
from irc.emu import RaceError, run_kernel
from irc.frontend.ptx.parser import parse_ptx
from irc.ptxas import find_ptxas, run_ptxas

HEAD = ".version 8.0\n.target sm_80\n.address_size 64\n"

# every lane loads x[tid]; one compare-exchange with lane t ^ 16, its direction `{dir}`; lanes t and t ^ 16
# then store to slot[warp * 16 + (lane & 15)], and thread 0 copies all slots out after a barrier
KERNEL = """
.shared .align 4 .b8 slot[128];
.visible .entry k(.param .u64 x, .param .u64 out) .reqntid 64, 1, 1
{{
  .reg .pred %p<8>;
  .reg .b32 %r<40>;
  .reg .f32 %f<8>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [x];
  ld.param.u64 %rd2, [out];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd1, %rd3;
  ld.global.f32 %f1, [%rd4];
{dir}
  setp.ne.s32 %p1, %r20, 0;
{exchange}
  shr.u32 %r10, %r1, 5;
  and.b32 %r11, %r1, 15;
  shl.b32 %r12, %r10, 4;
  add.s32 %r13, %r12, %r11;
  shl.b32 %r14, %r13, 2;
  mov.u32 %r15, slot;
  add.s32 %r16, %r15, %r14;
  st.shared.f32 [%r16], %f3;
  bar.sync 0;
  setp.ne.s32 %p7, %r1, 0;
  @%p7 bra DONE;
  mov.u32 %r17, 0;
LOOP:
  shl.b32 %r18, %r17, 2;
  add.s32 %r19, %r15, %r18;
  ld.shared.f32 %f4, [%r19];
  mul.wide.u32 %rd5, %r17, 4;
  add.s64 %rd6, %rd2, %rd5;
  st.global.f32 [%rd6], %f4;
  add.s32 %r17, %r17, 1;
  setp.lt.u32 %p6, %r17, 32;
  @%p6 bra LOOP;
DONE:
  ret;
}}
"""

EXCHANGE = """  mov.b32 %r2, %f1;
  shfl.sync.bfly.b32 %r3, %r2, 16, 31, -1;
  mov.b32 %f2, %r3;
  setp.gt.f32 %p2, %f1, %f2;
  xor.pred %p3, %p2, %p1;
  selp.f32 %f3, %f2, %f1, %p3;
"""

# the same step with the pair packed into a 64-bit register and taken back out, as sm_100 code moves
# f32x2 values: `{hi}` names the half the compare reads back (%r5 is the partner's value)
PACKED = """  mov.b32 %r2, %f1;
  shfl.sync.bfly.b32 %r3, %r2, 16, 31, -1;
  mov.b64 %rd7, {{%r2, %r3}};
  mov.b64 {{%r4, %r5}}, %rd7;
  mov.b32 %f5, {own};
  mov.b32 %f2, %r5;
  setp.gt.f32 %p2, %f5, %f2;
  xor.pred %p3, %p2, %p1;
  selp.f32 %f3, %f2, %f5, %p3;
"""

BIT = "  bfe.u32 %r20, %r1, {b}, 1;"  # the direction: lane bit b of tid
LOADED = "  mov.b32 %r21, %f1;\n  and.b32 %r20, %r21, 8;"  # the direction from the loaded value
CTAID = "  mov.u32 %r22, %ctaid.x;\n  add.s32 %r23, %r1, %r22;\n  bfe.u32 %r20, %r23, 3, 1;"  # lane bit 3 of tid + ctaid


def ptx(direction: str, exchange: str = EXCHANGE) -> str:
    return HEAD + KERNEL.format(dir=direction, exchange=exchange)


def races(text: str) -> list[str]:
    return [d.check for d in check_ptx(text, "t.ptx") if d.severity == Severity.ERROR]


def emulate(text: str, x: np.ndarray) -> np.ndarray:
    out = np.zeros(32, np.float32)
    run_kernel(parse_ptx(text), "k", grid=1, block=64, args=[x, out], schedules=4)
    return out


def expected(x: np.ndarray, bit: int) -> np.ndarray:
    t = np.arange(64)
    partner = x[t ^ 16]
    up = ((t >> bit) & 1) != 0
    kept = np.where(up, np.maximum(x, partner), np.minimum(x, partner))
    return np.concatenate([kept[0:16], kept[32:48]])


@pytest.fixture(scope="module")
def data() -> np.ndarray:
    return np.random.default_rng(7).standard_normal(64).astype(np.float32)


@pytest.mark.parametrize("bit", [0, 2, 3])
def test_direction_from_another_lane_bit_is_one_value(bit: int, data: np.ndarray) -> None:
    text = ptx(BIT.format(b=bit))
    if find_ptxas():
        assert run_ptxas(text, "sm_80").ok
    assert races(text) == []
    np.testing.assert_array_equal(emulate(text, data), expected(data, bit))


def test_packed_pair_is_one_value(data: np.ndarray) -> None:
    text = ptx(BIT.format(b=3), PACKED.format(own="%r4"))
    if find_ptxas():
        assert run_ptxas(text, "sm_80").ok
    assert races(text) == []
    np.testing.assert_array_equal(emulate(text, data), expected(data, 3))


@pytest.mark.parametrize(
    "name,text",
    [
        # the flag is the pair's own bit: lane t keeps the minimum, lane t ^ 16 the maximum
        ("own-bit", ptx(BIT.format(b=4))),
        # the flag comes from each lane's own loaded value
        ("loaded", ptx(LOADED)),
        # the packed pair unpacked to the wrong half: each lane compares the partner with itself
        ("packed-wrong-half", ptx(BIT.format(b=3), PACKED.format(own="%r5"))),
    ],
)
def test_near_misses_stay_races(name: str, text: str, data: np.ndarray) -> None:
    assert "shared-race" in races(text), name
    with pytest.raises(RaceError):
        emulate(text, data)


def test_ctaid_mixed_in_is_not_evaluated() -> None:
    """`tid + ctaid`'s bit 3 is the same for both lanes of a xor-16 pair in every block, but its per-thread
    value depends on a block index the evaluation does not know, so the flag's lane bits are not computed
    (`_COORDINATES`) and the store stays reported: the rule never evaluates `ctaid` as block 0's."""
    assert "shared-race" in races(ptx(CTAID))
