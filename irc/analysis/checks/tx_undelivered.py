"""`mbarrier-tx-mismatch`: an `expect_tx` that announces fewer bytes than the readers after the wait need.

A phase of a TMA ring's barrier element e completes when the bytes announced with `expect_tx` have
landed. The copies of a host-built tensor map have boxes the PTX does not state, but a copy writes a prefix
of its destination, so a byte read after the wait bounds its box from below. Announcing the bytes of one
tile while two complete on the barrier (A and B of a GEMM step), or of half a tile, completes the phase
early: the rest is read while still in flight (a silent wrong answer on the GPU).

How it is decided:
- the destinations of e's copies come from evaluating every copy site over the first iterations of its
  loop (`Eval`): the copies whose barrier is e, and where each writes. Unrolled copies, a prologue's copy
  of the first stage, and the members of one `SharedStorage` struct are all just destinations;
- a destination's copy can write at most up to the next destination of any element in that allocation
  (a box that long would overwrite the next stage or the next member), so a read is attributed to the
  destination whose range holds it, and a lagging read of the stage before (a stencil's row above) is
  that stage's, not this phase's;
- the solver is asked for one reader per destination, all past the wait on e in one iteration, whose
  read ends add up to more than the bytes announced (`asyncq.undelivered_reads`).

Left alone (silence): announcements of different or unknown byte counts, copies or barriers that cannot
be evaluated, destinations that ordinary stores also write, more than four destinations per element.
"""

from __future__ import annotations

from irc.analysis.checks.async_protocol import TX, barrier_addresses, eval_of, proto_of
from irc.analysis.checks.common import FunctionContext, not_decided, witness_json
from irc.analysis.mbarrier import (
    SAddr,
    barrier_operand,
    const_int,
    executes,
    iteration_loop,
    iterations,
    shared_root,
)
from irc.diagnostics import Diagnostic, Label, error
from irc.ir.core import Op

_READS = ("load", "load_vec")
MAX_DESTINATIONS = 4
MAX_WAITS = 4

Elem = tuple[str, int]


def check_announced_too_few(ctx: FunctionContext) -> list[Diagnostic]:
    from irc.analysis.races import shared_accesses

    pr = proto_of(ctx)
    out: list[Diagnostic] = []
    if pr.opaque or not any(o.copies for o in pr.objects.values()):
        return out
    cfg = ctx.cfg
    writers: dict[str | None, int] = {}
    for acc in shared_accesses(ctx.fn, cfg):
        if acc.write:
            r = shared_root(acc.ptr)
            writers[r] = writers.get(r, 0) + 1
    for o in pr.objects.values():
        if not o.announces or not o.copies or not o.waits:
            continue
        # one byte count per phase, however many sites announce it (a prologue's `issue(0)` and the
        # loop's `issue(k + 1)`: one helper inlined twice; an unrolled loop's copies of one announcement)
        counts = {const_int(a.operands[1]) if len(a.operands) > 1 else None for a in o.announces}
        if len(counts) != 1 or None in counts:
            continue
        E = counts.pop()
        if E is None or E <= 0:
            continue
        roots = {shared_root(c.operands[0]) for c in o.copies}
        if None in roots or any(
            writers.get(r, 0) != sum(1 for c in o.copies if shared_root(c.operands[0]) == r) for r in roots
        ):
            continue  # each destination written by this barrier's copies alone (shared_accesses counts them)
        dests = _destinations(ctx, o.copies)
        if not dests:
            continue
        d = _judge(ctx, o, E, dests)
        if d is not None:
            out.append(d)
    return out


