"""Loop facts for the solver and the lifter's SSA, from the unseen batch-4 kernels (stop 36).

- A stage ring (`if (++index == STAGES) { index = 0; phase ^= 1; }`, CUTLASS's pipeline state) in a loop
  whose body holds a polling wait is `k % 4`, never 4 (in the batch-4 kernel the lifter's stale phi, below,
  hid the ring, and the solver placed a stage's rows over the barriers after them). Near miss: a ring that
  wraps at a kernel parameter is not a ring of constant size.
- A loop whose back edge tests its counter alone (`r += 512; if (r != 2048) continue`) has a last
  iteration, 3: `exists` only asked that iteration k - 1 went on, which the `!=` test also says of k = 5.
  Near miss: a bound from a parameter gives no last iteration.
- The lifter: a value read through a phi that a later read found trivial and replaced must be the
  replacement. Five committed PTX files (a Triton attention kernel, an nvcc online softmax, two fuzz
  crashes) had ops using block arguments their blocks no longer had.
- `shared-race` walks no edge that no thread of the evaluated block takes: a fold guarded by
  `if (blockDim.x >= 66)` and a read after it, reached from the barrier before the fold along the
  skipped-fold edge, are not one interval for any common block. Near miss: without the barrier after the
  fold the race is reported.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from irc.analysis.checks.common import FunctionContext
from irc.compiler import check_ptx
from irc.frontend.ptx.lift import lift_ptx
from irc.ir.core import BlockArg
from irc.ptxas import find_ptxas, run_ptxas

pytest.importorskip("z3")

DATA = Path(__file__).parent / "data"

RING = """.version 8.0
.target sm_90
.address_size 64
.visible .entry ring(.param .u64 out, .param .u32 steps)
{
  .reg .pred %p<8>;
  .reg .b32 %r<40>;
  .reg .b64 %rd<8>;
  .shared .align 8 .b8 bars[32];
  .shared .align 16 .b8 rows[8192];
  ld.param.u32 %r1, [steps];
  mov.u32 %r2, %tid.x;
  mov.u32 %r3, bars;
  mov.u32 %r4, rows;
  mov.u32 %r10, 0;
  mov.u32 %r11, 0;
  mov.u32 %r12, 1;
LOOP:
  shl.b32 %r13, %r11, 3;
  add.s32 %r14, %r3, %r13;
  {
  .reg .pred done;
  RETRY:
  mbarrier.try_wait.parity.shared::cta.b64 done, [%r14], %r12;
  @!done bra RETRY;
  }
  shl.b32 %r15, %r11, 11;
  add.s32 %r16, %r4, %r15;
  shl.b32 %r17, %r2, 2;
  add.s32 %r18, %r16, %r17;
  mov.u32 %r20, 0;
INNER:
  st.shared.u32 [%r18], %r20;
  add.s32 %r18, %r18, 512;
  add.s32 %r20, %r20, 512;
  setp.ne.s32 %p2, %r20, 2048;
  @%p2 bra INNER;
  add.s32 %r21, %r11, 1;
  setp.eq.s32 %p3, %r21, 4;
  selp.u32 %r22, 1, 0, %p3;
  xor.b32 %r12, %r12, %r22;
  selp.b32 %r11, 0, %r21, %p3;
  add.s32 %r10, %r10, 1;
  setp.lt.s32 %p4, %r10, %r1;
  @%p4 bra LOOP;
  ret;
}
"""

FOLD = """.version 8.0
.target sm_80
.address_size 64
.visible .entry fold(.param .u64 out)
{
  .reg .pred %p<8>;
  .reg .b32 %r<30>;
  .reg .f32 %f<8>;
  .reg .b64 %rd<6>;
  .shared .align 4 .b8 s[4096];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, s;
  shl.b32 %r3, %r1, 2;
  add.s32 %r4, %r2, %r3;
  cvt.rn.f32.u32 %f1, %r1;
  st.shared.f32 [%r4], %f1;
  bar.sync 0;
  mov.u32 %r5, %ntid.x;
  setp.lt.u32 %p1, %r5, {limit};
  @%p1 bra AFTER;
  setp.ge.u32 %p2, %r1, 64;
  @%p2 bra SYNC;
  ld.shared.f32 %f2, [%r4+256];
  ld.shared.f32 %f3, [%r4];
  add.f32 %f4, %f2, %f3;
  st.shared.f32 [%r4], %f4;
SYNC:
  bar.sync 0;
AFTER:
  setp.ge.u32 %p3, %r1, 32;
  @%p3 bra END;
  ld.shared.f32 %f5, [%r4+128];
  ld.param.u64 %rd1, [out];
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.f32 [%rd3], %f5;
END:
  ret;
}
"""


def _ctx(src: str, arch: str) -> FunctionContext:
    mod, _ = lift_ptx(src, "k.ptx")
    fn = next(f for f in mod.functions if f.blocks)
    return FunctionContext(fn, mod, arch)


def _ring_facts(src: str):  # type: ignore[no-untyped-def]
    from irc.analysis.symbolic.queries import symbolic

    ctx = _ctx(src, "sm_90")
    sym = symbolic(ctx)
    enc, z = sym.enc, sym.enc.z
    outer = max(ctx.cfg.loops, key=lambda lp: len(lp.blocks))
    inner = next(
        lp
        for lp in ctx.cfg.loops
        if any(op.name == "store" for b in lp.blocks for op in b.ops) and lp is not outer
    )
    th = enc.thread("a")
    idx = enc.value(next(a for a in outer.header.args if a.name == "r11"), th)
    past_ring = sym.solve([z.UGE(idx, 4)], threads=("a",), prefer=False)
    k = enc.iteration(inner, th)
    at = {n: sym.solve([enc.exists(inner, th), k == n], threads=("a",), prefer=False) for n in (3, 5)}
    return past_ring, at


@pytest.mark.skipif(find_ptxas() is None, reason="ptxas not installed")
def test_kernels_assemble() -> None:
    assert run_ptxas(RING, "sm_90").ok
    assert run_ptxas(FOLD.replace("{limit}", "66"), "sm_80").ok


def test_ring_through_a_polling_wait_stays_in_range() -> None:
    past_ring, _ = _ring_facts(RING)
    assert past_ring.unsat


def test_ring_wrapping_at_a_parameter_is_not_bounded() -> None:
    src = RING.replace("setp.eq.s32 %p3, %r21, 4;", "setp.eq.s32 %p3, %r21, %r1;")
    past_ring, _ = _ring_facts(src)
    assert past_ring.sat


def test_counter_loop_has_a_last_iteration() -> None:
    _, at = _ring_facts(RING)
    assert at[3].sat and at[5].unsat


def test_parameter_bound_loop_has_none() -> None:
    _, at = _ring_facts(RING.replace("setp.ne.s32 %p2, %r20, 2048;", "setp.ne.s32 %p2, %r20, %r1;"))
    assert at[3].sat and at[5].sat


@pytest.mark.parametrize(
    "path",
    [
        "triton_suite/ptx/attn_fwd_tma_causal.sm_100a.ptx",
        "ptx/nvcc/ok_online_softmax.sm_80.ptx",
        "ptx/nvcc/ok_online_softmax.sm_100a.ptx",
        "fuzz/crash_mbarrier_depends_at_entry.ptx",
        "fuzz/crash_mbarrier_phi_at_entry.ptx",
    ],
)
def test_no_op_uses_a_removed_phi(path: str) -> None:
    mod, _ = lift_ptx((DATA / path).read_text(), path)
    for fn in mod.functions:
        for b in fn.blocks:
            for op in b.ops:
                for o in op.operands:
                    assert not (isinstance(o, BlockArg) and o not in o.block.args), (fn.name, op.name, o.name)


def _races(src: str) -> list:
    return [d for d in check_ptx(src, "fold.ptx") if d.check == "shared-race"]


def test_skipped_fold_edge_is_not_walked() -> None:
    assert _races(FOLD.replace("{limit}", "66")) == []


def test_fold_without_its_barrier_is_still_a_race() -> None:
    src = FOLD.replace("{limit}", "66").replace("SYNC:\n  bar.sync 0;\n", "SYNC:\n")
    assert len(_races(src)) == 1
