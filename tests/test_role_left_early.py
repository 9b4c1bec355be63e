"""`mbarrier-arrival-mismatch` for a role that can leave before arriving: the count is every thread of
the role, and a parameter lets some of them `return` first (nothing retires their arrivals), so the phase
never completes. Near misses: no early exit, an exit that every thread takes together (a block-uniform
trip count), and a count below the role (not this rule). Also nvcc's `warp == k` idiom, `(tid & -32) ==
32 * k`, read as a `tid.x` interval by `threads_of`."""

from __future__ import annotations

import pytest

from irc.analysis.checks.common import FunctionContext
from irc.analysis.mbarrier import threads_of
from irc.compiler import check_kdsl
from irc.frontend.ptx.lift import lift_module
from irc.frontend.ptx.parser import parse_ptx

KERNEL = """
@launch(block = 128)
kernel strips(out: *global f32, map: tensormap<f32; 32, 96>, ntiles: u32, ncols: u32) {{
    shared tiles: [f32; 2, 32, 96] align 128;
    shared full: [mbarrier; 2];
    shared empty: [mbarrier; 2];
    if tid.x == 0 {{
        for s in 0..2 {{
            mbarrier_init(&full[s], 1);
            mbarrier_init(&empty[s], {count});
        }}
        fence_mbarrier_init();
    }}
    barrier();
    if tid.x < 32 {{
        if tid.x == 0 {{
            for k in 0..ntiles {{
                let s = k % 2;
                if k >= 2 {{
                    mbarrier_wait(&empty[s], (k / 2 - 1) % 2);
                }}
                mbarrier_arrive_expect_tx(&full[s], 12288);
                tma_load(&tiles[s, 0, 0], map, [0, (k * 32) as i32], &full[s]);
            }}
        }}
        return;
    }}
    let c = tid.x - 32;
{leave}
    var acc = 0.0;
    for k in 0..ntiles {{
        let s = k % 2;
        mbarrier_wait(&full[s], (k / 2) % 2);
        acc += tiles[s, 0, c];
        mbarrier_arrive(&empty[s]);
    }}
    if c < ncols {{
        out[c] = acc;
    }}
}}
"""


def _arrival(leave: str, count: int = 96) -> list:
    src = KERNEL.format(leave=leave, count=count)
    return [d for d in check_kdsl(src, "k.kdsl", arch="sm_90a") if d.check == "mbarrier-arrival-mismatch"]


@pytest.mark.parametrize(
    "leave,bad",
    [
        ("    if c / 32 * 32 >= ncols { return; }", True),  # an idle warp leaves without retiring arrivals
        ("", False),  # every consumer stays and arrives
        ("    if ntiles == 0 { return; }", False),  # all threads leave together: no phase is in use
    ],
)
def test_role_that_leaves_before_arriving(leave: str, bad: bool) -> None:
    found = _arrival(leave)
    assert bool(found) == bad, [d.message for d in found]
    if bad:
        d = found[0]
        lines = KERNEL.format(leave=leave, count=96).split("\n")
        assert d.span is not None and "return" in lines[d.span.line - 1]
        assert "never arrive" in d.witness["text"] and "ncols" in d.witness["text"]


def test_a_count_below_the_role_is_not_this_rule() -> None:
    """With a count of 64 every phase gets more arrivals than it counts when no warp leaves: the rule
    asks only when the count is the whole role."""
    assert not any(
        "can leave before arriving" in d.message
        for d in _arrival("    if c / 32 * 32 >= ncols { return; }", 64)
    )


_PTX = """\
.version 8.0
.target sm_90a
.address_size 64
.visible .entry k(.param .u64 out)
.reqntid 128, 1, 1
{{
  .reg .pred %p<3>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<3>;
  mov.u32 %r1, %tid.x;
  and.b32 %r2, %r1, -32;
  setp.{pred}.s32 %p1, %r2, {k};
  @%p1 bra $L_skip;
  ld.param.u64 %rd1, [out];
  st.global.u32 [%rd1], %r1;
$L_skip:
  ret;
}}
"""


@pytest.mark.parametrize(
    "pred,k,want",
    [("ne", 32, (32, 63)), ("ne", 0, (0, 31)), ("eq", 0, (32, 127)), ("ne", 16, None)],
)
def test_warp_index_by_mask(pred: str, k: int, want: tuple[int, int] | None) -> None:
    """`(tid & -32) == 32` selects warp 1; `== 16` is no warp (no tid interval decided)."""
    text = _PTX.format(pred=pred, k=k)
    module, _ = lift_module(parse_ptx(text, "k.ptx"), text)
    fn = module.functions[0]
    ctx = FunctionContext(fn, module, "sm_90a")
    store = next(b for b in fn.blocks for op in b.ops if op.name == "store")
    th = threads_of(fn, ctx.cfg, store)
    if want is None:
        assert th.lo != th.hi or th.tids == (0, 127)
    else:
        assert th.tids == want and th.lo == th.hi == want[1] - want[0] + 1


