"""The async-protocol questions: a pending copy against a read, and two arrivals in one phase.

- `pending_read`: thread `a` issues an asynchronous copy (cp.async) and, with no wait that covers it in
  between, thread `b` (possibly `a` itself) reads a byte the copy writes. The dataflow in
  `irc.analysis.checks.async_protocol` says which copies are pending at the read and how many back edges
  of each loop lie between them; the query relates the two threads' iteration counters by those counts
  (`k_a + n == k_b` for a loop around the copy, `k_b == n` for a loop entered after it), so a 3-stage ring
  reading stage `k % 3` while the copy of tile `k + 2` is pending is decided exactly.
- `many_arrive`: n different threads of one block execute the same arrive instruction in the same
  iterations of the loops around it (the same phase): with an arrival count below n the phase completes
  before the last of them (and the data it publishes) is in.

Addresses that depend on a value the encoding leaves unknown per thread (a load) are not judged: the
solver could then place any two accesses on one byte.
"""

from __future__ import annotations

from typing import Any

from irc.analysis.cfg import Loop
from irc.analysis.mbarrier import const_int
from irc.analysis.symbolic.queries import coord, same_iterations, symbolic
from irc.analysis.symbolic.solver import Outcome
from irc.analysis.symbolic.witness import Witness, enumerate_threads, from_model, ranges
from irc.ir.core import Block, Op, Value


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
    ctx: Any,
    pairs: list[tuple[Op, Op]],
    variants: dict[tuple[int, int], list[dict[Loop, int]]],
    words: tuple[str, str] = ("the cp.async", "reads a byte of its destination"),
    skipped: dict[int, set] | None = None,
) -> tuple[Outcome, Witness | None, tuple[Op, Op] | None]:
    """Can a thread read a byte that a pending cp.async writes? `pairs` are (copy, read) of one copy block
    and one read block (one query for all of them: a GEMM has a dozen copies and dozens of reads per
    stage); `variants[(id(copy), id(read))]` are the loop counts between that copy and that read (any of
    them), each pair held to its own: a read early in the body sees the copies of earlier iterations
    only, though a later read of the same block sees this iteration's. Returns the pair the model chose."""
    sym = symbolic(ctx)
    if sym is None:
        return Outcome("unknown", reason="solver unavailable (pip install z3-solver)"), None, None
    enc = sym.enc
    z = enc.z
    ta, tb = enc.thread("a"), enc.thread("b")
    cb, rb = pairs[0][0].block, pairs[0][1].block
    assert cb is not None and rb is not None
    found: list[tuple[Any, tuple[Op, Op]]] = []
    names = ["a", "b"]
    extra = 0
    read_loops = set(ctx.cfg.loops_containing(rb))
    around = set(ctx.cfg.loops_containing(cb))
    memo: dict[tuple, Any] = {}

    def counted(counts: dict[Loop, int]) -> Any:
        """The reader `tb` is `counts[lp]` iterations of each loop after the copier `ta`."""
        key = tuple(sorted((id(lp), n) for lp, n in counts.items()))
        if key not in memo:
            cs = []
            for lp, n in counts.items():
                kb = enc.iteration(lp, tb)
                if lp in around:
                    cs += [enc.iteration(lp, ta) + n == kb, z.UGE(kb, n), enc.exists(lp, ta)]
                    cs += enc.phases_apart(lp, ta, tb, n)
                else:
                    cs.append(kb == n)
                cs.append(enc.exists(lp, tb))
            memo[key] = z.And(*cs) if cs else z.BoolVal(True)
        return memo[key]

    # Each copy and each read appears in many pairs (8 reads x a dozen copies per question): its address
    # terms are built once. z3 numbers its terms, and the numbering steers the model it returns (the
    # witness), so these memos change no term's lifetime: they keep only terms of accepted pairs (which
    # `found` keeps alive anyway; a skipped pair's terms are rebuilt and dropped as before) and are
    # emptied before the terms are released.
    addrs: dict[int, Any] = {}  # op -> its zero-extended address, for the thread that runs the op here
    ends: dict[tuple[int, str], Any] = {}  # (op, "lo"/"hi") -> its first byte / one past its last

    def bound(op: Op, which: str, x: Any, k: int) -> Any:
        key = (id(op), which)
        hit = ends.get(key)
        if hit is None:
            hit = ends[key] = x + z.BitVecVal(k, 64)
        return hit

    regions = {id(op): region(op) for pair in pairs for op in pair}
    for c, r in pairs:
        pc, oc, nc = regions[id(c)]
        pr, orr, nr = regions[id(r)]
        xa, xb = addrs.get(id(c)), addrs.get(id(r))
        if xa is None or xb is None:  # (both encoded before either is judged)
            xa = xa if xa is not None else _addr(z, enc.value(pc, ta))
            xb = xb if xb is not None else _addr(z, enc.value(pr, tb))
            if xa is None or xb is None or not enc.pure(xa) or not enc.pure(xb):
                continue
            addrs[id(c)], addrs[id(r)] = xa, xb
        xa = bound(c, "lo", xa, oc)
        xb = bound(r, "lo", xb, orr)
        overlap = z.And(z.ULT(xa, bound(r, "hi", xb, nr)), z.ULT(xb, bound(c, "hi", xa, nc)))
        # the copying thread is one that skipped the waits other threads ran (`if (tid == 0) wait_all`):
        # that thread, in the reader's iterations of the loops the wait shares with the read (the wait
        # lies between copy and read), does not reach the wait
        for wt in (skipped or {}).get(id(c), ()):
            if wt.block is None:
                continue
            extra += 1
            nm = f"a~w{extra}"
            tw = enc.thread(nm)
            names.append(nm)
            same = [x == y for x, y in zip(tw.tid, ta.tid)]
            for lp in ctx.cfg.loops_containing(wt.block):
                src = tb if lp in read_loops else ta
                same.append(enc.iteration(lp, tw) == enc.iteration(lp, src))
            overlap = z.And(overlap, *same, z.Not(enc.reach(wt.block, tw)))
        found.append((overlap, (c, r)))
    # the loop counts last: the address terms above create the counters' residues they relate
    anyof: dict[tuple[int, ...], Any] = {}  # the disjunction of some `counted` terms (pairs share them)

    def counted_any(vs: list[dict[Loop, int]]) -> Any:
        cs = [counted(k) for k in vs]
        key = tuple(id(x) for x in cs)  # `memo` keeps each term alive: its id names it
        hit = anyof.get(key)
        if hit is None:
            hit = anyof[key] = z.Or(*cs)
        return hit

    hits = [(z.And(o, counted_any(variants.get((id(c), id(r)), [{}]))), (c, r)) for o, (c, r) in found]
    for held in (addrs, ends, anyof):
        held.clear()
    if not hits:
        return Outcome("unknown", reason="the address depends on loaded data"), None, None
    base = [enc.reach(cb, ta), enc.reach(rb, tb)]
    out = sym.solve_shapes(base + [z.Or(*[h for h, _ in hits])], tuple(names))
    if not out.sat:
        return out, None, None
    m = out.model
    at = next((i for i, (h, _) in enumerate(hits) if z.is_true(m.eval(h, model_completion=True))), 0)
    # the finding names the first read in program order that can see the copy in flight (the model may
    # have picked a later one): a few earlier pairs are asked on their own, only now that one is proven
    tried = 0
    for h, (c, r) in hits[:at]:
        if r is hits[at][1][1] or tried >= 6:
            break
        tried += 1
        first = sym.solve_shapes(base + [h], tuple(names))
        if first.sat:
            out, m, at = first, first.model, hits.index((h, (c, r)))
            break
    copy, read = hits[at][1]
    w = from_model(m, enc, ["a", "b"], sym.contract_text, blocks=[cb, rb])
    ida, idb = w.threads
    ia = _its(w, enc, m, ta, ctx.cfg.loops_containing(cb))
    ib = _its(w, enc, m, tb, ctx.cfg.loops_containing(rb))
    what, act = words
    if ida == idb:
        w.story = (
            f"thread {coord(ida)} of {{block}} issues {what} at {w.ref(copy.span)}{ia} and {act} at "
            f"{w.ref(read.span)}{ib} before a wait covers it"
        )
    else:
        w.story = (
            f"thread {coord(ida)} of {{block}} issues {what} at {w.ref(copy.span)}{ia}; thread "
            f"{coord(idb)} {act} at {w.ref(read.span)}{ib} before thread {coord(ida)} waits for it"
        )
    return out, w, (copy, read)


