"""Two shapes nvcc gives a polling wait, which the symbolic encoding must see through:

- rotated: `if (!test_wait) do { nanosleep; } while (!test_wait)`. Both sides of the first test go on
  past the wait, so it is no path condition (else the wait's result stays in the reach of everything after
  it, as an unknown, and questions about who arrives go silent);
- the wait is the loop body's first instruction, so its retry edge jumps to the loop header and passes the
  stage index unchanged: the index is still one of the ring's values (else it is an unknown: a question
  about `bar + 8 * s` goes silent here, and in other shapes it "reaches" barriers nobody initialised, a
  false `mbarrier-uninitialized` on a correct warp-specialised GEMM).
Each with its near miss."""

from __future__ import annotations

import pytest

from irc.analysis.checks.common import FunctionContext
from irc.analysis.symbolic.queries import symbolic
from irc.compiler import check_ptx
from irc.frontend.ptx.lift import lift_module
from irc.frontend.ptx.parser import parse_ptx
from irc.ptxas import find_ptxas, run_ptxas

_ROTATED = """\
.version 8.0
.target sm_80
.address_size 64

.visible .entry k(.param .u64 out)
.reqntid 128, 1, 1
{{
  .shared .align 8 .b64 bar;
  .reg .pred %p<4>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, bar;
  setp.eq.u32 %p1, %r1, 0;
  @%p1 mbarrier.init.shared.b64 [%r2], 128;
  bar.sync 0;
  mbarrier.arrive.shared.b64 %rd1, [%r2];
  mov.u32 %r3, 0;
  mbarrier.test_wait.parity.shared.b64 %p2, [%r2], %r3;
  @%p2 bra $L_done;
$L_spin:
  {sleep}
  mbarrier.test_wait.parity.shared.b64 %p3, [%r2], %r3;
  @!%p3 bra {target};
$L_done:
  ld.param.u64 %rd2, [out];
  st.global.u32 [%rd2], %r1;
$L_other:
  ret;
}}
"""


def _reach_is_pure(text: str) -> bool:
    if find_ptxas():
        r = run_ptxas(text, "sm_80")
        assert r.ok, r.stderr
    module, _ = lift_module(parse_ptx(text, "k.ptx"), text)
    fn = module.functions[0]
    ctx = FunctionContext(fn, module, "sm_80")
    store = next(b for b in fn.blocks for op in b.ops if op.name == "store")
    sym = symbolic(ctx)
    assert sym is not None
    return sym.enc.pure(sym.enc.reach(store, sym.enc.thread("a")))


@pytest.mark.parametrize("sleep", ["mov.u32 %r4, 20;\n  nanosleep.u32 %r4;", ""])
def test_rotated_poll_is_no_path_condition(sleep: str) -> None:
    assert _reach_is_pure(_ROTATED.format(sleep=sleep, target="$L_spin"))


def test_a_branch_on_the_wait_that_does_not_poll_is_a_path_condition() -> None:
    """Near miss: the failed test goes elsewhere (`$L_other`), so whether the store runs depends on it."""
    assert not _reach_is_pure(_ROTATED.format(sleep="", target="$L_other"))


_RING = """\
.version 8.0
.target sm_90
.address_size 64

.visible .entry k(.param .u64 out, .param .u32 n)
.reqntid 128, 1, 1
{{
  .shared .align 8 .b8 bars[24];
  .reg .pred %p<6>;
  .reg .b32 %r<20>;
  .reg .b64 %rd<4>;
  mov.u32 %r1, %tid.x;
  ld.param.u32 %r2, [n];
  mov.u32 %r3, bars;
  setp.eq.u32 %p1, %r1, 0;
  @%p1 mbarrier.init.shared.b64 [bars], 128;
  @%p1 mbarrier.init.shared.b64 [bars+8], 128;
{third}
  bar.sync 0;
  mov.u32 %r4, 0;
  mov.u32 %r5, 0;
  mov.u32 %r6, 0;
$L_loop:
  shl.b32 %r7, %r5, 3;
  add.u32 %r8, %r3, %r7;
  mbarrier.try_wait.parity.shared.b64 %p2, [%r8], %r6;
  @!%p2 bra $L_loop;
  mbarrier.arrive.shared.b64 %rd1, [%r8];
  add.u32 %r9, %r5, 1;
  setp.eq.u32 %p3, %r9, {stages};
  selp.u32 %r10, 1, 0, %p3;
  xor.b32 %r6, %r6, %r10;
  selp.b32 %r5, 0, %r9, %p3;
  add.u32 %r4, %r4, 1;
  setp.lt.u32 %p4, %r4, %r2;
  @%p4 bra $L_loop;
  ld.param.u64 %rd2, [out];
  st.global.u32 [%rd2], %r4;
  ret;
}}
"""


@pytest.mark.parametrize(
    "stages,third,bad",
    [
        (2, "", False),  # s in {0, 1}: both barriers initialised
        (3, "  @%p1 mbarrier.init.shared.b64 [bars+16], 128;", False),
        (3, "", True),  # s reaches 2: bars+16 is used and never initialised
    ],
)
def test_stage_index_with_a_retry_edge_stays_in_its_ring(stages: int, third: str, bad: bool) -> None:
    text = _RING.format(stages=stages, third=third)
    if find_ptxas():
        r = run_ptxas(text, "sm_90")
        assert r.ok, r.stderr
    found = [d for d in check_ptx(text, "k.ptx") if d.check == "mbarrier-uninitialized"]
    assert bool(found) == bad, [d.message for d in found]
