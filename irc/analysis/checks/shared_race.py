"""`shared-race`: two shared-memory accesses by different threads, at least one a write, with no barrier
between them, reported only with a concrete witness.

"thread (0, 0, 0) writes `tile[1]` at line 6 while thread (1, 0, 0) reads `tile[1]` at line 7, with no
barrier between them". The facts (intervals, per-thread evaluation, witnesses) are in
`irc/analysis/races.py`; this module picks the pairs and words the finding. Pairs of lanes of one warp
count only when no warp collective (`syncwarp`, `shfl`, ...) separates the accesses either (sm_70+
independent thread scheduling). Atomics against atomics or reads are exempt, and so are two writes of the
same block-uniform value. Anything the evaluation cannot decide is silent.
"""

from __future__ import annotations

from irc.analysis.checks.common import (
    FunctionContext,
    bounded_2d,
    cp_groups,
    launch_eval,
    under_common_shapes,
)
from irc.analysis.races import (
    ASYNC_WRITERS,
    MAX_ACCESSES,
    MAX_BLOCKS,
    MAX_PAIRS,
    Access,
    ThreadEval,
    dead_edges,
    element,
    entries,
    find_witness,
    from_coordinates,
    from_loaded_data,
    incompatible,
    infeasible_exit,
    reach,
    read_modify_write,
    region,
    shared_accesses,
    shared_name,
)
from irc.analysis.valuekeys import same_stored_values
from irc.diagnostics import Diagnostic, Label, error
from irc.ir.core import Op, OpResult
from irc.ir.optable import OPS

CHECK = "shared-race"
MAX_SOLVER_PAIRS = 48  # pairs per kernel the solver is asked about (the evaluation could not decide them)

_STOP_ALWAYS = (
    "barrier",
    "mbarrier_wait",
    "mbarrier_try_wait",
    "mbarrier_test_wait",
    "call",
    "opaque",
    "fence",  # a flag protocol (store, fence, flag; poll, read) may order what follows
)


_KIND: dict[str, int] = {}  # op name -> 2: ends a block interval, 1: ends a warp interval only, 0: neither


def _stop_kind(op: Op) -> int:
    k = _KIND.get(op.name)
    if k is None:
        if op.name in _STOP_ALWAYS or op.has_trait("barrier"):
            k = 2
        elif op.name == "syncwarp" or op.has_trait("warp_collective"):
            k = 1
        else:
            k = 0
        _KIND[op.name] = k
    return k


def _stop_block(op: Op) -> bool:
    return _stop_kind(op) == 2


def _stop_warp(op: Op) -> bool:
    return _stop_kind(op) >= 1


def _arch_num(arch: str) -> int:
    digits = "".join(c for c in arch if c.isdigit())
    return int(digits) if digits else 80


def check_shared_race(ctx: FunctionContext) -> list[Diagnostic]:
    fn = ctx.fn
    if not fn.is_kernel and "caller_launch" not in ctx.cache:
        return []
    cfg = ctx.cfg
    accs = shared_accesses(fn, cfg)
    if not any(a.write for a in accs):
        return []
    if len(accs) > MAX_ACCESSES or len(cfg.rpo) > MAX_BLOCKS:
        return []  # not analysed: too large for the per-thread evaluation budget
    if ctx.cache.get("contract") is None and bounded_2d(fn) is not None:
        return _common_shapes(ctx, accs)  # a thread bound, not a shape: the shapes of that many threads
    ev = launch_eval(ctx)
    if ev is not None:
        return _check_block(ctx, accs, ev)
    # No launch bound (`.reqntid`/`.maxntid`, `@launch`): whether threads collide depends on the block
    # shape (`s[ty][tx + 16 * i]` is race-free for 16x4 blocks and racy for 64x1), which the PTX does not
    # say. Measured on NVIDIA's samples, guessing one shape reported correct kernels (dct8x8, reduction,
    # marchingCubes). A kernel that reads only x coordinates is written for 1-D blocks; a race that
    # happens with every common 1-D block is reported, with the shapes it assumed (docs/analyzer.md).
    return _common_shapes(ctx, accs) if fn.is_kernel else []


