"""The life of an mbarrier object: its initialisation seen by the async proxy (`async-proxy-fence`) and
`mbarrier-reuse`.

- `async-proxy-fence` for inits: `mbarrier.init` is a write through the generic proxy; a bulk or tensor copy
  completes its bytes on the barrier through the async proxy. The initialisation must be made visible to
  it first: `fence.mbarrier_init.release.cluster` (or `fence.proxy.async`) after the init, before the
  copy is issued. A copy in the cluster form (`.shared::cluster` destination, the form CUDA's headers and
  `cuda::ptx` emit) needs the fence whatever else lies between. A copy in the CTA-local form
  (`.shared::cta`, what Triton emits) is accepted after a CTA barrier: Triton initialises single-CTA
  barriers, runs `bar.sync` and issues its copies, and that output must stay clean (docs/analyzer.md).
- `mbarrier-reuse`: the PTX ISA makes it undefined to `mbarrier.init` a memory location that holds a
  valid mbarrier object, or to access it with anything but mbarrier operations, until `mbarrier.inval`
  invalidates it. Reported: an init that a path reaches while the same element is still valid (a barrier
  re-initialised per tile without an inval at the tile's end), and an ordinary store into the bytes of a
  valid barrier (the barrier's memory reused as scratch space). Per-tile init + inval (Triton) is clean.

Both are forward dataflows over the CFG from the kernel entry (may-facts: a fact on any incoming path
counts). Elements are (symbol, constant offset) from `irc.analysis.mbarrier.Eval`; an element the
evaluation cannot name is judged only against the very same address value when that value does not
change inside a loop; a store whose address is not constant is asked of the solver.
"""

from __future__ import annotations

from irc.analysis.checks.common import FunctionContext, witness_json
from irc.analysis.mbarrier import COPY_OPS, Eval, SAddr, barrier_operand, protocol, shared_root, strip
from irc.diagnostics import Diagnostic, Label, error, note
from irc.ir.core import Block, Op

FENCE = "async-proxy-fence"  # mbarrier.init is a generic-proxy write the async proxy must see
REUSE = "mbarrier-reuse"
MAX_STORE_QUERIES = 24
_WRITES = ("store", "store_vec", "atomic", "atomic_cas", "cp_async", "bulk_load", "tma_load")


def _line(op: Op) -> str:
    return f"line {op.span.line}" if op.span is not None else "here"


def _is_fence(op: Op) -> bool:
    return op.name in ("fence_mbarrier_init", "fence_proxy_async") or (
        op.name == "fence" and op.attrs.get("scope") == "proxy_async"
    )


# ------------------------------------------------------------------------------ init fence
def check_init_fence(ctx: FunctionContext) -> list[Diagnostic]:
    fn, cfg = ctx.fn, ctx.cfg
    if not fn.is_kernel:
        return []
    pr = protocol(fn, cfg)
    if pr.opaque or not any(o.copies and o.inits for o in pr.objects.values()):
        return []

    # state: (init op, synced by a CTA barrier since) for inits no fence has followed
    def transfer(b: Block, st: set, report: list | None) -> set:
        for op in b.ops:
            if op.name == "mbarrier_init":
                st.add((op, False))
            elif _is_fence(op) or op.name in ("call", "opaque"):
                st = set()
            elif op.name == "barrier":
                st = {(i, True) for i, _ in st}
            elif op.name in COPY_OPS and report is not None:
                sym = shared_root(op.operands[-1])
                cta = bool(op.attrs.get("cta"))
                for i, synced in st:
                    if shared_root(i.operands[0]) == sym and not (cta and synced):
                        report.append((i, op, synced and not cluster))
        return st

    # a launch with several CTAs per cluster, or multicast copies: other CTAs' complete_tx reach this
    # CTA's barrier, and only fence.mbarrier_init releases its init at cluster scope
    cluster = _cluster_launch(fn) or any(
        c.attrs.get("multicast") for o in pr.objects.values() for c in o.copies
    )

    state_in = cfg.union_fixpoint(transfer)
    found: list[tuple[Op, Op, bool]] = []
    for b in cfg.rpo:
        if b in state_in:
            transfer(b, set(state_in[b]), found)
    out: list[Diagnostic] = []
    seen: set[int] = set()
    for init, copy, soft in sorted(found, key=lambda f: f[2]):  # errors first
        if id(copy) in seen or id(init) in seen:
            continue
        seen.update((id(copy), id(init)))
        out.append(_fence_diag(ctx, init, copy, soft))
    return out


def _cluster_launch(fn) -> bool:  # type: ignore[no-untyped-def]
    c = fn.attrs.get("cluster")
    n = 1
    for x in c if isinstance(c, (list, tuple)) else ():
        if isinstance(x, int) and x > 0:
            n *= x
    return n > 1


