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
from irc.analysis.symbolic.witness import Witness, enumerate_threads, from_model, ranges
from irc.ir.core import Block, Op


def _addr(z: Any, t: Any) -> Any:
    if z.is_bool(t):
        return None
    return z.ZeroExt(64 - t.size(), t) if t.size() < 64 else t


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


def pending_read(
    ctx: Any, pairs: list[tuple[Op, Op]], variants: list[dict[Loop, int]]
) -> tuple[Outcome, Witness | None, tuple[Op, Op] | None]:
    """Can a thread read a byte that a pending cp.async writes? `pairs` are (copy, read) of one copy block
    and one read block (one query for all of them: a GEMM has a dozen copies and dozens of reads per
    stage), `variants` the loop counts between them (any of them). Returns the pair the model chose."""
    sym = symbolic(ctx)
    if sym is None:
        return Outcome("unknown", reason="solver unavailable (pip install z3-solver)"), None, None
    enc = sym.enc
    z = enc.z
    ta, tb = enc.thread("a"), enc.thread("b")
    cb, rb = pairs[0][0].block, pairs[0][1].block
    assert cb is not None and rb is not None
    hits = []
    for c, r in pairs:
        xa, xb = _addr(z, enc.value(c.operands[0], ta)), _addr(z, enc.value(r.operands[0], tb))
        if xa is None or xb is None or not enc.pure(xa) or not enc.pure(xb):
            continue
        xb = xb + z.BitVecVal(int(r.attrs.get("offset", 0) or 0), 64)
        nbytes = max(int(c.attrs.get("bytes", 0) or 0), 1)
        width = _width(r)
        hits.append(
            (z.And(z.ULT(xa, xb + z.BitVecVal(width, 64)), z.ULT(xb, xa + z.BitVecVal(nbytes, 64))), (c, r))
        )
    if not hits:
        return Outcome("unknown", reason="the address depends on loaded data"), None, None
    q = [enc.reach(cb, ta), enc.reach(rb, tb), z.Or(*[h for h, _ in hits])]
    around = set(ctx.cfg.loops_containing(cb))
    alts = []
    for counts in variants:
        cs = []
        for lp, n in counts.items():
            kb = enc.iteration(lp, tb)
            if lp in around:
                cs += [enc.iteration(lp, ta) + n == kb, z.UGE(kb, n), enc.exists(lp, ta)]
            else:
                cs.append(kb == n)
            cs.append(enc.exists(lp, tb))
        alts.append(z.And(*cs) if cs else z.BoolVal(True))
    q.append(z.Or(*alts))
    out = sym.solve_shapes(q)
    if not out.sat:
        return out, None, None
    m = out.model
    copy, read = next((cr for h, cr in hits if z.is_true(m.eval(h, model_completion=True))), hits[0][1])
    w = from_model(m, enc, ["a", "b"], sym.contract_text)
    ida, idb = w.threads
    ia = _its(w, enc, m, ta, ctx.cfg.loops_containing(cb))
    ib = _its(w, enc, m, tb, ctx.cfg.loops_containing(rb))
    if ida == idb:
        w.story = (
            f"thread {coord(ida)} of {{block}} issues the cp.async at {w.ref(copy.span)}{ia} and reads its "
            f"destination at {w.ref(read.span)}{ib} before a wait covers the copy"
        )
    else:
        w.story = (
            f"thread {coord(ida)} of {{block}} issues the cp.async at {w.ref(copy.span)}{ia}; thread "
            f"{coord(idb)} reads a byte of its destination at {w.ref(read.span)}{ib} before thread "
            f"{coord(ida)} waits for it"
        )
    return out, w, (copy, read)


def _width(op: Op) -> int:
    from irc.ir.types import size_of

    try:
        return sum(size_of(r.type) for r in op.results) or 4
    except TypeError:
        return 4


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