def _common_shapes(ctx: FunctionContext, accs) -> list[Diagnostic]:  # type: ignore[no-untyped-def]
    """The races every common 1-D block gives (`under_common_shapes`), decided by the per-thread evaluation
    alone: a pair that needs a parameter value (`scan`'s `size`) would be the solver's pick of a value the
    host never passes, on a shape we guessed."""

    def run(sub: FunctionContext) -> list[Diagnostic]:
        ev = launch_eval(sub)
        if ev is None:
            return []
        # a guessed 2-D block: pairs of different warps only. Whether two threads of a guessed tile share a
        # warp depends on the shape; a kernel written for one warp (GPUVerify's warp-synchronous 2-D
        # transpose) has its lanes land in different warps of a 16x16 guess, which the lanes of its own
        # small block are not
        block = getattr(sub.cache.get("contract"), "block", None)
        two_d = bool(block and block[1] > 1)
        if two_d and _past_arrays(sub, ev, accs):
            return None
        return _check_block(sub, accs, ev, solver=False, warps=not two_d)

    return under_common_shapes(ctx, run, "the race") or []


def _past_arrays(ctx: FunctionContext, ev: ThreadEval, accs) -> bool:  # type: ignore[no-untyped-def]
    """Whether some thread of the (guessed) block indexes past every declared shared array in the first
    iteration: GPUVerify's 4x4 warp-synchronous transpose under a 16x16 guess reads `tile[x][y]` with x up
    to 15 of a 4x4 tile. A shape the kernel cannot have been written for says nothing about its races. Not
    judged with a shared array of unknown size (dynamic shared memory)."""
    sizes = [ev.sizes.get(n, 0) for n in ev.bases]
    if not sizes or any(sz <= 0 for sz in sizes):
        return False
    spans = sorted((ev.bases[n], ev.bases[n] + ev.sizes[n]) for n in ev.bases)
    loop_index = {lp: i for i, lp in enumerate(ctx.cfg.loops)}
    for a in accs:
        e = entries(ev, a, (), loop_index)
        if e is None or not len(e[0]):
            continue
        for x in sorted({int(v) for v in e[1]}):
            if not any(lo <= x and x + a.size <= hi for lo, hi in spans):
                return True
    return False


