"""`tma-misaligned` and `mbarrier-tx-mismatch` (spec section 8), behind the common check interface.

Both checks are about facts the hardware enforces silently or by hanging: a TMA copy into shared memory
that is not 128-byte aligned faults (or corrupts data), a tensormap box outside the TMA limits makes the
descriptor unusable, and an `expect_tx` byte count that differs from the bytes the copies actually deliver
leaves the mbarrier phase incomplete forever (too many announced) or completes it early (too few): a hang
or a race that no test catches reliably. Every rule here reports only what is *provable* from the IR;
whenever the structure is outside what is modelled (dynamic barrier index, loads in a loop relative to the
announcement, path-dependent byte totals, calls or opaque instructions that might signal a barrier) the
check stays silent, because a false positive on a correct pipeline is worse than a missed bug.

The facts (`int_divisors`, `pointer_origin`, `barrier_key`, `box_problems`) are in
`irc.analysis.tma_facts`; dominance comes from the shared CFG (`irc.analysis.cfg.CFG`).
"""

from __future__ import annotations

from collections import Counter

from irc.analysis.cfg import CFG
from irc.analysis.checks.common import FunctionContext
from irc.analysis.tma_facts import (
    ANNOUNCE_OPS,
    CHECK_ALIGN,
    CHECK_TX,
    PASS_THROUGH,
    TMA_ALIGN,
    TMA_INNER_BYTES,
    TMA_MAX_BOX,
    TMA_MAX_DIMS,
    WAIT_OPS,
    BarrierKey,
    Divisor,
    barrier_key,
    box_problems,
    const_int,
    int_divisors,
    pointer_origin,
    shared_decl,
)
from irc.diagnostics import Diagnostic, Label, Span, error
from irc.ir.core import Block, BlockArg, Function, Op, OpResult, Value
from irc.ir.types import ArrayType, TensorMapType, size_of

# ---------------------------------------------------------------------------------------------------
# Check 1: tma-misaligned
# ---------------------------------------------------------------------------------------------------


def _tma_map(op: Op) -> Value | None:
    if op.name == "tma_load" and len(op.operands) >= 2:
        return op.operands[1]
    if op.name in ("tma_store", "tma_prefetch") and op.operands:
        return op.operands[0]
    return None


BULK_ALIGN = 16  # cp.async.bulk (non-tensor): both addresses and the size are multiples of 16 bytes


def _tma_smem(op: Op) -> tuple[Value, str, int, str] | None:
    """The shared-memory operand that must be aligned, its role in the message, the alignment the
    hardware needs and the copy's name: 128 bytes for tensor copies, 16 for plain bulk copies."""
    if op.name == "tma_load" and op.operands:
        return op.operands[0], "destination", TMA_ALIGN, "TMA"
    if op.name == "tma_store" and op.operands:
        return op.operands[-1], "source", TMA_ALIGN, "TMA"
    if op.name == "bulk_load" and op.operands:
        return op.operands[0], "destination", BULK_ALIGN, "bulk copy"
    if op.name == "bulk_store" and len(op.operands) > 1:
        return op.operands[1], "source", BULK_ALIGN, "bulk copy"
    return None


def _align_findings(fn: Function, divs: dict[Value, Divisor]) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    for op in fn.ops():
        target = _tma_smem(op)
        if target is None:
            continue
        ptr, role, need, kind = target
        origin = pointer_origin(fn, ptr, divs)
        if origin is None:
            continue
        decl = origin.decl
        labels = (
            [Label(decl.span, f"`{decl.name}` is declared here with align {decl.align}")] if decl.span else []
        )
        if decl.align < need and getattr(decl, "dynamic", False):
            continue  # a dynamic array declared with less: where its base lands depends on the launch
        if decl.align < need:
            msg = (
                f"the {kind} {role} `{decl.name}` is only {decl.align}-byte aligned "
                f"(declared with align {decl.align}); the {kind} needs {need}-byte aligned shared memory"
            )
            help_ = f"declare it with `align {need}`"
        else:
            d = origin.off_div
            if not d.provable or d.div >= need:
                continue
            if origin.offset is not None:
                what = f"at byte offset {origin.offset}"
            else:
                what = f"at a byte offset that is only known to be a multiple of {d.div}"
            msg = (
                f"the {kind} {role} is `{decl.name}` (align {decl.align}) {what}, so it is only "
                f"{min(d.div, decl.align)}-byte aligned; the {kind} needs {need}-byte aligned shared memory"
            )
            help_ = (
                f"declare it with `align {need}` and keep offsets into it multiples of {need} bytes "
                "(pad rows or stages)"
            )
        out.append(error(CHECK_ALIGN, msg, op.span or decl.span, labels=labels, help=help_))
    return out


