"""`mbarrier-stage-mismatch`: a pipeline loop releases a ring stage it does not hold.

A ring of S stages has two barrier arrays: `full[s]` (the producer's copy of stage s landed) and
`empty[s]` (the consumers are done with stage s). A consumer iteration waits on `full[s]`, reads stage
s, and arrives on `empty[s]`. Arriving on another element, `empty[(s + 1) % S]`, tells the producer
that a stage whose readers may still be at work is free: it is refilled under them (a silent wrong
answer, never a hang). The emulator cannot tell (the arrival is legal), so the question is static.

How it is decided: the loop is evaluated for its first iterations (`irc.analysis.mbarrier.iterations`,
the facts the phase check uses), giving each wait and each plain arrival its barrier element per
iteration. Waits on elements of one array X acquire stage `index(x)`; arrivals on elements of another
array Y of the same length and stride release stage `index(y)`. Walking the iterations in execution
order, a release of a stage that the loop has not acquired since it last released it is the finding,
with the iteration as its witness. A release that lags (stage k - 1 released in iteration k, after the
next wait: CUTLASS's `consumer_release(smem_pipe_release)`) is held and passes. A loop whose first
event is a release is the producer's side of a ring whose first round needs no wait (`if (k >= S)
wait(empty[s])`, then a plain arrival on `full[s]`): the ring starts empty, so that side starts holding
every stage.

What is left alone (silence, never a guess): loops whose iterations or guards cannot be evaluated
(a ring state carried in from an outer persistent loop), arrays of different lengths, waits on the
acquired array outside the loop (a peeled first iteration holds a stage when the loop starts), calls
or unmodelled instructions on mbarriers, and releases by `expect_tx` arrivals, copies or
`tcgen05.commit` (the producer's side, whose first round of slots is free without a wait).
"""

from __future__ import annotations

from irc.analysis.cfg import Loop
from irc.analysis.checks.async_protocol import barrier_addresses, element_name, eval_of, exec_pos, proto_of
from irc.analysis.checks.common import FunctionContext, witness_json
from irc.analysis.mbarrier import (
    WAIT_OPS,
    SAddr,
    barrier_operand,
    executes,
    iteration_loop,
    iterations,
)
from irc.diagnostics import Diagnostic, Label, error
from irc.ir.core import Op

CHECK = "mbarrier-stage-mismatch"

Elem = tuple[str, int]


def _is_release(op: Op) -> bool:
    """A consumer's plain arrival (not an `expect_tx` announcement, not the `.drop` of an exiting role)."""
    return op.name == "mbarrier_arrive" and not op.attrs.get("drop")


def _is_acquire(op: Op) -> bool:
    return op.name in WAIT_OPS and not op.attrs.get("state")


def _ring(elems: set[Elem]) -> list[Elem] | None:
    """The elements of one array, in index order: one symbol, at least two elements, one stride."""
    if len({s for s, _ in elems}) != 1 or len(elems) < 2:
        return None
    offs = sorted(o for _, o in elems)
    step = offs[1] - offs[0]
    if step <= 0 or any(b - a != step for a, b in zip(offs, offs[1:])):
        return None
    sym = next(iter(elems))[0]
    return [(sym, o) for o in offs]


def check_stage_mismatch(ctx: FunctionContext) -> list[Diagnostic]:
    pr = proto_of(ctx)
    if pr.opaque or pr.untraced or not pr.objects:
        return []
    cfg = ctx.cfg
    loops: dict[int, tuple[Loop, list[Op]]] = {}
    outside: list[Op] = []
    for o in pr.objects.values():
        for op in o.waits + o.arrives:
            if op.block is None or not (_is_acquire(op) or _is_release(op)):
                continue
            lp = iteration_loop(cfg, op.block)
            if lp is None:
                if _is_acquire(op):
                    outside.append(op)
                continue
            loops.setdefault(id(lp), (lp, []))[1].append(op)
    out: list[Diagnostic] = []
    for lp, ops in loops.values():
        d = _judge_loop(ctx, lp, ops, outside + [w for lq, os in loops.values() if lq is not lp for w in os])
        if d is not None:
            out.append(d)
    return out


