"""The race question for two shared-memory accesses the per-thread evaluation could not decide.

Two threads `a` and `b` of one block (of one warp, for warp intervals), both past the same barrier (so in
the same iteration of every loop around it, offset by the back edges each access's path took), both
executing their access (path conditions, existing iterations), touch one byte of a shared allocation, at
least one writes, and two writes store different values. Kernel parameters, merges of per-thread paths
and trip counts from parameters are exactly what the solver handles and the evaluation does not.

Precision: an access whose address or path condition depends on a value the encoding leaves unknown per
thread (a load, a shuffle) is not judged here: any two threads could then be made to collide, and the
check reports only races it can show. A path condition on loaded data is judged for one shape only, the
read-test-write of the location written (`if (v > s_max) s_max = v`, `races.tests_own_value`). Another
exception: the address of an atomic, against a plain access to
the same memory. Atomics say that the author expects threads' addresses to collide (a histogram's bins
from the data), so the loaded value may be any value there. The same holds for a plain read-modify-write
of one address value (`bins[v] += 1` without the atomic): its load and its store, in any two threads.
"""

from __future__ import annotations

from typing import Any

from irc.analysis.races import read_modify_write, tests_own_value
from irc.analysis.symbolic.queries import symbolic
from irc.analysis.symbolic.solver import Outcome
from irc.analysis.symbolic.witness import Witness, from_model


def _addr64(z: Any, t: Any) -> Any:
    if z.is_bool(t):
        return None
    return z.ZeroExt(64 - t.size(), t) if t.size() < 64 else t


def _tag(t: object) -> object:
    return {"x0": 0, "x1": 1}.get(t, t) if isinstance(t, str) else t


def within(enc: Any, cfg: Any, reg: frozenset, start: Any, b: Any, th: Any, memo: dict) -> Any:
    """A necessary condition for `th` to reach block `b` from the interval's start through the blocks of
    `reg` only (`irc.analysis.races.region`): its last step came from a block of the region, reached the
    same way. The start block, and the headers of the loops around it (entered again through their back
    edges), are reached as their path conditions say; so is a block whose every entry is from outside the
    region (no restriction: a weaker condition is still a necessary one)."""
    z = enc.z
    hit = memo.get(id(b))
    if hit is not None:
        return hit
    around = set(cfg.loops_containing(start))
    stack: list = [(b, False)]  # depth first, predecessors before the block (back edges ignored)
    while stack:
        x, expanded = stack.pop()
        if id(x) in memo:
            continue
        preds = [] if x is start or any(x in lp.headers for lp in around) else _region_preds(cfg, reg, x)
        if not expanded and preds:
            stack.append((x, True))
            stack += [(p, False) for p, _ in preds if id(p) not in memo]
            continue
        if not preds or any(id(p) not in memo for p, _ in preds):  # (a cycle: irreducible flow)
            memo[id(x)] = enc.reach(x, th)
            continue
        terms = [z.And(memo[id(p)], enc.edge(p, i, th)) for p, i in preds]
        memo[id(x)] = terms[0] if len(terms) == 1 else z.Or(*terms)
    return memo[id(b)]


def _region_preds(cfg: Any, reg: frozenset, b: Any) -> list:
    """The forward edges (pred, successor index) into `b` from blocks of `reg`."""
    out = []
    for p in cfg.preds.get(b, ()):
        if p not in reg or any(b in lp.headers and p in lp.blocks for lp in cfg.loops_containing(b)):
            continue
        t = p.terminator
        if t is None:
            continue
        out += [(p, i) for i, s in enumerate(t.successors) if s is b and (p, i) not in out]
    return out


