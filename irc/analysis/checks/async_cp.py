"""`async-unwaited` for cp.async: a read of shared memory that a cp.async still in flight writes.

The facts (`irc.analysis.cp_groups`) say which copies may be pending at each shared read and how many back
edges of each loop lie between copy and read; the solver (`irc.analysis.symbolic.asyncq.pending_read`)
decides whether some thread's pending copy writes a byte the read reads, in the iterations those counts
allow. The finding carries that launch, the two threads and their iterations as its witness.

Covered by one question: no `wait_group` at all, a `wait_group N` too shallow for the ring's depth (the
group of tile k still pending when stage k % S is read), reading the stage that is being filled, a wait
before the copies were committed (reported at the wait: `wait_group` covers committed groups only), and
another thread's element read after a barrier but before its copier waited.
"""

from __future__ import annotations

from irc.analysis.checks.common import FunctionContext, not_decided, witness_json
from irc.analysis.cp_groups import UNCOMMITTED, pending_reads
from irc.analysis.mbarrier import shared_root
from irc.diagnostics import Diagnostic, Label, error
from irc.ir.core import Op

CHECK = "async-unwaited"
MAX_QUERIES = 96  # solver questions per function (copies x reads); the rest is reported as not analysed


def _is_shared_read(op: Op) -> bool:
    if op.name not in ("load", "load_vec") or not op.operands:
        return False
    return getattr(op.operands[0].type, "space", None) == "shared" or op.attrs.get("space") == "shared"


def _width(op: Op) -> int:
    from irc.ir.types import size_of

    try:
        return sum(size_of(r.type) for r in op.results) or 4
    except TypeError:
        return 4


def _line(op: Op) -> str:
    return f"line {op.span.line}" if op.span is not None else "here"


def check_cp_pending(ctx: FunctionContext) -> list[Diagnostic]:
    fn, cfg = ctx.fn, ctx.cfg
    if not fn.is_kernel:
        return []
    g = pending_reads(cfg)
    if g is None:
        return []
    from irc.analysis.symbolic.asyncq import pending_read

    out: list[Diagnostic] = []
    done: set[int] = set()
    budget = MAX_QUERIES
    undecided: tuple[Op, str] | None = None
    for b in cfg.rpo:
        for rd in b.ops:
            if not _is_shared_read(rd):
                continue
            rroot = shared_root(rd.operands[0])
            for p in g.pending_at(rd):
                c = p.copy
                if id(c) in done:
                    continue
                croot = shared_root(c.operands[0])
                if croot is None or (rroot is not None and rroot != croot):
                    continue
                if budget <= 0:
                    undecided = undecided or (rd, "query budget")
                    continue
                budget -= 1
                nbytes = int(c.attrs.get("bytes", 0) or 0)
                off = int(rd.attrs.get("offset", 0) or 0)
                res, w = pending_read(ctx, c, c.operands[0], nbytes, rd, rd.operands[0], off, _width(rd), p.counts)
                if res.sat:
                    done.add(id(c))
                    out.append(_diag(c, rd, p.passed if p.status == UNCOMMITTED else None, w))
                elif res.status == "unknown" and res.reason in ("timeout", "budget"):
                    undecided = undecided or (rd, res.reason)
    if undecided is not None and not out:
        out.append(not_decided(CHECK, undecided[0], undecided[1]))
    return out


def _diag(site: Op, rd: Op, passed: Op | None, w: object) -> Diagnostic:
    labels = [Label(site.span, "cp.async writes this shared memory asynchronously")] if site.span else []
    if passed is not None:
        if rd.span is not None:
            labels.append(Label(rd.span, "read here while the copy may still be in flight"))
        return error(
            CHECK,
            f"`cp.async.wait_group` does not cover the cp.async at {_line(site)}: the copy was never "
            f"committed (`cp.async.commit_group`), and wait_group waits for committed groups only, so the "
            f"read at {_line(rd)} may see the old contents",
            passed.span,
            labels=labels,
            help="commit the copies (`cp.async.commit_group`, `__pipeline_commit()`) before waiting, or use "
            "`cp.async.wait_all`, which commits first",
            witness=witness_json(w),
        )
    if rd.span is not None:
        labels.append(Label(rd.span, "read here before a `cp.async.wait_group` that covers the copy"))
    return error(
        CHECK,
        f"shared memory written by the cp.async at {_line(site)} is read before the `wait_group` that "
        f"covers its group: the read may see the old contents",
        rd.span,
        labels=labels,
        help="commit the copy's group and wait for it (`cp.async.wait_group N` leaves only the N newest "
        "groups pending: N = stages - 2 before reading the oldest stage of a ring), then a barrier "
        "before other threads read it",
        witness=witness_json(w),
    )


__all__ = ["CHECK", "check_cp_pending"]
