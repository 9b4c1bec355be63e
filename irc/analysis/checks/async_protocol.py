"""The mbarrier protocol checks: `mbarrier-arrival-mismatch`, `mbarrier-phase`, `mbarrier-uninitialized`,
the no-`expect_tx` half of `mbarrier-tx-mismatch`, and the two async-memory checks `async-unwaited` and
`async-proxy-fence` (docs/analyzer.md).

Each check turns facts of `irc.analysis.mbarrier` into findings whose labels walk through the protocol
(init -> arrivals -> copies -> waits). Every rule reports only what the facts prove; an object touched by
calls or unmodelled instructions, or a loop whose counter cannot be evaluated, is left alone.
"""

from __future__ import annotations

from irc.analysis.checks.common import FunctionContext, not_decided, witness_json
from irc.analysis.mbarrier import (
    ANNOUNCE_OPS,
    COPY_OPS,
    WAIT_OPS,
    BarrierObject,
    Eval,
    Protocol,
    SAddr,
    arrival_count,
    barrier_operand,
    const_int,
    executes,
    iteration_loop,
    iterations,
    protocol,
    shared_root,
    strip,
    threads_of,
    users_through_casts,
)
from irc.diagnostics import Diagnostic, Label, error
from irc.ir.core import Block, Op, OpResult, Value

ARRIVAL = "mbarrier-arrival-mismatch"
TX = "mbarrier-tx-mismatch"
PHASE = "mbarrier-phase"
UNINIT = "mbarrier-uninitialized"
UNWAITED = "async-unwaited"
PROXY = "async-proxy-fence"


def proto_of(ctx: FunctionContext) -> Protocol:
    p = ctx.cache.get("mbar_protocol")
    if p is None:
        p = protocol(ctx.fn, ctx.cfg)
        ctx.cache["mbar_protocol"] = p
    return p  # type: ignore[return-value]


def eval_of(ctx: FunctionContext) -> Eval:
    e = ctx.cache.get("mbar_eval")
    if e is None:
        e = Eval(ctx.fn, ctx.cfg)
        ctx.cache["mbar_eval"] = e
    return e  # type: ignore[return-value]


def _line(op: Op) -> str:
    return f"line {op.span.line}" if op.span is not None else "here"


def _lab(op: Op, msg: str) -> list[Label]:
    return [Label(op.span, msg)] if op.span is not None else []


def _has_ops(ctx: FunctionContext) -> bool:
    return bool(proto_of(ctx).objects)


# ------------------------------------------------------------------------------------ wait parities
def wait_sequence(ctx: FunctionContext, w: Op) -> list[tuple[int, int, int]] | None:
    """For a parity wait in a loop: [(iteration, barrier offset, parity)] over the first iterations in
    which it runs; None when not decidable (not in a loop, unknown counter, dynamic barrier)."""
    if w.name not in WAIT_OPS or w.attrs.get("state") or w.block is None:
        return None
    lp = iteration_loop(ctx.cfg, w.block)
    if lp is None:
        return None
    ev = eval_of(ctx)
    its = iterations(ev, ctx.cfg, lp)
    if its is None:
        return None
    out = []
    for k, env in enumerate(its):
        ex = executes(ev, ctx.cfg, lp, w.block, env)
        if ex is None:
            return None
        if not ex:
            continue
        a, p = ev.value(w.operands[0], env), ev.value(w.operands[1], env)
        if not isinstance(a, SAddr) or not isinstance(p, int):
            return None
        out.append((k, a.off, p & 1))
    return out


def _reused(ctx: FunctionContext, o: BarrierObject, off: int) -> Op | None:
    """An arrival on element `off` of `o` inside a loop (so the barrier goes through one phase per
    iteration), if any. Arrivals at a fixed other offset of the same symbol (barriers packed into one
    shared array) do not count."""
    ev = eval_of(ctx)
    for op in o.arrives + o.copies:
        if op.block is None:
            continue
        lp = iteration_loop(ctx.cfg, op.block)
        if lp is None:
            continue
        bar = op.operands[-1] if op.name in COPY_OPS else op.operands[0]
        its = iterations(ev, ctx.cfg, lp, 2)
        a = ev.value(bar, its[0]) if its else None
        if isinstance(a, SAddr) and a.off != off and not ev.depends_on(bar, set(lp.header.args)):
            continue
        return op
    return None


def element_name(ctx: FunctionContext, sym: str, off: int) -> str:
    """`full[1]` for an element of a declared mbarrier array, else `sym+off`."""
    from irc.ir.types import ArrayType, MBarrierType

    decl = next((d for d in ctx.fn.shared if d.name == sym), None)
    if decl is not None and isinstance(decl.type, ArrayType) and isinstance(decl.type.elem, MBarrierType):
        return f"{sym}[{off // 8}]"
    return sym if off == 0 else f"{sym}+{off}"


def check_phase(ctx: FunctionContext) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    pr = proto_of(ctx)
    rpo = {b: i for i, b in enumerate(ctx.cfg.rpo)}
    for o in pr.objects.values():
        seqs = {w: wait_sequence(ctx, w) for w in o.waits}
        for w in o.waits:
            seq = seqs[w]
            if not seq:
                continue
            last: dict[int, tuple[int, int]] = {}
            for k, off, p in seq:
                prev = last.get(off)
                if (
                    prev is not None
                    and prev[1] == p
                    and not _flipped_between(ctx, rpo, seqs, w, off, p, prev[0], k)
                    and not _reinitialised(ctx, o, w, off)
                ):
                    again = _reused(ctx, o, off)
                    if again is not None:
                        out.append(_phase_diag(ctx, o, w, again, prev[0], k, off, p))
                    break
                last[off] = (k, p)
        if not any(d.span is not None and any(d.span == w.span for w in o.waits) for d in out):
            d = _two_waits_one_phase(ctx, o, seqs, rpo)
            if d is not None:
                out.append(d)
        for w in o.waits:
            d = _stale_token(ctx, o, w)
            if d is not None:
                out.append(d)
    return out


def _polls(lp, w: Op) -> bool:  # type: ignore[no-untyped-def]
    """Whether loop `lp` repeats the wait `w` until it succeeds: an exit of the loop is decided by the
    wait's result. `is_spin_loop` knows only the bare loop; libcu++'s `barrier::wait` polls with a backoff
    (`nanosleep`, clock reads) in the loop too."""
    seen: set[int] = set()
    for src, _ in lp.exits:
        t = src.terminator
        work = [t.operands[0]] if t is not None and t.name == "cbr" and t.operands else []
        while work:
            v = work.pop()
            if id(v) in seen or not isinstance(v, OpResult) or v.op.block not in lp.blocks:
                continue
            seen.add(id(v))
            if v.op is w:
                return True
            if len(seen) < 64:
                work.extend(v.op.operands)
    return False


def _stale_token(ctx: FunctionContext, o: BarrierObject, w: Op) -> Diagnostic | None:
    """A wait on a state token (`mbarrier.test_wait`/`try_wait` with the result of an arrive) inside a
    loop, whose token is the same in every iteration (taken once, before the loop): the phase it names
    completes once, so from the second iteration on the wait returns at once. Reported with a launch that
    runs the wait in iteration 1; a loop that cannot get there (the solver says so) is silent."""
    if not w.attrs.get("state") or w.block is None or len(w.operands) < 2:
        return None
    lp = _wait_loop(ctx, w)
    if lp is None:
        return None
    first = 1
    if eval_of(ctx).varies(w.operands[1], lp):
        if not _tokens_already_waited(ctx, w):
            return None
        first = 0  # every token that reaches it was waited on before: stale from the first iteration
    from irc.analysis.symbolic.asyncq import reach_in_iteration

    res, wit = reach_in_iteration(ctx, w.block, lp, first, "waits again on the token of a completed phase")
    if not res.sat:
        return not_decided(PHASE, w, res.reason) if res.reason in ("timeout", "budget") else None
    tok = strip(w.operands[1])
    src = tok.op if isinstance(tok, OpResult) else None
    if first == 0:
        labels = _lab(w, "waits on a token whose phase an earlier wait already saw complete")
        why = (
            "the token it is handed was already waited on (before the loop, or at the end of the previous "
            "iteration), so the phase it names has completed and the wait returns at once (stale data)"
        )
    else:
        labels = _lab(w, "waits on the same token in every iteration")
        why = (
            "the token is taken once, outside the loop, so every iteration after the first asks about a "
            "phase that has already completed and the wait returns at once (stale data)"
        )
    if src is not None and src.span is not None:
        labels += _lab(src, "the token: the phase of this one arrival, before the loop")
    d = error(
        PHASE,
        f"mbarrier wait on a stale state token of `{o.sym}`: {why}",
        w.span,
        labels=labels,
        help="take the token from this iteration's arrive (`token = mbarrier.arrive(...)` inside the loop), "
        "or wait on the phase parity",
    )
    d.witness = witness_json(wit)
    return d


