"""Divergence checks at call sites, from the callee summaries of `irc.analysis.callgraph`.

A call under control that is not uniform across the block, to a function that may execute a block-wide
barrier, is a `barrier-divergence` at the call; a call under control that is not uniform across the warp,
to one that may execute a full-mask warp collective (or a named barrier), is a `warp-sync-divergence`.
Each finding names both places: the primary span is the call, a label marks the barrier or collective in
the callee. A callee that cannot be analysed (no body in the file, an indirect call, recursion), called
under thread-dependent control, gets a `note` (`unanalysed-call`), never silence.
"""

from __future__ import annotations

import weakref

from irc.analysis.callgraph import EMPTY_SUMMARY, CallGraph
from irc.analysis.checks.common import FunctionContext, branch_span, condition_value, describe_dependence
from irc.analysis.uniformity import Level
from irc.diagnostics import Diagnostic, Label, error, note
from irc.ir.core import Block, Op

NOTE_CHECK = "unanalysed-call"


_GRAPHS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # Module -> CallGraph (one per check run)


def _graph(ctx: FunctionContext) -> CallGraph:
    if ctx.module is None:
        return CallGraph(None)
    g = _GRAPHS.get(ctx.module)
    if g is None:
        g = _GRAPHS[ctx.module] = CallGraph(ctx.module)
    return g


def _calls(ctx: FunctionContext) -> list[Op]:
    """The kernel's calls (computed once per kernel; no CFG needed when there are none)."""
    hit = ctx.cache.get("calls")
    if hit is None:
        hit = ctx.cache["calls"] = [op for op in ctx.fn.ops() if op.name == "call" and op.block is not None]
    return hit  # type: ignore[return-value]


def _cond_label(ctx: FunctionContext, d: Block, scope: str) -> list[Label]:
    cond = condition_value(d)
    dep, extra = describe_dependence(ctx, cond) if cond is not None else ("is not uniform", [])
    sp = branch_span(d)
    out = [Label(sp, f"this condition {dep}, so it is not uniform across the {scope}")] if sp else []
    return out + extra


def _chain_labels(chain: tuple[Op, ...], what: str) -> list[Label]:
    out: list[Label] = []
    for op in chain[:-1]:
        if op.span is not None:
            out.append(Label(op.span, f"which calls `{op.attrs.get('callee')}`"))
    last = chain[-1]
    if last.span is not None:
        out.append(Label(last.span, what))
    return out


def check_calls(ctx: FunctionContext, which: str) -> list[Diagnostic]:
    """Findings of check `which` ("barrier-divergence", "warp-sync-divergence" or the note) at calls."""
    if not ctx.fn.is_kernel:
        return []
    calls = _calls(ctx)
    if not calls:
        return []
    g = _graph(ctx)
    relevant = [(op, s) for op in calls if (s := g.summary_of_call(op)) != EMPTY_SUMMARY]
    if not relevant:
        return []  # callees that synchronize nobody: no uniformity facts needed
    facts = ctx.facts
    out: list[Diagnostic] = []
    for op, s in relevant:
        b = op.block
        assert b is not None
        callee = op.attrs.get("callee", "?")
        if which == "barrier-divergence" and s.barrier is not None:
            ds = facts.controlling_branches(b, Level.BLOCK)
            if ds:
                labels = _cond_label(ctx, ds[0], "block") + _chain_labels(
                    s.barrier, f"the block-wide barrier in `{callee}` (or a function it calls)"
                )
                out.append(
                    error(
                        which,
                        f"call to `{callee}` runs a block-wide barrier and may not be reached by every "
                        "thread of the block",
                        op.span,
                        labels=labels,
                        help="keep every thread of the block through the call (compute a predicate and "
                        "guard only the memory accesses, inside or around the callee)",
                    )
                )
        elif which == "warp-sync-divergence" and s.collective is not None:
            ds = facts.controlling_branches(b, Level.WARP)
            if ds:
                labels = _cond_label(ctx, ds[0], "warp") + _chain_labels(
                    s.collective, f"the full-mask warp collective in `{callee}`"
                )
                out.append(
                    error(
                        which,
                        f"call to `{callee}` runs a full-mask warp collective and may run with only some "
                        "lanes of the warp",
                        op.span,
                        labels=labels,
                        help="call it with every lane of the warp, or pass the callee the mask of the "
                        "lanes that take this path",
                    )
                )
        elif which == NOTE_CHECK and s.unknown is not None and s.barrier is None and s.collective is None:
            ds = facts.controlling_branches(b, Level.WARP if s.unknown_collective_only else Level.BLOCK)
            if ds:
                what = s.unknown if s.unknown.startswith(("an ", "`")) else f"`{s.unknown}` (no body here)"
                if g.callee(op) is None:
                    what = "a function chosen at run time"
                head = "an indirect call" if g.callee(op) is None else f"call to `{callee}`"
                out.append(
                    note(
                        NOTE_CHECK,
                        f"{head} under thread-dependent control is not analysed: it reaches {what}; a barrier "
                        "or full-mask warp collective there would not be checked",
                        op.span,
                        labels=_cond_label(ctx, ds[0], "block"),
                    )
                )
    return out