def _destinations(ctx: FunctionContext, copies: list[Op]) -> dict[Elem, dict[Elem, Op]] | None:
    """barrier element -> {destination: a copy writing there} over the first iterations of each copy's
    loop (once outside loops); None when some copy's barrier or destination cannot be evaluated (a copy
    after the loop whose stage comes from the loop's final counter, nvcc's peeled last step, is left out
    when the loop's own copies are known: it writes one of their destinations)."""
    ev = eval_of(ctx)
    cfg = ctx.cfg
    out: dict[Elem, dict[Elem, Op]] = {}
    for c in copies:
        if c.block is None:
            return None
        lp = iteration_loop(cfg, c.block)
        envs = (iterations(ev, cfg, lp) if lp is not None else None) or [{}]
        for env in envs:
            if lp is not None and executes(ev, cfg, lp, c.block, env) is False:
                continue
            b, dst = ev.value(barrier_operand(c), env), ev.value(c.operands[0], env)  # type: ignore[arg-type]
            if not isinstance(b, SAddr) or not isinstance(dst, SAddr):
                if lp is None and any(iteration_loop(cfg, x.block) is not None for x in copies if x.block):
                    break  # a peeled last step after the loop (its stage from the loop's final counter)
                return None
            out.setdefault((b.sym, b.off), {}).setdefault((dst.sym, dst.off), c)
    return out


def _judge(ctx: FunctionContext, o, E: int, dests: dict[Elem, dict[Elem, Op]]) -> Diagnostic | None:  # type: ignore[no-untyped-def]
    cfg = ctx.cfg
    starts: dict[str, list[int]] = {}
    for per in dests.values():
        for sym, off in per:
            starts.setdefault(sym, []).append(off)
    for sym in starts:
        starts[sym] = sorted(set(starts[sym]))
    for wait in o.waits[:MAX_WAITS]:
        if wait.block is None:
            continue
        elems = barrier_addresses(ctx, wait)
        if elems is None:
            continue
        lp = iteration_loop(cfg, wait.block)
        reads = [
            op
            for b in cfg.rpo
            if cfg.dominates(wait.block, b) and (lp is None or b in lp.blocks)
            for op in b.ops
            if op.name in _READS and op.operands and shared_root(op.operands[0]) in starts
        ]
        if not reads:
            continue
        for e in dict.fromkeys((a.sym, a.off) for a in elems):
            per = dests.get(e)
            if not per or len(per) > MAX_DESTINATIONS:
                continue
            slots = sorted(per)
            # a copy writes at most up to the next destination in its allocation (None: to its end)
            ends = [_next_start(starts[sym], off) for sym, off in slots]
            from irc.analysis.symbolic.asyncq import undelivered_reads

            res, w, got = undelivered_reads(ctx, lp, wait, e, slots, ends, reads, E)
            ann = _announcement(cfg, o)
            if res.status == "unknown" and res.reason in ("timeout", "budget"):
                return not_decided(TX, ann, res.reason)
            if not res.sat or w is None:
                continue
            return _diag(o, E, ann, [per[s] for s in slots], got, w)
    return None


def _next_start(offs: list[int], off: int) -> int | None:
    later = [x for x in offs if x > off]
    return later[0] if later else None


def _announcement(cfg, o) -> Op:  # type: ignore[no-untyped-def]
    """The announcement of the steady state (in a loop, beside its copies) when there is one."""
    return next(
        (a for a in o.announces if a.block is not None and iteration_loop(cfg, a.block) is not None),
        o.announces[0],
    )


def _diag(o, E: int, ann: Op, copies: list[Op], got: list[int], w) -> Diagnostic:  # type: ignore[no-untyped-def]
    need = sum(got)
    labels = [Label(ann.span, f"announces {E} bytes for this phase")] if ann.span is not None else []
    for c, g in zip(copies, got):
        if c.span is not None:
            labels.append(
                Label(c.span, f"must write at least {g} bytes: its byte {g - 1} is read after the wait")
            )
    d = error(
        TX,
        f"`expect_tx` announces {E} bytes on `{o.sym}`, but the {len(copies)} copies of the phase must deliver "
        f"at least {need}: the readers after the wait read that far into their destinations (a copy writes a "
        f"prefix of its destination), so the phase completes before the last bytes land and they are read "
        f"stale",
        ann.span,
        labels=labels,
        help="announce the bytes of every copy that completes on this barrier in the phase (the sum of their "
        "boxes)",
    )
    d.witness = witness_json(w)
    return d
