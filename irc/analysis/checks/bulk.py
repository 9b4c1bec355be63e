"""Bulk copies (`cp.async.bulk`, non-tensor): their size (reported as `tma-misaligned`, with their
addresses), `async-overwrite`, and the byte half of `mbarrier-tx-mismatch` for bulk and tensor copies whose
sizes the IR knows.

- size (`tma-misaligned`): the size of a `cp.async.bulk` must be a multiple of 16 bytes. A constant is judged
  directly; a size computed from parameters (`n * sizeof(float3)`) only when the solver proves that no
  launch makes it a multiple of 16 (hosts usually guarantee tile sizes the PTX does not state).
- `async-overwrite`: a bulk store (`cp.async.bulk.global.shared`, tensor stores) reads its shared source
  asynchronously until `cp.async.bulk.wait_group.read` covers its bulk group. Overwriting the source
  before that (the next tile's staging) corrupts what is stored; `cp.async.wait_all` / `wait_group` and
  `cp.async.commit_group` belong to the non-bulk cp.async groups and do not wait for it. The dataflow is
  `irc.analysis.cp_groups` (`BULK_STORES`), the overlap question `irc.analysis.symbolic.asyncq`.
- tx: an `expect_tx` announcement and the copies that complete on the same barrier in the same straight
  line of code (one block, between waits on it) form a group; when every copy on the barrier belongs to
  such a group and every size is known, a group whose copies move more (the phase completes while bytes
  are landing) or fewer bytes (the phase never completes) than it announces is reported.
"""

from __future__ import annotations

from irc.analysis.checks.common import FunctionContext, not_decided, witness_json
from irc.analysis.cp_groups import BULK_STORES, pending_reads
from irc.analysis.mbarrier import (
    ANNOUNCE_OPS,
    WAIT_OPS,
    Eval,
    SAddr,
    barrier_operand,
    const_int,
    protocol,
    shared_root,
    strip,
)
from irc.diagnostics import Diagnostic, Label, error
from irc.ir.core import Block, Op

SIZE = "tma-misaligned"  # the size rule of bulk copies, beside their address rule
WAIT = "async-overwrite"
TX = "mbarrier-tx-mismatch"
BULK_OPS = ("bulk_load", "bulk_store")


def _line(op: Op) -> str:
    return f"line {op.span.line}" if op.span is not None else "here"


# ------------------------------------------------------------------------------------------ size
def check_bulk_size(ctx: FunctionContext) -> list[Diagnostic]:
    if not ctx.fn.is_kernel:
        return []
    out: list[Diagnostic] = []
    for op in ctx.reachable_ops():
        if op.name not in BULK_OPS or len(op.operands) < 3 or op.block is None:
            continue
        size = op.operands[2]
        c = const_int(size)
        if c is not None and c % 16 == 0 and c > 0:
            continue
        # (imported here: the solver's modules load only for a kernel with a bulk copy to ask about)
        from irc.analysis.symbolic.asyncq import reach_where

        if c is None:
            # a size computed from parameters (`count * sizeof(float)`): hosts usually guarantee the
            # multiple of 16 (tile sizes), which the PTX does not say, so it is reported only when no
            # launch makes it one
            def aligned(enc, th, size=size):  # type: ignore[no-untyped-def]
                t = enc.value(size, th)
                if enc.z.is_bool(t) or not enc.pure(t):
                    return None
                return (t & 15) == 0

            ok, _w, _m = reach_where(ctx, op.block, aligned, "")
            if not ok.unsat:
                continue

        def bad(enc, th, size=size):  # type: ignore[no-untyped-def]
            t = enc.value(size, th)
            if enc.z.is_bool(t) or not enc.pure(t):
                return None
            return (t & 15) != 0

        res, w, m = reach_where(
            ctx, op.block, bad, "issues the bulk copy at {L} with a size that is not a multiple of 16"
        )
        if res.sat and w is not None:
            model, enc, th = m
            n = c if c is not None else model.eval(enc.value(size, th), model_completion=True).as_long()
            w.story = w.story.replace("{L}", w.ref(op.span)).replace("a size that", f"{n} bytes, a size that")
            what = "copy" if op.name == "bulk_load" else "store"
            out.append(
                error(
                    SIZE,
                    f"the bulk {what} moves {n} bytes, which is not a multiple of 16: `cp.async.bulk` needs a "
                    f"size that is a multiple of 16 bytes (and 16-byte aligned addresses)",
                    op.span,
                    help="round the copy up to a multiple of 16 bytes (pad the rows or the staging buffer), or "
                    "copy the remainder with ordinary loads",
                    witness=witness_json(w),
                )
            )
        elif res.status == "unknown" and res.reason in ("timeout", "budget"):
            out.append(not_decided(SIZE, op, res.reason))
    return out


