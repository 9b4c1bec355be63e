"""`mbarrier-arrival-mismatch`, per barrier element: the first phase of an element cannot complete.

A ring of mbarriers (one per stage, each `mbarrier.init`ed with its own count) is armed in a prologue
and re-armed inside the pipeline loop, each element on its own iteration (`full[(k + S - 1) % S]`). The
counts of the symbol's elements differ, or the arrive sites are ring-indexed, so the symbol-wide count
rules do not apply. The question asked here per element e with count C: which arrivals can land in
e's phase 0 before the first wait on it (parity 0) returns?

- Every thread that waits spins in that wait until the phase completes, so an arrival that executes
  only after the wait (a later iteration's re-arm, when every iteration passes through the wait; or the
  same iteration, after it) cannot help it complete: the thread making it is itself stuck in the wait.
- What can help is every arrival before the wait in execution order (the prologue's, earlier
  iterations', the same iteration's before the wait), each bounded by the threads that execute it
  (`threads_of`) times its arrivals per thread.

At most n < C of them: phase 0 never completes and the first waiter hangs. The witness is a launch that
reaches the wait in its iteration (the loop may run zero times for some parameters: that launch does not
hang, and the solver picks one that does).

What is left alone (silence): elements initialised inside a loop or more than once, token waits, arrive
sites in another loop than the wait's, arrivals after the loop, waits that do not spin (a `test_wait`
whose result is only read), a wait that not every iteration passes through when a later iteration
arrives, unknown thread counts, and iterations or guards that cannot be evaluated.
"""

from __future__ import annotations

from irc.analysis.cfg import Loop
from irc.analysis.checks.async_protocol import (
    ARRIVAL,
    arrival_object,
    barrier_addresses,
    element_name,
    eval_of,
    exec_pos,
    proto_of,
)
from irc.analysis.checks.common import FunctionContext, witness_json
from irc.analysis.mbarrier import (
    WAIT_OPS,
    BarrierObject,
    SAddr,
    arrival_count,
    barrier_operand,
    const_int,
    executes,
    is_spin_loop,
    iteration_loop,
    iterations,
    threads_of,
)
from irc.diagnostics import Diagnostic, Label, error
from irc.ir.core import Op

#: (order key, op, iteration or -1 outside loops, barrier offset, whether it surely runs in that iteration)
Event = tuple[tuple, Op, int, int, bool]


def check_arrival(ctx: FunctionContext) -> list[Diagnostic]:
    """`mbarrier-arrival-mismatch`: the symbol-wide count rules (`async_protocol.arrival_object`), and for
    an object they leave silent, the per-element first phase."""
    pr = proto_of(ctx)
    if pr.opaque:
        return []
    out: list[Diagnostic] = []
    for o in pr.objects.values():
        found = arrival_object(ctx, o)
        if not found and o.arrives and o.waits:
            d = starved_first_phase(ctx, o)
            found = [d] if d is not None else []
        out += found
    return out


def starved_first_phase(ctx: FunctionContext, o: BarrierObject) -> Diagnostic | None:
    """The first element of `o` (in offset order) whose phase 0 cannot complete before its first wait."""
    counts = _counts(ctx, o)
    if not counts or any(w.attrs.get("state") for w in o.waits):
        return None
    events = _events(ctx, o)
    if events is None:
        return None
    for off in sorted(counts):
        d = _judge(ctx, o, off, counts[off], events)
        if d is not None:
            return d
    return None


def _counts(ctx: FunctionContext, o: BarrierObject) -> dict[int, tuple[int, Op]] | None:
    """offset -> (count, init) for an object whose inits each run once, at one known element."""
    out: dict[int, tuple[int, Op]] = {}
    for i in o.inits:
        if i.block is None or iteration_loop(ctx.cfg, i.block) is not None:
            return None
        c = const_int(i.operands[1]) if len(i.operands) > 1 else None
        addrs = barrier_addresses(ctx, i)
        if c is None or c <= 0 or addrs is None or len(addrs) != 1 or addrs[0].off in out:
            return None
        out[addrs[0].off] = (c, i)
    return out


def _events(ctx: FunctionContext, o: BarrierObject) -> tuple[list[Event], Loop | None] | None:
    """The arrivals and waits of `o` in execution order: ops before the loop, then the loop's first
    iterations, then ops after it. None with more than one loop or anything not evaluable."""
    cfg = ctx.cfg
    rpo = {b: i for i, b in enumerate(cfg.rpo)}
    lp: Loop | None = None
    ops = [op for op in o.arrives + o.waits if op.block is not None]
    for op in ops:
        q = iteration_loop(cfg, op.block)  # type: ignore[arg-type]
        if q is not None:
            if lp is not None and q is not lp:
                return None
            lp = q
    ev = eval_of(ctx)
    head = rpo.get(lp.header, 0) if lp is not None else 0
    out: list[Event] = []
    for op in ops:
        if lp is not None and op.block in lp.blocks:
            continue
        a = ev.value(barrier_operand(op), {})  # type: ignore[arg-type]
        if not isinstance(a, SAddr):
            return None
        pos = exec_pos(rpo, op)
        out.append((((0 if pos[0] < head else 2), -1, pos), op, -1, a.off, True))
    if lp is not None:
        its = iterations(ev, cfg, lp)
        if its is None:
            return None
        for k, env in enumerate(its):
            for op in ops:
                if op.block not in lp.blocks:
                    continue
                ex = executes(ev, cfg, lp, op.block, env)  # type: ignore[arg-type]
                if ex is False:
                    continue
                a = ev.value(barrier_operand(op), env)  # type: ignore[arg-type]
                if not isinstance(a, SAddr):
                    return None
                # a guard that changes with the iteration (a prefetch's `k + S - 1 < n`): an arrival that
                # may run (counted as running), a wait that may not (never the one that decides)
                out.append(((1, k, exec_pos(rpo, op)), op, k, a.off, bool(ex)))
    out.sort(key=lambda e: e[0])
    return out, lp  # type: ignore[return-value]


