"""TMA facts: power-of-two divisors of integer values, where a shared pointer points, mbarrier identities,
and the TMA limits a tensormap box must respect.

Analyses return facts; `irc.analysis.checks.tma` turns them into `tma-misaligned` and
`mbarrier-tx-mismatch` findings. Constants are evaluated with the op table's `fold` (one definition of
what an op computes on constants).
"""

from __future__ import annotations

from irc.ir.core import BlockArg, Function, Op, OpResult, SharedDecl, Value
from irc.ir.optable import OPS
from irc.ir.types import U8, ArrayType, ScalarType, TensorMapType, size_of
from irc.records import record

TMA_ALIGN = 128  # bytes: PTX ISA, cp.async.bulk.tensor shared::cluster operand alignment
TMA_MAX_DIMS = 5
TMA_MAX_BOX = 256
TMA_INNER_BYTES = 16  # the innermost box extent times the element size must be a multiple of this

CHECK_ALIGN = "tma-misaligned"
CHECK_TX = "mbarrier-tx-mismatch"

# "a multiple of every power of two" (the value 0): larger than any alignment we compare with.
_ZERO_DIV = 1 << 62

ANNOUNCE_OPS = ("mbarrier_arrive_expect_tx", "mbarrier_expect_tx")
WAIT_OPS = ("mbarrier_wait", "mbarrier_try_wait", "mbarrier_test_wait")
PASS_THROUGH = ("copy", "bitcast")


# ---------------------------------------------------------------------------------------------------
# Facts: power-of-two divisors of integer values
# ---------------------------------------------------------------------------------------------------


@record(frozen=True)
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
        if n in PASS_THROUGH or n == "neg" or (n == "cvt" and _is_int_cvt(op)):
            return get(ops[0])
        if n in ("mul", "mulwide"):
            a, b = get(ops[0]), get(ops[1])
            return Divisor(min(a.div * b.div, _ZERO_DIV), a.provable or b.provable)
        if n in ("shl", "shlw"):
            a, k = get(ops[0]), const_int(ops[1])
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


def const_int(v: Value, depth: int = 0) -> int | None:
    """The constant integer `v` holds: constants, and ops on constants evaluated with the op table's
    semantics (`OpDef.fold`: copies, conversions and arithmetic alike), so the front end need not have
    folded `&bars[1]` = `ptradd(base, 1 * 8)` before the analyzer runs. The result is read at the value's
    type (negative for signed types), as the hardware computes it."""
    if not isinstance(v, OpResult) or depth > 32:
        return None
    op = v.op
    if op.name == "const":
        c = op.attrs.get("value")
        return c if isinstance(c, int) and not isinstance(c, bool) else None
    d = OPS.get(op.name)
    if d is None or d.sem is None or not op.operands or len(op.results) != 1:
        return None
    args = []
    for o in op.operands:
        c = const_int(o, depth + 1)
        if c is None:
            return None
        args.append(c)
    r = d.fold(args, v.type, op.attrs, [o.type for o in op.operands])
    return r if isinstance(r, int) and not isinstance(r, bool) else None


# ---------------------------------------------------------------------------------------------------
# Facts: where a shared pointer points
# ---------------------------------------------------------------------------------------------------


@record(frozen=True)
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
            decl = shared_decl(fn, op.attrs.get("sym"))
            if decl is None and op.attrs.get("extern_align"):
                # a PTX `.extern .shared .align N` array: sized at launch, based at the declared alignment
                decl = SharedDecl(
                    str(op.attrs["sym"]), ArrayType(U8, (1,)), int(op.attrs["extern_align"]), dynamic=True
                )
            if decl is None:
                return None
            return PointerOrigin(decl, offset, off_div)
        if op.name in PASS_THROUGH:
            v = op.operands[0]
            continue
        if op.name == "add" and len(op.operands) == 2 and _is_intlike(v.type):
            # lifted PTX computes shared addresses as integers: `mov.u32 %r, sym; add.s32 %r2, %r, 8`
            from irc.analysis.mbarrier import shared_root

            a, b = op.operands
            if shared_root(a) is None:
                a, b = b, a
            if shared_root(a) is None:
                return None
            c = const_int(b)
            if c is not None:
                offset = None if offset is None else offset + c
                off_div = _meet(off_div, Divisor(_lowbit(c), True))
            else:
                offset = None
                off_div = _meet(off_div, divs.get(b, _OPAQUE))
            v = a
            continue
        if op.name == "ptradd":
            off = op.operands[1]
            c = const_int(off)
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


def shared_decl(fn: Function, sym: object) -> SharedDecl | None:
    for s in fn.shared:
        if s.name == sym:
            return s
    return None


def box_problems(t: TensorMapType) -> list[str]:
    """What is wrong with a tensormap box against the TMA limits (empty when it is fine). Why these
    limits: cuTensorMapEncodeTiled rejects boxDim > 256, rank > 5, and an inner box row whose byte size is
    not a multiple of 16 (non-interleaved layouts)."""
    problems: list[str] = []
    box = t.box
    if not 1 <= len(box) <= TMA_MAX_DIMS:
        problems.append(f"it has {plural(len(box), 'dimension')} (TMA allows 1 to {TMA_MAX_DIMS})")
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


@record(frozen=True)
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


def plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"
