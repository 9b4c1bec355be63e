"""`uninitialized` on IR: a read of an `undef` value, directly or through block arguments that receive
`undef` on some incoming edge. The PTX lifter produces `undef` for a register read before any write on
some path, so this is "register read before it is written".

Passing an `undef` along a branch edge is not a read (SSA construction creates such block arguments for
registers that are dead afterwards); only a real use is: an operand of a non-branch op or a branch
condition. Each maybe-undefined value is reported once, at its first read in layout order.

On lifted PTX, a value that is unwritten only on *some* paths is not reported where the read cannot be
shown to matter (`irc.analysis.checks.uninit_guard`): the read runs under the same guard as the write,
or the value is only copied to memory (partly loaded register arrays stored back as a whole), or the
read is if-converted code whose result every thread throws away with a select
(`irc.analysis.checks.uninit_select`). Values that are never written on any path are always reported.
"""

from __future__ import annotations

from irc.analysis.checks.common import FunctionContext
from irc.analysis.checks.uninit_guard import GuardedReads
from irc.analysis.checks.uninit_select import DiscardedReads
from irc.diagnostics import Diagnostic, Label, error
from irc.ir.core import BlockArg, OpResult, Value

CHECK = "uninitialized"


def maybe_undef(ctx: FunctionContext) -> dict[Value, bool]:
    """Values that may hold `undef`: value -> True when undefined on every path (a direct `undef`)."""
    cfg = ctx.cfg
    out: dict[Value, bool] = {}
    for b in cfg.rpo:
        for op in b.ops:
            if op.name == "undef":
                for r in op.results:
                    out[r] = True
    changed = bool(out)
    while changed:
        changed = False
        for b in cfg.rpo:
            t = b.terminator
            if t is None:
                continue
            for s, args in zip(t.successors, t.succ_args):
                for i, v in enumerate(args):
                    if v in out and i < len(s.args) and s.args[i] not in out:
                        out[s.args[i]] = False
                        changed = True
    return out


def check_uninitialized(ctx: FunctionContext) -> list[Diagnostic]:
    undef = maybe_undef(ctx)
    if not undef:
        return []
    out: list[Diagnostic] = []
    reported: set[Value] = set()
    quiet = GuardedReads(ctx, undef) if ctx.is_ptx else None
    discard: DiscardedReads | None = None
    for op in ctx.reachable_ops():
        for v in op.operands:
            if v not in undef or v in reported:
                continue
            if quiet is not None and (quiet.moved_only(v, op) or (not undef[v] and quiet.silent(v, op))):
                continue
            if quiet is not None and not undef[v]:
                if discard is None:
                    discard = DiscardedReads(ctx.fn.attrs)
                if discard.discarded(v, op):
                    continue
            reported.add(v)
            nm = ctx.name(v)
            labels: list[Label] = []
            if undef[v]:
                msg = f"`{nm}` is read before it is written"
                if isinstance(v, OpResult) and v.op.span is not None and v.op.span != op.span:
                    labels.append(Label(v.op.span, f"`{nm}` has no value here"))
            else:
                msg = f"`{nm}` is read before it is written on some path"
                if isinstance(v, BlockArg):
                    for p in ctx.cfg.preds.get(v.block, []):
                        t = p.terminator
                        if t is None or t.span is None:
                            continue
                        for s, args in zip(t.successors, t.succ_args):
                            if s is v.block and v.index < len(args) and args[v.index] in undef:
                                labels.append(Label(t.span, f"on this path `{nm}` has not been written"))
                                break
            out.append(
                error(
                    CHECK, msg, op.span, labels=labels, help=f"assign `{nm}` on every path before reading it"
                )
            )
    return out