def _trace_value(v: Value) -> Value:
    steps = 0
    while isinstance(v, OpResult) and v.op.name in PASS_THROUGH and steps < 64:
        v = v.op.operands[0]
        steps += 1
    return v


def _param_span(fn: Function, v: Value) -> Span | None:
    """Span of a kernel parameter, if the front end recorded one (`fn.param_spans`, optional)."""
    spans = getattr(fn, "param_spans", None)
    if isinstance(v, BlockArg) and v.block is fn.entry and spans and v.index < len(spans):
        return spans[v.index]
    return None


def _box_findings(fn: Function) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    seen: set[int] = set()
    for op in fn.ops():
        m = _tma_map(op)
        if m is None:
            continue
        m = _trace_value(m)
        if id(m) in seen or not isinstance(m.type, TensorMapType):
            continue
        seen.add(id(m))
        problems = box_problems(m.type)
        if not problems:
            continue
        name = f"`{m.name}` " if m.name else ""
        pspan = _param_span(fn, m)
        labels = [Label(pspan, f"declared here as `{m.type}`")] if pspan else []
        msg = f"tensormap {name}has a box that breaks the TMA limits: " + "; ".join(problems)
        out.append(
            error(
                CHECK_ALIGN,
                msg,
                op.span or pspan,
                labels=labels,
                help=f"box extents must be 1..{TMA_MAX_BOX}, at most {TMA_MAX_DIMS} dimensions, and the "
                f"innermost extent × element size a multiple of {TMA_INNER_BYTES} bytes",
            )
        )
    return out


# ---------------------------------------------------------------------------------------------------
# Check 2: mbarrier-tx-mismatch
# ---------------------------------------------------------------------------------------------------


def _barrier_label(fn: Function, k: BarrierKey) -> str:
    decl = shared_decl(fn, k.sym)
    if k.offset == 0 and (decl is None or not isinstance(decl.type, ArrayType)):
        return k.sym
    if decl is not None and isinstance(decl.type, ArrayType) and k.offset is not None:
        es = size_of(decl.type.elem)
        if es and k.offset % es == 0:
            return f"{k.sym}[{k.offset // es}]"
    return f"{k.sym}+{k.offset}"


def _load_bytes(op: Op) -> tuple[int, TensorMapType] | None:
    m = _tma_map(op)
    if m is None or not isinstance(m.type, TensorMapType) or not m.type.box:
        return None  # no box: a descriptor lifted from PTX (built by the host), bytes unknown
    try:
        n = size_of(m.type.elem)
    except TypeError:
        return None
    for e in m.type.box:
        n *= e
    return n, m.type


def _signals_barriers(op: Op) -> bool:
    """Ops we cannot see into that might announce or complete transactions on some mbarrier."""
    if op.name == "call":
        return True
    if op.name == "opaque":
        text = str(op.attrs.get("text", ""))
        return any(w in text for w in ("mbarrier", "cp.async.bulk", "complete_tx"))
    return False