def region(op: Op) -> tuple[Value, int, int]:
    """The shared bytes an access or asynchronous copy touches: (pointer, constant offset, size). Sizes
    the IR does not know (a tensor copy's box from a host-built descriptor) count as 16 bytes, the least
    any of them moves, so an overlap found is real."""
    from irc.analysis.races import ASYNC_WRITERS, async_bytes
    from irc.analysis.shared_loc import access_bytes, ldmatrix_x4
    from irc.ir.types import size_of

    n = op.name
    if n in ASYNC_WRITERS:
        return op.operands[0], 0, async_bytes(op)
    if n == "bulk_store":
        c = const_int(op.operands[2]) if len(op.operands) > 2 else None
        return op.operands[1], 0, c if c and c > 0 else 16
    if n == "tma_store":
        return op.operands[-1], 0, 16
    if ldmatrix_x4(op):
        return op.operands[0], int(op.attrs.get("offset", 0) or 0), 16
    off = int(op.attrs.get("offset", 0) or 0)
    if n in ("load", "load_vec", "store", "store_vec"):
        size = access_bytes(op) or 4
    else:
        try:
            size = size_of(op.results[0].type) if op.results else 4
        except (TypeError, AttributeError):
            size = 4
    return op.operands[0], off, max(size, 1)


