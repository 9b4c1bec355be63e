"""The async-protocol questions: a pending copy against a read, and two arrivals in one phase.

- `pending_read`: thread `a` issues an asynchronous copy (cp.async) and, with no wait that covers it in
  between, thread `b` (possibly `a` itself) reads a byte the copy writes. The dataflow in
  `irc.analysis.checks.async_protocol` says which copies are pending at the read and how many back edges
  of each loop lie between them; the query relates the two threads' iteration counters by those counts
  (`k_a + n == k_b` for a loop around the copy, `k_b == n` for a loop entered after it), so a 3-stage ring
  reading stage `k % 3` while the copy of tile `k + 2` is pending is decided exactly.
- `two_arrive`: two different threads of one block execute the same arrive instruction in the same
  iterations of the loops around it (the same phase): with an arrival count of 1 the first one completes
  the phase early.

Addresses that depend on a value the encoding leaves unknown per thread (a load) are not judged: the
solver could then place any two accesses on one byte.
"""

from __future__ import annotations

from typing import Any

from irc.analysis.cfg import Loop
from irc.analysis.symbolic.queries import coord, same_iterations, symbolic
from irc.analysis.symbolic.solver import Outcome
from irc.analysis.symbolic.witness import Witness, free_consts, enumerate_threads, from_model, ranges
from irc.ir.core import Block, Op, Value


def _addr(z: Any, t: Any) -> Any:
    if z.is_bool(t):
        return None
    return z.ZeroExt(64 - t.size(), t) if t.size() < 64 else t


def _pure(t: Any) -> bool:
    return not any("#" in str(c) for c in free_consts(t))


def _its(w: Witness, enc: Any, model: Any, th: Any, loops: list[Loop]) -> str:
    """' in iteration 3 of the loop at line 12' for the innermost loop of `loops`."""
    if not loops:
        return ""
    lp = loops[0]
    k = th.iters.get(id(lp))
    if k is None:
        return ""
    n = model.eval(k, model_completion=True).as_long()
    sp = next((o.span for b in [lp.header, *lp.blocks] for o in b.ops if o.span is not None), None)
    return f" in iteration {n} of the loop at {w.ref(sp)}" if sp is not None else f" in iteration {n}"


def canonical_shapes(n: int) -> list[tuple[int, int]]:
    """The 2-D block shapes people launch with `n` threads: square-ish ones (256: 16x16 and 32x8)."""
    out = []
    x = 1
    while x * x < n:
        x *= 2
    for bx in (x, 2 * x):
        if bx <= n and n % bx == 0:
            out.append((bx, n // bx))
    return out or [(n, 1)]


def _solve_all_shapes(sym: Any, q: list) -> Outcome:
    """`q` for the launch the kernel fixes, or, for a 2-D/3-D kernel whose block shape the PTX leaves
    open, under every canonical shape of its thread bound: which threads' tiles overlap depends on the
    shape the host picks (16x16 tiles read by a 1x130 block overlap in a correct kernel), so a finding must
    hold for each shape the kernel is plausibly written for (a contract fixes the shape instead)."""
    L = sym.launch
    if L.fixed_block is not None or L.one_d:
        return sym.solve(q)
    bound = L.fn.attrs.get("max_threads")
    n = 256
    if isinstance(bound, (list, tuple)) and bound and all(isinstance(x, int) for x in bound):
        n = 1
        for x in bound:
            n *= x
    z = sym.enc.z
    first: Outcome | None = None
    for bx, by in canonical_shapes(n):
        shape = [L.ntid[0] == z.BitVecVal(bx, 32), L.ntid[1] == z.BitVecVal(by, 32), L.ntid[2] == 1]
        out = sym.solve(q + shape)
        if not out.sat:
            return out
        first = first or out
    assert first is not None
    return first


def pending_read(
    ctx: Any,
    copy: Op,
    dst: Value,
    nbytes: int,
    read: Op,
    ptr: Value,
    offset: int,
    width: int,
    counts: dict[Loop, int],
) -> tuple[Outcome, Witness | None]:
    """Can a thread read a byte of the pending copy `copy` (dst, nbytes) at `read` (ptr + offset, width)?"""
    sym = symbolic(ctx)
    if sym is None:
        return Outcome("unknown", reason="solver unavailable (pip install z3-solver)"), None
    enc = sym.enc
    z = enc.z
    ta, tb = enc.thread("a"), enc.thread("b")
    assert copy.block is not None and read.block is not None
    xa, xb = _addr(z, enc.value(dst, ta)), _addr(z, enc.value(ptr, tb))
    if xa is None or xb is None or not _pure(xa) or not _pure(xb):
        return Outcome("unknown", reason="the address depends on loaded data"), None
    xb = xb + z.BitVecVal(offset, 64)
    q = [enc.reach(copy.block, ta), enc.reach(read.block, tb)]

    q += [z.ULT(xa, xb + z.BitVecVal(width, 64)), z.ULT(xb, xa + z.BitVecVal(max(nbytes, 1), 64))]
    around = set(ctx.cfg.loops_containing(copy.block))
    for lp, n in counts.items():
        kb = enc.iteration(lp, tb)
        if lp in around:
            q += [enc.iteration(lp, ta) + n == kb, z.UGE(kb, n), enc.exists(lp, ta)]
        else:
            q.append(kb == n)
        q.append(enc.exists(lp, tb))
    out = _solve_all_shapes(sym, q)
    if not out.sat:
        return out, None
    w = from_model(out.model, enc, ["a", "b"], sym.contract_text)
    ida, idb = w.threads
    ia = _its(w, enc, out.model, ta, ctx.cfg.loops_containing(copy.block))
    ib = _its(w, enc, out.model, tb, ctx.cfg.loops_containing(read.block))
    byte = out.model.eval(z.If(z.UGE(xa, xb), xa, xb), model_completion=True).as_long()
    del byte
    if ida == idb:
        w.story = (
            f"thread {coord(ida)} of {{block}} issues the cp.async at {w.ref(copy.span)}{ia} and reads its "
            f"destination at {w.ref(read.span)}{ib} before a wait covers the copy"
        )
    else:
        w.story = (
            f"thread {coord(ida)} of {{block}} issues the cp.async at {w.ref(copy.span)}{ia}; thread {coord(idb)} "
            f"reads a byte of its destination at {w.ref(read.span)}{ib} before thread {coord(ida)} waits for it"
        )
    return out, w


def two_arrive(ctx: Any, b: Block, what: str, at_span: Any) -> tuple[Outcome, Witness | None]:
    """Two different threads of one block execute block `b` (an arrive) in the same iterations."""
    sym = symbolic(ctx)
    if sym is None:
        return Outcome("unknown", reason="solver unavailable (pip install z3-solver)"), None
    enc = sym.enc
    ta, tb = enc.thread("a"), enc.thread("b")
    q = [enc.reach(b, ta), enc.reach(b, tb), enc.distinct(ta, tb)]
    q += same_iterations(sym, b, ta, tb)
    out = sym.solve(q)
    if not out.sat:
        return out, None
    w = from_model(out.model, enc, ["a", "b"], sym.contract_text)
    split = enumerate_threads(out.model, enc, lambda th: enc.reach(b, th))
    at = w.ref(at_span) if at_span is not None else "it"
    if split is not None and len(split[True]) > 1:
        w.groups = [(ranges(split[True]), f"each execute {what} at {at} in the same phase")]
    else:
        ida, idb = w.threads
        w.story = f"threads {coord(ida)} and {coord(idb)} of {{block}} both execute {what} at {at} in the same phase"
    return out, w


__all__ = ["pending_read", "two_arrive"]