def _fence_diag(ctx: FunctionContext, init: Op, copy: Op, soft: bool) -> Diagnostic:
    from irc.analysis.symbolic.queries import reachable_by

    what = "tensor copy" if copy.name == "tma_load" else "bulk copy"
    labels = [Label(init.span, "initialised here (a generic-proxy write)")] if init.span else []
    w = None
    if copy.block is not None:
        res, w = reachable_by(ctx, copy.block)
        if w is not None:
            w.story = (
                f"thread ({w.threads[0][0]}, {w.threads[0][1]}, {w.threads[0][2]}) of {{block}} issues the "
                f"{what} at {w.ref(copy.span)} with no fence after the init at {w.ref(init.span)}"
            )
    msg = (
        f"the {what} completes its bytes on the mbarrier initialised at {_line(init)} with no "
        f"`fence.mbarrier_init` (or `fence.proxy.async`) after the init: the async proxy may not see the "
        f"initialised barrier, and the copy's complete_tx can act on garbage"
    )
    help_ = (
        "after the `mbarrier.init`s, execute `fence.mbarrier_init.release.cluster` (`cuda::ptx::"
        "fence_mbarrier_init`, kdsl `fence_mbarrier_init()`) in the initialising thread, then synchronise"
    )
    if soft:
        # a CTA barrier orders the init before the copy for every thread of this CTA: the PTX ISA still
        # asks for the proxy fence, but CUDA's own libraries (cuda::memcpy_async, its documented examples)
        # and Triton rely on the barrier for CTA-local barriers, so this is a note, not an error
        return note(
            FENCE,
            msg + " (a CTA barrier orders the init for this CTA's threads, which CUDA's own libraries rely "
            "on; the PTX memory model asks for the fence)",
            copy.span,
            labels=labels,
            help=help_,
            witness=witness_json(w),
        )
    return error(FENCE, msg, copy.span, labels=labels, help=help_, witness=witness_json(w))


# ------------------------------------------------------------------------------ mbarrier-reuse
def check_reuse(ctx: FunctionContext) -> list[Diagnostic]:
    fn, cfg = ctx.fn, ctx.cfg
    if not fn.is_kernel:
        return []
    pr = protocol(fn, cfg)
    if pr.opaque or not any(o.inits for o in pr.objects.values()):
        return []
    ev = Eval(fn, cfg)
    syms = {s for s, o in pr.objects.items() if o.inits}

    def element(op: Op) -> tuple | None:
        bar = barrier_operand(op)
        if bar is None:
            return None
        a = ev.value(bar, {})
        if isinstance(a, SAddr):
            return (a.sym, a.off)
        sym = shared_root(bar)
        return (sym, None, id(strip(bar))) if sym is not None else None

    def varies(op: Op) -> bool:
        bar = barrier_operand(op)
        assert bar is not None and op.block is not None
        return any(ev.varies(bar, lp) for lp in cfg.loops_containing(op.block))

    # state: element -> (init op, valid?); an element absent was never initialised on the path. At a
    # merge an explicit `mbarrier.inval` on one incoming path wins over "valid" on another: per-tile
    # `if (tid == 0) inval` leaves the other threads' path without the inval, and the barrier object is
    # the CTA's, not the thread's (silence, never a guess, when paths disagree)
    def transfer(b: Block, st: dict, report: list | None) -> dict:
        st = dict(st)
        for op in b.ops:
            n = op.name
            if n == "mbarrier_init":
                e = element(op)
                if e is None:
                    continue
                if report is not None:
                    for e2, (i2, valid) in st.items():
                        if valid and _same(e, e2) and (e[1] is not None or not varies(op)):
                            report.append(("init", op, i2))
                            break
                st = {e2: v for e2, v in st.items() if not _same(e, e2)}
                st[e] = (op, True)
            elif n == "mbarrier_inval":
                e = element(op)
                for e2, (i2, _v) in list(st.items()):
                    if e is None or e[1] is None or e2[1] is None:
                        if e is None or e2[0] == e[0]:
                            st[e2] = (i2, False)
                    elif _same(e, e2):
                        st[e2] = (i2, False)
            elif n in ("call", "opaque"):
                st = {e2: (i2, False) for e2, (i2, _v) in st.items()}
            elif n in _WRITES and report is not None and op.operands and shared_root(op.operands[0]) in syms:
                for e2, (i2, valid) in st.items():
                    if valid and e2[1] is not None and e2[0] == shared_root(op.operands[0]):
                        report.append(("store", op, i2, e2))
        return st

    state_in: dict[Block, dict] = {cfg.entry: {}}
    changed = True
    rounds = 0
    while changed and rounds < 60:
        changed = False
        rounds += 1
        for b in cfg.rpo:
            if b not in state_in:
                continue
            out_st = transfer(b, state_in[b], None)
            for s in cfg.succs.get(b, []):
                old = state_in.get(s)
                merged = dict(old or {})
                for e2, (i2, v) in out_st.items():
                    cur = merged.get(e2)
                    merged[e2] = (i2, v) if cur is None else (cur[0], cur[1] and v)
                if old is None or merged != old:
                    state_in[s] = merged
                    changed = True
    found: list[tuple] = []
    for b in cfg.rpo:
        if b in state_in:
            transfer(b, state_in[b], found)
    out: list[Diagnostic] = []
    seen: set[int] = set()
    budget = MAX_STORE_QUERIES
    for f in found:
        op = f[1]
        if id(op) in seen:
            continue
        if f[0] == "init":
            seen.add(id(op))
            out.append(_reinit_diag(ctx, op, f[2]))
            continue
        if budget <= 0:
            break
        budget -= 1
        d = _store_diag(ctx, ev, op, f[2], f[3])
        if d is not None:
            seen.add(id(op))
            out.append(d)
    return out


