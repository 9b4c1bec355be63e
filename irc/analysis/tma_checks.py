"""TMA checks: `tma-misaligned` and `mbarrier-tx-mismatch` (spec section 8).

Both checks are about facts the hardware enforces silently or by hanging: a TMA copy into shared memory
that is not 128-byte aligned faults (or corrupts data), a tensormap box outside the TMA limits makes the
descriptor unusable, and an `expect_tx` byte count that differs from the bytes the copies actually deliver
leaves the mbarrier phase incomplete forever (too many announced) or completes it early (too few): a hang
or a race that no test catches reliably. Every rule here reports only what is *provable* from the IR;
whenever the structure is outside what is modelled (dynamic barrier index, loads in a loop relative to the
announcement, path-dependent byte totals, calls or opaque instructions that might signal a barrier) the
check stays silent, because a false positive on a correct pipeline is worse than a missed bug.

Layout: small analyses that return facts (`int_divisors`, `pointer_origin`, `barrier_key`) and the checks
that turn facts into diagnostics (`check_tma`, the public entry point).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import networkx as nx

from irc.diagnostics import Diagnostic, Label, Span, error
from irc.ir.core import Block, BlockArg, Function, Op, OpResult, SharedDecl, Value
from irc.ir.types import ArrayType, ScalarType, TensorMapType, size_of

TMA_ALIGN = 128  # bytes: PTX ISA, cp.async.bulk.tensor shared::cluster operand alignment
TMA_MAX_DIMS = 5
TMA_MAX_BOX = 256
TMA_INNER_BYTES = 16  # the innermost box extent times the element size must be a multiple of this

CHECK_ALIGN = "tma-misaligned"
CHECK_TX = "mbarrier-tx-mismatch"

# "a multiple of every power of two" (the value 0): larger than any alignment we compare with.
_ZERO_DIV = 1 << 62

_ANNOUNCE = ("mbarrier_arrive_expect_tx", "mbarrier_expect_tx")
_WAITS = ("mbarrier_wait", "mbarrier_try_wait", "mbarrier_test_wait")
_PASS_THROUGH = ("copy", "bitcast")


# ---------------------------------------------------------------------------------------------------
# Facts: power-of-two divisors of integer values
# ---------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Divisor:
    """`value` is always a multiple of `div` (a power of two). `provable` is False when the divisor only
    reflects that nothing is known (an opaque leaf such as a load or `tid.x`): such a fact must never be
    the reason for a finding, since the real values may all be well aligned."""

    div: int
    provable: bool


_TOP = Divisor(_ZERO_DIV, True)  # optimistic start for block arguments (fixpoint iteration)
_OPAQUE = Divisor(1, False)


def _lowbit(c: int) -> int:
    return _ZERO_DIV if c == 0 else min(c & -c, _ZERO_DIV)


def _meet(a: Divisor, b: Divisor) -> Divisor:
    """Join of two possible values (block arguments, select, add): the weaker divisor."""
    return Divisor(min(a.div, b.div), a.provable and b.provable)


def int_divisors(fn: Function) -> dict[Value, Divisor]:
    """Power-of-two divisors of every integer value of `fn`, by an optimistic fixpoint over the SSA graph
    (block arguments start at "multiple of everything" and only descend), so loop induction variables such
    as `i = phi(0, i + 128)` get 128. Values not in the map are opaque."""
    facts: dict[Value, Divisor] = {}
    for b in fn.blocks:
        if b is not fn.entry:
            for a in b.args:
                facts[a] = _TOP
    incoming: dict[BlockArg, list[Value]] = {}
    for b in fn.blocks:
        t = b.terminator
        if t is None:
            continue
        for succ, args in zip(t.successors, t.succ_args):
            for a, v in zip(succ.args, args):
                incoming.setdefault(a, []).append(v)

    def get(v: Value) -> Divisor:
        return facts.get(v, _OPAQUE)

    def eval_op(op: Op) -> Divisor | None:
        n = op.name
        ops = op.operands
        if n == "const":
            val = op.attrs.get("value")
            if isinstance(val, bool) or not isinstance(val, int):
                return None
            return Divisor(_lowbit(val), True)
        if n in _PASS_THROUGH or n == "neg" or (n == "cvt" and _is_int_cvt(op)):
            return get(ops[0])
        if n in ("mul", "mulwide"):
            a, b = get(ops[0]), get(ops[1])
            return Divisor(min(a.div * b.div, _ZERO_DIV), a.provable or b.provable)
        if n in ("shl", "shlw"):
            a, k = get(ops[0]), _const_int(ops[1])
            if k is None or k < 0:
                return None
            return Divisor(min(a.div << k, _ZERO_DIV), True)
        if n in ("add", "sub", "or", "xor"):
            return _meet(get(ops[0]), get(ops[1]))
        if n == "and":
            a, b = get(ops[0]), get(ops[1])
            best = a if a.div >= b.div else b
            return best if best.provable else _OPAQUE
        if n == "select":
            return _meet(get(ops[1]), get(ops[2]))
        return None

    changed = True
    rounds = 0
    while changed and rounds < 200:  # the lattice has ~63 levels per value; the cap is a safety net
        changed = False
        rounds += 1
        for b in fn.blocks:
            for a in b.args:
                if a not in facts:
                    continue
                vals = incoming.get(a, [])
                new = _TOP
                for v in vals:
                    new = _meet(new, get(v))
                if not vals:
                    new = _OPAQUE
                if new != facts[a]:
                    facts[a] = new
                    changed = True
            for op in b.ops:
                if len(op.results) != 1 or not _is_intlike(op.result.type):
                    continue
                new = eval_op(op)
                if new is None:
                    continue
                if facts.get(op.result) != new:
                    facts[op.result] = new
                    changed = True
    return {v: d for v, d in facts.items() if _is_intlike(v.type)}


def _is_intlike(t: object) -> bool:
    return isinstance(t, ScalarType) and t.is_int


def _is_int_cvt(op: Op) -> bool:
    return (
        bool(op.operands and len(op.results) == 1)
        and _is_intlike(op.operands[0].type)
        and _is_intlike(op.result.type)
    )


def _const_int(v: Value, depth: int = 0) -> int | None:
    """The constant integer `v` holds, folding copies, integer conversions and simple arithmetic on
    constants (the front end need not have folded `&bars[1]` = `ptradd(base, 1 * 8)` before the analyzer
    runs). The result wraps to the value's type like the hardware would."""
    if not isinstance(v, OpResult) or depth > 32:
        return None
    op = v.op
    n = op.name
    val: int | None
    if n == "const":
        c = op.attrs.get("value")
        val = c if isinstance(c, int) and not isinstance(c, bool) else None
    elif n in _PASS_THROUGH or (n == "cvt" and _is_int_cvt(op)):
        val = _const_int(op.operands[0], depth + 1)
    elif n in _FOLD and len(op.operands) == 2:
        a = _const_int(op.operands[0], depth + 1)
        b = _const_int(op.operands[1], depth + 1) if a is not None else None
        if a is None or b is None or (n in ("shl", "shlw") and not 0 <= b < 64):
            return None
        val = _FOLD[n](a, b)
    else:
        return None
    if val is None or not _is_intlike(v.type):
        return val
    bits = v.type.bits  # type: ignore[attr-defined]
    val &= (1 << bits) - 1
    if v.type.is_signed and val >= 1 << (bits - 1):  # type: ignore[attr-defined]
        val -= 1 << bits
    return val