def _judge_loop(ctx: FunctionContext, lp: Loop, ops: list[Op], others: list[Op]) -> Diagnostic | None:
    """Walk the first iterations of `lp` in execution order and report the first release of a stage the
    loop does not hold; None when the loop is clean or cannot be decided."""
    if not any(_is_release(op) for op in ops) or not any(_is_acquire(op) for op in ops):
        return None
    ev = eval_of(ctx)
    its = iterations(ev, ctx.cfg, lp)
    if its is None:
        return None
    rpo = {b: i for i, b in enumerate(ctx.cfg.rpo)}
    ops = sorted(ops, key=lambda op: exec_pos(rpo, op))
    rows: list[list[tuple[Op, Elem]]] = []
    for env in its:
        row = []
        for op in ops:
            assert op.block is not None
            ex = executes(ev, ctx.cfg, lp, op.block, env)
            if ex is None:
                return None
            if not ex:
                continue
            a = ev.value(barrier_operand(op), env)  # type: ignore[arg-type]
            if not isinstance(a, SAddr):
                return None
            row.append((op, (a.sym, a.off)))
        rows.append(row)
    released = {e for row in rows for op, e in row if _is_release(op)}
    ys = _ring(released)
    if ys is None:
        return None
    lo, hi = ys[0][1], ys[-1][1]
    # waits on the released array are the producer's acquisitions of empty slots (one loop for both roles)
    acquired = {
        e for row in rows for op, e in row if _is_acquire(op) and not (e[0] == ys[0][0] and lo <= e[1] <= hi)
    }
    xs = _ring(acquired)
    if xs is None or len(xs) != len(ys) or xs[1][1] - xs[0][1] != ys[1][1] - ys[0][1]:
        return None
    if any(_may_wait_on(ctx, w, xs) for w in others if _is_acquire(w) and _reaches(ctx, w, lp)):
        return None
    stage_of_x = {e: i for i, e in enumerate(xs)}
    stage_of_y = {e: i for i, e in enumerate(ys)}
    held: dict[int, tuple[int, Op | None]] = {}  # stage -> (iteration, wait) that acquired it
    first = next((op for row in rows for op, e in row if e in stage_of_x or e in stage_of_y), None)
    if first is not None and _is_release(first):
        # the producer's side of a ring whose first round needs no wait (`if k >= S wait(empty[s])`):
        # the ring starts empty, so that side starts holding every stage
        held = {i: (-1, None) for i in range(len(xs))}
    for k, row in enumerate(rows):
        done: set[int] = set()
        for op, e in row:
            if e in stage_of_x and _is_acquire(op):
                held.setdefault(stage_of_x[e], (k, op))
            elif e in stage_of_y and _is_release(op):
                s = stage_of_y[e]
                if s in done:
                    continue  # two arrivals of one iteration (two roles' copies of the release): one release
                if s in held:
                    del held[s]
                    done.add(s)
                    continue
                return _diag(ctx, lp, op, k, s, xs, ys, held)
    return None


def _reaches(ctx: FunctionContext, w: Op, lp: Loop) -> bool:
    """Whether a thread that executed `w` can go on to enter `lp` (a producer's wait in the other arm of
    the role branch cannot hand the consumer loop a stage)."""
    seen: set[int] = set()
    work = list(ctx.cfg.succs.get(w.block, ()))  # type: ignore[arg-type]
    while work:
        b = work.pop()
        if b is lp.header:
            return True
        if id(b) in seen:
            continue
        seen.add(id(b))
        work.extend(ctx.cfg.succs.get(b, ()))
    return False


def _may_wait_on(ctx: FunctionContext, w: Op, xs: list[Elem]) -> bool:
    """Whether a wait outside the judged loop may be on an element of the acquired array: then the loop
    may start holding a stage (a peeled first wait), and the walk from an empty hand would be wrong."""
    addrs = barrier_addresses(ctx, w) if w.block is not None else None
    if addrs is None:
        return True
    return any(a.sym == xs[0][0] and xs[0][1] <= a.off <= xs[-1][1] for a in addrs)


def _diag(
    ctx: FunctionContext,
    lp: Loop,
    rel: Op,
    k: int,
    s: int,
    xs: list[Elem],
    ys: list[Elem],
    held: dict[int, tuple[int, Op | None]],
) -> Diagnostic:
    yname = element_name(ctx, *ys[s])
    xname = element_name(ctx, *xs[s])
    have = sorted(held)
    holds = (
        "it holds no stage"
        if not have
        else "it holds only " + ", ".join(f"stage {i} (`{element_name(ctx, *xs[i])}`)" for i in have)
    )
    labels = (
        [Label(rel.span, f"iteration {k} releases stage {s} here ({holds})")] if rel.span is not None else []
    )
    if have:
        w = held[have[-1]][1]
        if w is not None and w.span is not None:
            labels.append(
                Label(
                    w.span,
                    f"iteration {held[have[-1]][0]} acquired stage {have[-1]} here and has not released it",
                )
            )
    d = error(
        CHECK,
        f"mbarrier ring release does not match the stage acquired: in iteration {k} the loop arrives on "
        f"`{yname}`, releasing stage {s} of {len(ys)}, which it does not hold (no wait on `{xname}` since "
        f"its last release), so the producer may refill stage {s} while its readers are still at work",
        rel.span,
        labels=labels,
        help="arrive on the `empty` element of the stage this iteration waited on (`empty[s]` after "
        "`wait(full[s])`), or on the previous stage when the release deliberately lags",
    )
    d.witness = witness_json(_witness(ctx, lp, rel, k))
    return d


def _witness(ctx: FunctionContext, lp: Loop, rel: Op, k: int) -> object | None:
    """A launch in which a thread executes the release in iteration `k` of the loop; None without the
    solver (the reach witness is attached later then)."""
    from irc.analysis.symbolic.asyncq import reach_in_iteration

    if rel.block is None:
        return None
    _, w = reach_in_iteration(ctx, rel.block, lp, k, "releases a stage it does not hold")
    return w