def _uniform_unknowns(enc: Any, term: Any) -> bool:
    """Whether `term` uses a value the encoding knows only to be uniform (one unknown per warp or block,
    a function of the iterations): the solver may give each warp any value, so it cannot count which
    threads pass a condition on it. `elect.sync`'s leader lane is modelled exactly (one per warp)."""
    from irc.analysis.symbolic.solver import RawTerms

    r = RawTerms.get()
    c = term.ctx_ref()
    seen: set[int] = set()
    work = [term.as_ast()]
    while work:
        t = work.pop()
        tid = r.id(c, t)
        if tid in seen:
            continue
        seen.add(tid)
        kind = r.kind(c, t)
        if kind in r.APPS and r.decl_kind(c, r.decl(c, t)) == r.UNINTERPRETED:
            n = r.name(c, r.decl(c, t))
            if r.num_args(c, t) > 0 and not n.startswith("elect#"):
                return True
            if r.num_args(c, t) == 0 and "#u" in n:
                return True
        work.extend(r.children(c, t, kind))
    return False


def _block_level(enc: Any, term: Any) -> bool:
    """Whether `term` is a function of what is one value for the whole block: the coordinates, parameters
    and iterations `enc.pure` admits, plus loads (`ld:` terms) whose address names no thread coordinate (a
    row length read at `blockIdx.x`, the same for every thread). Any other unknown (per thread, per warp)
    is not."""
    from irc.analysis.symbolic.solver import RawTerms

    r = RawTerms.get()
    c = term.ctx_ref()
    seen: set[int] = set()
    work = [(term.as_ast(), False)]
    while work:
        t, inside_load = work.pop()
        tid = r.id(c, t)
        if (tid, inside_load) in seen:
            continue
        seen.add((tid, inside_load))
        kind = r.kind(c, t)
        if kind in r.APPS and r.decl_kind(c, r.decl(c, t)) == r.UNINTERPRETED:
            n = r.name(c, r.decl(c, t))
            if inside_load and n.startswith(("tid.", "laneid", "warpid")):
                return False  # a load at a per-thread address: a value per thread
            if n.startswith("ld:"):
                work.extend((x, True) for x in r.children(c, t, kind))
                continue
            if ("#" in n and not n.startswith("elect#") and n not in enc.determined) or n.startswith("pf:"):
                return False
        work.extend((x, inside_load) for x in r.children(c, t, kind))
    return True