_FOLD = {
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "mul": lambda a, b: a * b,
    "mulwide": lambda a, b: a * b,
    "shl": lambda a, b: a << b,
    "shlw": lambda a, b: a << b,
}


# ---------------------------------------------------------------------------------------------------
# Facts: where a shared pointer points
# ---------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PointerOrigin:
    """A shared pointer = `&decl` + offset, with `offset` the exact byte offset when constant (else None)
    and `off_div` what is known about the offset's power-of-two divisor."""

    decl: SharedDecl
    offset: int | None
    off_div: Divisor


def pointer_origin(fn: Function, v: Value, divs: dict[Value, Divisor]) -> PointerOrigin | None:
    """Follow `v` back through `ptradd`, `copy` and `bitcast` to a `shared_addr`; None when the chain
    leaves that shape (block arguments, loads, unknown symbols)."""
    offset: int | None = 0
    off_div = _TOP
    steps = 0
    while isinstance(v, OpResult) and steps < 256:
        steps += 1
        op = v.op
        if op.name == "shared_addr":
            decl = _decl(fn, op.attrs.get("sym"))
            if decl is None:
                return None
            return PointerOrigin(decl, offset, off_div)
        if op.name in _PASS_THROUGH:
            v = op.operands[0]
            continue
        if op.name == "ptradd":
            off = op.operands[1]
            c = _const_int(off)
            if c is not None:
                offset = None if offset is None else offset + c
                off_div = _meet(off_div, Divisor(_lowbit(c), True))
            else:
                offset = None
                off_div = _meet(off_div, divs.get(off, _OPAQUE))
            v = op.operands[0]
            continue
        return None
    return None


