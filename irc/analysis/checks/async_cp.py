"""`async-unwaited` for cp.async: a read of shared memory that a cp.async still in flight writes.

The facts (`irc.analysis.cp_groups`) say which copies may be pending at each shared read and how many back
edges of each loop lie between copy and read; the solver (`irc.analysis.symbolic.asyncq.pending_read`)
decides whether some thread's pending copy writes a byte the read reads, in the iterations those counts
allow. The finding carries that launch, the two threads and their iterations as its witness.

Covered by one question: no `wait_group` at all, a `wait_group N` too shallow for the ring's depth (the
group of tile k still pending when stage k % S is read), reading the stage that is being filled, a wait
before the copies were committed (`wait_group` covers committed groups only; labelled at that wait), and
another thread's element read after a barrier but before its copier waited.
"""

from __future__ import annotations

from irc.analysis.checks.common import FunctionContext, cp_groups, not_decided, witness_json
from irc.analysis.cp_groups import UNCOMMITTED, is_shared_read
from irc.analysis.mbarrier import shared_root
from irc.diagnostics import Diagnostic, Label, error
from irc.ir.core import Op

CHECK = "async-unwaited"
MAX_QUERIES = 48  # solver questions per function (copy blocks x read blocks); the rest: not analysed
READS_PER_QUERY = 8  # reads asked about in one question (`_chunks`)


def _line(op: Op) -> str:
    return f"line {op.span.line}" if op.span is not None else "here"


def check_cp_pending(ctx: FunctionContext) -> list[Diagnostic]:
    fn, cfg = ctx.fn, ctx.cfg
    if not fn.is_kernel:
        return []
    g = cp_groups(ctx)
    if g is None:
        return []
    from irc.analysis.symbolic.asyncq import pending_read

    # one question per (copy block, read block): its pairs and the loop counts between them
    groups: dict[tuple[int, int], tuple[list, dict, dict]] = {}
    skipped: dict[int, set] = {}  # copy -> waits other threads ran and its copier skipped
    for b in cfg.rpo:
        for rd in b.ops:
            if not is_shared_read(rd):
                continue
            rroot = shared_root(rd.operands[0])
            for p in g.pending_at(rd):
                c = p.copy
                croot = shared_root(c.operands[0])
                if croot is None or (rroot is not None and rroot != croot) or c.block is None:
                    continue
                pairs, variants, passed = groups.setdefault((id(c.block), id(b)), ([], {}, {}))
                if (c, rd) not in pairs:
                    pairs.append((c, rd))
                vs = variants.setdefault((id(c), id(rd)), [])
                if p.counts not in vs:
                    vs.append(p.counts)
                if p.passed is not None and (p.status == UNCOMMITTED or p.passed.name != "cp_async_wait"):
                    passed[id(c)] = p.passed
                skipped.setdefault(id(c), set()).update(p.skipped)
    out: list[Diagnostic] = []
    done: set[int] = set()
    undecided: tuple[Op, str] | None = None
    for n, (pairs, variants, passed) in enumerate(_chunks(groups)):
        pairs = [(c, r) for c, r in pairs if id(c) not in done]
        if not pairs:
            continue
        if n >= MAX_QUERIES:
            undecided = undecided or (pairs[0][1], "query budget")
            break
        res, w, hit = pending_read(ctx, pairs, variants, skipped=skipped)
        if res.sat and hit is not None:
            c, rd = hit
            done.update(id(x) for x, _ in pairs if x.block is c.block)
            out.append(_diag(c, rd, passed.get(id(c)), w))
        elif res.status == "unknown" and res.reason in ("timeout", "budget"):
            undecided = undecided or (pairs[0][1], res.reason)
    if undecided is not None and not out:
        out.append(not_decided(CHECK, undecided[0], undecided[1]))
    return out


def _chunks(groups: dict) -> list[tuple[list, dict, dict]]:
    """Each (copy block, read block) question in runs of at most `READS_PER_QUERY` reads, in program
    order: a GEMM's K-loop body with 50 `ldmatrix` rows against 8 copies is one disjunction of 400
    overlaps that z3 needs seconds for, while runs of 8 reads take a few hundred milliseconds each (the
    per-query timeout is 1 s) for the same total."""
    out: list[tuple[list, dict, dict]] = []
    for pairs, variants, passed in groups.values():
        reads: list[Op] = []
        for _, r in pairs:
            if not any(r is x for x in reads):
                reads.append(r)
        for i in range(0, len(reads), READS_PER_QUERY):
            run = {id(r) for r in reads[i : i + READS_PER_QUERY]}
            out.append(([(c, r) for c, r in pairs if id(r) in run], variants, passed))
    return out


def _diag(site: Op, rd: Op, passed: Op | None, w: object) -> Diagnostic:
    labels = [Label(site.span, "cp.async writes this shared memory asynchronously")] if site.span else []
    if passed is not None and passed.name != "cp_async_wait":
        if rd.span is not None:
            labels.append(Label(rd.span, "read here while the copy may still be in flight"))
        return error(
            CHECK,
            f"`cp.async.bulk.wait_group` does not wait for the cp.async at {_line(site)}: it tracks bulk "
            f"copies only (`cp.async.bulk.commit_group` groups), so the read at {_line(rd)} may see the old "
            f"contents",
            passed.span,
            labels=labels,
            help="commit and wait with the non-bulk group operations: `cp.async.commit_group` and "
            "`cp.async.wait_group N` (or `cp.async.wait_all`)",
            witness=witness_json(w),
        )
    if passed is not None:
        if passed.span is not None:
            labels.append(Label(passed.span, "this wait does not cover the copy: it was never committed"))
        return error(
            CHECK,
            f"shared memory written by the cp.async at {_line(site)} is read before any wait covers it: the "
            f"copy was never committed (`cp.async.commit_group`), and the `cp.async.wait_group` at "
            f"{_line(passed)} waits for committed groups only, so the read may see the old contents",
            rd.span,
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