# ------------------------------------------------------------------------------------------ async-overwrite
def check_bulk_wait(ctx: FunctionContext) -> list[Diagnostic]:
    fn, cfg = ctx.fn, ctx.cfg
    if not fn.is_kernel:
        return []
    g = pending_reads(cfg, ctx.cache, BULK_STORES, lambda: ctx.facts)
    if g is None:
        return []
    from irc.analysis.symbolic.asyncq import pending_read

    groups: dict[tuple[int, int], tuple[list, dict, dict]] = {}
    skipped: dict[int, set] = {}
    for b in cfg.rpo:
        for wr in b.ops:
            for p in g.pending_at(wr):
                s = p.copy
                src = s.operands[1] if s.name == "bulk_store" else s.operands[-1]
                r1, r2 = shared_root(src), shared_root(wr.operands[0])
                if r1 is None or (r2 is not None and r1 != r2) or s.block is None:
                    continue
                pairs, variants, passed = groups.setdefault((id(s.block), id(b)), ([], {}, {}))
                if (s, wr) not in pairs:
                    pairs.append((s, wr))
                vs = variants.setdefault((id(s), id(wr)), [])
                if p.counts not in vs:
                    vs.append(p.counts)
                if p.passed is not None:
                    passed[id(s)] = p.passed
                skipped.setdefault(id(s), set()).update(p.skipped)
    out: list[Diagnostic] = []
    done: set[int] = set()
    for pairs, variants, passed in groups.values():
        pairs = [(s, w) for s, w in pairs if id(s) not in done]
        if not pairs:
            continue
        words = ("the bulk store", "overwrites a byte of its source")
        res, wit, hit = pending_read(ctx, pairs, variants, words, skipped)
        if res.sat and hit is not None:
            s, wr = hit
            done.add(id(s))
            out.append(_wait_diag(s, wr, passed.get(id(s)), wit))
        elif res.status == "unknown" and res.reason in ("timeout", "budget"):
            out.append(not_decided(WAIT, pairs[0][1], res.reason))
    # a store still in flight at the end of the kernel after a wait of the wrong family: the shared
    # memory it reads is released with the block
    for ret, pend in g.exits:
        for p in pend:
            if p.passed is not None and id(p.copy) not in done:
                done.add(id(p.copy))
                out.append(_wait_diag(p.copy, ret, p.passed, None))
    return out


def _wait_diag(store: Op, hazard: Op, wrong: Op | None, w: object) -> Diagnostic:
    labels = (
        [Label(store.span, "the bulk store reads this shared memory asynchronously")] if store.span else []
    )
    if hazard.span is not None and hazard.name != "ret":
        labels.append(Label(hazard.span, "overwritten here while the store may still be reading it"))
    if wrong is not None:
        what = "cp.async.wait_all" if wrong.name == "cp_async_wait" and not wrong.attrs.get("n") else "it"
        msg = (
            f"`{'cp.async.wait_group' if what == 'it' else what}` does not wait for the bulk store at "
            f"{_line(store)}: bulk stores complete through `cp.async.bulk.commit_group` / "
            f"`cp.async.bulk.wait_group`, not the cp.async groups, so its source "
            + ("is overwritten" if hazard.name != "ret" else "is released at the end of the kernel")
            + " while the store may still be reading it"
        )
        span = wrong.span
    else:
        msg = (
            f"the source of the bulk store at {_line(store)} is overwritten at {_line(hazard)} before "
            f"`cp.async.bulk.wait_group.read` covers the store: the store may write the new data"
        )
        span = hazard.span
    return error(
        WAIT,
        msg,
        span,
        labels=labels,
        help="commit the store (`cp.async.bulk.commit_group`) and wait with `cp.async.bulk.wait_group.read N` "
        "(N bulk groups may stay pending) before the source is written again",
        witness=witness_json(w),
    )