def _decl(fn: Function, sym: object) -> SharedDecl | None:
    for s in fn.shared:
        if s.name == sym:
            return s
    return None


# ---------------------------------------------------------------------------------------------------
# Check 1: tma-misaligned
# ---------------------------------------------------------------------------------------------------


def _tma_map(op: Op) -> Value | None:
    if op.name == "tma_load" and len(op.operands) >= 2:
        return op.operands[1]
    if op.name in ("tma_store", "tma_prefetch") and op.operands:
        return op.operands[0]
    return None


def _tma_smem(op: Op) -> tuple[Value, str] | None:
    """The shared-memory operand that must be 128-byte aligned and its role in the message."""
    if op.name == "tma_load" and op.operands:
        return op.operands[0], "destination"
    if op.name == "tma_store" and op.operands:
        return op.operands[-1], "source"
    return None


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _align_findings(fn: Function, divs: dict[Value, Divisor]) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    for op in fn.ops():
        target = _tma_smem(op)
        if target is None:
            continue
        ptr, role = target
        origin = pointer_origin(fn, ptr, divs)
        if origin is None:
            continue
        decl = origin.decl
        labels = (
            [Label(decl.span, f"`{decl.name}` is declared here with align {decl.align}")] if decl.span else []
        )
        if decl.align < TMA_ALIGN:
            msg = (
                f"the TMA {role} `{decl.name}` is only {decl.align}-byte aligned "
                f"(declared with align {decl.align}); TMA needs {TMA_ALIGN}-byte aligned shared memory"
            )
            help_ = f"declare it with `align {TMA_ALIGN}`"
        else:
            d = origin.off_div
            if not d.provable or d.div >= TMA_ALIGN:
                continue
            if origin.offset is not None:
                what = f"at byte offset {origin.offset}"
            else:
                what = f"at a byte offset that is only known to be a multiple of {d.div}"
            msg = (
                f"the TMA {role} is `{decl.name}` (align {decl.align}) {what}, so it is only "
                f"{min(d.div, decl.align)}-byte aligned; TMA needs {TMA_ALIGN}-byte aligned shared memory"
            )
            help_ = (
                f"declare it with `align {TMA_ALIGN}` and keep offsets into it multiples of {TMA_ALIGN} bytes "
                "(pad rows or stages)"
            )
        out.append(error(CHECK_ALIGN, msg, op.span or decl.span, labels=labels, help=help_))
    return out


def box_problems(t: TensorMapType) -> list[str]:
    """What is wrong with a tensormap box against the TMA limits (empty when it is fine). Why these
    limits: cuTensorMapEncodeTiled rejects boxDim > 256, rank > 5, and an inner box row whose byte size is
    not a multiple of 16 (non-interleaved layouts)."""
    problems: list[str] = []
    box = t.box
    if not 1 <= len(box) <= TMA_MAX_DIMS:
        problems.append(f"it has {_plural(len(box), 'dimension')} (TMA allows 1 to {TMA_MAX_DIMS})")
    for i, e in enumerate(box):
        if e < 1 or e > TMA_MAX_BOX:
            problems.append(f"box extent {i} is {e} (TMA allows 1 to {TMA_MAX_BOX})")
    if box:
        try:
            esize = size_of(t.elem)
        except TypeError:
            esize = 0
        inner = box[-1] * esize
        if esize and inner % TMA_INNER_BYTES:
            problems.append(
                f"the innermost box row is {box[-1]} × {esize} = {inner} bytes, "
                f"not a multiple of {TMA_INNER_BYTES}"
            )
    return problems