def _tokens_already_waited(ctx: FunctionContext, w: Op) -> bool:
    """The token of `w` is a loop-carried value every incoming value of which is an arrive's token that
    another wait consumed before that edge (`tok = arrive(); wait(tok);` at the end of the body, carried
    into the next iteration's `wait(tok)`): the phase it names has completed, so `w` returns at once."""
    from irc.ir.core import BlockArg

    tok = strip(w.operands[1])
    if not isinstance(tok, BlockArg):
        return False
    edges = tok.incoming_edges()
    if not edges:
        return False
    for p, v in edges:
        v = strip(v)
        if not isinstance(v, OpResult) or v.op.name not in ("mbarrier_arrive", "mbarrier_arrive_expect_tx"):
            return False
        if p is None or not any(
            u is not w and u.name in WAIT_OPS and u.block is not None and ctx.cfg.dominates(u.block, p)
            for u in users_through_casts(v)
        ):
            return False
    return True


def _two_waits_one_phase(ctx: FunctionContext, o: BarrierObject, seqs: dict, rpo: dict) -> Diagnostic | None:
    """Two different waits of one loop on one barrier element, consecutive in execution order, with the
    same parity although an arrival on the element lies between them: one barrier serving two phases per
    step (the TMA copies' phase, then the MMA's `tcgen05.commit`) awaited with one parity for both. The
    second wait returns at once on the first phase. (Two waits on one phase with no arrival between them
    are only redundant, and not reported.)"""
    cfg = ctx.cfg
    by_loop: dict[int, list] = {}
    for w, seq in seqs.items():
        if not seq or w.block is None:
            continue
        lp = iteration_loop(cfg, w.block)
        if lp is None:
            continue
        pos = exec_pos(rpo, w)
        for k, off, p in seq:
            by_loop.setdefault(id(lp), []).append((k, pos, off, p, w))
    for events in by_loop.values():
        events.sort(key=lambda e: (e[0], e[1]))
        last: dict[int, tuple] = {}
        for ev in events:
            k, pos, off, p, w = ev
            prev = last.get(off)
            last[off] = ev
            if prev is None or prev[4] is w or prev[3] != p or prev[0] != k:
                continue
            arr = _arrive_between(ctx, o, rpo, prev[1], pos)
            if arr is None or _reinitialised(ctx, o, w, off):
                continue
            name = element_name(ctx, o.sym, off)
            labels = _lab(prev[4], f"iteration {k} waits on parity {p} here")
            labels += _lab(
                arr, f"arrives on `{name}` between the two waits: the first wait's phase completes"
            )
            return error(
                PHASE,
                f"two waits on `{name}` in iteration {k} use the same parity {p} although a phase completes "
                f"between them (one barrier, two phases per step): the second wait returns at once on the "
                f"phase the first one waited for",
                w.span,
                labels=labels,
                help="give each phase of a step its own parity: with two phases per step, the second wait uses "
                "the other parity (`phase ^ 1`), and each flips per step only if the step count of phases is odd",
            )
    return None


def exec_pos(rpo: dict, op: Op) -> tuple[int, int]:
    """`op`'s place in execution order: its block's reverse-postorder index, then its index in the block."""
    return (rpo.get(op.block, -1), op.block.ops.index(op))  # type: ignore[union-attr]


def _arrive_between(ctx: FunctionContext, o: BarrierObject, rpo: dict, a: tuple, b: tuple) -> Op | None:
    """An arrival (or a copy completing bytes) on the object strictly between positions `a` and `b`."""
    for x in o.arrives + o.copies:
        if x.block is None:
            continue
        pos = exec_pos(rpo, x)
        if a < pos < b:
            return x
    return None


def _reinitialised(ctx: FunctionContext, o: BarrierObject, w: Op, off: int) -> bool:
    """The element is `mbarrier.init`ed again in the wait's loop (Triton initialises a tile's barriers at
    its top and invalidates them at its end): every use starts from phase 0, so parity 0 each time is
    right. An init whose element cannot be evaluated counts when it is on the same symbol."""
    assert w.block is not None
    lp = iteration_loop(ctx.cfg, w.block)
    if lp is None:
        return False
    ev = eval_of(ctx)
    its = iterations(ev, ctx.cfg, lp, 2) or [{}]
    for i in o.inits:
        if i.block is None or i.block not in lp.blocks:
            continue
        a = ev.value(i.operands[0], its[0])
        if not isinstance(a, SAddr) or a.off == off:
            return True
    return False


def _flipped_between(
    ctx: FunctionContext, rpo: dict[Block, int], seqs: dict, w: Op, off: int, p: int, k0: int, k1: int
) -> bool:
    """Whether another wait of the same loop waits on the same barrier element with the other parity
    between iteration k0's and iteration k1's execution of `w`. Then the element went through a phase in
    between: nvcc's unrolled pipeline loops use each stage twice per iteration (copy 0 waits parity 1,
    copy 2 parity 0, in every iteration), and the parities awaited on one element still alternate. Only
    waits whose execution in each iteration is decided count (a wait under a per-thread condition has no
    sequence), so all of them run on the threads that run `w`."""
    assert w.block is not None
    lp = iteration_loop(ctx.cfg, w.block)
    here = exec_pos(rpo, w)
    for w2, seq2 in seqs.items():
        if w2 is w or not seq2 or w2.block is None or iteration_loop(ctx.cfg, w2.block) is not lp:
            continue
        there = exec_pos(rpo, w2)
        for k2, off2, p2 in seq2:
            if off2 == off and p2 != p and (k0, *here) < (k2, *there) < (k1, *here):
                return True
    return False


def _phase_diag(ctx, o: BarrierObject, w: Op, again: Op, k0: int, k1: int, off: int, p: int) -> Diagnostic:
    name = element_name(ctx, o.sym, off)
    par = w.operands[1]
    fixed = const_int(par) is not None
    pv = strip(par)
    what = f"`{ctx.name(pv)}`" if pv.name else "the parity expression"
    how = f"the parity is the constant {p}" if fixed else f"{what} gives parity {p} both times"
    labels = _lab(again, f"arrives on `{o.sym}` in every iteration: each use completes one more phase")
    labels += _lab(w, f"iteration {k0} waits on parity {p}; iteration {k1} waits on parity {p} again ({how})")
    return error(
        PHASE,
        f"mbarrier wait parity does not flip with the phase of `{name}`: iterations {k0} and {k1} both "
        f"wait on parity {p}, so the second wait returns at once on the phase completed before "
        f"(stale data) or waits for a phase that never comes",
        w.span,
        labels=labels,
        help="wait on the parity of the phase this use completes: `(k / STAGES) & 1` for stage "
        "`k % STAGES`, or a phase bit flipped whenever the stage index wraps",
    )


# ------------------------------------------------------------------------------------ arrivals
def check_arrival(ctx: FunctionContext) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    pr = proto_of(ctx)
    if pr.opaque:
        return out
    for o in pr.objects.values():
        out += arrival_object(ctx, o)
    return out