class _TxAnalysis:
    """Per-function state of the tx check: barrier identities of the relevant ops, the dominator tree, and
    the set of barriers whose structure is too dynamic to judge."""

    def __init__(self, fn: Function, divs: dict[Value, Divisor], cfg: CFG):
        self.fn = fn
        self.keys: dict[int, BarrierKey | None] = {}
        for op in fn.ops():
            bar = self._bar_operand(op)
            if bar is not None:
                self.keys[id(op)] = barrier_key(fn, bar, divs)
        self.cfg = cfg

    @staticmethod
    def _bar_operand(op: Op) -> Value | None:
        if op.name == "tma_load" and op.operands:
            return op.operands[-1]
        if op.name in ANNOUNCE_OPS or op.name in WAIT_OPS or op.name in ("mbarrier_init", "mbarrier_inval"):
            return op.operands[0] if op.operands else None
        return None

    def dominates(self, a: Block, b: Block) -> bool:
        """Dominance on the shared CFG; an unreachable block is dominated by nothing."""
        return self.cfg.is_reachable(b) and self.cfg.dominates(a, b)

    def may_alias(self, op: Op, k: BarrierKey) -> bool:
        """True when `op`'s barrier is `k` or might be (dynamic index into the same symbol, untraceable)."""
        ok = self.keys.get(id(op))
        if ok is None:
            return True
        if ok.sym != k.sym:
            return False
        return ok.offset is None or k.offset is None or ok.offset == k.offset

    def is_exactly(self, op: Op, k: BarrierKey) -> bool:
        ok = self.keys.get(id(op))
        return ok is not None and ok == k and k.offset is not None

    def phase_totals(self, ann: Op, k: BarrierKey) -> tuple[set[int], list[Op], list[Op]] | None:
        """Walk from the announcement to the end of its phase region: the rest of its block, then blocks
        it dominates, stopping at a wait on `k` and at blocks it does not dominate. Returns the possible
        byte totals over the paths, the loads seen and the extra announcements seen; None when the region
        holds something we do not model (a loop, an aliasing op, a re-init, unknown bytes)."""
        start = ann.block
        assert start is not None
        loads: list[Op] = []
        extra: list[Op] = []
        memo: dict[int, set[int] | None] = {}
        exits: list[Block] = []
        on_stack: set[int] = set()

        def scan(ops: list[Op], base: set[int]) -> tuple[set[int], bool] | None:
            """Apply `ops` to the set of totals; returns (totals, phase ended here) or None to give up."""
            totals = set(base)
            for op in ops:
                n = op.name
                if _signals_barriers(op):
                    return None
                if n == "tma_load":
                    if op.attrs.get("multicast") is not None or op.attrs.get("cta_mask") is not None:
                        return None
                    if self.is_exactly(op, k):
                        lb = _load_bytes(op)
                        if lb is None:
                            return None
                        loads.append(op)
                        totals = {t + lb[0] for t in totals}
                    elif self.may_alias(op, k):
                        return None
                elif n in ANNOUNCE_OPS:
                    if self.is_exactly(op, k):
                        if op.block is not start:
                            return None
                        extra.append(op)
                    elif self.may_alias(op, k):
                        return None
                elif n in WAIT_OPS:
                    if self.is_exactly(op, k):
                        return totals, True
                    if self.may_alias(op, k):
                        return None
                elif n in ("mbarrier_init", "mbarrier_inval") and self.may_alias(op, k):
                    return None
                if len(totals) > 64:
                    return None
            return totals, False

        def from_block(b: Block) -> set[int] | None:
            """Totals added from the start of `b` (entered from inside the region) to every region exit."""
            if id(b) in memo:
                return memo[id(b)]
            if id(b) in on_stack:
                raise _Give()  # a cycle inside the region: loads would repeat per announcement
            on_stack.add(id(b))
            r = scan(b.ops, {0})
            res: set[int] | None
            if r is None:
                res = None
            else:
                totals, ended = r
                res = totals if ended else after(b, totals)
            on_stack.discard(id(b))
            memo[id(b)] = res
            return res

        def after(b: Block, totals: set[int]) -> set[int] | None:
            succs = b.successors
            # An edge back to the announcement's block or to a block it does not dominate leaves the
            # region: that path adds nothing more here, and any load beyond it is not claimed by this
            # announcement (the caller then treats the barrier as unjudgeable). `ret` also ends a path.
            inside = [s for s in succs if s is not start and self.dominates(start, s)]
            exits.extend(x for x in succs if not any(x is i for i in inside))
            out: set[int] = set(totals) if len(inside) < len(succs) or not succs else set()
            for s in inside:
                sub = from_block(s)
                if sub is None:
                    return None
                out |= {t + x for t in totals for x in sub}
                if len(out) > 64:
                    return None
            return out

        try:
            idx = start.ops.index(ann)
            r = scan(start.ops[idx + 1 :], {0})
            if r is None:
                return None
            totals, ended = r
            if not ended:
                res = after(start, totals)
                if res is None:
                    return None
                totals = res
        except _Give:
            return None
        if not self.tail_is_quiet(ann, k, exits) or not self.head_is_quiet(ann, k):
            return None
        return totals, loads, extra

    def head_is_quiet(self, ann: Op, k: BarrierKey) -> bool:
        """Walking backwards from the announcement to the previous wait on `k` (or its init, or the kernel
        entry), no other copy or announcement on `k` may appear: those would belong to the same phase, and
        the phase total is then not this announcement's alone."""
        start = ann.block
        assert start is not None
        preds: dict[int, list[Block]] = {}
        for b in self.fn.blocks:
            for succ in b.successors:
                preds.setdefault(id(succ), []).append(b)
        seen: set[int] = set()
        work: list[tuple[Block, list[Op]]] = [(start, start.ops[: start.ops.index(ann)])]
        while work:
            b, ops = work.pop()
            ended = False
            for op in reversed(ops):
                n = op.name
                if n in ("tma_load", *ANNOUNCE_OPS) and op is not ann and self.may_alias(op, k):
                    return False
                if n in WAIT_OPS or n == "mbarrier_init":
                    if self.is_exactly(op, k):
                        ended = True
                        break
                    if self.may_alias(op, k):
                        return False
                if n == "mbarrier_inval" and self.may_alias(op, k):
                    return False
            if ended:
                continue
            for p in preds.get(id(b), []):
                if id(p) not in seen:
                    seen.add(id(p))
                    work.append((p, p.ops))
        return True

    def tail_is_quiet(self, ann: Op, k: BarrierKey, exits: list[Block]) -> bool:
        """Paths that leave the region before a wait on `k` may still be in the same phase: they must not
        announce or issue copies on `k` before its wait (else another announcement shares this phase and
        the per-announcement comparison would be wrong). Re-entering the announcement's block stops at it."""
        start = ann.block
        seen: set[int] = set()
        work = list(exits)
        while work:
            b = work.pop()
            if id(b) in seen:
                continue
            seen.add(id(b))
            ops = b.ops[: b.ops.index(ann)] if b is start else b.ops
            ended = False
            for op in ops:
                n = op.name
                if n in ("tma_load", *ANNOUNCE_OPS, "mbarrier_init", "mbarrier_inval") and self.may_alias(
                    op, k
                ):
                    return False
                if n in WAIT_OPS:
                    if self.is_exactly(op, k):
                        ended = True
                        break
                    if self.may_alias(op, k):
                        return False
            if not ended and b is not start:
                work.extend(b.successors)
        return True


