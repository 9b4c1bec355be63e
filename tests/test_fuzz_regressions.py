"""Regression tests for what the fuzz campaign (tests/fuzz/) found, issue 18.

Every `tests/data/fuzz/NAME.bad.*` is a reproducer whose first line says `// expect: CHECK`: irc must
refuse it with that diagnostic at a file:line:col (no traceback, no internal error, no PTX that ptxas
rejects). Its `NAME.ok.*` twin is the near miss that must still compile (and pass ptxas), so that a fix
cannot simply refuse more. Limits (docs/limits.md) and the emulator's run-time operand-range checks are
tested here too.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

import irc
from irc.compiler import CompileOptions, check_ptx, compile_kdsl
from irc.diagnostics import CompileError
from irc.emu.ranges import OperandRangeError
from irc.ptxas import find_ptxas, run_ptxas

DATA = Path(__file__).parent / "data" / "fuzz"
HAVE_PTXAS = find_ptxas() is not None


def _header(path: Path) -> tuple[str, str]:
    m = re.match(r"// expect: ([\w-]+)(?:; arch: (\w+))?", path.read_text().splitlines()[0])
    assert m, f"{path.name}: first line must be `// expect: CHECK[; arch: sm_XX]`"
    return m.group(1), m.group(2) or "sm_80"


def _cases(pattern: str) -> list[Path]:
    return sorted(DATA.glob(pattern))


@pytest.mark.parametrize("path", _cases("*.bad.kdsl"), ids=lambda p: p.name)
def test_kdsl_reproducer_is_a_located_diagnostic(path: Path) -> None:
    check, arch = _header(path)
    with pytest.raises(CompileError) as ei:
        compile_kdsl(path.read_text(), path.name, CompileOptions(arch=arch))
    hits = [d for d in ei.value.diagnostics if d.check == check]
    assert hits, [str(d) for d in ei.value.diagnostics]
    assert all(d.span is not None and d.span.line >= 3 and d.span.col >= 1 for d in hits)


@pytest.mark.parametrize("path", _cases("*.ok.kdsl"), ids=lambda p: p.name)
def test_kdsl_near_miss_compiles_to_valid_ptx(path: Path) -> None:
    _, arch = _header(path)
    res = compile_kdsl(path.read_text(), path.name, CompileOptions(arch=arch))
    if HAVE_PTXAS:
        r = run_ptxas(res.ptx_text, arch)
        assert r.ok, r.errors


@pytest.mark.parametrize("path", _cases("*.bad.ptx"), ids=lambda p: p.name)
def test_ptx_reproducer_is_a_located_diagnostic(path: Path) -> None:
    check, arch = _header(path)
    diags = check_ptx(path.read_text(), path.name)
    hits = [d for d in diags if d.check == check and d.severity == "error"]
    assert hits, [str(d) for d in diags]
    assert all(d.span is not None and d.span.line > 1 for d in hits)
    if HAVE_PTXAS:  # the diagnostic stands for a real ptxas rejection
        assert not run_ptxas(path.read_text(), arch).ok


@pytest.mark.parametrize("path", _cases("*.ok.ptx"), ids=lambda p: p.name)
def test_ptx_near_miss_is_checked_clean(path: Path) -> None:
    _, arch = _header(path)
    diags = check_ptx(path.read_text(), path.name)
    assert not [d for d in diags if d.severity == "error"], [str(d) for d in diags]
    if HAVE_PTXAS:
        r = run_ptxas(path.read_text(), arch)
        assert r.ok, r.errors


def _nest(depth: int) -> str:
    body = "".join(f"if n > {i}u32 {{\n" for i in range(depth)) + "out[0] = 1u32;\n" + "}\n" * depth
    return "@launch(block = 32)\nkernel k(out: *global u32, n: u32) {\n" + body + "}\n"


def test_nesting_limit_is_a_limit_error_at_the_first_bracket_too_deep() -> None:
    with pytest.raises(CompileError) as ei:
        compile_kdsl(_nest(2000), "deep.kdsl")
    (d,) = ei.value.diagnostics
    assert d.check == "limit-error" and "max_nesting" in d.message
    assert d.span.line == 1024 + 2  # the kernel's `{` is depth 1; line 1 is the attribute


def test_nesting_below_the_limit_compiles_and_runs() -> None:
    m = irc.compile(_nest(500), cache=False)
    out = np.zeros(1, dtype=np.uint32)
    m["k"].launch(1, 32, [out, np.uint32(1000)])
    assert out[0] == 1


def test_limits_can_be_raised_with_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    src = "kernel k(out: *global u32) { out[0] = ((1 << 600) >> 599) as u32; }"
    with pytest.raises(CompileError) as ei:
        compile_kdsl(src, "c.kdsl")
    assert ei.value.diagnostics[0].check == "limit-error"
    monkeypatch.setenv("IRC_LIMIT_MAX_CONST_BITS", "1024")
    compile_kdsl(src, "c.kdsl")


def test_kdsl_file_size_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("IRC_LIMIT_MAX_KDSL_BYTES", "100")
    src = "kernel k(out: *global u32) {\n" + "    out[0] = 1u32;\n" * 10 + "}\n"
    with pytest.raises(CompileError) as ei:
        compile_kdsl(src, "big.kdsl")
    assert (
        ei.value.diagnostics[0].check == "limit-error" and "max_kdsl_bytes" in ei.value.diagnostics[0].message
    )


RUNTIME_BARRIER = """
@launch(block = 64)
kernel k(out: *global u32, id: u32) {
    barrier(id, 64);
    out[tid.x] = tid.x;
}
"""

RUNTIME_PARITY = """
@launch(block = 32)
kernel k(out: *global u32, p: u32) {
    shared bar: mbarrier;
    if tid.x == 0u32 { mbarrier_init(&bar, 32u32); }
    barrier();
    let t = mbarrier_arrive(&bar);
    mbarrier_wait(&bar, p);
    out[tid.x] = 1u32;
}
"""


@pytest.mark.parametrize(("src", "bad", "good"), [(RUNTIME_BARRIER, 16, 15), (RUNTIME_PARITY, 2, 0)])
def test_emulator_checks_operand_ranges_known_only_at_run_time(src: str, bad: int, good: int) -> None:
    m = irc.compile(src, cache=False)
    block = 64 if "block = 64" in src else 32
    out = np.zeros(block, dtype=np.uint32)
    m["k"].launch(1, block, [out, np.uint32(good)])
    assert out[block - 1] != 0
    with pytest.raises(OperandRangeError) as ei:
        m["k"].launch(1, block, [out, np.uint32(bad)])
    assert ei.value.kind == "operand-range" and ei.value.line > 0


def test_large_ptx_checked_per_function_reports_what_the_whole_module_does(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Files above `ptx_split_bytes` are checked one function at a time (bounded memory); the findings and
    their file:line:col must be those of checking the whole module at once."""
    import sys

    sys.path.insert(0, str(Path(__file__).parents[1] / "bench"))
    from big_ptx import make

    text = make(0.15)  # every committed nvcc file, renamed copies: bugs and clean kernels
    whole = check_ptx(text, "big.ptx")
    monkeypatch.setenv("IRC_LIMIT_PTX_SPLIT_BYTES", "1")
    split = check_ptx(text, "big.ptx")

    def key(d) -> tuple:
        # the PTX location (`origin` once mapped through .loc: the synthetic file repeats `.file` numbers,
        # so which .cu a line maps to is not meaningful here)
        s = d.origin or d.span
        return (d.check, s.line if s else 0, s.col if s else 0, d.message)

    assert any(d.check == "barrier-divergence" for d in whole)
    assert sorted(map(key, split)) == sorted(map(key, whole))


