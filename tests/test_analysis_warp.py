"""Warp-structure rules of the uniformity analysis (known bits of `tid.x`), the warp-specialized role rule
of `barrier-divergence`, `ntid_x_multiple_of_32 = False`, and the TMA checks run through `check_module`."""

from __future__ import annotations

import pytest

from irc.analysis import Level, analyze_uniformity, check_module
from irc.compiler import check_ptx
from irc.ir.core import Function, Value
from irc.ir.parser import parse_module
from irc.ir.verifier import verify


def _module(body: str, params: str = "%n.0: u32", attrs: str = "", decls: str = ""):  # type: ignore[no-untyped-def]
    text = f'module "t.kdsl" {{\nkernel @k({params}){attrs} {{\n{decls}{body}\n}}\n}}\n'
    m = parse_module(text, "t.kdsl")
    assert verify(m) == [], [d.message for d in verify(m)]
    return m


def _value(fn: Function, hint: str) -> Value:
    for b in fn.blocks:
        for op in b.ops:
            for r in op.results:
                if r.name == hint:
                    return r
    raise KeyError(hint)


def _level(expr: str, attrs: str = "") -> Level:
    body = f"""^bb0:
  %tid.0 = sreg {{name = "tid.x"}} : u32
{expr}
  ret"""
    fn = _module(body, attrs=attrs).functions[0]
    return analyze_uniformity(fn).level(_value(fn, "r"))


def _masked_cmp(op: str, mask: int, pred: str, c: int) -> str:
    return f"""  %m.1 = const {{value = {mask}}} : u32
  %x.2 = {op} %tid.0, %m.1 : u32
  %c.3 = const {{value = {c}}} : u32
  %r.4 = cmp %x.2, %c.3 {{pred = "{pred}"}} : bool"""


@pytest.mark.parametrize(
    ("op", "mask", "pred", "c", "want"),
    [
        ("and", 127, "lt", 32, Level.WARP),  # Triton: (tid.x & 127) < 32
        ("and", 127, "ge", 64, Level.WARP),
        ("and", 127, "gt", 63, Level.WARP),
        ("and", 127, "le", 95, Level.WARP),
        ("and", 255, "lt", 128, Level.WARP),
        ("and", 0xFFFFFFFF, "lt", 64, Level.WARP),
        ("and", 127, "lt", 48, Level.THREAD),  # splits a warp
        ("and", 127, "gt", 64, Level.THREAD),
        ("and", 127, "eq", 0, Level.THREAD),
        ("and", 15, "lt", 32, Level.THREAD),  # the mask drops lane bits: not modelled
        ("or", 64, "lt", 96, Level.WARP),
        ("xor", 32, "ge", 32, Level.WARP),
        ("xor", 16, "lt", 32, Level.THREAD),
        ("rem", 64, "lt", 32, Level.WARP),
        ("rem", 48, "lt", 32, Level.THREAD),
    ],
)
def test_lane_preserving_comparisons(op: str, mask: int, pred: str, c: int, want: Level) -> None:
    assert _level(_masked_cmp(op, mask, pred, c)) == want


def test_functions_of_warp_bits() -> None:
    shr = """  %m.1 = const {value = 127} : u32
  %x.2 = and %tid.0, %m.1 : u32
  %c.3 = const {value = 5} : u32
  %r.4 = shr %x.2, %c.3 : u32"""
    div = """  %m.1 = const {value = 255} : u32
  %x.2 = and %tid.0, %m.1 : u32
  %c.3 = const {value = 32} : u32
  %r.4 = div %x.2, %c.3 : u32"""
    clear = """  %m.1 = const {value = 4294967264} : u32
  %r.4 = and %tid.0, %m.1 : u32"""
    chained = """  %m.1 = const {value = 127} : u32
  %x.2 = and %tid.0, %m.1 : u32
  %c.3 = const {value = 5} : u32
  %w.4 = shr %x.2, %c.3 : u32
  %r.5 = add %w.4, %n.0 : u32"""
    offset_mask = """  %k.1 = const {value = 1} : u32
  %y.2 = add %tid.0, %k.1 : u32
  %m.3 = const {value = 127} : u32
  %x.4 = and %y.2, %m.3 : u32
  %c.5 = const {value = 32} : u32
  %r.6 = cmp %x.4, %c.5 {pred = "lt"} : bool"""
    assert _level(shr) == Level.WARP
    assert _level(div) == Level.WARP
    assert _level(clear) == Level.WARP
    assert _level(chained) == Level.WARP
    assert _level(offset_mask) == Level.THREAD  # (tid.x + 1) & 127 shifts lanes across warps


def test_ntid_not_multiple_of_32_turns_warp_rules_off() -> None:
    shr = """  %c.1 = const {value = 5} : u32
  %r.2 = shr %tid.0, %c.1 : u32"""
    off = " attributes {ntid_x_multiple_of_32 = false}"
    assert _level(shr) == Level.WARP
    assert _level(shr, off) == Level.THREAD
    assert _level(_masked_cmp("and", 127, "lt", 32), off) == Level.THREAD
    # known 1-D extents still give warp structure
    assert _level(shr, " attributes {launch = [100, 1, 1], ntid_x_multiple_of_32 = false}") == Level.WARP