class _Give(Exception):
    """Internal: the region has a shape the tx check does not model."""


def _cluster_size(fn: Function) -> int:
    c = fn.attrs.get("cluster")
    n = 1
    if isinstance(c, list):
        for x in c:
            if isinstance(x, int) and x > 0:
                n *= x
    return n


def _tx_findings(fn: Function, divs: dict[Value, Divisor], cfg: CFG) -> list[Diagnostic]:
    # Clusters: multicast copies issued by another CTA complete bytes on this CTA's barrier, so the loads
    # of a phase need not appear on this CTA's path. Calls / opaque PTX may do TMA we cannot see.
    if _cluster_size(fn) > 1 or any(_signals_barriers(op) for op in fn.ops()):
        return []
    ta = _TxAnalysis(fn, divs, cfg)
    announcements = [op for op in fn.ops() if op.name in ANNOUNCE_OPS]
    loads = [op for op in fn.ops() if op.name == "tma_load"]
    results: dict[int, tuple[Op, BarrierKey, set[int], list[Op], list[Op]]] = {}
    unsafe: set[str] = set()
    for ann in announcements:
        k = ta.keys.get(id(ann))
        if k is None:
            unsafe.add("*")
            continue
        if k.offset is None:
            unsafe.add(k.sym)
            continue
        r = ta.phase_totals(ann, k)
        if r is None:
            unsafe.add(k.sym)
            continue
        results[id(ann)] = (ann, k, *r)
    if "*" in unsafe:
        return []
    claimed: set[int] = set()
    nested: set[int] = set()
    for _ann, _k, _t, lds, extra in results.values():
        claimed.update(id(x) for x in lds)
        nested.update(id(x) for x in extra)
    for ld in loads:
        k = ta.keys.get(id(ld))
        if k is None:
            return []
        if k.offset is None or id(ld) not in claimed:
            unsafe.add(k.sym)
    out: list[Diagnostic] = []
    for ann, k, totals, lds, extra in results.values():
        if k.sym in unsafe or id(ann) in nested or len(totals) != 1 or not lds:
            continue
        announced = 0
        for a in [ann, *extra]:
            c = const_int(a.operands[1]) if len(a.operands) > 1 else None
            if c is None:
                announced = -1
                break
            announced += c
        if announced < 0:
            continue
        moved = next(iter(totals))
        if moved == announced:
            continue
        out.append(_tx_diag(fn, ann, k, announced, moved, lds))
    return out