# ------------------------------------------------------------------------------------------ tx bytes
def _copy_bytes(op: Op) -> int | None:
    from irc.analysis.races import box_bytes

    if op.name == "bulk_load":
        c = const_int(op.operands[2]) if len(op.operands) > 2 else None
        return c if c is not None and c > 0 else None
    if op.name == "tma_load":
        return box_bytes(getattr(op.operands[1], "type", None)) if len(op.operands) > 1 else None
    return None


def _continues(cfg, b: Block, t: Block) -> bool:  # type: ignore[no-untyped-def]
    """Whether the straight line through `b` goes on in `t`: `t` is entered from `b` alone, or it is the
    join of a predicated instruction's split (`@p op` lifts as head -> op block -> join, head -> join)."""
    ps = cfg.preds.get(t, [])
    if cfg.rpo_index.get(t, -1) <= cfg.rpo_index.get(b, 0):
        return False
    if ps == [b]:
        return True
    return len(ps) == 2 and any(cfg.preds.get(x, []) == [y] for x in ps for y in ps if x is not y)


def _inherited(cfg, b: Block, after: dict) -> dict:  # type: ignore[no-untyped-def]
    """The open announcement/copy groups `b` starts with: its straight-line predecessor's (the op block
    of a split inherits the head's, the join the op block's, which holds the head's too)."""
    ps = cfg.preds.get(b, [])
    if len(ps) == 1 and ps[0] in after and _continues(cfg, ps[0], b):
        return after[ps[0]]
    if len(ps) == 2 and all(p in after for p in ps) and _continues(cfg, ps[0], b):
        inner = next((x for x in ps if cfg.preds.get(x, []) == [y for y in ps if y is not x]), None)
        if inner is not None:
            return after[inner]
    return {}


def check_bulk_tx(ctx: FunctionContext, already: set) -> list[Diagnostic]:
    """Announcement/copy groups whose bytes differ (announcements in `already` were reported by the
    structural tx check)."""
    fn, cfg = ctx.fn, ctx.cfg
    if not fn.is_kernel or fn.attrs.get("cluster"):
        return []
    pr = protocol(fn, cfg)
    if pr.opaque or pr.untraced:
        return []
    ev = Eval(fn, cfg)

    def key(v) -> object:  # type: ignore[no-untyped-def]
        a = ev.value(v, {})
        if isinstance(a, SAddr):
            return ("c", a.sym, a.off)
        return ("v", id(strip(v)))

    groups: list[dict] = []
    in_group: set[int] = set()
    after: dict[Block, dict[object, dict]] = {}
    for b in cfg.rpo:
        cur = _inherited(cfg, b, after)
        for op in b.ops:
            bar = barrier_operand(op)
            if bar is None:
                continue
            sym = shared_root(bar)
            k = key(bar)
            if op.name in WAIT_OPS:
                for kk in list(cur):  # a wait on this barrier (or one that may be it) ends its groups
                    if kk == k or kk[0] == "v" or k[0] == "v":  # type: ignore[index]
                        groups.append(cur.pop(kk))
                continue
            if op.name in ANNOUNCE_OPS or op.name in ("bulk_load", "tma_load"):
                gr = cur.setdefault(k, {"sym": sym, "ann": [], "copies": [], "bad": False})
                if op.name in ANNOUNCE_OPS:
                    gr["ann"].append(op)
                else:
                    if op.attrs.get("multicast"):
                        gr["bad"] = True
                    gr["copies"].append(op)
        after[b] = cur
        if cfg.succs.get(b) and all(_continues(cfg, b, t) for t in cfg.succs[b]):
            continue  # the straight line goes on through a predicated instruction's split
        for gr in cur.values():
            if not any(gr is g for g in groups):
                groups.append(gr)
    by_sym: dict[str, list[dict]] = {}
    for gr in groups:
        if gr["ann"] and gr["copies"]:
            in_group.update(id(c) for c in gr["copies"])
        by_sym.setdefault(gr["sym"], []).append(gr)
    out: list[Diagnostic] = []
    for sym, grs in by_sym.items():
        o = pr.objects.get(sym)
        if (
            o is None
            or any(id(c) not in in_group for c in o.copies)
            or len(o.announces) != sum(len(g["ann"]) for g in grs)
        ):
            continue  # a copy or announcement outside the straight-line groups: the phase is not local
        if any(op.name == "mbarrier_complete_tx" for op in o.others):
            continue
        diffs = []
        for gr in grs:
            if not gr["ann"] or gr["bad"]:
                diffs = []
                break
            ann = [const_int(a.operands[1]) for a in gr["ann"]]
            got = [_copy_bytes(c) for c in gr["copies"]]
            if None in ann or None in got:
                if len(grs) == 1:  # computed byte counts: ask the solver whether they can differ
                    d = _tx_symbolic(ctx, gr, already)
                    if d is not None:
                        out.append(d)
                diffs = []
                break
            diffs.append((gr, sum(ann), sum(got)))  # type: ignore[arg-type]
        if not diffs or sum(a - m for _, a, m in diffs) == 0:
            continue
        for gr, announced, moved in diffs:
            if announced == moved or gr["ann"][0].span in already:
                continue
            out.append(_tx_diag(gr, announced, moved))
    return out


