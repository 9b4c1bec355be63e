"""The mbarrier protocol checks on nvcc's PTX (tests/data/async, built by regen.sh from our own CUDA) and the
lifting of every async PTX form to the .kdsl front end's IR ops.

Each `bug_*.cu` marks the source line of its mistake with `// EXPECT: <check>`; the finding of that check
must point at a PTX instruction whose `.loc` (or its `inlined_at`) names that line. `ok_*.cu` files must
produce no findings. The .kdsl twins live in tests/data/check_kdsl (bad_mbar_*.kdsl, ok_tma_*.kdsl)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from irc.compiler import check_ptx
from irc.diagnostics import Severity
from irc.frontend.ptx.lift import lift_ptx
from irc.ir.verifier import verify
from irc.ptxisa.lineinfo import LineInfo

DATA = Path(__file__).parent / "data" / "async"
PTX = sorted(DATA.glob("*.ptx"))
_MARK = re.compile(r"//\s*EXPECT:\s*([a-z-]+)")


def source_lines(ptx_text: str, cu_name: str) -> dict[int, set[int]]:
    """PTX line (1-based) -> the lines of `cu_name` its `.loc` names, directly or anywhere up its chain of
    `inlined_at` call sites (libcu++ wraps a copy in three levels of inlined helpers)."""
    info = LineInfo(ptx_text)
    out: dict[int, set[int]] = {}
    for i in range(1, ptx_text.count("\n") + 2):
        out[i] = {ln for path, ln, _ in info.chain(i) if Path(path).name == cu_name}
    return out


def markers(cu: Path) -> dict[int, str]:
    return {n: m.group(1) for n, t in enumerate(cu.read_text().splitlines(), 1) if (m := _MARK.search(t))}


@pytest.mark.parametrize("ptx", PTX, ids=lambda p: p.name)
def test_nvcc_async_findings_at_source_line(ptx: Path) -> None:
    cu = DATA / (ptx.name.split(".")[0] + ".cu")
    text = ptx.read_text()
    diags = [d for d in check_ptx(text, str(ptx)) if d.severity in (Severity.ERROR, Severity.WARNING)]
    want = markers(cu)
    if ptx.name.startswith("ok_"):
        assert not want
        assert diags == [], [(d.check, d.span.line if d.span else 0) for d in diags]
        return
    assert want, f"{cu.name} marks no mistake"
    src = source_lines(text, cu.name)
    # the PTX line of each finding (`origin` once the report maps the span to the user's source)
    ptx_line = {id(d): (d.origin or d.span).line if (d.origin or d.span) else 0 for d in diags}
    got = {(d.check, line) for d in diags for line in src.get(ptx_line[id(d)], set())}
    for line, check in want.items():
        assert (check, line) in got, f"{ptx.name}: no {check} at {cu.name}:{line}; got {got}"
    assert len(diags) == len(want), [(d.check, d.span.line if d.span else 0) for d in diags]


def test_each_driver_mistake_has_its_own_check() -> None:
    """The four mistakes of the TMA driver give four different check names."""
    names = {}
    for stem in ("bug_bytes_as_count", "bug_no_expect_tx", "bug_fixed_parity", "bug_commit_group"):
        p = DATA / f"{stem}.sm_100a.ptx"
        (d,) = check_ptx(p.read_text(), str(p))
        names[stem] = d.check
    assert sorted(names.values()) == sorted(
        ["mbarrier-arrival-mismatch", "mbarrier-tx-mismatch", "mbarrier-phase", "async-unwaited"]
    )


# -- lifting ------------------------------------------------------------------------------------------
HDR = ".version 8.7\n.target sm_100a\n.address_size 64\n"
REGS = (
    "    .reg .pred %p<8>;\n    .reg .b32 %r<32>;\n    .reg .b64 %rd<16>;\n"
    "    .shared .align 128 .b8 buf[4096];\n    .shared .align 8 .b64 bar[4];\n"
)

FORMS = [
    ("mbarrier.init.shared::cta.b64 [bar], 1;", "mbarrier_init"),
    ("mbarrier.init.shared.b64 [%r1], %r2;", "mbarrier_init"),
    ("mbarrier.arrive.shared::cta.b64 %rd1, [bar];", "mbarrier_arrive"),
    ("mbarrier.arrive.release.cta.shared::cta.b64 _, [bar+8];", "mbarrier_arrive"),
    ("mbarrier.arrive.shared::cta.b64 %rd1, [bar], 2;", "mbarrier_arrive"),
    ("mbarrier.arrive_drop.shared::cta.b64 %rd1, [bar];", "mbarrier_arrive"),
    ("mbarrier.arrive.expect_tx.shared::cta.b64 _, [bar], 128;", "mbarrier_arrive_expect_tx"),
    ("mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [bar], 128;", "mbarrier_expect_tx"),
    ("mbarrier.complete_tx.relaxed.cta.shared::cta.b64 [bar], 128;", "mbarrier_complete_tx"),
    ("mbarrier.test_wait.shared::cta.b64 %p1, [bar], %rd1;", "mbarrier_test_wait"),
    ("mbarrier.test_wait.parity.shared::cta.b64 %p1, [bar], %r1;", "mbarrier_test_wait"),
    ("mbarrier.try_wait.shared::cta.b64 %p1, [bar], %rd1;", "mbarrier_try_wait"),
    ("mbarrier.try_wait.parity.shared::cta.b64 %p1, [bar], 0;", "mbarrier_try_wait"),
    ("mbarrier.inval.shared::cta.b64 [bar];", "mbarrier_inval"),
    ("cp.async.ca.shared.global [buf], [%rd1], 16;", "cp_async"),
    ("cp.async.cg.shared.global.L2::128B [%r1], [%rd1], 16, %r2;", "cp_async"),
    ("cp.async.commit_group;", "cp_async_commit"),
    ("cp.async.wait_group 1;", "cp_async_wait"),
    ("cp.async.wait_all;", "cp_async_wait"),
    ("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [bar];", "cp_async_mbarrier_arrive"),
    (
        "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [buf], [%rd1], 256, [bar];",
        "bulk_load",
    ),
    ("cp.async.bulk.global.shared::cta.bulk_group [%rd1], [buf], 256;", "bulk_store"),
    ("cp.async.bulk.commit_group;", "tma_store_commit"),
    ("cp.async.bulk.wait_group.read 0;", "tma_store_wait"),
    (
        "cp.async.bulk.tensor.1d.shared::cluster.global.mbarrier::complete_tx::bytes [buf], [%rd1, {%r1}], [bar];",
        "tma_load",
    ),
    (
        "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [buf], [%rd1, {%r1, %r2}],"
        " [bar];",
        "tma_load",
    ),
    (
        "cp.async.bulk.tensor.5d.shared::cluster.global.mbarrier::complete_tx::bytes [buf], "
        "[%rd1, {%r1, %r2, %r3, %r4, %r5}], [bar];",
        "tma_load",
    ),
    (
        "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster "
        "[buf], [%rd1, {%r1, %r2}], [bar], %rs1;",
        "tma_load",
    ),
    (
        "cp.async.bulk.tensor.3d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes [buf], "
        "[%rd1, {%r1, %r2, %r3}], [bar], {%rs1};",
        "tma_load",
    ),
    ("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%rd1, {%r1, %r2}], [buf];", "tma_store"),
    ("cp.async.bulk.prefetch.tensor.2d.L2.global [%rd1, {%r1, %r2}];", "tma_prefetch"),
    ("fence.proxy.async.shared::cta;", "fence_proxy_async"),
    ("fence.mbarrier_init.release.cluster;", "fence_mbarrier_init"),
    ("tcgen05.mma.cta_group::1.kind::f16 [%r1], %rd1, %rd2, %r2, %p1;", "tcgen05_mma"),
    ("tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [bar];", "tcgen05_commit"),
    ("tcgen05.ld.sync.aligned.32x32b.x2.b32 {%r3, %r4}, [%r1];", "tcgen05_ld"),
    ("tcgen05.wait::ld.sync.aligned;", "tcgen05_wait_ld"),
    ("tcgen05.fence::before_thread_sync;", "tcgen05_fence"),
    ("elect.sync %r1|%p1, -1;", "elect"),
]


@pytest.mark.parametrize("form,op", FORMS, ids=[f[1] + "-" + str(i) for i, f in enumerate(FORMS)])
def test_async_form_lifts_to_ir_op(form: str, op: str) -> None:
    regs = REGS.replace("%rd<16>;\n", "%rd<16>;\n    .reg .b16 %rs<4>;\n")
    text = HDR + ".visible .entry k()\n{\n" + regs + "    " + form + "\n    ret;\n}\n"
    mod, notes = lift_ptx(text, "k.ptx")
    assert verify(mod) == []
    names = [o.name for o in mod.functions[0].ops()]
    assert op in names, names
    assert "opaque" not in names


# -- lifting never crashes on odd spellings ------------------------------------------------------------

_OPERANDS = ["[bar]", "[bar+8]", "[%r1]", "[%r1+16]", "%r2", "%rd1", "_", "%p1", "128", "[buf]",
             "[%rd1, {%r1, %r2}]", "{%r3, %r4}"]  # fmt: skip
_HEADS = ["mbarrier.init.shared::cta.b64", "mbarrier.arrive.shared::cta.b64", "mbarrier.arrive.expect_tx.shared.b64",
          "mbarrier.try_wait.parity.shared::cta.b64", "mbarrier.test_wait.shared.b64", "mbarrier.inval.shared.b64",
          "mbarrier.expect_tx.relaxed.cta.shared::cta.b64", "cp.async.ca.shared.global", "cp.async.wait_group",
          "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes", "cp.async.bulk.wait_group.read",
          "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes",
          "cp.async.bulk.tensor.2d.global.shared::cta.bulk_group", "tcgen05.commit.cta_group::1.mbarrier::arrive::one.b64",
          "tcgen05.mma.cta_group::1.kind::f16", "tcgen05.ld.sync.aligned.32x32b.x2.b32"]  # fmt: skip


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(_HEADS), st.lists(st.sampled_from(_OPERANDS), max_size=5))
@example("tcgen05.mma.cta_group::1.kind::f16", ["[%r1]", "%r2", "[bar]", "[bar]", "%r2"])  # found by CI
def test_lifting_odd_async_forms_never_crashes(head: str, ops: list[str]) -> None:
    """Any operand shape either lifts to the IR op or falls back to `opaque`; the module always verifies."""
    from irc.diagnostics import CompileError

    regs = REGS.replace("%rd<16>;\n", "%rd<16>;\n    .reg .b16 %rs<4>;\n")
    text = HDR + ".visible .entry k()\n{\n" + regs + f"    {head} {', '.join(ops)};\n    ret;\n}}\n"
    try:
        mod, _ = lift_ptx(text, "k.ptx")
    except CompileError:
        return  # a parse error is reported as a diagnostic, not a crash
    assert verify(mod) == []


def test_uninitialized_skips_the_initialising_threads_own_use() -> None:
    """`if tid.x == 0 { init }` then `if tid.x == 0 { arrive }`: the path that skips the init and reaches
    the arrive is taken by no thread (the solver: a thread reaching the arrive always ran the init), so the
    finding is at the first use by other threads, the wait, with thread 1 as its witness (the suite's
    `mbar_init_visible`). Near miss: the twin's barrier after the init makes every use clean."""
    from pathlib import Path

    from irc.compiler import check_kdsl

    kd = Path(__file__).parent / "data" / "suite" / "kdsl"
    src = (kd / "mbar_init_visible.bug.kdsl").read_text()
    (d,) = [
        x
        for x in check_kdsl(src, "mbar_init_visible.bug.kdsl", arch="sm_90a")
        if x.check == "mbarrier-uninitialized"
    ]
    assert d.span.line == 19 and "thread (1, 0, 0)" in d.witness["text"]
    ok = (kd / "mbar_init_visible.ok.kdsl").read_text()
    assert [x for x in check_kdsl(ok, "ok.kdsl", arch="sm_90a") if x.check == "mbarrier-uninitialized"] == []