def _tx_diag(fn: Function, ann: Op, k: BarrierKey, announced: int, moved: int, lds: list[Op]) -> Diagnostic:
    name = _barrier_label(fn, k)
    by_type: Counter[str] = Counter()
    labels: list[Label] = []
    seen: set[int] = set()
    for ld in lds:
        lb = _load_bytes(ld)
        if lb is None:
            continue
        by_type[str(lb[1])] += 1
        if ld.span is not None and id(ld) not in seen:
            seen.add(id(ld))
            labels.append(Label(ld.span, f"this copy completes {lb[0]} bytes on `{name}`"))
    parts = " + ".join(f"{n} × {t}" for t, n in by_type.items())
    msg = (
        f"expect_tx announces {announced} bytes but the TMA loads completing on `{name}` move "
        f"{moved} bytes ({parts})"
    )
    if moved < announced:
        notes = ["the phase never completes: waits on it hang"]
    else:
        notes = ["the phase can complete before all the copies have landed: readers race with the copies"]
    return error(
        CHECK_TX,
        msg,
        ann.span,
        labels=labels,
        help="announce the sum of the box sizes of every copy that signals this barrier in the phase",
        notes=notes,
    )


# ---------------------------------------------------------------------------------------------------
# Entry point
# ---------------------------------------------------------------------------------------------------


def check_tma(fn: Function, arch: str, cfg: CFG | None = None) -> list[Diagnostic]:
    """Run `tma-misaligned` and `mbarrier-tx-mismatch` on one function (both from one computation of the
    facts). `arch` is accepted for symmetry with the other checks; the TMA rules are the same on every
    target that has TMA (and on targets without it the ops are already `unsupported-target` errors, but a
    misaligned copy is still worth reporting)."""
    del arch
    if not any(op.name.startswith(("tma_", "mbarrier_", "bulk_")) for op in fn.ops()):
        return []
    divs = int_divisors(fn)
    out = _align_findings(fn, divs) + _box_findings(fn) + _tx_findings(fn, divs, cfg or CFG(fn))
    out.sort(key=lambda d: d.sort_key())
    return out


def _both(ctx: FunctionContext) -> list[Diagnostic]:
    hit = ctx.cache.get("tma")
    if hit is None:
        hit = ctx.cache["tma"] = check_tma(ctx.fn, ctx.arch, ctx.cfg if ctx.fn.blocks else None)
    return hit  # type: ignore[return-value]


def check_tma_misaligned(ctx: FunctionContext) -> list[Diagnostic]:
    """`tma-misaligned` through the common check interface."""
    return [d for d in _both(ctx) if d.check == CHECK_ALIGN]


def check_mbarrier_tx(ctx: FunctionContext) -> list[Diagnostic]:
    """`mbarrier-tx-mismatch` through the common check interface."""
    return [d for d in _both(ctx) if d.check == CHECK_TX]