def _tx_symbolic(ctx: FunctionContext, gr: dict, already: set) -> Diagnostic | None:
    """A group whose byte counts are computed (`count * sizeof(float)` for the last, shorter chunk): some
    launch in which the thread issuing it announces one number and copies another."""
    from irc.analysis.symbolic.asyncq import reach_where

    ann, copies = gr["ann"], gr["copies"]
    if ann[0].span in already or ann[0].block is None or any(c.name != "bulk_load" for c in copies):
        return None
    terms: dict[str, list] = {}

    def differ(enc, th):  # type: ignore[no-untyped-def]
        z = enc.z
        a = [enc.value(x.operands[1], th) for x in ann]
        m = [enc.value(c.operands[2], th) for c in copies]
        if any(z.is_bool(t) or t.size() != 32 or not enc.pure(t) for t in a + m):
            return None
        terms["a"], terms["m"] = a, m
        return sum(a[1:], a[0]) != sum(m[1:], m[0])

    res, w, got = reach_where(ctx, ann[0].block, differ, "announces and copies different byte counts at {L}")
    if not res.sat or w is None:
        return None
    model, _enc, _th = got
    z = _enc.z
    announced = model.eval(sum(terms["a"][1:], terms["a"][0]), model_completion=True).as_long()
    moved = model.eval(sum(terms["m"][1:], terms["m"][0]), model_completion=True).as_long()
    w.story = w.story.replace("{L}", w.ref(ann[0].span)) + f" ({announced} announced, {moved} copied)"
    del z
    d = _tx_diag(gr, announced, moved)
    d.witness = witness_json(w)
    return d


def _tx_diag(gr: dict, announced: int, moved: int) -> Diagnostic:
    ann = gr["ann"][0]
    labels = [
        Label(c.span, f"this copy completes {_copy_bytes(c)} bytes on the barrier")
        for c in gr["copies"]
        if c.span
    ]
    if moved > announced:
        why = (
            "the phase can complete while bytes are still landing (readers race with the copy), and the rest "
        )
        why += "completes on the next phase"
    else:
        why = "the phase never completes: the waits on it hang"
    return error(
        TX,
        f"expect_tx announces {announced} bytes but the copies completing on `{gr['sym']}` in this phase move "
        f"{moved} bytes: {why}",
        ann.span,
        labels=labels,
        help="announce exactly the bytes of every copy that completes on this barrier in the phase",
    )


__all__ = ["SIZE", "TX", "WAIT", "check_bulk_size", "check_bulk_tx", "check_bulk_wait"]