def _check_block(
    ctx: FunctionContext, accs, ev: ThreadEval, solver: bool = True, warps: bool = True
) -> list[Diagnostic]:  # type: ignore[no-untyped-def]
    """The findings for the kernel's block shape (`ev`: its per-thread evaluation). `solver=False` keeps
    only what the per-thread evaluation decides (no pair whose index or trip count is a parameter), and the
    solver's read-modify-writes of a slot chosen by loaded data (a collision no block shape prevents)."""
    fn = ctx.fn
    cfg = ctx.cfg
    loop_index = {lp: i for i, lp in enumerate(cfg.loops)}
    ranges = sorted((ev.bases[n], ev.bases[n] + ev.sizes.get(n, 0)) for n in ev.bases)

    starts: list[tuple[object, int, Op | None]] = [(fn.entry, 0, None)]
    warp_starts: list[tuple[object, int, Op | None]] = [(fn.entry, 0, None)]
    for b in cfg.rpo:
        for i, op in enumerate(b.ops):
            if _stop_block(op):
                starts.append((b, i + 1, op))
            if _stop_warp(op):
                warp_starts.append((b, i + 1, op))
    block_stops = {id(op) for _, _, op in starts if op is not None}
    warp_stops = {id(op) for _, _, op in warp_starts if op is not None}
    runs = [(starts, lambda op: id(op) in block_stops, False)]
    if _arch_num(ctx.arch) >= 70 and warps:
        runs.append((warp_starts, lambda op: id(op) in warp_stops, True))
    out: list[Diagnostic] = []
    done: set[tuple[int, int]] = set()
    per_line: dict[object, list] = {}  # one finding per line of the later access, counting the rest
    pending = cp_groups(ctx)
    dead = dead_edges(ev)
    sym_budget = [MAX_SOLVER_PAIRS]
    sym_cands: list[tuple] = []  # pairs for the solver, asked once every interval has been walked
    tried_sym: set[tuple] = set()
    memo: dict[tuple[int, tuple], object] = {}  # entries per (access, iteration tag), shared by both runs
    for st, stop, same_warp in runs:
        # a budget per run: the block intervals' pairs (often many, none of them in one warp) must not use
        # up the warp intervals' (a warp-synchronous reduction's steps are only there)
        budget = [MAX_PAIRS]
        stop_loops = {lp for lp in cfg.loops if any(stop(op) for b in lp.blocks for op in b.ops)}
        tried: set[tuple] = set()
        for b, pos, sop in st:
            found = reach(cfg, (b, pos), stop, loop_index, stop_loops, dead)
            items = []  # (access, tag, entries, lowest byte, end byte), sorted by lowest byte
            undecided = []  # (access, tag) the per-thread evaluation could not evaluate: the solver's
            for a, ds in found.items():
                for d in sorted(ds, key=str):
                    if infeasible_exit(ev, d, loop_index):
                        continue
                    e = _entries(memo, ev, a, d, loop_index)
                    if e is not None and len(e[0]):
                        items.append((a, d, e, int(e[1].min()), int(e[1].max()) + a.size))
                    elif e is None and a.wmma is None:  # the solver has no lane layout for a wmma store
                        undecided.append((a, d))
            items.sort(key=lambda it: it[3])
            for i in range(len(items)):
                a, da, ea, _, hi = items[i]
                for j in range(i, len(items)):
                    c, dc, ec, lo_c, _ = items[j]
                    if lo_c >= hi:
                        break  # sorted by lowest byte: no later item overlaps this one's range
                    if not _may_conflict(a, c, pending, da, dc):
                        continue
                    key = (id(a.op), id(c.op)) if id(a.op) <= id(c.op) else (id(c.op), id(a.op))
                    if key in done:
                        continue
                    tk = (id(a), da, id(c), dc)
                    if tk in tried:  # the same pair and iteration tags, reached from another start
                        continue
                    tried.add(tk)
                    budget[0] -= 1
                    if budget[0] < 0:
                        break
                    if _contradictory(ev, a, c) or incompatible(lambda: ctx.facts, a, da, c, dc, loop_index):
                        continue
                    w = find_witness(ev, ea, ec, a.size, c.size, same_warp, ranges)
                    if w is None or _same_value_writes(ctx, a, c, same_warp) or _same_copy(ctx, a, c):
                        continue
                    if same_stored_values(ctx, ev, a, ea, c, ec):
                        continue
                    if _benign_publish(ctx, a, ea, c) or _benign_publish(ctx, c, ec, a):
                        continue
                    done.add(key)
                    d = _report(ctx, ev, a, ea, w[0], c, ec, w[1], w[2], same_warp, sop, loop_index, b)
                    k2 = (d.span.file, d.span.line) if d.span is not None else id(d)
                    if k2 in per_line:
                        per_line[k2][1] += 1
                    else:
                        per_line[k2] = [d, 0]
                        out.append(d)
            if undecided:
                pool = undecided + [(it[0], it[1]) for it in items]
                reg = region(cfg, (b, pos), stop)
                sym_cands += [
                    (a, da, c, dc, b, same_warp, sop, reg)
                    for a, da in undecided
                    for c, dc in pool
                    if _may_conflict(a, c, pending, da, dc)
                    and not _same_copy(ctx, a, c)
                    and not _one_thread(ev, a, c)
                    and not incompatible(lambda: ctx.facts, a, da, c, dc, loop_index)
                ]
    # The solver's pairs, over all intervals: a read against a write first (two asynchronous copies of a
    # pipeline rarely collide, and would spend the budget before the missing barrier of a tiled loop)
    sym_cands.sort(key=lambda t: t[0].write and t[2].write)
    for a, da, c, dc, b, same_warp, sop, reg in sym_cands:
        if not solver and not (
            read_modify_write(a, c) and from_loaded_data(a.ptr) and not from_coordinates(a.ptr)
        ):
            # under a guessed block shape only what needs no parameter value and no thread count: a slot the
            # data alone choose (`bins[v]`); a per-thread slot (`s_Hist[threadPos + v * 64]`, cuda-samples'
            # histogram64, launched with 64 threads) collides only in blocks larger than its stride
            continue
        key = (id(a.op), id(c.op)) if id(a.op) <= id(c.op) else (id(c.op), id(a.op))
        tk = ("sym", id(a), da, id(c), dc)
        if key in done or tk in tried_sym or sym_budget[0] <= 0:
            continue
        tried_sym.add(tk)
        tried_sym.add(("sym", id(c), dc, id(a), da))  # the same question with the threads' names swapped
        sym_budget[0] -= 1
        d = _symbolic_pair(ctx, ev, a, da, c, dc, b, same_warp, sop, loop_index, reg)
        if d is None:
            continue
        done.add(key)
        k2 = (d.span.file, d.span.line) if d.span is not None else id(d)
        copy = next((x.op for x in (a, c) if x.op.name in ASYNC_WRITERS), None)
        if copy is not None:
            k2 = ("copy", id(copy))  # one finding per asynchronous copy (its reads are instances)
        if k2 in per_line:
            per_line[k2][1] += 1
        else:
            per_line[k2] = [d, 0]
            out.append(d)
    for d, more in per_line.values():
        if more:
            d.notes.append(f"{more} more conflicting access pair(s) end at this line")
    return out