PTX_MAXNTID = """.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 k_param_0)
.maxntid {X}, 1, 1
{
    .reg .pred %p<4>;
    .reg .b32 %r<8>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [k_param_0];
    mov.u32 %r1, %tid.x;
    setp.lt.u32 %p1, %r1, 32;
    @!%p1 bra $L1;
    shfl.sync.bfly.b32 %r2, %r1, 1, 31, -1;
    st.global.u32 [%rd1], %r2;
$L1:
    ret;
}
"""


def test_maxntid_not_multiple_of_32_is_decided_by_the_solver() -> None:
    """With `.maxntid 100` the lattice's warp rules do not apply (the x extent is not a multiple of 32), so
    the solver decides: `tid.x < 32` splits no warp of any 1-D block of at most 100 threads (clean), while
    the near miss `tid.x < 40` splits warp 1 (reported, with lanes 0..7 of warp 1 in the witness)."""

    def found(x: int, bound: int = 32) -> list:
        text = PTX_MAXNTID.replace("{X}", str(x)).replace("%r1, 32;", f"%r1, {bound};")
        return [d for d in check_ptx(text, "m.ptx") if d.check == "warp-sync-divergence"]

    assert found(128) == []
    assert found(100) == []
    near = found(100, 40)
    assert len(near) == 1 and near[0].witness is not None
    assert "threads 32..39" in near[0].witness["text"]


# -- warp-specialized roles with a run-time driven worker loop ------------------------------------------
def _ws_kernel(default_ids: list[int], worker_exit_ids: list[int] | None = None) -> str:
    exit_ids = [0] if worker_exit_ids is None else worker_exit_ids
    dflt = "\n".join(f"  barrier {{id = {i}}}" for i in default_ids)
    ext = "\n".join(f"  barrier {{id = {i}}}" for i in exit_ids)
    return f"""^bb0:
  %tid.0 = sreg {{name = "tid.x"}} : u32
  %c5.1 = const {{value = 5}} : u32
  %warp.2 = shr %tid.0, %c5.1 : u32
  %c4.3 = const {{value = 4}} : u32
  %role.4 = cmp %warp.2, %c4.3 {{pred = "lt"}} : bool
  %s.5 = shared_addr {{sym = "state"}} : *shared u32
  %sp.6 = ptradd %s.5, %warp.2 : *shared u32
  %c3.7 = const {{value = 3}} : u32
  cbr %role.4, ^bb1, ^bb2
^bb1:
{dflt}
  ret
^bb2:
  barrier {{id = 1}}
  %st.8 = load %sp.6 : u32
  %done.9 = cmp %st.8, %c3.7 {{pred = "eq"}} : bool
  cbr %done.9, ^bb3, ^bb4
^bb3:
{ext}
  ret
^bb4:
  barrier {{id = 1}}
  barrier {{id = 1}}
  br ^bb2"""


def _barrier_findings(body: str) -> int:
    m = _module(body, attrs=" attributes {launch = [256, 1, 1]}", decls="  shared @state: [u32; 8] align 4\n")
    return sum(d.check == "barrier-divergence" for d in check_module(m))


def test_worker_loop_that_can_match_the_default_role_is_accepted() -> None:
    assert _barrier_findings(_ws_kernel([1, 1, 1, 1, 0])) == 0  # one worker iteration, then exit
    assert _barrier_findings(_ws_kernel([1, 0])) == 0  # no iteration


def test_worker_loop_that_cannot_match_is_flagged() -> None:
    assert _barrier_findings(_ws_kernel([1, 1, 1, 0])) > 0  # the loop runs barrier 1 three times per trip
    assert _barrier_findings(_ws_kernel([1, 1, 1, 1])) > 0  # the worker ends with barrier 0
    assert _barrier_findings(_ws_kernel([1, 1, 1, 1, 0], [2])) > 0
    assert _barrier_findings(_ws_kernel([])) > 0  # a role without barriers is never matched this way


def _ws_kernel_skipping(region_ids: list[int]) -> str:
    """The default role runs its warp-specialised region (`region_ids`) only when its block has a tile
    (a block-uniform branch on ctaid.x), then the exit round `1, 0`: Triton's persistent WS matmul."""
    region = "\n".join(f"  barrier {{id = {i}}}" for i in region_ids)
    k = _ws_kernel([1, 0])
    head, tail = k.split("^bb1:\n", 1)
    dflt = f"""^bb1:
  %cta.20 = sreg {{name = "ctaid.x"}} : u32
  %c8.21 = const {{value = 8}} : u32
  %has.22 = cmp %cta.20, %c8.21 {{pred = "lt"}} : bool
  cbr %has.22, ^bb5, ^bb6
^bb5:
{region}
  br ^bb6
^bb6:
"""
    return head + dflt + tail