def race(
    ctx: Any,
    a: Any,
    da: tuple,
    c: Any,
    dc: tuple,
    start_block: Any,
    same_warp: bool,
    loop_index: dict,
    reg: frozenset | None = None,
) -> tuple[Outcome, Witness | None, int]:
    """Outcome, witness and the shared byte (virtual address) both threads touch. `reg`: the blocks of
    the barrier interval (`irc.analysis.races.region`), through which both threads reach their accesses."""
    sym = symbolic(ctx)
    if sym is None:
        return Outcome("unknown", reason="solver unavailable"), None, 0
    enc = sym.enc
    z = enc.z
    ta, tb = enc.thread("a"), enc.thread("b")
    pa, pb = enc.value(a.ptr, ta), enc.value(c.ptr, tb)
    ga, gb = enc.reach(a.block, ta), enc.reach(c.block, tb)
    xa, xb = _addr64(z, pa), _addr64(z, pb)
    if xa is None or xb is None:
        return Outcome("unknown", reason="depends on loaded data"), None, 0
    for g, acc in ((ga, a), (gb, c)):
        # a guard on loaded data is judged only for the read-test-write of the location written (`if (v >
        # s_max) s_max = v`): elsewhere the data may keep the two threads' guards apart
        if not enc.pure(g) and not tests_own_value(ctx.cfg, acc):
            return Outcome("unknown", reason="depends on loaded data"), None, 0
    for x, acc, other in ((xa, a, c), (xb, c, a)):
        # A loaded value in an address is judged only for an atomic against a plain access: atomics are
        # how one says that threads' addresses may collide (a histogram's bins), so any bin is fair game.
        # Elsewhere (a scatter through a permutation) a collision the data never makes would be a guess.
        # A plain read-modify-write of a slot chosen by loaded data (`bins[v] += 1`) is the histogram
        # idiom without its atomic: colliding is what the data are for (`races.read_modify_write`).
        if not enc.pure(x) and not (acc.atomic and not other.atomic) and not read_modify_write(acc, other):
            return Outcome("unknown", reason="depends on loaded data"), None, 0
    xa = xa + z.BitVecVal(a.offset, 64)
    xb = xb + z.BitVecVal(c.offset, 64)
    q = [ga, gb, enc.distinct(ta, tb)]
    if reg is not None:
        for acc, th in ((a, ta), (c, tb)):
            q.append(within(enc, ctx.cfg, reg, start_block, acc.block, th, {}))
    q += [z.ULT(xa, xb + z.BitVecVal(c.size, 64)), z.ULT(xb, xa + z.BitVecVal(a.size, 64))]
    bases, sizes = enc.shared_bases(), enc.shared_sizes()
    byte = z.If(z.UGE(xa, xb), xa, xb)
    q.append(
        z.Or(
            *[z.And(z.UGE(byte, base), z.ULT(byte, base + sizes[n])) for n, base in bases.items()]
            or [z.BoolVal(False)]
        )
    )
    if same_warp:
        q.append(enc.warp_of(ta) == enc.warp_of(tb))
    by_index = {i: lp for lp, i in loop_index.items()}
    start_loops = set(ctx.cfg.loops_containing(start_block))
    fa, fc = dict(da), dict(dc)
    for lp in start_loops:
        i = loop_index[lp]
        # no tag: the start's own iteration; "x0"/"x1" (`races._transition`): the thread left the loop in
        # the start's iteration or the next, and its counter (which the values it carries out are
        # functions of) stays at that iteration
        ja, jc = _tag(fa.get(i, 0)), _tag(fc.get(i, 0))
        if isinstance(ja, int) and isinstance(jc, int):
            q.append(enc.iteration(lp, ta) - enc.iteration(lp, tb) == z.BitVecVal(ja - jc, 32))
    for lp in ctx.cfg.loops_containing(a.block):
        q.append(enc.exists(lp, ta))
    for lp in ctx.cfg.loops_containing(c.block):
        q.append(enc.exists(lp, tb))
    del by_index
    stores = ("store", "store_vec")
    if a.write and c.write and a.op.name in stores and c.op.name in stores:
        # the written values can differ (two writes of one value are not a race): for vector stores, some
        # element pair (one instruction: element k against element k)
        xs, ys = a.op.operands[1:], c.op.operands[1:]
        diff = []
        if len(xs) == len(ys):
            for x, y in zip(xs, ys):
                va, vb = enc.value(x, ta), enc.value(y, tb)
                if va is None or vb is None or z.is_bool(va) != z.is_bool(vb):
                    diff = []
                    break
                if not z.is_bool(va) and va.size() != vb.size():
                    diff = []
                    break
                diff.append(va != vb)
        if diff:
            q.append(z.Or(*diff) if len(diff) > 1 else diff[0])
    out = sym.solve_shapes(q)
    if not out.sat:
        return out, None, 0
    w = from_model(out.model, enc, ["a", "b"], sym.contract_text, blocks=[a.block, c.block])
    addr = out.model.eval(byte, model_completion=True).as_long()
    return out, w, addr