def _symbolic_pair(ctx, ev, a, da, c, dc, sblock, same_warp, sop, loop_index, reg=None) -> Diagnostic | None:  # type: ignore[no-untyped-def]
    """The solver's answer for a pair the per-thread evaluation could not decide (a parameter in an
    index or a trip count, a value merged from per-thread paths): a finding with its witness, or None."""
    from irc.analysis.checks.common import witness_json
    from irc.analysis.symbolic.races import race

    outcome, w, byte = race(ctx, a, da, c, dc, sblock, same_warp, loop_index, reg)
    if not outcome.sat or w is None:
        return None
    name, off = shared_name(ev, byte)
    start_loops = set(ctx.cfg.loops_containing(sblock))
    fa, fc = dict(da), dict(dc)
    cross = any(fa.get(loop_index[lp]) != fc.get(loop_index[lp]) for lp in start_loops)
    order = sorted(start_loops, key=lambda lp: loop_index[lp])

    def it(f: dict) -> tuple:
        return tuple(f.get(loop_index[lp]) if isinstance(f.get(loop_index[lp]), int) else 0 for lp in order)

    if cross:  # the earlier iteration first: "X in one iteration while Y in the next"
        first, second = (a, c) if it(fa) <= it(fc) else (c, a)
    else:
        first, second = (a, c) if a.write >= c.write else (c, a)
    ta, tb = (w.threads[0], w.threads[1]) if first is a else (w.threads[1], w.threads[0])
    ex = element(ev, ctx.fn, name, off - off % first.size if first.size else off, first.size)
    ey = element(ev, ctx.fn, name, off - off % second.size if second.size else off, second.size)
    who = lambda t: f"thread ({t[0]}, {t[1]}, {t[2]})"  # noqa: E731
    msg = (
        f"data race on shared `{name}`: {who(ta)} {_VERB[first.kind]} `{ex}` at {_line(first.op)} while "
        f"{who(tb)} {_VERB[second.kind]} `{ey}` at {_line(second.op)}, with no barrier between them"
    )
    if cross:
        msg = msg.replace(" while ", " in one iteration while ", 1).replace(
            ", with no barrier", " in the next iteration, with no barrier", 1
        )
        help_text = (
            "the next iteration overwrites what this one still reads: add a second `barrier()` at the "
            "end of the loop body"
        )
    elif read_modify_write(a, c) and from_loaded_data(a.ptr):
        msg += (
            " (a read-modify-write of a slot chosen by loaded data: two threads whose data pick the same "
            "slot lose an update)"
        )
        help_text = "make the update atomic (`atomicAdd(&bins[v], 1)`, `red.shared.add`)"
    elif same_warp:
        msg += " (both threads are lanes of one warp, which sm_70+ does not keep in step without `syncwarp`)"
        help_text = "add `syncwarp()` (`__syncwarp()`) between the accesses, or a block `barrier()`"
    else:
        help_text = "add `barrier()` (`__syncthreads()`) between the accesses"
    labels = []
    if first.op.span is not None and first.op is not second.op:
        labels.append(Label(first.op.span, f"{_VERB[first.kind]} `{ex}` here ({who(ta)})"))
    w.story = f"{who(ta)} and {who(tb)} of {{block}} touch byte {off} of `{name}`"
    if read_modify_write(a, c) and from_loaded_data(a.ptr):
        w.story += " (their loaded data pick the same slot)"
    d = error(CHECK, msg, second.op.span, labels=labels, help=help_text)
    d.witness = witness_json(w)
    return d