def test_default_role_that_may_skip_its_region_is_accepted_when_every_choice_can_match() -> None:
    assert _barrier_findings(_ws_kernel_skipping([1, 1, 1])) == 0  # {1,1,1,1,0} and {1,0}: both runnable
    assert _barrier_findings(_ws_kernel_skipping([1, 1, 1, 1, 1, 1])) == 0  # two worker trips


def test_default_role_with_a_choice_the_worker_cannot_match_is_flagged() -> None:
    # near misses: {1,1,1,0} is no worker run (each trip is three barriers), nor is {1,2,1,1,0}
    assert _barrier_findings(_ws_kernel_skipping([1, 1])) > 0
    assert _barrier_findings(_ws_kernel_skipping([1, 2, 1])) > 0


# -- TMA checks through check_module ----------------------------------------------------------------
TMA = """module "tma.kdsl" {
kernel @offset64(%m.0: tensormap<f16; 64, 64>)ATTRS {
  shared @buf: [f16; 64, 64] align 128
  shared @bar: mbarrier align 8
^bb0:
  %1 = shared_addr {sym = "buf"} : *shared f16 loc(7:13:7:21)
  %2 = const {value = 64} : i64
  %3 = ptradd %1, %2 : *shared f16 loc(7:13:7:21)
  %4 = shared_addr {sym = "bar"} : *shared mbarrier loc(7:34:7:38)
  %5 = const {value = 0} : i32
  tma_load %3, %m.0, %5, %5, %4 loc(7:3:7:40)
  ret
}
}
"""


def test_check_module_runs_tma_checks() -> None:
    m = parse_module(TMA.replace("ATTRS", ""), "tma.kdsl")
    assert verify(m) == []
    diags = check_module(m, arch="sm_90a")
    # the barrier is never initialised and no thread announces the copy's bytes: the protocol checks say so
    assert [(d.check, d.span.line) for d in diags] == [
        ("mbarrier-tx-mismatch", 7),
        ("mbarrier-uninitialized", 7),
        ("tma-misaligned", 7),
    ]
    assert check_module(m, arch="sm_90a", checks=["barrier-divergence"]) == []
    assert [d.check for d in check_module(m, arch="sm_90a", checks=["tma-misaligned"])] == ["tma-misaligned"]
    allowed = parse_module(TMA.replace("ATTRS", ' attributes {allow = ["tma-misaligned"]}'), "tma.kdsl")
    assert [d.check for d in check_module(allowed, arch="sm_90a")] == [
        "mbarrier-tx-mismatch",
        "mbarrier-uninitialized",
    ]


# -- counted named barriers under a warp-uniform role branch ----------------------------------------------
def _named_roles(producer: list[str], consumer: list[str]) -> str:
    prod = "\n".join(f"  barrier {{{a}}}" for a in producer)
    cons = "\n".join(f"  barrier {{{a}}}" for a in consumer)
    return f"""^bb0:
  %tid.0 = sreg {{name = "tid.x"}} : u32
  %c128.1 = const {{value = 128}} : u32
  %role.2 = cmp %tid.0, %c128.1 {{pred = "lt"}} : bool
  cbr %role.2, ^bb1, ^bb2
^bb1:
{prod}
  br ^bb3
^bb2:
{cons}
  br ^bb3
^bb3:
  ret"""


def _sync(i: int, n: int = 256) -> str:
    return f'id = {i}, count = {n}, kind = "sync"'


def _arrive(i: int, n: int = 256) -> str:
    return f'id = {i}, count = {n}, kind = "arrive"'


def test_named_barriers_in_reversed_order_are_flagged() -> None:
    assert _barrier_findings(_named_roles([_sync(1), _sync(2)], [_sync(2), _sync(1)])) == 4
    assert _barrier_findings(_named_roles([_sync(1), _sync(2)], [_sync(1), _sync(2)])) == 0
    assert _barrier_findings(_named_roles([_sync(1)], [_sync(1, 128)])) == 2  # same id, different counts


def test_named_barrier_arrive_sync_pairs_are_accepted() -> None:
    # the producer signals "full" (1) and waits on "empty" (2); the consumer waits on 1 and signals 2
    assert _barrier_findings(_named_roles([_arrive(1), _sync(2)], [_sync(1), _arrive(2)])) == 0
    # an arrive never waits: both roles may signal first and wait second
    assert _barrier_findings(_named_roles([_arrive(1), _sync(2)], [_arrive(2), _sync(1)])) == 0
    # but both waiting first, each for the other's later signal, deadlocks
    assert _barrier_findings(_named_roles([_sync(2), _arrive(1)], [_sync(1), _arrive(2)])) == 4
    # ids used by one role only are that role's business
    assert _barrier_findings(_named_roles([_sync(3, 64), _sync(1)], [_sync(1), _sync(4, 128)])) == 0