def _same(a: tuple, b: tuple) -> bool:
    """Whether two elements are provably the same barrier: equal constant offsets, or the same address
    value of an element the evaluation cannot name."""
    if a[0] != b[0]:
        return False
    if a[1] is not None and b[1] is not None:
        return bool(a[1] == b[1])
    return a[1] is None and b[1] is None and a[2] == b[2]


def _reinit_diag(ctx: FunctionContext, init: Op, prev: Op) -> Diagnostic:
    from irc.analysis.symbolic.queries import reachable_by

    w = None
    if init.block is not None:
        res, w = reachable_by(ctx, init.block)
        if w is not None:
            again = " again" if prev is init else ""
            w.story = (
                f"thread ({w.threads[0][0]}, {w.threads[0][1]}, {w.threads[0][2]}) of {{block}} initialises "
                f"the barrier{again} at {w.ref(init.span)} while the object initialised at {w.ref(prev.span)} "
                f"is still valid"
            )
    labels = (
        [Label(prev.span, "initialised here, and no `mbarrier.inval` on the path since")] if prev.span else []
    )
    return error(
        REUSE,
        "`mbarrier.init` on a barrier that is still valid (initialised at "
        f"{_line(prev)} and never invalidated on the way here): re-initialising a valid mbarrier object is "
        "undefined behaviour",
        init.span,
        labels=labels,
        help="invalidate the barrier with `mbarrier.inval` (after every thread is done with it: a CTA barrier "
        "first) before initialising it again, or initialise it once and flip the wait parity per use",
        witness=witness_json(w),
    )


def _store_diag(ctx: FunctionContext, ev: Eval, st: Op, init: Op, elem: tuple) -> Diagnostic | None:
    """A store into the 8 bytes of a valid barrier element: constant addresses directly, others asked of
    the solver (some thread of some launch writes one of those bytes)."""
    from irc.analysis.symbolic.asyncq import reach_where, region

    ptr, off, size = region(st)
    a = ev.value(ptr, {})
    sym, boff = elem[0], elem[1]
    if isinstance(a, SAddr):
        lo = a.off + off
        if not (lo < boff + 8 and boff < lo + size):
            return None
    if st.block is None:
        return None

    def hits(enc, th):  # type: ignore[no-untyped-def]
        z = enc.z
        x = enc.value(ptr, th)
        if z.is_bool(x) or not enc.pure(x):
            return None
        x = z.ZeroExt(64 - x.size(), x) if x.size() < 64 else x
        x = x + z.BitVecVal(off, 64)
        base = enc.shared_bases().get(sym)
        if base is None:
            return None
        b = z.BitVecVal(base + boff, 64)
        return z.And(z.ULT(x, b + 8), z.ULT(b, x + z.BitVecVal(size, 64)))

    res, w, _ = reach_where(ctx, st.block, hits, "writes a byte of the barrier at {L}")
    if not res.sat or w is None:
        return None
    w.story = w.story.replace("{L}", w.ref(st.span))
    labels = [Label(init.span, "the barrier is initialised here and never invalidated")] if init.span else []
    return error(
        REUSE,
        f"this store writes the memory of the mbarrier initialised at {_line(init)} while it is still valid: "
        f"reusing a valid mbarrier's memory for anything but mbarrier operations is undefined behaviour",
        st.span,
        labels=labels,
        help="invalidate the barrier with `mbarrier.inval` (after a CTA barrier, once no thread uses it) before "
        "reusing its memory",
        witness=witness_json(w),
    )


__all__ = ["FENCE", "REUSE", "check_init_fence", "check_reuse"]