def _entries(memo, ev, a: Access, d, loop_index):
    k = (id(a), d)
    if k not in memo:
        memo[k] = entries(ev, a, d, loop_index)
    return memo[k]


def _contradictory(ev: ThreadEval, a: Access, c: Access) -> bool:
    """The two accesses' guards assumed opposite sides of one block-uniform branch (`if n > 32 { store }
    else { load }`): no block runs both."""
    sa, sc = ev.assumed(a.block), ev.assumed(c.block)
    if not sa or not sc:
        return False
    sides = dict(sa)
    return any(d in sides and sides[d] != k for d, k in sc)


def _copy_later(dw, dr) -> bool:  # type: ignore[no-untyped-def]
    """The copy's iteration tag is past the read's in some loop (the copy comes after the read)."""
    fw, fr = dict(dw), dict(dr)
    return any(
        isinstance(v, int) and v > (fr.get(k, 0) if isinstance(fr.get(k, 0), int) else v)
        for k, v in fw.items()
    )


def _may_conflict(a: Access, c: Access, pending=None, da=(), dc=()) -> bool:  # type: ignore[no-untyped-def]
    if not (a.write or c.write):
        return False
    ra, rc = _root(a), _root(c)
    if ra is not None and rc is not None and ra != rc:
        return False  # two different shared allocations never overlap
    if pending is not None:
        # a cp.async still in flight at the read: `async-unwaited`'s finding (one finding per bug)
        for w, r, dw, dr in ((a, c, da, dc), (c, a, dc, da)):
            if w.op.name == "cp_async" and not r.write and pending.is_pending(w.op, r.op):
                if not _copy_later(dw, dr):
                    return False
    if a.atomic and c.atomic:
        return False
    if (a.atomic and not c.write and cas_validated(c)) or (c.atomic and not a.write and cas_validated(a)):
        return False  # the CAS-loop idiom: a stale value of the plain read only makes the CAS retry
    return True


def cas_validated(r: Access) -> bool:
    """A plain load whose value reaches the compare operand of an `atomic_cas` on the same address
    (through copies, casts and the loop's block arguments): `old = s[i]; do { seen = atomicCAS(&s[i], old,
    f(old)); ... }`. A stale value only fails the compare and is retried, so the read does not race the
    atomics; any other plain read next to atomics (a histogram merged with no barrier) does."""
    memo = getattr(r, "_cas", None)
    if memo is None:
        memo = r._cas = _reaches_cas(r.op)  # type: ignore[attr-defined]
    return memo


def _strip(v):  # type: ignore[no-untyped-def]
    while isinstance(v, OpResult) and v.op.name in ("bitcast", "copy", "cvt") and v.op.operands:
        v = v.op.operands[0]
    return v


def _same_expr(x, y, depth: int = 16) -> bool:  # type: ignore[no-untyped-def]
    """One value, or one pure expression of the same operands (`&s[(t + 1) % 32]` written twice, before
    value numbering merges the two): the same address in every thread."""
    if x is y:
        return True
    if depth == 0 or not (isinstance(x, OpResult) and isinstance(y, OpResult)):
        return False
    ox, oy = x.op, y.op
    if ox.name != oy.name or ox.attrs != oy.attrs or len(ox.operands) != len(oy.operands):
        return False
    if x.index != y.index or not OPS[ox.name].has("pure"):
        return False
    return all(_same_expr(a, b, depth - 1) for a, b in zip(ox.operands, oy.operands))


def _reaches_cas(load: Op) -> bool:
    if load.name != "load" or not load.results:
        return False
    addr = _strip(load.operands[0])
    seen: set[int] = set()
    work = [load.results[0]]
    while work:
        v = work.pop()
        if id(v) in seen:
            continue
        seen.add(id(v))
        for u in v.users:
            if u.name == "atomic_cas" and len(u.operands) > 1 and u.operands[1] is v:
                if _same_expr(_strip(u.operands[0]), addr):
                    return True
            elif u.name in ("bitcast", "copy", "cvt"):
                work += list(u.results)
            elif u.name in ("br", "cbr"):  # into a block argument (the loop-carried `old`)
                for k, args in enumerate(u.succ_args):
                    for j, x in enumerate(args):
                        if x is v:
                            work.append(u.successors[k].args[j])
    return False