def many_arrive(ctx: Any, b: Block, n: int, what: str, at_span: Any) -> tuple[Outcome, Witness | None]:
    """`n` different threads of one block execute block `b` (an arrive) in the same iterations of the
    loops around it, that is in one phase: with an arrival count below `n`, the phase completes early."""
    sym = symbolic(ctx)
    if sym is None:
        return Outcome("unknown", reason="solver unavailable (pip install z3-solver)"), None
    enc = sym.enc
    names = tuple("ab"[i] if i < 2 else f"t{i}" for i in range(n))
    ths = [enc.thread(x) for x in names]
    q = [enc.reach(b, t) for t in ths]
    if not enc.pure(q[0]) or _uniform_unknowns(enc, q[0]):
        # who arrives depends on loaded data (Triton's warp-specialised partitions read their index from
        # shared memory): the solver would pick any threads
        return Outcome("unknown", reason="the arriving threads depend on loaded data"), None
    for i in range(n):
        for j in range(i + 1, n):
            q.append(enc.distinct(ths[i], ths[j]))
    for t in ths[1:]:
        q += same_iterations(sym, b, ths[0], t)
    out = sym.solve_shapes(q, names)
    if not out.sat:
        return out, None
    w = from_model(out.model, enc, list(names), sym.contract_text, blocks=[b])
    split = enumerate_threads(out.model, enc, lambda th: enc.reach(b, th))
    at = w.ref(at_span) if at_span is not None else "it"
    if split is not None and len(split[True]) >= n:
        w.groups = [(ranges(split[True]), f"each execute {what} at {at} in the same phase")]
    else:
        who = " and ".join(coord(t) for t in w.threads)
        w.story = f"threads {who} of {{block}} each execute {what} at {at} in the same phase"
    return out, w


def missing_arrival(
    ctx: Any, b: Block, tids: tuple[int, int], at_span: Any, block_unknowns: bool = False
) -> tuple[Outcome, Witness | None, Op | None]:
    """A thread of the arriving role (linear id in `tids`) does not execute the arrive `b` in an iteration
    in which another thread does: it left earlier (a `return` without `mbarrier.arrive_drop`), so the
    phase, which counts every thread of the role, never completes. Also returns the branch on which the
    witness's absent thread turned away (the outermost guard of `b` it fails), where the finding belongs.
    `block_unknowns`: the guards may compare with values that are one per block, loads at a block-uniform
    address among them (`_block_level`): which threads pass is then exact."""
    from irc.analysis.mbarrier import guards

    sym = symbolic(ctx)
    if sym is None:
        return Outcome("unknown", reason="solver unavailable (pip install z3-solver)"), None, None
    enc = sym.enc
    z = enc.z
    ta, tb = enc.thread("a"), enc.thread("b")
    ra = enc.reach(b, ta)

    def known(x: Any) -> bool:
        return _block_level(enc, x) if block_unknowns else enc.pure(x) and not _uniform_unknowns(enc, x)

    if not known(ra):
        return Outcome("unknown", reason="the arriving threads depend on loaded data"), None, None
    # `b` not reached is asked as "turned away at one of its guards": the negation of a path condition
    # would also hold for a thread still inside an earlier loop (its exit taken at no iteration yet)
    around = set(ctx.cfg.loops_containing(b))
    away: list[tuple[Op, Any]] = []
    for t, pol in guards(ctx.cfg, b):
        if t.block is None or any(lp not in around for lp in ctx.cfg.loops_containing(t.block)):
            continue  # the exit test of a loop before `b` (a polling wait, a copy loop): always left
        c = enc.value(t.operands[0], tb)
        c = c if z.is_bool(c) else c != 0
        rt = enc.reach(t.block, tb)
        if (enc.pure(c) and enc.pure(rt)) or (
            block_unknowns and _block_level(enc, c) and _block_level(enc, rt)
        ):
            away.append((t, z.And(rt, z.Not(c) if pol else c)))
    if not away:
        return Outcome("unknown", reason="the arriving threads depend on loaded data"), None, None
    lin = enc.linear_tid(tb)
    q = [ra, z.Or(*[x for _, x in away]), enc.distinct(ta, tb), z.UGE(lin, tids[0]), z.ULE(lin, tids[1])]
    q += same_iterations(sym, b, ta, tb)
    out = sym.solve_shapes(q, ("a", "b"))
    if not out.sat:
        return out, None, None
    w = from_model(out.model, enc, ["a", "b"], sym.contract_text, blocks=[b])
    left = None
    for t, x in away:  # innermost first: the last one true is where the thread turned away first
        if z.is_true(out.model.eval(x, model_completion=True)):
            left = t
    at = w.ref(at_span) if at_span is not None else "it"
    split = enumerate_threads(out.model, enc, lambda th: enc.reach(b, th))
    if split is not None:
        role = set(range(tids[0], tids[1] + 1))
        yes = [t for t in split[True] if t in role]
        no = [t for t in split[False] if t in role]
        if yes and no:
            gone = (
                f" (they turned away at {w.ref(left.span)})"
                if left is not None and left.span is not None
                else ""
            )
            w.groups = [(ranges(yes), f"arrive at {at}"), (ranges(no), f"never arrive in that phase{gone}")]
            return out, w, left
    w.story = (
        f"thread {coord(w.threads[0])} of {{block}} arrives at {at}; thread {coord(w.threads[1])} never does"
    )
    return out, w, left


