"""Two `shared-race` shapes from kernels written elsewhere.

1. A shared histogram updated with a plain read-modify-write (`bins[v] += 1`, the bin read from the input):
   two threads whose data pick one bin lose an update. The address comes from loaded data, which the race
   question otherwise leaves alone (a scatter through a permutation collides only if the data say so);
   the read-modify-write of a data-chosen slot is judged (`races.read_modify_write`). Near misses: the
   atomic update, a plain scatter (no load of the slot), a load and store of the slot whose stored value
   is not computed from the load: silent. The emulator agrees on the bug and the atomic twin.
2. A warp-synchronous reduction (`s[lane] += s[lane + off]` unrolled, no `__syncwarp()`) after many
   block-interval pairs: each run of intervals (block, warp) has its own pair budget, so the block run
   cannot use up the warp run's.
"""

from __future__ import annotations

import numpy as np
import pytest

import irc.analysis.checks.shared_race as shared_race
from irc.compiler import check_ptx
from irc.diagnostics import Severity
from irc.emu import RaceError, run_kernel
from irc.frontend.ptx.parser import parse_ptx
from irc.ptxas import find_ptxas, run_ptxas

HIST = """.version 8.0
.target sm_80
.address_size 64
.shared .align 4 .b8 bins[1024];
.visible .entry hist(.param .u64 data, .param .u64 out, .param .u32 n){bound}
{{
  .reg .pred %p<4>;
  .reg .b32 %r<30>;
  .reg .b64 %rd<10>;
  ld.param.u64 %rd1, [data];
  ld.param.u64 %rd2, [out];
  ld.param.u32 %r1, [n];
  mov.u32 %r2, %tid.x;
  mov.u32 %r3, bins;
  shl.b32 %r4, %r2, 2;
  add.s32 %r5, %r3, %r4;
  st.shared.u32 [%r5], 0;
  st.shared.u32 [%r5+512], 0;
  bar.sync 0;
  setp.ge.u32 %p1, %r2, %r1;
  @%p1 bra COUNTED;
  cvt.u64.u32 %rd3, %r2;
  add.s64 %rd4, %rd1, %rd3;
  ld.global.u8 %r6, [%rd4];
  shl.b32 %r7, %r6, 2;
  add.s32 %r8, %r3, %r7;
{update}
COUNTED:
  bar.sync 0;
  mul.wide.u32 %rd5, %r2, 4;
  add.s64 %rd6, %rd2, %rd5;
  ld.shared.u32 %r10, [%r5];
  st.global.u32 [%rd6], %r10;
  ld.shared.u32 %r11, [%r5+512];
  st.global.u32 [%rd6+512], %r11;
  ret;
}}
"""
RMW = "  ld.shared.u32 %r9, [%r8];\n  add.s32 %r12, %r9, 1;\n  st.shared.u32 [%r8], %r12;"
ATOMIC = "  atom.shared.add.u32 %r9, [%r8], 1;"
SCATTER = "  st.shared.u32 [%r8], %r2;"
NOT_FROM_LOAD = "  ld.shared.u32 %r9, [%r8];\n  st.shared.u32 [%r8], %r2;\n  st.global.u32 [%rd2], %r9;"
BOUND = " .reqntid 128, 1, 1"
# cuda-samples' histogram64 idiom: a per-thread column (`s[tid + bin * 64]`), race-free with 64 threads
PER_THREAD = (
    "  and.b32 %r13, %r6, 3;\n  shl.b32 %r14, %r13, 6;\n  add.s32 %r15, %r14, %r2;\n  shl.b32 %r16, %r15, 2;\n"
    "  add.s32 %r17, %r3, %r16;\n  ld.shared.u32 %r9, [%r17];\n  add.s32 %r12, %r9, 1;\n  st.shared.u32 [%r17], %r12;"
)


def hist(update: str, bound: str = BOUND) -> str:
    return HIST.format(update=update, bound=bound)


def races(text: str) -> list:
    return [
        d for d in check_ptx(text, "hist.ptx") if d.severity == Severity.ERROR and d.check == "shared-race"
    ]


def emulate(text: str, data: np.ndarray) -> np.ndarray:
    out = np.zeros(256, np.uint32)
    run_kernel(
        parse_ptx(text), "hist", grid=1, block=128, args=[data, out, np.uint32(len(data))], schedules=4
    )
    return out


@pytest.fixture(scope="module")
def data() -> np.ndarray:
    return (np.arange(128) % 5).astype(np.uint8)  # many threads per bin