def _judge(ctx: FunctionContext, o: BarrierObject, off: int, count: tuple[int, Op], got) -> Diagnostic | None:  # type: ignore[no-untyped-def]
    events, lp = got
    C, init = count
    ev = eval_of(ctx)
    cfg = ctx.cfg
    first = None
    for key, op, k, eoff, sure in events:
        if eoff != off or op.name not in WAIT_OPS:
            continue
        if not sure:
            return None  # the first wait may not run in its iteration: which one decides is not known
        env = iterations(ev, cfg, lp)[k] if (lp is not None and k >= 0) else {}  # type: ignore[index]
        p = ev.value(op.operands[1], env) if len(op.operands) > 1 else None
        if not isinstance(p, int):
            return None
        if p & 1 == 0:
            first = (key, op, k)
        break  # the first wait on the element decides; one on parity 1 first is another protocol
    if first is None:
        return None
    wkey, w, wk = first
    spin = _spin_header(ctx, w)
    if spin is None:
        return None
    n = 0
    sites: list[tuple[Op, int, str]] = []
    for key, op, k, eoff, _ in events:
        if eoff != off or op.name in WAIT_OPS:
            continue
        if key > wkey:
            if not _after_wait(ctx, spin, lp, op, k, wk):
                return None  # an arrival that need not pass the wait first: it can complete the phase
            continue
        per = arrival_count(op)
        if per is None:
            return None
        loop_blocks = lp.blocks if (lp is not None and k >= 0) else None
        th = threads_of(ctx.fn, cfg, op.block, loop_blocks, ctx.facts if ctx.fn.is_kernel else None)  # type: ignore[arg-type]
        if th.hi is None:
            return None
        n += th.hi * per
        if per and th.hi:
            sites.append((op, th.hi * per, th.why))
    if n >= C:
        return None
    return _diag(ctx, o, off, C, init, w, wk, lp, n, sites)


def _spin_header(ctx: FunctionContext, w: Op):  # type: ignore[no-untyped-def]
    """The header of the polling loop `w` spins in (a thread leaves it only once the phase completed);
    None for a wait that does not spin."""
    for q in ctx.cfg.loops_containing(w.block):  # type: ignore[arg-type]
        if is_spin_loop(q):
            return q.header
    return None


def _after_wait(ctx: FunctionContext, spin, lp: Loop | None, op: Op, k: int, wk: int) -> bool:  # type: ignore[no-untyped-def]
    """Whether every thread that executes `op` (in iteration `k`) has passed the wait's polling loop
    `spin` of iteration `wk` first."""
    cfg = ctx.cfg
    if lp is None or k < 0:
        return False  # after the loop: a thread may have left it before the wait's iteration
    if k == wk:
        return cfg.dominates(spin, op.block)  # type: ignore[arg-type]
    # a later iteration: every way round the loop passes through the wait
    latches = cfg.latches(lp)
    return bool(latches) and all(cfg.dominates(spin, b) for b in latches)


def _diag(ctx, o, off, C, init, w, wk, lp, n, sites) -> Diagnostic | None:  # type: ignore[no-untyped-def]
    """The finding, with a launch that reaches the wait's iteration; None when no launch does."""
    name = element_name(ctx, o.sym, off)
    where = f"iteration {wk} of the loop" if lp is not None and wk >= 0 else "the kernel"
    labels = [Label(init.span, f"`{name}` initialised to expect {C} arrivals per phase")] if init.span else []
    for a, m, why in sites:
        if a.span is not None:
            labels.append(Label(a.span, f"{m} arrival(s) before the wait: {why}"))
    if w.span is not None:
        labels.append(
            Label(
                w.span,
                f"the first wait on `{name}` ({where}, parity 0): every later arrival on it comes after this",
            )
        )
    d = error(
        ARRIVAL,
        f"mbarrier `{name}` is initialised with an arrival count of {C}, but at most {n} arrival(s) reach its "
        f"first phase before the first wait on it, and every later arrival comes from a thread that must "
        f"pass that wait first: the phase never completes and the waiters hang",
        init.span,
        labels=labels,
        help="initialise each stage's mbarrier with the number of arrive operations of one phase (one "
        "`arrive.expect_tx` per stage and phase: a count of 1)",
    )
    if lp is not None and wk >= 0 and w.block is not None:
        from irc.analysis.symbolic.asyncq import reach_in_iteration

        res, wit = reach_in_iteration(ctx, w.block, lp, wk, f"waits on `{name}` here, in iteration {wk}")
        if res.unsat:
            return None
        d.witness = witness_json(wit)
    return d