def test_ptx_file_size_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("IRC_LIMIT_MAX_PTX_BYTES", "64")
    (d,) = check_ptx((DATA / "ptx_mul_hi.ok.ptx").read_text(), "x.ptx")
    assert d.check == "limit-error" and "max_ptx_bytes" in d.message and d.span.line == 1


def _branch_chain(n: int) -> str:
    lines = [
        ".version 8.0",
        ".target sm_80",
        ".address_size 64",
        ".visible .entry k(.param .u64 k_param_0)",
        "{",
    ]
    lines += ["\t.reg .pred %p<3>;", "\t.reg .b32 %r<4>;", "\t.reg .b64 %rd<3>;"]
    lines += ["\tld.param.u64 %rd1, [k_param_0];", "\tmov.u32 %r1, %tid.x;", "\tsetp.eq.u32 %p2, %r1, 0;"]
    lines += ["\t@%p2 bra $L__BB0_2;"] * n
    lines += ["\tst.global.u32 [%rd1], %r1;", "$L__BB0_2:", "\tst.global.u32 [%rd1], %r1;", "\tret;", "}", ""]
    return "\n".join(lines)


@pytest.mark.parametrize("n", [300, 20000])
def test_a_long_chain_of_branches_is_lifted_and_its_analysis_bounded(n: int) -> None:
    """Fuzz hangs: 20,000 predicated branches to one label made SSA construction overflow the stack and
    the dominator / sync-dependence facts quadratic. The chain is lifted and the function
    is reported as not analysed (bounded work); a short chain is analysed as usual."""
    diags = check_ptx(_branch_chain(n), "chain.ptx")
    assert not [d for d in diags if d.severity == "error"], [str(d) for d in diags]
    notes = [d for d in diags if d.check == "not-analysed"]
    assert bool(notes) == (n > 1000)
    assert all(d.span is not None and d.span.line == 4 for d in notes)