@pytest.mark.parametrize("bound", [BOUND, ""], ids=["reqntid", "no-launch-bound"])
def test_histogram_read_modify_write_is_a_race(bound: str, data: np.ndarray) -> None:
    text = hist(RMW, bound)
    if find_ptxas():
        assert run_ptxas(text, "sm_80").ok
    (d,) = races(text)
    assert "slot chosen by loaded data" in d.message and "atomic" in (d.help or "")
    assert d.witness is not None and "their loaded data pick the same slot" in d.witness["text"]
    if bound:
        with pytest.raises(RaceError):
            emulate(text, data)


def test_atomic_histogram_is_clean(data: np.ndarray) -> None:
    text = hist(ATOMIC)
    assert races(text) == []
    assert (emulate(text, data) == np.bincount(data, minlength=256)).all()


@pytest.mark.parametrize("update", [SCATTER, NOT_FROM_LOAD], ids=["scatter", "store-not-from-load"])
def test_near_misses_are_not_judged(update: str) -> None:
    assert races(hist(update)) == []


# lane `l` of each warp adds s[l + off] for off = 16, 8, 4, 2, 1 (lanes below off), no `bar.warp.sync`
# between the steps; before it, every thread writes and reads eight words of `pad` (block-interval pairs)
WARP = """.version 8.0
.target sm_80
.address_size 64
.shared .align 4 .b8 pad[4096];
.shared .align 4 .b8 part[256];
.visible .entry wred(.param .u64 out) .reqntid 64, 1, 1
{{
  .reg .pred %p<8>;
  .reg .b32 %r<40>;
  .reg .f32 %f<20>;
  .reg .b64 %rd<6>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, pad;
  shl.b32 %r3, %r1, 2;
  add.s32 %r4, %r2, %r3;
{pad}
  bar.sync 0;
  and.b32 %r5, %r1, 31;
  shr.u32 %r6, %r1, 5;
  mov.u32 %r7, part;
  shl.b32 %r8, %r6, 7;
  add.s32 %r9, %r7, %r8;
  shl.b32 %r10, %r5, 2;
  add.s32 %r11, %r9, %r10;
  cvt.rn.f32.u32 %f1, %r1;
  st.shared.f32 [%r11], %f1;
  bar.warp.sync -1;
  ld.shared.f32 %f2, [%r11];
{steps}
  ld.shared.f32 %f3, [%r9];
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.f32 [%rd3], %f3;
  ret;
}}
"""
STEP = """  setp.lt.u32 %p{i}, %r5, {off};
  @!%p{i} bra S{i};
  ld.shared.f32 %f{j}, [%r11+{b}];
  add.f32 %f2, %f2, %f{j};
  st.shared.f32 [%r11], %f2;
S{i}:
"""


def warp_reduction(sync: bool) -> str:
    pad = "".join(
        f"  st.shared.u32 [%r4+{256 * k}], %r1;\n  ld.shared.u32 %r{20 + k}, [%r4+{256 * k}];\n"
        for k in range(8)
    )
    steps = "".join(
        STEP.format(i=i, j=4 + i, off=off, b=4 * off) + ("  bar.warp.sync -1;\n" if sync else "")
        for i, off in enumerate((16, 8, 4, 2, 1), start=1)
    )
    return WARP.format(pad=pad, steps=steps)


def test_warp_reduction_race_found_after_many_block_pairs(monkeypatch: pytest.MonkeyPatch) -> None:
    """With a pair budget smaller than the block run's pairs, the warp run still has its own."""
    text = warp_reduction(sync=False)
    if find_ptxas():
        assert run_ptxas(text, "sm_80").ok
    monkeypatch.setattr(shared_race, "MAX_PAIRS", 60)
    found = races(text)
    assert found and all("lanes of one warp" in d.message for d in found)


def test_warp_reduction_with_syncwarp_is_clean(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(shared_race, "MAX_PAIRS", 60)
    assert races(warp_reduction(sync=True)) == []


@pytest.mark.parametrize(
    ("bound", "racy"),
    [(" .reqntid 64, 1, 1", False), ("", False), (BOUND, True)],
    ids=["64-threads", "no-launch-bound", "128-threads"],
)
def test_per_thread_columns(bound: str, racy: bool) -> None:
    """A slot chosen by the data and the thread: with 64 threads the columns never meet (the solver proves
    it), with 128 they do (threads t and t + 64), and with no launch bound the block shape decides, so the
    guessed shapes do not judge it (cuda-samples' histogram64 runs with 64 threads)."""
    assert bool(races(hist(PER_THREAD, bound))) == racy