_TOKENS = """\
.version 8.0
.target sm_80
.address_size 64

.visible .entry smooth(.param .u64 out, .param .u32 active, .param .u32 iters)
.reqntid 128, 1, 1
{{
  .shared .align 8 .b64 bar;
  .reg .pred %p<8>;
  .reg .b32 %r<12>;
  .reg .b64 %rd<6>;
  mov.u32 %r1, %tid.x;
  ld.param.u32 %r2, [active];
  ld.param.u32 %r3, [iters];
  mov.u32 %r4, bar;
  setp.eq.u32 %p1, %r1, 0;
  @%p1 mbarrier.init.shared.b64 [%r4], 128;
  bar.sync 0;
  {leave}
  @%p2 bra $L_exit;
  mbarrier.arrive.shared.b64 %rd1, [%r4];
$L_w0:
  mbarrier.test_wait.shared.b64 %p3, [%r4], %rd1;
  @!%p3 bra $L_w0;
  mov.u32 %r5, 0;
$L_loop:
  setp.ge.u32 %p4, %r5, %r3;
  @%p4 bra $L_done;
  mbarrier.arrive.shared.b64 %rd2, [%r4];
$L_w1:
  mbarrier.test_wait.shared.b64 %p5, [%r4], %rd2;
  @!%p5 bra $L_w1;
  add.u32 %r5, %r5, 1;
  bra.uni $L_loop;
$L_done:
  ld.param.u64 %rd3, [out];
  st.global.u32 [%rd3], %r5;
  ret;
$L_exit:
  {drop}
  ret;
}}
"""


@pytest.mark.parametrize(
    "leave,drop,bad",
    [
        ("setp.ge.u32 %p2, %r1, %r2;", "", True),  # threads past `active` leave: a cuda::barrier of 128 hangs
        ("setp.ge.u32 %p2, %r1, %r2;", "mbarrier.arrive_drop.shared.b64 %rd4, [%r4];", False),
        ("mov.u32 %r6, %ctaid.x;\n  setp.ge.u32 %p2, %r6, %r2;", "", False),  # the whole block leaves
    ],
)
def test_two_arrive_sites_with_their_own_tokens(leave: str, drop: str, bad: bool) -> None:
    """`cuda::barrier::arrive_and_wait()` before a loop and in it: two arrive sites, each of which fills a
    phase alone, and waits on their own tokens (one phase per use by construction)."""
    from irc.compiler import check_ptx
    from irc.ptxas import find_ptxas, run_ptxas

    text = _TOKENS.format(leave=leave, drop=drop)
    if find_ptxas():
        r = run_ptxas(text, "sm_80")
        assert r.ok, r.stderr
    found = [d for d in check_ptx(text, "k.ptx") if d.check == "mbarrier-arrival-mismatch"]
    assert bool(found) == bad, [d.message for d in found]
    if bad:
        assert found[0].span is not None and "bra $L_exit" in text.splitlines()[found[0].span.line - 1]
        assert "never arrive" in found[0].witness["text"]


_ONE_SYMBOL = """\
.version 8.0
.target sm_90
.address_size 64

.visible .entry strips(.param .u64 out, .param .u32 ncols, .param .u32 ntiles)
.reqntid 128, 1, 1
{{
  .shared .align 8 .b8 bars[16];
  .reg .pred %p<10>;
  .reg .b32 %r<16>;
  .reg .b64 %rd<6>;
  mov.u32 %r1, %tid.x;
  ld.param.u32 %r2, [ncols];
  ld.param.u32 %r3, [ntiles];
  setp.eq.u32 %p1, %r1, 0;
  @%p1 mbarrier.init.shared.b64 [bars], 1;
  @%p1 mbarrier.init.shared.b64 [bars+8], 96;
  bar.sync 0;
  mov.u32 %r4, 0;
  setp.ge.u32 %p2, %r1, 32;
  @%p2 bra $L_consumer;
  @!%p1 bra $L_end;
$L_produce:
  setp.ge.u32 %p3, %r4, %r3;
  @%p3 bra $L_end;
  and.b32 %r5, %r4, 1;
  xor.b32 %r5, %r5, 1;
$L_pw:
  mbarrier.try_wait.parity.shared.b64 %p4, [bars+8], %r5;
  @!%p4 bra $L_pw;
  mbarrier.arrive.expect_tx.shared.b64 %rd1, [bars], 0;
  add.u32 %r4, %r4, 1;
  bra.uni $L_produce;
$L_consumer:
  sub.u32 %r6, %r1, 32;
  {leave}
  mov.u32 %r8, 0;
$L_consume:
  setp.ge.u32 %p6, %r4, %r3;
  @%p6 bra $L_end;
  and.b32 %r7, %r4, 1;
$L_cw:
  mbarrier.try_wait.parity.shared.b64 %p7, [bars], %r7;
  @!%p7 bra $L_cw;
  mbarrier.arrive.shared.b64 %rd2, [bars+8];
  add.u32 %r4, %r4, 1;
  bra.uni $L_consume;
$L_end:
  ld.param.u64 %rd3, [out];
  st.global.u32 [%rd3], %r4;
  ret;
}}
"""


@pytest.mark.parametrize(
    "leave,bad",
    [
        ("setp.ge.u32 %p5, %r6, %r2;\n  @%p5 bra $L_end;", True),  # consumers past ncols leave
        ("", False),  # every consumer stays
    ],
)
def test_barriers_of_two_counts_in_one_symbol(leave: str, bad: bool) -> None:
    """`full` (count 1) and `empty` (count 96) in one shared allocation, as a struct puts them: the rule
    is asked per element group of one count."""
    from irc.compiler import check_ptx
    from irc.ptxas import find_ptxas, run_ptxas

    text = _ONE_SYMBOL.format(leave=leave)
    if find_ptxas():
        r = run_ptxas(text, "sm_90")
        assert r.ok, r.stderr
    found = [d for d in check_ptx(text, "k.ptx") if d.check == "mbarrier-arrival-mismatch"]
    assert bool(found) == bad, [d.message for d in found]