def _trace_value(v: Value) -> Value:
    steps = 0
    while isinstance(v, OpResult) and v.op.name in _PASS_THROUGH and steps < 64:
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


@dataclass(frozen=True)
class BarrierKey:
    """An mbarrier named statically: shared symbol + byte offset (None when the index is dynamic, which
    may alias any element of the symbol)."""

    sym: str
    offset: int | None


def barrier_key(fn: Function, v: Value, divs: dict[Value, Divisor]) -> BarrierKey | None:
    """The static identity of the mbarrier `v` points to, or None when it cannot be traced at all."""
    o = pointer_origin(fn, v, divs)
    if o is None:
        return None
    return BarrierKey(o.decl.name, o.offset)


def _barrier_label(fn: Function, k: BarrierKey) -> str:
    decl = _decl(fn, k.sym)
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

    def __init__(self, fn: Function, divs: dict[Value, Divisor]):
        self.fn = fn
        self.keys: dict[int, BarrierKey | None] = {}
        for op in fn.ops():
            bar = self._bar_operand(op)
            if bar is not None:
                self.keys[id(op)] = barrier_key(fn, bar, divs)
        g = nx.DiGraph()
        g.add_node(fn.entry)
        for b in fn.blocks:
            for s in b.successors:
                g.add_edge(b, s)
        self.idom = nx.immediate_dominators(g, fn.entry)

    @staticmethod
    def _bar_operand(op: Op) -> Value | None:
        if op.name == "tma_load" and op.operands:
            return op.operands[-1]
        if op.name in _ANNOUNCE or op.name in _WAITS or op.name in ("mbarrier_init", "mbarrier_inval"):
            return op.operands[0] if op.operands else None
        return None

    def dominates(self, a: Block, b: Block) -> bool:
        if b not in self.idom:
            return False
        while True:
            if b is a:
                return True
            p = self.idom.get(b)
            if p is None or p is b:
                return False
            b = p

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
                elif n in _ANNOUNCE:
                    if self.is_exactly(op, k):
                        if op.block is not start:
                            return None
                        extra.append(op)
                    elif self.may_alias(op, k):
                        return None
                elif n in _WAITS:
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
                if n in ("tma_load", *_ANNOUNCE) and op is not ann and self.may_alias(op, k):
                    return False
                if n in _WAITS or n == "mbarrier_init":
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
                if n in ("tma_load", *_ANNOUNCE, "mbarrier_init", "mbarrier_inval") and self.may_alias(op, k):
                    return False
                if n in _WAITS:
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


def _tx_findings(fn: Function, divs: dict[Value, Divisor]) -> list[Diagnostic]:
    # Clusters: multicast copies issued by another CTA complete bytes on this CTA's barrier, so the loads
    # of a phase need not appear on this CTA's path. Calls / opaque PTX may do TMA we cannot see.
    if _cluster_size(fn) > 1 or any(_signals_barriers(op) for op in fn.ops()):
        return []
    ta = _TxAnalysis(fn, divs)
    announcements = [op for op in fn.ops() if op.name in _ANNOUNCE]
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
            c = _const_int(a.operands[1]) if len(a.operands) > 1 else None
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


def check_tma(fn: Function, arch: str) -> list[Diagnostic]:
    """Run `tma-misaligned` and `mbarrier-tx-mismatch` on one function. `arch` is accepted for symmetry
    with the other checks; the TMA rules are the same on every target that has TMA (and on targets
    without it the ops are already `unsupported-target` errors, but a misaligned copy is still worth
    reporting)."""
    del arch
    if not any(op.name.startswith(("tma_", "mbarrier_")) for op in fn.ops()):
        return []
    divs = int_divisors(fn)
    out = _align_findings(fn, divs) + _box_findings(fn) + _tx_findings(fn, divs)
    out.sort(key=lambda d: d.sort_key())
    return out
