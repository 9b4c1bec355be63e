"""Lanes that hold one value after a butterfly whose combine the solver proves symmetric (an argmax over
(value, index) pairs) store it to one shared slot: not a race. Near misses, where the combine depends on
which lane is which, stay races; each case also runs in the emulator, whose race check agrees."""

from __future__ import annotations

import numpy as np
import pytest

from irc.compiler import check_ptx
from irc.diagnostics import Severity
from irc.emu import RaceError, run_kernel
from irc.frontend.ptx.parser import parse_ptx

HEAD = ".version 8.0\n.target sm_80\n.address_size 64\n"

# every lane loads x[tid]; (value, index) pairs go through a full xor butterfly with `COMBINE`; each lane
# then stores the pair to its warp's slot in shared memory; thread 0 of each warp copies it out
BODY = """
.shared .align 4 .b8 slot[256];
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
  mov.u32 %r2, %r1;
{steps}
  shr.u32 %r10, %r1, 5;
  shl.b32 %r11, %r10, 3;
  mov.u32 %r12, slot;
  add.s32 %r13, %r12, %r11;
  st.shared.f32 [%r13], %f1;
  st.shared.u32 [%r13+4], %r2;
  bar.sync 0;
  and.b32 %r14, %r1, 31;
  setp.ne.s32 %p7, %r14, 0;
  @%p7 bra DONE;
  ld.shared.u32 %r15, [%r13+4];
  mul.wide.u32 %rd5, %r10, 4;
  add.s64 %rd6, %rd2, %rd5;
  st.global.u32 [%rd6], %r15;
DONE:
  ret;
}}
"""

ARGMAX = """  shfl.sync.bfly.b32 %r3, %r2, {d}, 31, -1;
  mov.b32 %r4, %f1;
  shfl.sync.bfly.b32 %r5, %r4, {d}, 31, -1;
  mov.b32 %f2, %r5;
  setp.eq.f32 %p1, %f1, %f2;
  setp.lt.s32 %p2, %r2, %r3;
  and.pred %p3, %p1, %p2;
  setp.gt.f32 %p4, %f1, %f2;
  or.pred %p5, %p4, %p3;
  selp.f32 %f1, %f1, %f2, %p5;
  selp.b32 %r2, %r2, %r3, %p5;
"""


def ptx(step: str, offsets=(16, 8, 4, 2, 1)) -> str:
    return HEAD + BODY.format(steps="".join(step.format(d=d) for d in offsets))


def races(text: str) -> list[str]:
    return [d.check for d in check_ptx(text, "t.ptx") if d.severity == Severity.ERROR]


def emulate(text: str, x: np.ndarray) -> np.ndarray:
    out = np.zeros(2, np.uint32)
    run_kernel(parse_ptx(text), "k", grid=1, block=64, args=[x, out], schedules=4)
    return out


def test_argmax_butterfly_stores_one_pair() -> None:
    text = ptx(ARGMAX)
    assert races(text) == []
    x = np.random.default_rng(1).standard_normal(64).astype(np.float32)
    x[40] = x[33]  # a tie: the lower index wins in every lane
    got = emulate(text, x)
    assert list(got) == [int(np.argmax(x[:32])), 32 + int(np.argmax(x[32:]))]


@pytest.mark.parametrize(
    "name,edit",
    [
        # the tie is broken by each lane's own index: lanes of a pair keep different indices
        ("no-tiebreak", lambda s: s.replace("or.pred %p5, %p4, %p3;", "or.pred %p5, %p4, %p1;")),
        # lanes pick by their own index order without the value: not symmetric
        (
            "index-only",
            lambda s: s.replace("or.pred %p5, %p4, %p3;", "mov.pred %p5, %p2;").replace(
                "setp.lt.s32 %p2, %r2, %r3;", "setp.lt.s32 %p2, %r1, %r3;"
            ),
        ),
        # one step missing: lanes 0 and 1 hold different pairs
        ("missing-step", None),
    ],
)
def test_near_misses_stay_races(name: str, edit) -> None:  # type: ignore[no-untyped-def]
    text = ptx(ARGMAX, (16, 8, 4, 2)) if edit is None else ptx(edit(ARGMAX))
    assert "shared-race" in races(text), name
    x = np.arange(64, dtype=np.float32) % 7  # many ties
    with pytest.raises(RaceError):
        emulate(text, x)


# a 64-bit value crosses lanes as two 32-bit halves: `pack(shfl(lo(x), d), shfl(hi(x), d))` is x's value in
# lane ^ d, so `x + that` is a symmetric step (Triton's packed f32x2 and f64 reductions)
F64 = """
.shared .align 8 .b8 slot[64];
.visible .entry k(.param .u64 x, .param .u64 out) .reqntid 64, 1, 1
{{
  .reg .pred %p<4>;
  .reg .b32 %r<40>;
  .reg .f64 %fd<8>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [x];
  ld.param.u64 %rd2, [out];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd3, %r1, 8;
  add.s64 %rd4, %rd1, %rd3;
  ld.global.f64 %fd1, [%rd4];
{steps}
  shr.u32 %r10, %r1, 5;
  shl.b32 %r11, %r10, 3;
  mov.u32 %r12, slot;
  add.s32 %r13, %r12, %r11;
  st.shared.f64 [%r13], %fd1;
  bar.sync 0;
  ld.shared.f64 %fd3, [%r12];
  st.global.f64 [%rd2], %fd3;
  ret;
}}
"""
F64_STEP = """  mov.b64 {{%r2, %r3}}, %fd1;
  shfl.sync.bfly.b32 %r4, %r2, {d}, 31, -1;
  shfl.sync.bfly.b32 %r5, %r3, {e}, 31, -1;
  mov.b64 %fd2, {{%r4, %r5}};
  add.f64 %fd1, %fd1, %fd2;
"""


@pytest.mark.parametrize(("skew", "racy"), [(False, False), (True, True)])
def test_packed_64_bit_butterfly(skew: bool, racy: bool) -> None:
    """The halves shuffled by one offset: one value per warp; the near miss shuffles the high half by
    another offset in the first step (lanes then hold different sums)."""
    steps = "".join(F64_STEP.format(d=d, e=(8 if skew and d == 16 else d)) for d in (16, 8, 4, 2, 1))
    text = HEAD + F64.format(steps=steps)
    assert ("shared-race" in races(text)) == racy


def test_one_verdict_per_combine_shape(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """The five steps of the argmax butterfly repeat one combine with different offsets: the solver decides
    each shape once (the value's and the index's, and the first step's index, which is `u32` before the
    selects make it `b32`: 4 shapes) and the other steps reuse the verdict (`_VERDICTS`). Near miss: the
    no-tiebreak combine has another shape, so it is decided on its own (and still fails)."""
    import irc.analysis.symmetric as sym

    monkeypatch.setattr(sym, "_VERDICTS", {})
    decided: list[bool] = []
    real = sym._decide
    monkeypatch.setattr(sym, "_decide", lambda *a: decided.append(real(*a)) or decided[-1])
    assert races(ptx(ARGMAX)) == []
    assert decided.count(True) == 4 and len(sym._VERDICTS) == len(decided)
    before = len(decided)
    text = ptx(ARGMAX.replace("or.pred %p5, %p4, %p3;", "or.pred %p5, %p4, %p1;"))
    assert "shared-race" in races(text)
    assert len(decided) > before and not decided[-1]