def arrival_object(ctx: FunctionContext, o: BarrierObject) -> list[Diagnostic]:
    """The symbol-wide count rules for one barrier object (`mbarrier_starved` adds the per-element one
    for an object these leave silent)."""
    out: list[Diagnostic] = []
    fn, cfg = ctx.fn, ctx.cfg
    if o.inits and o.arrives and all(_block_count(ctx, i) for i in o.inits):
        d = _block_role_left_early(ctx, o)
        return [d] if d is not None else out
    counts = {const_int(i.operands[1]) for i in o.inits}
    if len(counts) > 1 and None not in counts and o.arrives:
        d = _mixed_counts_left_early(ctx, o)
        if d is not None:
            out.append(d)
        return out
    if len(counts) != 1 or None in counts or not o.arrives:
        return out
    (C,) = counts
    assert C is not None
    sites = []
    for a in o.arrives:
        per = arrival_count(a)
        if per is None or a.block is None:
            break
        lp = iteration_loop(cfg, a.block)
        th = threads_of(
            fn, cfg, a.block, lp.blocks if lp is not None else None, ctx.facts if fn.is_kernel else None
        )
        sites.append((a, per, th, lp))
    else:
        # too many: one arrive instruction executed by more threads than the phase expects
        for a, per, th, _ in sites:
            if th.lo * per > C:
                d = _arrival_diag(o, C, a, th.lo * per, th.why, too_many=True)
                d.witness = _arrival_witness(ctx, a, C // per + 1) if C // per + 1 <= MAX_ARRIVERS else None
                out.append(d)
                break
            if per > 0 and C // per + 1 <= MAX_ARRIVERS and (th.hi is None or th.hi * per > C):
                # the role guards are beyond the lattice (no launch bound, a parameter, a 2-D
                # block): ask whether C // per + 1 different threads arrive in one phase
                from irc.analysis.symbolic.asyncq import many_arrive

                n = C // per + 1
                res, w = many_arrive(ctx, a.block, n, "this arrive", a.span)
                if res.sat and w is not None:
                    d = _arrival_diag(o, C, a, n * per, f"{n} different threads", too_many=True)
                    d.witness = witness_json(w)
                    out.append(d)
                    break
                if res.status == "unknown" and res.reason in ("timeout", "budget"):
                    out.append(not_decided(ARRIVAL, a, res.reason))
                    break
        else:
            d = _arrivals_sum(ctx, o, C, sites)
            if d is not None:
                out.append(d)
                return out
            hi = 0
            for _, per, th, _ in sites:
                if th.hi is None:
                    hi = -1
                    break
                hi += th.hi * per
            # with no launch bound, a block still has at most 1,024 threads: a count above what they
            # all deliver (a byte count, 16384, given to `mbarrier.init`) is never reached
            most = sum(MAX_BLOCK_THREADS * per for _, per, _, _ in sites)
            if hi < 0 and C > most and _one_phase_per_use(ctx, o, sites):
                a = sites[0][0]
                why = f"at most {MAX_BLOCK_THREADS} threads of a block (no launch bound)"
                out.append(_arrival_diag(o, C, a, most, why, too_many=False))
            elif hi >= 0 and C > hi and _one_phase_per_use(ctx, o, sites):
                a = sites[0][0]
                out.append(_arrival_diag(o, C, a, hi, sites[0][2].why, too_many=False))
            elif hi == C or (len(sites) > 1 and all(th.hi == C for _, _, th, _ in sites)):
                # one site whose role is the count, or several that each fill a whole phase alone
                # (`bar.arrive_and_wait()` before a loop and in it: a phase gets one site's arrivals)
                for site in sites:
                    d = _role_left_early(ctx, o, C, [site], sites)
                    if d is not None:
                        out.append(d)
                        break
    return out


def _role_left_early(ctx: FunctionContext, o: BarrierObject, C: int, sites, every=None) -> Diagnostic | None:  # type: ignore[no-untyped-def]
    """The count is every thread of the arriving role, but some launch lets a thread of that role leave
    before it arrives (a warp with no work `return`s) and nothing retires its arrival
    (`mbarrier.arrive_drop`): the phase waits for an arrival that never comes and the waiters hang.
    Asked only of one plain arrive site whose role is a `tid.x` interval of exactly `C` threads, with a
    guard beyond the lattice in front of it (a parameter: `if (32 * (warp - 1) >= ncols) return;`)."""
    if len(sites) != 1:
        return None
    a, per, th, _ = sites[0]
    if per != 1 or a.name != "mbarrier_arrive" or th.tids is None or th.lo == th.hi:
        return None
    if any(x.attrs.get("drop") for x in o.arrives) or not _one_phase_per_use(ctx, o, every or sites):
        return None
    return _left_early(
        ctx,
        o,
        a,
        th.tids,
        f"`{o.sym}` initialised to expect {C} arrivals per phase",
        f"the only arrivals: {th.why}, one each, {C} per phase only if none of them has left",
        f"mbarrier `{o.sym}` counts {C} arrivals per phase, one from each of {th.why}, but some of them can "
        f"leave before arriving (with no `mbarrier.arrive_drop`): the phase never completes and the "
        f"waiters hang",
        "retire the arrivals of a thread that leaves early with `mbarrier.arrive_drop` on every "
        "barrier it would arrive on, or keep it in the loop and let it arrive without work",
        "threads of that role turn away here and never arrive",
    )


def _left_early(
    ctx: FunctionContext,
    o: BarrierObject,
    a: Op,
    tids: tuple[int, int],
    init_label: str,
    arrive_label: str,
    message: str,
    help_text: str,
    away_label: str,
    block_unknowns: bool = False,
) -> Diagnostic | None:
    """The solver's question of `_role_left_early` and `_block_role_left_early` for arrive site `a` (a
    thread with linear id in `tids` arrives while another turned away) and their finding, placed at the
    branch where that thread turned away; a `not-analysed` note when the solver gave no answer; else None."""
    from irc.analysis.symbolic.asyncq import missing_arrival

    assert a.block is not None
    res, w, left = missing_arrival(ctx, a.block, tids, a.span, block_unknowns=block_unknowns)
    if res.status == "unknown" and res.reason in ("timeout", "budget"):
        return not_decided(ARRIVAL, a, res.reason)
    if not res.sat or w is None:
        return None
    labels = _lab(o.inits[0], init_label) + _lab(a, arrive_label)
    at = left if left is not None and left.span is not None else a
    if at is not a:
        labels += _lab(at, away_label)
    d = error(ARRIVAL, message, at.span, labels=labels, help=help_text)
    d.witness = witness_json(w)
    return d


def _block_count(ctx: FunctionContext, init: Op) -> bool:
    """`mbarrier.init` with `blockDim.x` as its count (`init(&bar, blockDim.x)`) in a kernel of 1-D blocks:
    a phase counts every thread of the block."""
    from irc.analysis.symbolic.launch import reads_yz

    if len(init.operands) < 2:
        return False
    v = strip(init.operands[1])
    return (
        isinstance(v, OpResult)
        and v.op.name == "sreg"
        and v.op.attrs.get("name") == "ntid.x"
        and not reads_yz(ctx.fn)
    )


def _block_role_left_early(ctx: FunctionContext, o: BarrierObject) -> Diagnostic | None:
    """A barrier counting every thread of the block (`blockDim.x`), plain arrive sites and no
    `arrive_drop`: a thread that leaves before it arrives (`if (tid >= len) return;`, with `len` the row's
    length loaded for the block) leaves every later phase one arrival short, and the others hang. The
    solver is asked for a launch in which one thread arrives while another turned away (`_role_left_early`'s
    question, the whole block as the role)."""
    arrives = [a for a in o.arrives if a.block is not None]
    if (
        not arrives
        or len(arrives) != len(o.arrives)
        or any(x.attrs.get("drop") or x.name != "mbarrier_arrive" or arrival_count(x) != 1 for x in arrives)
        or not _one_phase_per_use(ctx, o, [(a, 1, None, None) for a in arrives])
    ):
        return None
    # each site fills a whole phase alone (every thread arrives there: `bar.arrive_and_wait()` twice per
    # step), so each is asked on its own
    for a in arrives:
        d = _left_early(
            ctx,
            o,
            a,
            (0, MAX_BLOCK_THREADS - 1),
            f"`{o.sym}` initialised to expect `blockDim.x` arrivals per phase (every thread)",
            "the only arrivals: one from each thread still running",
            f"mbarrier `{o.sym}` counts every thread of the block (`blockDim.x`) per phase, but some threads "
            f"can leave before arriving (with no `mbarrier.arrive_drop`): the phase never completes and the "
            f"waiters hang",
            "retire a leaving thread's arrivals with `mbarrier.arrive_drop` (`bar.arrive_and_drop()`) "
            "before it returns, or count only the threads that stay",
            "threads turn away here and never arrive",
            block_unknowns=True,
        )
        if d is not None:
            return d
    return None


MAX_ARRIVERS = 4  # the solver is asked for up to this many distinct arriving threads (count + 1)
MAX_BLOCK_THREADS = 1024  # threads of one CTA, whatever the launch


def _arrivals_sum(ctx: FunctionContext, o: BarrierObject, C: int, sites) -> Diagnostic | None:  # type: ignore[no-untyped-def]
    """Several arrive sites that all run in every phase (one loop, or none; every wait on the barrier
    after all of them in the iteration) whose arrivals together exceed the count: a thread arriving twice
    per phase (`cp.async.mbarrier.arrive.noinc` beside its own `mbarrier.arrive`) completes two phases.
    Reported at the `.noinc` arrive when there is one (counting it as an arrival is the usual mistake)."""
    if len(sites) < 2:
        return None
    loops = {id(lp) for _, _, _, lp in sites}
    if len(loops) != 1:
        return None
    total = sum(th.lo * per for _, per, th, _ in sites)
    if total <= C or any(th.lo != th.hi for _, _, th, _ in sites):
        return None
    cfg = ctx.cfg
    blocks = [a.block for a, *_ in sites]
    for w in o.waits:
        if w.block is None or (sites[0][3] is not None and w.block not in sites[0][3].blocks):
            continue
        if not all(cfg.dominates(b, w.block) and b is not w.block for b in blocks):
            return None  # a wait between two of the arrivals: they may be in different phases
    noinc = next(
        (a for a, *_ in sites if a.name == "cp_async_mbarrier_arrive" and a.attrs.get("noinc")), None
    )
    init = o.inits[0]
    labels = _lab(init, f"`{o.sym}` initialised to expect {C} arrivals per phase")
    for a, per, th, _ in sites:
        labels += _lab(a, f"{th.lo * per} arrivals per phase: {th.why}")
    where = noinc if noinc is not None else init
    extra = (
        " (`cp.async.mbarrier.arrive.noinc` counts as an arrival of its own: without `.noinc` the pending "
        "count is raised first and the arrival is net zero)"
        if noinc is not None
        else ""
    )
    return error(
        ARRIVAL,
        f"mbarrier `{o.sym}` is initialised with an arrival count of {C}, but its arrive sites deliver {total} "
        f"arrivals per phase{extra}: each use completes more than one phase, so the next wait returns early",
        where.span,
        labels=labels,
        help="count every arrival per phase in `mbarrier.init`, or use `cp.async.mbarrier.arrive` without "
        "`.noinc` when the thread also arrives itself",
    )


def _arrival_witness(ctx: FunctionContext, a: Op, n: int) -> dict | None:
    """The launch in which `n` threads arrive at `a` in one phase (for a finding the lattice proved)."""
    from irc.analysis.symbolic.asyncq import many_arrive

    assert a.block is not None
    res, w = many_arrive(ctx, a.block, n, "this arrive", a.span)
    return witness_json(w) if res.sat else None


def _one_phase_per_use(ctx: FunctionContext, o: BarrierObject, sites) -> bool:
    """Arrivals that happen once (outside loops) or once per iteration, with waits that expect one phase
    per use: each wait is outside loops or its parity flips between consecutive uses."""
    if not o.waits:
        return False
    for w in o.waits:
        if w.block is None:
            return False
        if _wait_loop(ctx, w) is None or _own_token(ctx, o, w):
            continue
        seq = wait_sequence(ctx, w)
        if not seq or len(seq) < 2:
            return False
        last: dict[int, int] = {}
        for _, off, p in seq:
            if off in last and last[off] == p:
                return False
            last[off] = p
    return True


def barrier_addresses(ctx: FunctionContext, op: Op) -> list[SAddr] | None:
    """The barrier addresses an mbarrier op takes over the first iterations of its loop (once, outside
    loops); None when some cannot be evaluated."""
    ev = eval_of(ctx)
    assert op.block is not None
    lp = iteration_loop(ctx.cfg, op.block)
    envs = (iterations(ev, ctx.cfg, lp) if lp is not None else None) or [{}]
    out: list[SAddr] = []
    for env in envs:
        a = ev.value(barrier_operand(op), env)  # type: ignore[arg-type]
        if not isinstance(a, SAddr):
            return None
        out.append(a)
    return out


def _mixed_counts_left_early(ctx: FunctionContext, o: BarrierObject) -> Diagnostic | None:
    """The early-exit question (`_role_left_early`) for barriers that share one symbol with barriers of
    other counts (`full[s]` with 1, `empty[s]` with 96 in one shared struct, or Triton's `global_smem`): each
    arrive site whose elements all have one count C, a role of exactly C threads, and one arrival each."""
    by_off: dict[int, int] = {}
    for i in o.inits:
        a = eval_of(ctx).value(i.operands[0], {})
        c = const_int(i.operands[1])
        if not isinstance(a, SAddr) or c is None or by_off.get(a.off, c) != c:
            return None  # an init at a computed offset, or two counts for one element: not decided
        by_off[a.off] = c
    sites = []
    for a in o.arrives:
        if a.block is None or arrival_count(a) is None:
            return None
        addrs = barrier_addresses(ctx, a)
        offs = {x.off for x in addrs} if addrs is not None else None
        if offs is None or not offs <= set(by_off) or len({by_off[x] for x in offs}) != 1:
            return None
        lp = iteration_loop(ctx.cfg, a.block)
        th = threads_of(ctx.fn, ctx.cfg, a.block, lp.blocks if lp is not None else None, ctx.facts)
        sites.append((a, arrival_count(a), th, lp, by_off[next(iter(offs))], offs))
    for a, per, th, lp, C, offs in sites:
        group = [x[:4] for x in sites if x[5] & offs]
        if th.hi != C or any(x[2].hi != C for x in group):
            continue  # each site of the element group must fill a phase alone
        d = _role_left_early(ctx, o, C, [(a, per, th, lp)], group)
        if d is not None:
            return d
    return None


def _own_token(ctx: FunctionContext, o: BarrierObject, w: Op) -> bool:
    """A wait on the state token of an arrive on the same object in the same iteration (`cuda::barrier`'s
    `arrive_and_wait`): it waits for the phase that arrive belongs to, one phase per use by construction."""
    if not w.attrs.get("state") or len(w.operands) < 2 or w.block is None:
        return False
    tok = strip(w.operands[1])
    if not isinstance(tok, OpResult) or tok.op not in o.arrives or tok.op.block is None:
        return False
    return iteration_loop(ctx.cfg, tok.op.block) is _wait_loop(ctx, w)


def _wait_loop(ctx: FunctionContext, w: Op):  # type: ignore[no-untyped-def]
    """The innermost loop around the wait `w` that is not its own polling loop (with a backoff, which
    `is_spin_loop` does not take for a bare poll)."""
    assert w.block is not None
    return next((x for x in ctx.cfg.loops_containing(w.block) if not _polls(x, w)), None)


def _arrival_diag(o: BarrierObject, C: int, a: Op, n: int, why: str, too_many: bool) -> Diagnostic:
    init = o.inits[0]
    labels = _lab(init, f"`{o.sym}` initialised to expect {C} arrivals per phase")
    if too_many:
        labels += _lab(a, f"{n} arrivals at once: {why} execute this arrive")
        msg = (
            f"mbarrier `{o.sym}` is initialised with an arrival count of {C}, but {n} threads arrive in one "
            f"phase: the phase completes early, before the other arrivals (and their data) are in"
        )
    else:
        labels += _lab(a, f"the only arrivals: {why}, {n} per phase in all")
        bytes_hint = " (a byte count used as the arrival count?)" if C >= 64 and C % 16 == 0 else ""
        msg = (
            f"mbarrier `{o.sym}` is initialised with an arrival count of {C}{bytes_hint}, but at most {n} "
            f"arrival(s) reach it per phase: the phase never completes and the waiters hang"
        )
    return error(
        ARRIVAL,
        msg,
        init.span,
        labels=labels,
        help="initialise the mbarrier with the number of arrive operations per phase (transaction bytes "
        "go to `arrive.expect_tx`, not to `mbarrier.init`)",
    )


# ------------------------------------------------------------------------------------ tx
def check_tx(ctx: FunctionContext) -> list[Diagnostic]:
    """Copies complete bytes on a barrier on which no thread ever announces bytes (`expect_tx`)."""
    out: list[Diagnostic] = []
    pr = proto_of(ctx)
    if pr.opaque:
        return out
    for o in pr.objects.values():
        if not o.copies or o.announces or any(op.name == "mbarrier_complete_tx" for op in o.others):
            continue
        c = o.copies[0]
        labels = []
        plain = [a for a in o.arrives if a.name == "mbarrier_arrive"]
        if plain:
            labels += _lab(plain[0], "arrives without `expect_tx`: the phase completes on this arrival alone")
        labels += _lab(c, "completes its bytes (complete_tx) on a transaction count of zero")
        if o.waits:
            labels += _lab(o.waits[0], "so this wait can return before the copy has landed")
        out.append(
            error(
                TX,
                f"copies complete transaction bytes on mbarrier `{o.sym}`, but no thread announces them "
                f"with `expect_tx`: the phase can complete before the data arrives",
                c.span,
                labels=labels,
                help="announce the bytes before issuing the copy: `mbarrier.arrive.expect_tx` (or "
                "`mbarrier.expect_tx`) with the bytes of every box copied in this phase",
            )
        )
    return out + _duplicated_copies(ctx, pr)


def _duplicated_copies(ctx: FunctionContext, pr: Protocol) -> list[Diagnostic]:
    """A TMA/bulk copy that several threads issue with one destination, one source and one barrier (the
    guard `if (threadIdx.x == 0)` forgotten): each copy completes its bytes, so the barrier receives N
    times the box while the announcement, made by fewer threads, covers fewer. The box itself is the
    host's (a CUtensorMap), but N identical copies against fewer announcements is wrong for any box.
    Copies with per-thread operands (each thread its own row) are the legitimate many-issuer shape and
    are not judged; nor is a barrier whose announcements are made by as many threads as the copies."""
    from irc.analysis.mbarrier import block_uniform

    out: list[Diagnostic] = []
    for o in pr.objects.values():
        if not o.announces:
            continue
        for c in o.copies:
            if c.block is None or c.attrs.get("multicast"):
                continue
            facts = ctx.facts  # only now: the uniformity fixpoint is the costly part of a check
            lp = iteration_loop(ctx.cfg, c.block)
            loop_blocks = lp.blocks if lp is not None else None
            n = threads_of(ctx.fn, ctx.cfg, c.block, loop_blocks, facts=facts)
            if n.lo < 2 or not all(block_uniform(facts, v) for v in c.operands):
                continue
            most = 0
            for a in o.announces:
                if a.block is None:
                    most = n.lo
                    break
                la = iteration_loop(ctx.cfg, a.block)
                t = threads_of(ctx.fn, ctx.cfg, a.block, la.blocks if la is not None else None, facts=facts)
                most = max(most, t.hi if t.hi is not None else n.lo)
            if most >= n.lo:
                continue
            ann = o.announces[0]
            labels = _lab(c, f"issued by {n.why}: {n.lo} identical copies, each completing the box's bytes")
            labels += _lab(ann, f"announces the bytes of {'one copy' if most <= 1 else f'{most} copies'}")
            out.append(
                error(
                    TX,
                    f"{n.lo} threads issue the same copy (one destination, one source, one barrier `{o.sym}`): "
                    f"the barrier receives {n.lo} times the box's bytes while the `expect_tx` "
                    f"announces {'one copy' if most <= 1 else f'{most} copies'}, so the phase's transaction "
                    f"count goes wrong (and the same bytes land {n.lo} times)",
                    c.span,
                    labels=labels,
                    help="issue the copy from one thread (`if (threadIdx.x == 0)`, or an elected lane), the "
                    "same one that announces its bytes",
                )
            )
    return out


# ------------------------------------------------------------------------------------ uninitialized
def _syncs(op: Op) -> bool:
    if op.name == "barrier":
        return True
    return op.name in ("ptx_collective", "opaque") and str(op.attrs.get("text", "")).startswith(
        "barrier.cluster"
    )


def check_uninit(ctx: FunctionContext) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    pr = proto_of(ctx)
    if pr.opaque or not ctx.fn.is_kernel:
        # a device function uses the barriers its callers initialised (a `__noinline__` wait helper): the
        # init and the barrier that makes it visible are in the kernel, outside what this function sees
        return out
    cfg = ctx.cfg
    pos: dict[int, int] = {}  # op -> index in its block (one pass per block, not a list search per use)

    def where(u: Op) -> tuple[int, int]:
        if id(u) not in pos:
            for i, x in enumerate(u.block.ops):  # type: ignore[union-attr]
                pos[id(x)] = i
        return (cfg.rpo_index.get(u.block, 0), pos[id(u)])

    for o in pr.objects.values():
        uses = [u for u in o.arrives + o.waits + o.copies + o.announces if u.block is not None]
        uses.sort(key=where)
        if not uses:
            continue
        if not o.inits:
            u = uses[0]
            out.append(
                error(
                    UNINIT,
                    f"mbarrier `{o.sym}` is used but never initialised (`mbarrier.init`)",
                    u.span,
                    help="initialise it once (one thread), then `fence.mbarrier_init` / a barrier, before use",
                )
            )
            continue
        lost = _uninitialised_element(o, uses) or _uninitialised_computed(ctx, o, uses)
        if lost is not None:
            u, off, offs, witness = lost
            labels = _lab(o.inits[0], "the inits name other barriers of this buffer")
            labels += _lab(u, "used here")
            named = ", ".join(element_name(ctx, o.sym, x) for x in sorted(offs))
            d = error(
                UNINIT,
                f"mbarrier `{element_name(ctx, o.sym, off)}` is used but never initialised: the "
                f"`mbarrier.init`s of `{o.sym}` name {named} only",
                u.span,
                labels=labels,
                help="initialise every barrier of the buffer (one thread, `mbarrier.init`), then "
                "`fence.mbarrier_init` / a barrier, before use",
            )
            d.witness = witness
            out.append(d)
            continue
        init_ops = {id(i) for i in o.inits}
        for u in uses:
            if not _unsynced_path(cfg, u, init_ops):
                continue
            own, witness = _own_init(ctx, u, o.inits, where)
            if not own:
                i = o.inits[0]
                labels = _lab(i, "initialised here, only by the threads that take this path")
                labels += _lab(u, "reached by other threads with no barrier after the init")
                d = error(
                    UNINIT,
                    f"mbarrier `{o.sym}` may be used before its initialisation is visible: a path from "
                    f"the kernel entry reaches this use without passing the `mbarrier.init` or a barrier",
                    u.span,
                    labels=labels,
                    help="put `fence.mbarrier_init` and a CTA barrier (`__syncthreads()` / `barrier()`) "
                    "between the init and every other thread's first use",
                )
                d.witness = witness
                out.append(d)
                break
    return out


def _init_offsets(o: BarrierObject) -> set[int] | None:
    """The constant byte offsets of `o`'s inits, or None when some init's offset is not a constant."""
    from irc.analysis.mbarrier import barrier_operand
    from irc.analysis.shared_loc import address

    offs: set[int] = set()
    for i in o.inits:
        p = barrier_operand(i)
        a = address(p) if p is not None else None
        if a is None or a[0] != o.sym or a[1] is None or a[1] != a[2]:
            return None
        offs.add(a[1])
    return offs


def _uninitialised_computed(ctx: FunctionContext, o: BarrierObject, uses: list[Op]) -> tuple | None:
    """The first use whose address is computed (a stage index: `bar + 8 * (k % S)`) at which some thread
    of some launch names a barrier no init names, asked of the solver with the inits' constant offsets;
    its model is the witness (the iteration whose stage was left out). None when the inits are not all at
    constant offsets, or no such use can name another barrier."""
    from irc.analysis.mbarrier import barrier_operand
    from irc.analysis.shared_loc import address
    from irc.analysis.symbolic.asyncq import reach_where

    offs = _init_offsets(o)
    if not offs or not o.sym:
        return None
    for u in uses[:_COMPUTED_USES]:
        p = barrier_operand(u)
        a = address(p) if p is not None else None
        if a is None or a[0] != o.sym or (a[1] is not None and a[1] == a[2]) or u.block is None:
            continue

        def other(enc, th, p=p):  # type: ignore[no-untyped-def]
            z = enc.z
            rel = _offset_in(enc, th, p, o.sym)
            if rel is None:
                return None
            size = enc.shared_sizes().get(o.sym, 0)
            inside = z.ULT(rel, z.BitVecVal(size, 64)) if size > 0 else z.BoolVal(True)
            return z.And(inside, rel & 7 == 0, *[rel != z.BitVecVal(x, 64) for x in sorted(offs)])

        res, w, got = reach_where(ctx, u.block, other, "uses an mbarrier no init names at {L}")
        if res.sat and w is not None and got is not None:
            model, enc, th = got
            off = model.eval(_offset_in(enc, th, p, o.sym), model_completion=True).as_long()
            w.story = w.story.replace("{L}", w.ref(u.span))
            return u, off, offs, witness_json(w)
    return None


_COMPUTED_USES = 16  # computed-address uses asked about per barrier buffer (one solver question each)


def _offset_in(enc, th, p: Value, sym: str):  # type: ignore[no-untyped-def]
    """Pointer `p` of thread `th` as a 64-bit byte offset into shared symbol `sym` (the encoder's terms
    are memoised, so the question and the model's reading share one), or None when it is not a pure
    function of the launch."""
    z = enc.z
    t = enc.value(p, th)
    base = enc.shared_bases().get(sym)
    if z.is_bool(t) or base is None or not enc.pure(t):
        return None
    t = z.ZeroExt(64 - t.size(), t) if t.size() < 64 else t
    return t - z.BitVecVal(base, 64)


def _uninitialised_element(o: BarrierObject, uses: list[Op]) -> tuple | None:
    """(use, its byte offset, the inits' offsets) for the first use, in program order, of a barrier at a
    constant offset of `o` that no init names, when every init names a constant offset (Triton keeps all
    its barriers in `global_smem` at constant offsets, so `o` having inits says nothing about each one).
    None when some init's offset is not a constant (a loop over stages): then nothing is decided here."""
    from irc.analysis.mbarrier import barrier_operand
    from irc.analysis.shared_loc import address

    offs = _init_offsets(o)
    if offs is None:
        return None
    for u in uses:
        p = barrier_operand(u)
        a = address(p) if p is not None else None
        if a is not None and a[0] == o.sym and a[1] is not None and a[1] == a[2] and a[1] not in offs:
            return u, a[1], offs, None
    return None


def _own_init(ctx: FunctionContext, u: Op, inits: list[Op], where) -> tuple[bool, dict | None]:  # type: ignore[no-untyped-def]
    """(whether every thread that executes `u` has executed an init before it, a witness otherwise).
    `if tid.x == 0 { init }` ... `if tid.x == 0 { arrive }`: the thread's own write is visible to itself,
    so the path that skips the init and then reaches `u` is one no thread takes. Asked of the solver: a
    thread that reaches `u` and none of the init blocks placed before it; its model is the witness (a
    thread that uses the barrier without having initialised it). No answer keeps the finding."""
    from irc.analysis.symbolic.queries import symbolic
    from irc.analysis.symbolic.witness import from_model

    before = [i for i in inits if i.block is not None and where(i) < where(u)]
    if not before or any(ctx.cfg.loops_containing(i.block) for i in before):
        return False, None
    sym = symbolic(ctx)
    if sym is None:
        return False, None
    enc = sym.enc
    t = enc.thread("a")
    q = [enc.reach(u.block, t)] + [enc.z.Not(enc.reach(i.block, t)) for i in before]
    out = sym.solve(q, ("a",))
    if out.unsat:
        return True, None
    if not out.sat:
        return False, None
    w = from_model(out.model, enc, ["a"], sym.contract_text, blocks=[u.block])
    w.story = (
        f"thread ({w.threads[0][0]}, {w.threads[0][1]}, {w.threads[0][2]}) of {{block}} reaches it without "
        f"having run the `mbarrier.init` at {w.ref(before[0].span)}, with no barrier in between"
    )
    return False, w.to_json()


def _unsynced_path(cfg, u: Op, init_ops: set[int]) -> bool:
    """Whether some path entry -> `u` passes neither an init of the object nor a CTA barrier."""
    start = cfg.entry
    target = u.block

    def blocked(b: Block, upto: Op | None) -> bool:
        for op in b.ops:
            if op is upto:
                return False
            if id(op) in init_ops or _syncs(op):
                return True
        return False

    seen: set[int] = set()
    work = [start]
    while work:
        b = work.pop()
        if id(b) in seen:
            continue
        seen.add(id(b))
        if b is target:
            if not blocked(b, u):
                return True
            if b is not start:
                continue
        if blocked(b, None):
            continue
        work.extend(cfg.succs.get(b, []))
    return False


# ------------------------------------------------------------------------------------ async-unwaited
_CAP = 8


def _addr_key(v: Value) -> tuple[int, int]:
    """(id of the base value after casts, constant offset) of a pointer for exact overlap tests."""
    off = 0
    v = strip(v)
    while isinstance(v, OpResult) and v.op.name == "ptradd" and const_int(v.op.operands[1]) is not None:
        off += const_int(v.op.operands[1]) or 0
        v = strip(v.op.operands[0])
    return id(v), off


def _access_width(op: Op) -> int:
    from irc.analysis.shared_loc import access_bytes

    return access_bytes(op) or 4


def check_unwaited(ctx: FunctionContext) -> list[Diagnostic]:
    from irc.analysis.checks.common import under_common_shapes

    found = _unwaited(ctx)  # any block: every common block is one of them, so this is a superset
    if not found:
        return found
    got = under_common_shapes(ctx, _unwaited, "the stale read")
    return got if got is not None else found


def _unwaited(ctx: FunctionContext) -> list[Diagnostic]:
    from irc.analysis.checks.async_cp import check_cp_pending
    from irc.analysis.checks.async_regs import check_register_pending

    out = check_cp_pending(ctx) + _unwaited_paths(ctx) + check_register_pending(ctx)
    seen = ctx.cache.get("unwaited_sites", set())
    out += [d for site, d in _unwaited_roles(ctx) if id(site) not in seen]  # type: ignore[operator]
    return out


def _unwaited_paths(ctx: FunctionContext) -> list[Diagnostic]:
    """One thread's view: dataflow of pending bulk/tensor copies along the CFG (the issuing thread reads).
    cp.async groups have their own dataflow and solver query (`irc.analysis.checks.async_cp`)."""
    pr = proto_of(ctx)
    fn, cfg = ctx.fn, ctx.cfg
    if not any(op.name in COPY_OPS for op in fn.ops()):
        return []
    # entry: (site, kind, age, exact, wrong-wait op)
    State = frozenset
    state_in: dict[Block, frozenset] = {cfg.entry: State()}
    bar_sym = {id(c): shared_root(c.operands[-1]) for o in pr.objects.values() for c in o.copies}

    def in_loop(site: Op, header: Block) -> bool:
        lp = next((lp for lp in cfg.loops if lp.header is header), None)
        d = strip(site.operands[0])
        db = d.defining_block if hasattr(d, "defining_block") else None
        return lp is not None and db is not None and db in lp.blocks

    def transfer(b: Block, st: set, report: list | None) -> set:
        for op in b.ops:
            n = op.name
            if n in COPY_OPS:
                st.add((op, "tma", 0, True, None))
            elif n == "cp_async_commit":
                st = {
                    (
                        s,
                        k,
                        (0 if a < 0 else min(a + 1, _CAP)) if k == "cp" else a,
                        e,
                        w if k == "cp" or w else op,
                    )
                    for s, k, a, e, w in st
                }
            elif n == "cp_async_wait":
                keep = int(op.attrs.get("n", 0))
                st = {(s, k, a, e, w or op) for s, k, a, e, w in st if not (k == "cp" and a >= keep)}
            elif n in WAIT_OPS:
                sym = shared_root(op.operands[0])
                st = {
                    x
                    for x in st
                    if not (x[1] == "tma" and (sym is None or bar_sym.get(id(x[0])) in (sym, None)))
                }
            elif n in ("call", "opaque"):
                st = set()
            elif n in ("load", "load_vec") and report is not None and op.operands:
                sp = op.operands[0].type
                if getattr(sp, "space", None) != "shared" and op.attrs.get("space") != "shared":
                    continue
                for s, k, _a, e, w in st:
                    hit = _copy_may_touch(ctx, s, op) if k == "tma" else _overlaps(s, k, op, w, cfg)
                    if e and hit:
                        report.append((s, k, op, w))
        return st

    changed = True
    rounds = 0
    while changed and rounds < 50:
        changed = False
        rounds += 1
        for b in cfg.rpo:
            if b not in state_in:
                continue
            st = transfer(b, set(state_in[b]), None)
            for s in cfg.succs.get(b, []):
                new = st
                if (
                    s in cfg.rpo_index and cfg.rpo_index[s] <= cfg.rpo_index[b]
                ):  # back edge: addresses move on
                    new = {(x, k, a, e and not in_loop(x, s), w) for x, k, a, e, w in st}
                # cp.async groups are must-pending: pending at a merge only if pending on every incoming
                # path (`cuda::pipeline` picks its `wait_group N` through a switch on run-time counters; a
                # may-analysis reports the path around every wait, which the counters rule out). Bulk and
                # tensor copies stay may-pending: their producer is often one guarded thread.
                old = state_in.get(s, frozenset())
                nf = frozenset(new)
                if s in state_in:
                    merged = frozenset(x for x in old | nf if x[1] != "cp" or (x in old and x in nf))
                else:
                    merged = nf
                if merged != old or s not in state_in:
                    state_in[s] = merged
                    changed = True
    found: list = []
    for b in cfg.rpo:
        if b in state_in:
            transfer(b, set(state_in[b]), found)
    out: list[Diagnostic] = []
    done: set[int] = set()
    for s, k, rd, w in found:
        if id(s) in done:
            continue
        done.add(id(s))
        out.append(_unwaited_diag(ctx, s, k, rd, w))
    ctx.cache["unwaited_sites"] = done
    return out


def _unwaited_roles(ctx: FunctionContext) -> list[tuple[Op, Diagnostic]]:
    """Every thread's view (warp-specialised kernels): a read of shared memory that a bulk/tensor copy
    writes, a `tcgen05.mma` reading it through `smem_desc`, or a `tcgen05.ld` of tensor memory that MMAs
    write, reachable from the writer, with neither a wait on the writer's mbarrier before it in the
    reader's own path, nor a CTA barrier before it that some wait on that mbarrier can reach."""
    pr = proto_of(ctx)
    fn, cfg = ctx.fn, ctx.cfg
    # barriers reached through loop-carried addresses are left alone here: their waits are often skipped
    # on the path that issued nothing (Triton's `@!p bra skipWait`), which the dominance test below
    # cannot see
    if pr.opaque or pr.untraced or pr.carried or not fn.is_kernel:
        return []
    writers: dict[str, list[tuple[Op, str]]] = {}
    for o in pr.objects.values():
        for c in o.copies:
            x = shared_root(c.operands[0])
            if x is not None:
                writers.setdefault(x, []).append((c, o.sym))
    mmas = [op for op in ctx.reachable_ops() if op.name == "tcgen05_mma"]
    commits = [op for op in ctx.reachable_ops() if op.name == "tcgen05_commit"]
    commit_objs = {shared_root(op.operands[0]) for op in commits}
    if not writers and not (mmas and commits and None not in commit_objs):
        return []
    waits = {o.sym: o.waits for o in pr.objects.values()}
    syncs = [op for op in ctx.reachable_ops() if _syncs(op)]
    reach_cache: dict[Block, set[Block]] = {}

    def reach(b: Block) -> set[Block]:
        r = reach_cache.get(b)
        if r is None:
            r = set()
            work = list(cfg.succs.get(b, []))
            while work:
                x = work.pop()
                if x not in r:
                    r.add(x)
                    work.extend(cfg.succs.get(x, []))
            reach_cache[b] = r
        return r

    def pos(op: Op) -> int:
        return op.block.ops.index(op)  # type: ignore[union-attr]

    def before(a: Op, b: Op) -> bool:
        if a.block is b.block:
            return pos(a) < pos(b)
        return cfg.dominates(a.block, b.block)  # type: ignore[arg-type]

    def reaches(a: Op, b: Op) -> bool:
        if a.block is b.block and pos(a) < pos(b):
            return True
        return b.block in reach(a.block)  # type: ignore[arg-type]

    def covered(r: Op, objs: set) -> bool:
        ws = [w for s in objs for w in waits.get(s, [])]
        if any(before(w, r) for w in ws):
            return True
        return any(before(b, r) and any(reaches(w, b) for w in ws) for b in syncs)

    def through_waits(src: Op, r: Op, objs: set) -> bool:
        """`src` reaches `r` only through a wait on `objs` (the waits of a loop that issues the writer and
        waits for it in every iteration: the path that skips the loop skips the writer too)."""
        cut = {id(w) for s in objs for w in waits.get(s, [])}
        if not cut or not reaches(src, r):
            return False
        assert src.block is not None and r.block is not None
        start = src.block.ops.index(src) + 1
        work: list[tuple[Block, int]] = [(src.block, start)]
        seen: set[int] = set()
        while work:
            b, i = work.pop()
            stopped = False
            for op in b.ops[i:]:
                if op is r:
                    return False
                if id(op) in cut:
                    stopped = True
                    break
            if stopped:
                continue
            for nb in cfg.succs.get(b, []):
                if id(nb) not in seen:
                    seen.add(id(nb))
                    work.append((nb, 0))
        return True

    found: list[tuple[Op, Op, str]] = []
    for r in ctx.reachable_ops():
        cands: list[tuple[list[Op], set]] = []
        if r.name in ("load", "load_vec") and r.operands:
            sp = getattr(r.operands[0].type, "space", None) == "shared" or r.attrs.get("space") == "shared"
            ws = writers.get(shared_root(r.operands[0]) or "", []) if sp else []
            ws = [(c, o) for c, o in ws if _copy_may_touch(ctx, c, r)]
            if ws:
                cands.append(([c for c, _ in ws], {o for _, o in ws}))
        elif r.name == "tcgen05_mma":
            for x in _async_reads(r):
                ws = writers.get(x, [])
                if ws:
                    cands.append(([c for c, _ in ws], {o for _, o in ws}))
        elif r.name == "tcgen05_ld" and mmas and commits and None not in commit_objs:
            cands.append((mmas, set(commit_objs)))
        for srcs, objs in cands:
            # a writer that can run before the read (same path) or beside it (another role's branch);
            # one that only ever comes after the read in program order is not a hazard for it
            src = next((c for c in srcs if c is not r and (reaches(c, r) or not reaches(r, c))), None)
            if src is not None and not covered(r, objs) and not through_waits(src, r, objs):
                found.append((src, r, ", ".join(f"`{o}`" for o in sorted(objs))))
                break
    out: list[tuple[Op, Diagnostic]] = []
    done: set[int] = set()
    for src, r, objs in found:
        if id(src) in done:
            continue
        done.add(id(src))
        what = "tensor memory" if r.name == "tcgen05_ld" else "shared memory"
        writer = "tcgen05.mma" if src.name == "tcgen05_mma" else "bulk tensor copy"
        labels = _lab(src, f"the {writer} writes this {what} asynchronously and signals {objs}")
        labels += _lab(r, f"read here with no wait on {objs} before it in this thread's path")
        out.append(
            (
                src,
                error(
                    UNWAITED,
                    f"{what} written by the {writer} at {_line(src)} is read with no wait on {objs} before "
                    f"the read: the threads that run it may see the data before it lands",
                    r.span,
                    labels=labels,
                    help=f"wait on {objs} (the mbarrier the {writer} completes) before reading, in every role "
                    "that reads the data",
                ),
            )
        )
    return out


def _copy_bound(ctx: FunctionContext, copy: Op) -> int | None:
    """The most bytes the bulk/tensor copy `copy` can write, or None when unknown: its own size when the
    IR knows it (a constant bulk size, a descriptor whose box is known), else the most any `expect_tx` on
    its barrier's symbol announces. A copy that delivered more than its phase expects would complete the
    phase early, which is `mbarrier-tx-mismatch`'s bug, not this check's; so here the announcement bounds
    a box the IR cannot see (a descriptor built by the host or by `tensormap.replace` at run time)."""
    from irc.analysis.races import box_bytes

    if copy.name == "bulk_load":
        c = const_int(copy.operands[2]) if len(copy.operands) > 2 else None
        if c is not None and c > 0:
            return c
    elif copy.name == "tma_load":
        n = box_bytes(getattr(copy.operands[1], "type", None))
        if n is not None:
            return n
    bounds = ctx.cache.setdefault("copy_tx_bound", {})
    sym = shared_root(copy.operands[-1])
    if sym not in bounds:
        pr = proto_of(ctx)
        o = pr.objects.get(sym) if sym is not None else None
        got = [const_int(a.operands[1]) if len(a.operands) > 1 else None for a in o.announces] if o else []
        ok = got and not pr.opaque and all(g is not None and g > 0 for g in got)
        bounds[sym] = max(g for g in got if g is not None) if ok else None
    return bounds[sym]


def _copy_may_touch(ctx: FunctionContext, copy: Op, rd: Op) -> bool:
    """Whether the shared read `rd` may touch what the bulk/tensor copy `copy` writes: the same symbol,
    unless both byte ranges are known (the copy's start and bound, the read's offsets bounded by
    `value_range`) and disjoint (a flag kept beside the tiles of one `global_smem`)."""
    from irc.analysis.shared_loc import address, location, overlap

    a, b = shared_root(copy.operands[0]), shared_root(rd.operands[0])
    if a is None or a != b:
        return False
    da, rl = address(copy.operands[0]), location(rd)
    if da is None or rl is None or da[1] is None or da[2] is None or rl[1] is None or da[0] != rl[0]:
        return True
    n = _copy_bound(ctx, copy)
    return n is None or overlap((da[0], da[1], da[2] + n), rl)


def _overlaps(site: Op, kind: str, rd: Op, waited: Op | None, cfg) -> bool:
    """Whether read `rd` provably touches what the pending cp.async `site` writes: the same address
    (+ overlapping constant offsets), or the same symbol when the copy's group never met any `wait_group`
    and its destination does not move with a loop. (Bulk and tensor copies: `_copy_may_touch`.)"""
    dst, src = site.operands[0], rd.operands[0]
    a, b = shared_root(dst), shared_root(src)
    if waited is None and a is not None and a == b:
        db = strip(dst).defining_block
        if db is not None and cfg.loop_of.get(db) is None:
            return True
    bytes_ = int(site.attrs.get("bytes", 0) or 0)
    kd, kr = _addr_key(dst), _addr_key(src)
    off_r = kr[1] + int(rd.attrs.get("offset", 0) or 0)
    if kd[0] != kr[0]:
        return False
    w = _access_width(rd)
    return kd[1] < off_r + w and off_r < kd[1] + max(bytes_, 1)


def _unwaited_diag(ctx: FunctionContext, site: Op, kind: str, rd: Op, wrong: Op | None) -> Diagnostic:
    if kind == "cp":
        labels = _lab(site, "cp.async writes this shared memory asynchronously")
        labels += _lab(rd, "read here before a `cp.async.wait_group` that covers the copy")
        return error(
            UNWAITED,
            f"shared memory written by the cp.async at {_line(site)} is read before the `wait_group` that "
            f"covers its group: the read may see the old contents",
            rd.span,
            labels=labels,
            help="commit the copy's group and wait for it (`cp.async.wait_group N` leaves only the N newest "
            "groups pending) before reading, and add a barrier if other threads read it",
        )
    what = "bulk tensor copy" if site.name == "tma_load" else "bulk copy"
    if wrong is not None:
        labels = _lab(site, f"the {what} completes on an mbarrier, not on a cp.async group")
        labels += _lab(rd, "its destination is read here while the copy may still be in flight")
        return error(
            UNWAITED,
            f"`cp.async.commit_group`/`wait_group` do not track the {what} at {_line(site)} (they cover only "
            f"non-bulk cp.async): nothing waits for it before its destination is read at {_line(rd)}",
            wrong.span,
            labels=labels,
            help="wait on the mbarrier the copy completes (`mbarrier.try_wait.parity`) before reading",
        )
    labels = _lab(site, f"the {what} writes this shared memory asynchronously")
    labels += _lab(rd, "read here before any wait on the copy's mbarrier")
    return error(
        UNWAITED,
        f"shared memory written by the {what} at {_line(site)} is read before any wait on its mbarrier",
        rd.span,
        labels=labels,
        help="wait on the mbarrier the copy completes before reading its destination",
    )


# ------------------------------------------------------------------------------------ async-proxy-fence
def _store_sym(op: Op) -> str | None:
    from irc.analysis.races import is_stmatrix

    if is_stmatrix(op) and op.operands:  # a warp's matrix store (Triton's and CUTLASS's epilogues)
        return shared_root(op.operands[0])
    if op.name in ("store", "store_vec", "atomic", "atomic_cas") and op.operands:
        p = op.operands[0]
        if getattr(p.type, "space", None) == "shared" or op.attrs.get("space") == "shared":
            return shared_root(p)
    return None


def _async_reads(op: Op) -> list[str]:
    if op.name == "tma_store" and op.operands:
        s = shared_root(op.operands[-1])
        return [s] if s else []
    if op.name == "bulk_store" and len(op.operands) > 1:
        s = shared_root(op.operands[1])
        return [s] if s else []
    if op.name == "tcgen05_mma":
        out = []
        for d in op.operands[1:3]:
            d = strip(d)
            if isinstance(d, OpResult) and d.op.name == "smem_desc":
                s = shared_root(d.op.operands[0])
                if s:
                    out.append(s)
        return out
    return []


def check_proxy(ctx: FunctionContext) -> list[Diagnostic]:
    fn, cfg = ctx.fn, ctx.cfg
    if not any(_async_reads(op) for op in fn.ops()):
        return []
    state_in: dict[Block, frozenset] = {cfg.entry: frozenset()}
    # program positions: the writer a finding names is the first in program order, not whichever a set of
    # id-hashed ops yields first (that changed from run to run)
    pos = {id(op): (cfg.rpo_index.get(b, 0), i) for b in cfg.rpo for i, op in enumerate(b.ops)}

    def transfer(b: Block, st: set, report: list | None) -> set:
        for op in b.ops:
            n = op.name
            s = _store_sym(op)
            if s is not None:
                st.add((op, s))
            elif n == "fence_proxy_async" or (n == "fence" and op.attrs.get("scope") == "proxy_async"):
                st = set()
            elif n in ("call", "opaque"):
                st = set()
            else:
                syms = _async_reads(op)
                if syms and report is not None:
                    for w, sym in sorted(st, key=lambda x: pos.get(id(x[0]), (0, 0))):
                        if sym in syms:
                            report.append((w, op))
        return st

    changed = True
    while changed:
        changed = False
        for b in cfg.rpo:
            if b not in state_in:
                continue
            st = frozenset(transfer(b, set(state_in[b]), None))
            for s in cfg.succs.get(b, []):
                old = state_in.get(s, frozenset())
                merged = old | st
                if merged != old or s not in state_in:
                    state_in[s] = merged
                    changed = True
    found: list = []
    for b in cfg.rpo:
        if b in state_in:
            transfer(b, set(state_in[b]), found)
    out: list[Diagnostic] = []
    seen: set[int] = set()
    for w, r in found:
        if id(r) in seen:
            continue
        seen.add(id(r))
        reader = "TMA store" if r.name in ("tma_store", "bulk_store") else "tcgen05.mma"
        labels = _lab(w, "written through the generic proxy")
        labels += _lab(r, f"read by the async proxy ({reader}) with no `fence.proxy.async` in between")
        out.append(
            error(
                PROXY,
                f"shared memory written at {_line(w)} by ordinary stores is read by a {reader} without "
                f"`fence.proxy.async` in between: the async proxy may read stale data",
                r.span,
                labels=labels,
                help="execute `fence.proxy.async.shared::cta` (kdsl: `fence_proxy_async()`) after the stores "
                "in the writing threads, then synchronise, then issue the async operation",
            )
        )
    return out


CHECKS = {
    ARRIVAL: check_arrival,
    TX: check_tx,
    PHASE: check_phase,
    UNINIT: check_uninit,
    UNWAITED: check_unwaited,
    PROXY: check_proxy,
}

__all__ = ["CHECKS", "ARRIVAL", "TX", "PHASE", "UNINIT", "UNWAITED", "PROXY", "ANNOUNCE_OPS"]
