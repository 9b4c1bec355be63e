"""`barrier-count`: a named barrier whose thread count differs from the threads that reach it.

`bar.sync id, count` / `bar.arrive id, count` (`barrier(id, count)` in .kdsl) complete a phase of barrier
`id` when `count` threads have arrived, counted by whole warps: a warp that executes the instruction counts
32 (PTX ISA, `bar`). Warp-specialised kernels give each role's barrier the count of the roles that use it
(producer `bar.arrive` + consumer `bar.sync`). A count larger than what arrives hangs the block; so does a
smaller one that does not divide it (the last threads wait for a phase that never completes). A count that
divides it completes whole phases of `count` threads, which nothing hangs on, and is not reported.

How: with the block shape known (`@launch`, `.reqntid`, `.maxntid`, a contract), the per-thread evaluation
(`irc.analysis.races.ThreadEval`) gives the threads that reach each barrier instruction (in the first
iteration of any loop around it). For each constant id whose instructions all carry a constant count, the
warps that reach them are summed; the id is judged only when no warp reaches two of its instructions (one
phase) and every guard is decided. Anything else is not analysed, never guessed.
"""

from __future__ import annotations

from irc.analysis.checks.common import FunctionContext, launch_eval
from irc.analysis.races import ThreadEval
from irc.analysis.tma_facts import const_int
from irc.diagnostics import Diagnostic, Label, error
from irc.ir.core import Op

CHECK = "barrier-count"


def _id_count(op: Op) -> tuple[int | None, int | None]:
    """The barrier's constant id and count (None: not constant, or no count: the whole CTA)."""
    ops = list(op.operands)
    bid = op.attrs.get("id")
    if bid is None and ops:
        bid = const_int(ops.pop(0))
    cnt = op.attrs.get("count")
    if cnt is None and ops:
        cnt = const_int(ops[0])
    return (int(bid) if isinstance(bid, int) else None), (int(cnt) if isinstance(cnt, int) else None)


def check_barrier_count(ctx: FunctionContext) -> list[Diagnostic]:
    fn = ctx.fn
    if not fn.is_kernel:
        return []
    by_id: dict[int, list[tuple[Op, int]]] = {}
    for b in ctx.cfg.rpo:
        for op in b.ops:
            if op.name != "barrier":
                continue
            bid, cnt = _id_count(op)
            if bid is None:
                return []  # a barrier id only known at run time: which phase is which is not decided
            if cnt is not None:
                by_id.setdefault(bid, []).append((op, cnt))
    if not by_id:
        return []
    ev = launch_eval(ctx)
    if ev is None:
        return []
    dims = ev.dims
    out: list[Diagnostic] = []
    for bid, ops in sorted(by_id.items()):
        warps: list[set[int]] = []
        masks = []
        for op, _ in ops:
            ctx0 = {lp: 0 for lp in ctx.cfg.loops_containing(op.block)}
            g = ev.guard(op.block, ctx0)
            if g is None:
                break
            warps.append(ev.warps(g))
            masks.append(g)
        else:
            seen: set[int] = set()
            if any(seen & w or seen.update(w) for w in warps):
                continue  # a warp reaches two of its instructions: more than one phase
            arrive = 32 * len(seen)
            for op, cnt in ops:
                if not seen or cnt <= 0 or (cnt <= arrive and arrive % cnt == 0):
                    continue  # whole phases: `count` threads at a time (unusual, but nothing hangs)
                d = _finding(op, bid, cnt, arrive, sorted(seen), ops)
                d.witness = _witness(ev, dims, bid, ops, masks)
                out.append(d)
                break
    return out


def _witness(ev: ThreadEval, dims: tuple[int, int, int], bid: int, ops, masks) -> dict:  # type: ignore[no-untyped-def]
    """The launch at the block shape, which threads reach which of the barrier's instructions, and which
    reach none of them."""
    from irc.analysis.symbolic.witness import Witness, ranges

    w = Witness(dims, (1, 1, 1), (0, 0, 0), [])
    reached: set[int] = set()
    for (op, cnt), m in zip(ops, masks):
        got = ev.threads(m)
        reached.update(got)
        kind = op.attrs.get("kind", "sync")
        w.groups.append(
            (
                ranges(got),
                f"{'arrive at' if kind == 'arrive' else 'wait at'} barrier {bid} "
                f"({cnt} threads) at {w.ref(op.span)}",
            )
        )
    rest = [i for i in range(dims[0] * dims[1] * dims[2]) if i not in reached]
    if rest:
        w.groups.append((ranges(rest), f"never reach barrier {bid}"))
    first = min(reached) if reached else 0
    w.threads = [(first % dims[0], first // dims[0] % dims[1], first // (dims[0] * dims[1]))]
    return w.to_json()


def _finding(op: Op, bid: int, cnt: int, arrive: int, warps: list[int], ops) -> Diagnostic:  # type: ignore[no-untyped-def]
    who = f"warp {warps[0]}" if len(warps) == 1 else f"warps {_ranges(warps)}"
    if cnt > arrive:
        what = f"only {arrive} threads ({who}) ever arrive: the block hangs at it"
    else:
        what = (
            f"{arrive} threads ({who}) arrive: after {arrive // cnt} phase(s) of {cnt} the last "
            f"{arrive % cnt} threads wait for a phase that never completes"
        )
    fix = f"give barrier {bid} the count of the threads that use it ({arrive})"
    labels = [
        Label(o.span, f"barrier {bid} ({o.attrs.get('kind', 'sync')}) for {c} threads")
        for o, c in ops
        if o is not op and o.span is not None
    ]
    msg = f"named barrier {bid} expects {cnt} threads, but {what}"
    return error(CHECK, msg, op.span, labels=labels, help=fix)


def _ranges(xs: list[int]) -> str:
    """`1..3, 5`."""
    out, i = [], 0
    while i < len(xs):
        j = i
        while j + 1 < len(xs) and xs[j + 1] == xs[j] + 1:
            j += 1
        out.append(f"{xs[i]}..{xs[j]}" if j > i else str(xs[i]))
        i = j + 1
    return ", ".join(out)