def reach_in_iteration(ctx: Any, b: Block, lp: Loop, k: int, story: str) -> tuple[Outcome, Witness | None]:
    """Some thread of some launch executes block `b` in iteration `k` of loop `lp` (the solver picks the
    trip-count parameters): the witness of a protocol mistake that the iterations' evaluation found."""
    sym = symbolic(ctx)
    if sym is None:
        return Outcome("unknown", reason="solver unavailable (pip install z3-solver)"), None
    enc = sym.enc
    ta = enc.thread("a")
    # `exists`: iteration k is entered only when iteration k - 1 took a back edge (a 1-trip launch never
    # shows iteration 1)
    out = sym.solve([enc.reach(b, ta), enc.iteration(lp, ta) == k, enc.exists(lp, ta)], ("a",))
    if not out.sat:
        return out, None
    w = from_model(out.model, enc, ["a"], sym.contract_text, blocks=[b])
    w.story = f"thread {coord(w.threads[0])} of {{block}} {story}"
    return out, w


def undelivered_reads(
    ctx: Any,
    lp: Loop | None,
    wait: Op,
    elem: tuple[str, int],
    dests: list[tuple[str, int]],
    ends: list[int | None],
    reads: list[Op],
    announced: int,
) -> tuple[Outcome, Witness | None, list[int]]:
    """Past `wait` on barrier element `elem`, in one iteration of `lp`, can one reader per destination of
    the phase's copies (`dests`, each written at most up to `ends`, None: its allocation's end) read bytes
    that together need more than `announced`? A copy writes a prefix of its destination, so a read ending
    `e` bytes into it needs a box of at least `e`. Satisfiable: some byte read after the wait is not
    written in that phase. Returns the bytes each destination must hold (`tx_undelivered` asks)."""
    sym = symbolic(ctx)
    if sym is None:
        return Outcome("unknown", reason="solver unavailable (pip install z3-solver)"), None, []
    enc = sym.enc
    z = enc.z
    from irc.analysis.mbarrier import Eval, barrier_operand, constant_trips

    ev = Eval(ctx.fn, ctx.cfg)
    bases, sizes = enc.shared_bases(), enc.shared_sizes()
    if elem[0] not in bases or any(d[0] not in bases for d in dests):
        return Outcome("unknown", reason="an allocation the encoding does not place"), None, []
    names = tuple(f"r{i}" for i in range(len(dests)))
    ths = [enc.thread(n) for n in names]
    bw = barrier_operand(wait)
    at_elem = z.BitVecVal(bases[elem[0]] + elem[1], 64)
    q = []
    needs = []
    for i, ((dsym, doff), end, th) in enumerate(zip(dests, ends, ths)):
        xw = _addr(z, enc.value(bw, th)) if bw is not None else None
        if xw is None or not enc.pure(xw):
            return Outcome("unknown", reason="the barrier depends on loaded data"), None, []
        q.append(xw == at_elem)  # this reader's iteration waits on the element
        if lp is not None:
            q += [enc.iteration(lp, th) == enc.iteration(lp, ths[0]), enc.exists(lp, th)]
        lo = bases[dsym] + doff
        hi = bases[dsym] + (end if end is not None else sizes.get(dsym, 0))
        need = z.BitVec(f"need{i}", 64)
        alts = []
        for r in reads:
            pr, o, n = region(r)
            x = _addr(z, enc.value(pr, th))
            g = enc.reach(r.block, th)  # type: ignore[arg-type]
            if x is None or not enc.pure(x) or not enc.pure(g):
                continue
            # the read's own loops (`for r in 0..32` after the wait) run only their real iterations
            inner = [x2 for x2 in ctx.cfg.loops_containing(r.block) if x2 is not lp]
            g = z.And(g, *[enc.exists(x2, th) for x2 in inner])
            for x2 in inner:
                trips = constant_trips(ev, ctx.cfg, x2, r.block)
                if trips is not None:
                    g = z.And(g, z.ULT(enc.iteration(x2, th), z.BitVecVal(trips, 32)))
            a = x + z.BitVecVal(o, 64)
            b = a + z.BitVecVal(n, 64)
            alts.append(
                z.And(
                    g,
                    z.UGE(a, z.BitVecVal(lo, 64)),
                    z.ULE(b, z.BitVecVal(hi, 64)),
                    need == b - z.BitVecVal(lo, 64),
                )
            )
        if not alts:
            return Outcome("unknown", reason="the reads depend on loaded data"), None, []
        q.append(z.Or(*alts))
        needs.append(need)
    total = needs[0]
    for x in needs[1:]:
        total = total + x
    q.append(z.UGT(total, z.BitVecVal(announced, 64)))
    out = sym.solve_shapes(q, names)
    if not out.sat:
        return out, None, []
    m = out.model
    got = [m.eval(x, model_completion=True).as_long() for x in needs]
    w = from_model(m, enc, list(names), sym.contract_text, blocks=[r.block for r in reads[:1]])
    parts = [
        f"thread {coord(t)} reads up to byte {got[i] - 1} of the destination at `{dests[i][0]}+{dests[i][1]}`"
        for i, t in enumerate(w.threads)
    ]
    w.story = (
        "after the wait, in {block}, " + " and ".join(parts) + f": together more than the {announced} bytes "
        "announced"
    )
    return out, w, got