def test_lifting_a_long_chain_needs_no_deep_stack() -> None:
    """SSA construction of 20,000 chained blocks is iterative: it runs within a recursion limit of 400
    above the caller's depth (the recursive lookup needed one frame per block, on a deep-stack thread)."""
    import inspect
    import sys

    from irc.frontend.ptx.lift import lift_ptx

    old = sys.getrecursionlimit()
    sys.setrecursionlimit(len(inspect.stack(0)) + 400)
    try:
        mod, _ = lift_ptx(_branch_chain(20000), "chain.ptx")
    finally:
        sys.setrecursionlimit(old)
    assert len(mod.functions[0].blocks) > 20000


def test_mbarrier_parity_through_a_branch_to_the_entry_block_is_not_a_crash() -> None:
    """Campaign find (minimised, invalid PTX kept as found): a loop whose back edge targets the entry
    block made the mbarrier parity evaluation index past the branch arguments (IndexError). Every
    finding must be a located diagnostic instead."""
    path = DATA / "crash_mbarrier_phi_at_entry.ptx"
    diags = check_ptx(path.read_text(), path.name)
    assert diags and all(d.span is not None for d in diags if d.severity == "error")
    assert not [d for d in diags if "internal" in d.message.lower()]


def _repeat_line(path: Path, line: str, n: int) -> str:
    """`path` with the first occurrence of `line` repeated `n` times (the campaign's growth mutation)."""
    text = path.read_text()
    i = text.index(line)
    return text[:i] + line * n + text[i + len(line) :]


def test_a_long_chain_of_one_register_is_not_a_recursion_error() -> None:
    """Campaign find: 1,000 `add.s32 %r21, %r21, 1;` in a row made `shared-race`'s per-thread evaluation
    recurse 1,000 deep (RecursionError). Past its depth budget a value is unknown: not analysed."""
    path = Path(__file__).parent / "data/ptx/nvcc/ok_warp_specialized_named_barrier.sm_100a.ptx"
    text = _repeat_line(path, "\tadd.s32 \t%r21, %r21, 1;\n", 1000)
    diags = check_ptx(text, path.name)  # raised RecursionError before
    assert [d for d in diags if d.severity == "error"] == []


