"""Register allocation: register count == MaxLive computed independently; the allocation checker catches
three injected allocation bugs (wrong coalescing, lost copy on a back edge, swapped parallel copy)."""

from __future__ import annotations

from pathlib import Path

import pytest

from irc.backends.ptx.checker import check_allocation
from irc.backends.ptx.emit import compile_module
from irc.backends.ptx.isel import InstructionSelector
from irc.backends.ptx.legalize import Legalize
from irc.backends.ptx.liveness import reg_class
from irc.backends.ptx.outofssa import OutOfSSA, sequentialize
from irc.backends.ptx.regalloc import allocate
from irc.diagnostics import InternalCompilerError
from irc.ir.core import OpResult
from irc.ir.parser import parse_module
from irc.passes.manager import PassContext

DATA = Path(__file__).parent / "data" / "ir"
OK_ON_80 = [
    "vadd",
    "swap_loop",
    "lost_copy",
    "reduce_shared",
    "shuffles",
    "atomics",
    "cp_async",
    "mbarrier80",
    "mma",
    "wmma",
    "elect",
    "big_shared",
    "misc",
]


def load(name: str):
    return parse_module((DATA / f"{name}.ir").read_text(), f"{name}.kdsl")


def independent_max_live(fn) -> dict[str, int]:
    """A deliberately naive liveness: per-point live sets by iterating to a fixpoint over instructions."""

    def reg(v) -> bool:
        if isinstance(v, OpResult) and v.op.name == "const":
            return False
        return not (v in fn.entry.args and not v.uses)

    live_in: dict = {b: set() for b in fn.blocks}
    changed = True
    while changed:
        changed = False
        for b in fn.blocks:
            live = set()
            for s in b.successors:
                live |= live_in[s]
            for op in reversed(b.ops):
                live -= set(op.results)
                live |= {v for v in op.all_operands() if reg(v)}
            live -= set(b.args)
            if live != live_in[b]:
                live_in[b] = live
                changed = True
    best: dict[str, int] = {}

    def count(vals) -> None:
        per: dict[str, int] = {}
        for v in vals:
            c = reg_class(v.type)
            per[c] = per.get(c, 0) + 1
        for c, n in per.items():
            best[c] = max(best.get(c, 0), n)

    reach = {fn.entry}
    stack = [fn.entry]
    while stack:
        for s in stack.pop().successors:
            if s not in reach:
                reach.add(s)
                stack.append(s)
    for b in fn.blocks:
        if b not in reach:
            continue
        live = set()
        for s in b.successors:
            live |= live_in[s]
        for op in reversed(b.ops):
            defs = {r for r in op.results if reg(r)}
            count(live | defs)
            live -= set(op.results)
            live |= {v for v in op.all_operands() if reg(v)}
        count(live | {a for a in b.args if reg(a)})
    return best


@pytest.mark.parametrize("name", OK_ON_80)
def test_registers_equal_independent_max_live(name: str) -> None:
    m = load(name)
    r = compile_module(m, "sm_80")  # legalizes m in place
    for fn in m.kernels:
        want = independent_max_live(fn)
        got = r.stats[fn.name]["registers"]
        assert got == r.stats[fn.name]["max_live"]
        for c, n in got.items():
            assert n == want.get(c, 0), (fn.name, c, n, want)


def lowered(name: str, kernel: str, arch: str = "sm_80"):
    m = load(name)
    ctx = PassContext(arch=arch)
    Legalize().run(m, ctx)
    fn = m.function(kernel)
    return fn, ctx.facts["shared_layout"][kernel]


def select(fn, layout, alloc, edges):
    return InstructionSelector(fn, alloc, edges, layout).run(fn.name)


def test_clean_allocation_passes_checker() -> None:
    for name, k in [
        ("swap_loop", "swap2"),
        ("swap_loop", "rot3"),
        ("lost_copy", "lost"),
        ("reduce_shared", "reduce"),
    ]:
        fn, lay = lowered(name, k)
        alloc = allocate(fn)
        check_allocation(select(fn, lay, alloc, OutOfSSA(alloc).run()))


def test_checker_catches_wrong_coalescing() -> None:
    fn, lay = lowered("vadd", "vadd")
    alloc = allocate(fn)
    # give the loaded y value the register of the loaded x value while both are live
    loads = [op.result for b in fn.blocks for op in b.ops if op.name == "load"]
    alloc.colour[loads[1]] = alloc.colour[loads[0]]
    with pytest.raises(InternalCompilerError, match="expecting"):
        check_allocation(select(fn, lay, alloc, OutOfSSA(alloc).run()))


def test_checker_catches_lost_copy_on_back_edge() -> None:
    fn, lay = lowered("lost_copy", "lost")
    alloc = allocate(fn)
    edges = OutOfSSA(alloc, split_critical_edges=False).run()  # copies before the cbr: the lost-copy bug
    with pytest.raises(InternalCompilerError, match="expecting"):
        check_allocation(select(fn, lay, alloc, edges))


def test_checker_catches_swapped_parallel_copy() -> None:
    fn, lay = lowered("swap_loop", "rot3")
    alloc = allocate(fn)
    edges = OutOfSSA(alloc).run()
    entry_edge = next(e for e in edges if e.pred is fn.entry)
    movs = [i for i, mv in enumerate(entry_edge.moves) if mv.kind == "mov" and mv.imm is None]
    assert len(movs) >= 2
    i, j = movs[0], movs[1]
    entry_edge.moves[i], entry_edge.moves[j] = entry_edge.moves[j], entry_edge.moves[i]
    with pytest.raises(InternalCompilerError, match="expecting"):
        check_allocation(select(fn, lay, alloc, edges))


def test_checker_catches_dropped_back_edge_copy() -> None:
    fn, lay = lowered("swap_loop", "swap2")
    alloc = allocate(fn)
    edges = OutOfSSA(alloc).run()
    back = next(e for e in edges if e.pred is not fn.entry and e.moves)
    back.moves = back.moves[1:]
    with pytest.raises(InternalCompilerError):
        check_allocation(select(fn, lay, alloc, edges))


def test_sequentialize_cycles_with_temp_and_swaps() -> None:
    def simulate(moves, regs):
        st = dict(regs)
        for m in moves:
            if m.kind == "swap":
                st[m.dst], st[m.src] = st[m.src], st[m.dst]
            else:
                st[m.dst] = st[m.src]
        return st

    par = [("a", "b", 0), ("b", "c", 1), ("c", "a", 2), ("d", "a", 2), ("e", "e", 3)]
    regs = {"a": "A", "b": "B", "c": "C", "d": "D", "e": "E", "t": "T"}
    for temp in ("t", None):
        st = simulate(sequentialize(par, "r", temp), regs)
        assert (st["a"], st["b"], st["c"], st["d"], st["e"]) == ("B", "C", "A", "A", "E")