def reach_where(ctx: Any, b: Block, make: Any, story: str) -> tuple[Outcome, Witness | None, Any]:
    """Some thread of some launch reaches `b` with `make(enc, thread)` true (a bulk copy of a size or at
    an address the hardware refuses). Returns the model too, to read the offending value from."""
    sym = symbolic(ctx)
    if sym is None:
        return Outcome("unknown", reason="solver unavailable (pip install z3-solver)"), None, None
    enc = sym.enc
    ta = enc.thread("a")
    cond = make(enc, ta)
    if cond is None:
        return Outcome("unknown", reason="the value depends on loaded data"), None, None
    q = [enc.reach(b, ta), cond] + [enc.exists(lp, ta) for lp in ctx.cfg.loops_containing(b)]
    out = sym.solve(q, ("a",))
    if not out.sat:
        return out, None, None
    w = from_model(out.model, enc, ["a"], sym.contract_text, blocks=[b])
    w.story = f"thread {coord(w.threads[0])} of {{block}} {story}"
    return out, w, (out.model, enc, ta)


__all__ = [
    "many_arrive",
    "missing_arrival",
    "pending_read",
    "reach_in_iteration",
    "reach_where",
    "region",
    "undelivered_reads",
]


def edge_live(ctx: Any, p: Block, s: Block) -> bool:
    """Whether some thread of some launch can take the edge p -> s, with the loops' proven difference
    invariants (`irc.analysis.symbolic.invariants`) in the question: the edge into each case of
    `cuda::pipeline`'s `wait_group (head - tail)` switch but one is dead. True unless the solver proves the
    edge dead (no solver, a timeout: live)."""
    from irc.analysis.symbolic.invariants import relations

    sym = symbolic(ctx)
    t = p.terminator
    if sym is None or t is None:
        return True
    memo = sym.live_edges
    key = (id(p), id(s))
    hit = memo.get(key)
    if hit is None:
        enc = sym.enc
        z = enc.z
        th = enc.thread("live")
        taken = [enc.edge(p, i, th) for i, x in enumerate(t.successors) if x is s]
        if not taken:
            hit = True
        else:
            out = sym.solve([z.Or(*taken), *relations(sym, th)], threads=("live",), prefer=False)
            hit = not out.unsat
        memo[key] = hit
    return hit