def _root(a: Access) -> str | None:
    r = getattr(a, "_root", 0)
    if r == 0:
        from irc.analysis.mbarrier import shared_root

        r = shared_root(a.ptr)
        a._root = r  # type: ignore[attr-defined]
    return r  # type: ignore[return-value]


def _one_thread(ev: ThreadEval, a: Access, c: Access) -> bool:
    """Both accesses are made by the one thread an `elect` picks (`if warp == 0 && elect_one()`: a
    producer's TMA copies): no second thread to race with. Asked before the solver, whose question is
    about two distinct threads and which takes milliseconds to say no."""
    s = ev.single_issuer(a.block)
    return s is not None and s is ev.single_issuer(c.block)


def _same_copy(ctx: FunctionContext, a: Access, c: Access) -> bool:
    """One asynchronous copy instruction whose source and destination are block-uniform (every operand
    but the thread's own mbarrier handle): the threads that issue it write the same bytes."""
    if a.op is not c.op or a.op.name not in ASYNC_WRITERS:
        return False
    return all(_same_uniform(ctx, v, v) for v in a.op.operands)


def _same_value_writes(ctx: FunctionContext, a: Access, c: Access, same_warp: bool = False) -> bool:
    """Two plain stores of one block-uniform value: every writer stores the same bytes (not a race). For
    two lanes of one warp (the warp run's witnesses), a warp-uniform value is enough: after a butterfly
    all-reduce (`shfl.sync.bfly` by 16, 8, 4, 2, 1) every lane holds the warp's total and Triton's epilogue
    stores it from every lane to the warp's slot. Asked only once a witness exists (uniformity facts)."""
    if not (a.op.name == "store" and c.op.name == "store" and not a.atomic and not c.atomic):
        return False
    return _same_uniform(ctx, a.op.operands[1], c.op.operands[1], warp=same_warp)


def _benign_publish(ctx: FunctionContext, w: Access, ew, r: Access) -> bool:
    """Every thread stores one block-uniform value to one uniform address and then reads it back
    (`p = A; ... = p`): the read sees that value whichever store lands last."""
    if not (w.write and not w.atomic and w.op.name == "store" and not r.write):
        return False
    if not _same_uniform(ctx, w.op.operands[1], w.op.operands[1]):
        return False
    addrs = ew[1]
    if len(addrs) == 0 or (addrs != addrs[0]).any():
        return False
    cfg = ctx.cfg
    if cfg.loops_containing(w.block) != cfg.loops_containing(r.block):
        return False
    if w.block is r.block:
        return w.index < r.index
    return cfg.dominates(w.block, r.block)


def _same_uniform(ctx: FunctionContext, va, vc, warp: bool = False) -> bool:
    from irc.analysis.uniformity import Level, const_value

    if va is vc:
        try:
            return ctx.facts.level(va) >= (Level.WARP if warp else Level.BLOCK)
        except Exception:  # noqa: BLE001 - no facts: not provably uniform
            return False
    ca, cc = const_value(va), const_value(vc)
    return ca is not None and ca == cc


def _line(op: Op) -> str:
    return f"line {op.span.line}" if op.span is not None else "an unknown line"


_VERB = {"read": "reads", "write": "writes", "atomic": "atomically updates", "copy": "copies into"}


def _who(ev: ThreadEval, t: int) -> str:
    bx, by, _ = ev.dims
    return f"thread ({t % bx}, {(t // bx) % by}, {t // (bx * by)})"


def _iters(ctxd: dict, other: dict, start_loops: set, loop_index) -> str:
    parts = []
    for lp, j in sorted(ctxd.items(), key=lambda kv: kv[0].depth):
        lines = [op.span.line for op in lp.header.ops if op.span is not None]
        where = f"the loop at line {min(lines)}" if lines else "a loop"
        if lp in start_loops:
            if other.get(lp, j) != j:
                parts.append(f"iteration k{'+' + str(j) if j else ''} of {where}")
        else:
            parts.append(f"iteration {j} of {where}")
    return (" in " + ", ".join(parts)) if parts else ""


