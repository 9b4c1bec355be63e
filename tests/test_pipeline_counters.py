"""Loop-carried counters kept in step (`irc.analysis.symbolic.invariants`) and what they decide.

libcu++'s `cuda::pipeline` keeps a head and a tail counter and selects `cp.async.wait_group (head - tail)`
through a switch; the tail steps under a test that the counters never meet. The encoder leaves the tail
unknown (it is not an induction variable), so every case of the switch looked possible and the dataflow
took the deepest wait for all of them: the consumer reading the stage being filled was missed
(`cpa_read_filling_stage` in the suite). The induction proof relates the tail to the head; the solver
then proves all cases but one dead (`asyncq.edge_live`), and the dataflow merges only the live ones.

Near misses, still undecided (live): a tail that steps on loaded data, and one that enters the loop with a
loaded value (no base case).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from irc.analysis.checks.common import FunctionContext
from irc.frontend.ptx.lift import lift_ptx

pytest.importorskip("z3")

SUITE = Path(__file__).parent / "data" / "suite" / "cuda"

KERNEL = """.version 8.0
.target sm_80
.address_size 64
.visible .entry counters(.param .u64 data, .param .u64 out, .param .u32 n)
{{
  .reg .pred %p<8>;
  .reg .b32 %r<30>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [data];
  ld.param.u64 %rd2, [out];
  ld.param.u32 %r1, [n];
  mov.u32 %r2, 0;
  mov.u32 %r3, 1;
  {tail_init}
LOOP:
  add.s32 %r3, %r3, 1;
  {test}
  @%p1 bra SKIP;
  add.s32 %r4, %r4, 1;
SKIP:
  sub.s32 %r6, %r3, %r4;
  setp.eq.s32 %p3, %r6, 1;
  @%p3 bra ONE;
  st.global.u32 [%rd2], %r6;
ONE:
  add.s32 %r2, %r2, 1;
  setp.lt.s32 %p2, %r2, %r1;
  @%p2 bra LOOP;
  ret;
}}
"""

NEVER_MEET = "setp.eq.s32 %p1, %r3, %r4;"  # head == tail: never, so the tail always steps
ON_DATA = "ld.global.u32 %r5, [%rd1];\n  setp.eq.s32 %p1, %r5, 0;"  # the tail steps when the data say so
CONST_TAIL = "mov.u32 %r4, 0;"
LOADED_TAIL = "ld.global.u32 %r4, [%rd1+4];"


def _ctx(src: str, name: str = "k.ptx") -> FunctionContext:
    mod, _ = lift_ptx(src, name)
    fn = next(f for f in mod.functions if f.blocks)
    return FunctionContext(fn, mod, "sm_80")


def _kernel(test: str, tail_init: str = CONST_TAIL) -> FunctionContext:
    return _ctx(KERNEL.format(test=test, tail_init=tail_init))


def _tail(ctx: FunctionContext):  # type: ignore[no-untyped-def]
    (lp,) = ctx.cfg.loops
    return lp, next(a for a in lp.header.args if a.name == "r4")


def _store_edge(ctx: FunctionContext):  # type: ignore[no-untyped-def]
    """(block ending in the `head - tail == 1` test, the block with the store it skips)."""
    for b in ctx.cfg.rpo:
        if any(op.name == "store" for op in b.ops):
            (p,) = ctx.cfg.preds[b]
            return p, b
    raise AssertionError("no store")


def test_tail_kept_one_behind_the_head() -> None:
    from irc.analysis.symbolic.invariants import partners
    from irc.analysis.symbolic.queries import symbolic

    ctx = _kernel(NEVER_MEET)
    lp, tail = _tail(ctx)
    got = {(b.name, c) for b, c in partners(symbolic(ctx), tail, lp)}
    assert ("r3", (0 - 1) % (1 << 32)) in got


@pytest.mark.parametrize(
    "test,init", [(ON_DATA, CONST_TAIL), (NEVER_MEET, LOADED_TAIL)], ids=["data", "init"]
)
def test_near_misses_are_not_related(test: str, init: str) -> None:
    from irc.analysis.symbolic.invariants import partners
    from irc.analysis.symbolic.queries import symbolic

    ctx = _kernel(test, init)
    lp, tail = _tail(ctx)
    assert all(b.name != "r3" for b, _ in partners(symbolic(ctx), tail, lp))


def test_edge_dead_only_with_the_invariant() -> None:
    from irc.analysis.symbolic.asyncq import edge_live

    ctx = _kernel(NEVER_MEET)
    p, s = _store_edge(ctx)
    assert not edge_live(ctx, p, s)
    for test, init in ((ON_DATA, CONST_TAIL), (NEVER_MEET, LOADED_TAIL)):
        ctx = _kernel(test, init)
        p, s = _store_edge(ctx)
        assert edge_live(ctx, p, s), (test, init)


def _findings(name: str, variant: str) -> list:
    from irc.compiler import check_ptx

    path = SUITE / f"{name}.{variant}.sm_80.ptx"
    return [d for d in check_ptx(path.read_text(), str(path)) if d.severity.name == "ERROR"]


def test_pipeline_switch_selects_one_wait() -> None:
    """The real kernel: the read of the stage being filled is found (it was silent while every case of the
    switch counted), and the twin, which reads the stage the selected `wait_group 1` completed, is clean."""
    bug = _findings("cpa_read_filling_stage", "bug")
    assert [d.check for d in bug] == ["async-unwaited"]
    assert _findings("cpa_read_filling_stage", "ok") == []


def test_stale_wait_does_not_cover_a_new_copy() -> None:
    """`if (k + 1 < n) cp.async(..)`: the path around the copy still holds the wait of iteration k - 1.
    That wait says nothing of the copy of iteration k, which the read before this iteration's wait sees in
    flight; the twin reads the other stage and is clean."""
    bug = _findings("cpa_guarded_prefetch_peek", "bug")
    assert [d.check for d in bug] == ["async-unwaited"]
    assert _findings("cpa_guarded_prefetch_peek", "ok") == []