def test_spin_loop_facts_are_computed_once_per_loop() -> None:
    """Campaign find (a hang): 20,000 `try_wait` polls in one loop made `is_spin_loop` rescan the loop
    for every wait (quadratic). The answer is kept on the loop."""
    from irc.analysis.cfg import CFG
    from irc.analysis.mbarrier import is_spin_loop
    from irc.frontend.ptx.lift import lift_module
    from irc.frontend.ptx.parser import parse_ptx

    text = (Path(__file__).parent / "data/async/ok_tma_ring.sm_100a.ptx").read_text()
    mod, _ = lift_module(parse_ptx(text, "r.ptx"), text)
    loops = [lp for f in mod.functions for lp in CFG(f).loops]
    first = [is_spin_loop(lp) for lp in loops]
    assert loops and any(first)

    class Exploding(set):
        def __iter__(self):  # a second scan of the loop's blocks
            raise AssertionError("is_spin_loop scanned the loop again")

    for lp, was in zip(loops, first):
        lp.blocks = Exploding(lp.blocks)
        assert is_spin_loop(lp) == was


def test_a_long_run_of_barriers_is_named_briefly() -> None:
    """Campaign find (a hang): 20,000 `bar.sync 0` in one arm of a warp-uniform branch. Every finding
    spelled the whole barrier sequence (quadratic output); the message now names the first few."""
    path = Path(__file__).parent / "data/ptx/nvcc/bug_warp_uniform_barrier.sm_100a.ptx"
    text = _repeat_line(path, "\tbar.sync \t0;\n", 300)
    diags = [d for d in check_ptx(text, path.name) if d.check == "barrier-divergence"]
    assert diags
    texts = [d.message + " ".join(lab.message for lab in d.labels) for d in diags]
    assert any("(300 in all)" in x or "(301 in all)" in x for x in texts), texts
    assert all(len(x) < 2000 for x in texts)


def test_mbarrier_loop_dependence_through_a_branch_to_the_entry_block_is_not_a_crash() -> None:
    """Campaign find (minimised, invalid PTX kept as found): the same entry-block branch as above, met
    by the loop-dependence walk of `mbarrier-phase` (IndexError)."""
    path = DATA / "crash_mbarrier_depends_at_entry.ptx"
    diags = check_ptx(path.read_text(), path.name)
    assert all(d.span is not None for d in diags if d.severity == "error")


def test_an_error_type_without_a_diagnostic_becomes_a_located_error(monkeypatch: pytest.MonkeyPatch) -> None:
    """Defence in depth behind the sema rules: if a rule gives up on a type without reporting why (the fuzz
    campaign found two), the compile stops with a located `type-error`, not an internal error in lowering."""
    from irc.compiler import CompileOptions, compile_kdsl
    from irc.diagnostics import CompileError
    from irc.frontend.kdsl import ast as kast
    from irc.frontend.kdsl.sema_expr import ExprMixin
    from irc.frontend.kdsl.types import ERROR

    src = "kernel k(out: *global f32) {\n    let v = [0.0; 4];\n    out[tid.x] = v[0];\n}\n"
    compile_kdsl(src, "t.kdsl", CompileOptions())  # compiles as it stands
    handlers = dict(ExprMixin._expr_handlers)
    handlers[kast.ArrayRepeat] = lambda self, e, want: ERROR  # a rule that forgets its diagnostic
    monkeypatch.setattr(ExprMixin, "_expr_handlers", handlers)
    with pytest.raises(CompileError) as ei:
        compile_kdsl(src, "t.kdsl", CompileOptions())
    (d,) = [d for d in ei.value.diagnostics if d.is_error]
    assert (d.check, d.span.line, d.span.col) == ("type-error", 2, 13)