def _report(ctx, ev, a, ea, ia, c, ec, ic, byte, same_warp, sop, loop_index, sblock) -> Diagnostic:
    ta, tc = int(ea[0][ia]), int(ec[0][ic])
    cxa, cxc = ea[3][int(ea[2][ia])], ec[3][int(ec[2][ic])]
    name, off = shared_name(ev, byte)
    start_loops = set(ctx.cfg.loops_containing(sblock))
    # put the access that happens first (earlier iteration, else the write) first
    order = [(a, ta, cxa, cxc), (c, tc, cxc, cxa)]
    if sum(cxc.values()) < sum(cxa.values()) or (
        sum(cxc.values()) == sum(cxa.values()) and c.write and not a.write
    ):
        order.reverse()
    (x, tx, cx, ox), (y, ty, cy, oy) = order
    ex = element(ev, ctx.fn, name, off - off % x.size if x.size else off, x.size)
    ey = element(ev, ctx.fn, name, off - off % y.size if y.size else off, y.size)
    msg = (
        f"data race on shared `{name}`: {_who(ev, tx)} {_VERB[x.kind]} `{ex}` at {_line(x.op)}"
        f"{_iters(cx, ox, start_loops, loop_index)} while {_who(ev, ty)} {_VERB[y.kind]} `{ey}` at "
        f"{_line(y.op)}{_iters(cy, oy, start_loops, loop_index)}, with no barrier between them"
    )
    cross_iter = any(cx.get(lp) != cy.get(lp) for lp in start_loops if lp in cx and lp in cy)
    if same_warp:
        msg += " (both threads are lanes of one warp, which sm_70+ does not keep in step without `syncwarp`)"
    if cross_iter:
        help_text = (
            "the next iteration overwrites what this one still reads: add a second `barrier()` at the "
            "end of the loop body"
        )
    elif any(cx.get(lp) != cy.get(lp) for lp in cx if lp in cy):
        help_text = (
            "threads run ahead into later iterations of the loop: add a `barrier()` inside the loop, "
            "after the accesses of each iteration"
        )
    elif same_warp:
        help_text = "add `syncwarp()` (`__syncwarp()`) between the accesses, or a block `barrier()`"
    else:
        help_text = "add `barrier()` (`__syncthreads()`) between the accesses"
    labels = []
    if x.op.span is not None and x.op is not y.op:
        labels.append(Label(x.op.span, f"{_VERB[x.kind]} `{ex}` here ({_who(ev, tx)})"))
    d = error(CHECK, msg, y.op.span, labels=labels, help=help_text)
    contract = ctx.cache.get("contract")
    d.witness = _numeric_witness(
        ev,
        tx,
        ty,
        cx,
        cy,
        start_loops,
        name,
        off,
        getattr(contract, "text", "") if contract is not None else "",
    )
    return d


def _numeric_witness(
    ev, tx: int, ty: int, cx: dict, cy: dict, start_loops, name: str, off: int, contract: str = ""
) -> dict:  # type: ignore[no-untyped-def]
    """The evaluation's witness in the form every finding carries (`irc.analysis.symbolic.witness`):
    the block it evaluated (block 0 of a one-block grid: the index is block-independent there), both
    threads, the iterations and the byte."""
    from irc.analysis.symbolic.witness import Witness

    bx, by, bz = ev.dims

    def coord(t: int) -> tuple[int, int, int]:
        return (t % bx, (t // bx) % by, t // (bx * by))

    w = Witness((bx, by, bz), (1, 1, 1), (0, 0, 0), [coord(tx), coord(ty)], contract=contract)
    for lp, j in sorted(cx.items(), key=lambda kv: kv[0].depth):
        sp = next((op.span for op in lp.header.ops if op.span is not None), None)
        key = f"the loop at {w.ref(sp)}" if sp is not None else "the loop"
        other = cy.get(lp, j)
        w.iterations[key] = j if other == j or lp not in start_loops else min(j, other)
    w.story = (
        f"thread {_coord(coord(tx))} and thread {_coord(coord(ty))} of {{block}} touch byte {off} of `{name}`"
    )
    return w.to_json()


def _coord(t: tuple[int, int, int]) -> str:
    return f"({t[0]}, {t[1]}, {t[2]})"
