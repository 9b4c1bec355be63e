"""Symmetric butterfly steps: `z = f(X, shfl.bfly(X, d))` where swapping a lane's inputs with its
partner's leaves `z` unchanged, decided by the SMT solver.

Why: the lattice's butterfly rule knows one commutative op (`max(x, shfl_xor(x, d))`). Reductions over
pairs combine with more than one op: Triton's argmax keeps (value, index) and picks
`a > b || (a == b && ia < ib) ? (a, ia) : (b, ib)`; after the step lane t and lane t ^ d hold the same
pair, because the combine is symmetric. A rule per idiom would not generalise, so the question goes to the
solver: with the step's shuffled sources X (lane t's) and results Y (lane t ^ d's values of X) as free
bit-vectors, is there an input where f(X, Y) != f(Y, X)? UNSAT: the lanes of the pair agree.

The encoding is exact for integer and predicate logic (two's complement, signed and unsigned compares,
select). Float values are their bit patterns: a comparison converts them to IEEE values, and the compared
values are taken as not NaN (an argmax over NaNs picks by lane order: that is a data question, not a
race), and where such a compare chooses the result, +0 and -0 count as one value; float arithmetic is an uninterpreted function, with the operands of add, mul, min and max in a
canonical order (IEEE's commutativity). Anything else is an uninterpreted function of its operands, so a
combine that depends on operand order (Welford's update, `a - b`) is never proven symmetric.

`symmetric_step(v, ctx)` answers (d, X, the other inputs) or None; lanegroups turns it into lane-group
facts (one z3 context per function: making a context costs more than most of these queries).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from irc.analysis.collectives import _strip, bfly_step
from irc.ir.core import OpResult, Value

MAX_SLICE = 96  # ops in the backward slice searched for a step's shuffles
MAX_COMBINE = 48  # ops in the combine itself
TIMEOUT_MS = 500

_FP = {16: (5, 11), 32: (8, 24), 64: (11, 53)}
_BF16 = (8, 8)
_COMM_FLOAT = frozenset({"add", "mul", "min", "max"})
_INT_BIN = frozenset({"add", "sub", "mul", "and", "or", "xor", "min", "max", "shl", "shr"})
_LOGIC = frozenset({"and", "or", "xor"})


def _pure(v: Value) -> bool:
    if not isinstance(v, OpResult):
        return False
    op = v.op
    return len(op.results) == 1 and op.has_trait("pure") and op.name not in ("sreg", "shfl", "load")


def _bfly(v: Value) -> tuple[int, Value] | None:
    """(d, source) when `v` (through copies) is a whole-warp `shfl.bfly` by a constant power of two."""
    s = _strip(v)
    if not (isinstance(s, OpResult) and s.op.name == "shfl" and s.op.operands):
        return None
    step = bfly_step(s.op.operands[0], s)
    return None if step is None else (step[0], _strip(s.op.operands[0]))


def _slice(v: Value, stop: set[Value], limit: int) -> tuple[list[OpResult], list[Value]] | None:
    """The pure ops `v` is computed by (topological order) and its leaves, stopping at `stop`, copies
    stripped. None past `limit` ops."""
    order: list[OpResult] = []
    leaves: list[Value] = []
    seen: set[int] = set()
    stack: list[tuple[Value, bool]] = [(_strip(v), False)]
    while stack:
        x, done = stack.pop()
        if done:
            order.append(x)  # type: ignore[arg-type]
            continue
        if id(x) in seen:
            continue
        seen.add(id(x))
        if x in stop or not _pure(x) or x.op.name == "const":  # type: ignore[union-attr]
            if not (isinstance(x, OpResult) and x.op.name == "const"):
                leaves.append(x)
            continue
        if len(order) + len(stack) > limit:
            return None
        stack.append((x, True))
        for o in x.op.operands:  # type: ignore[union-attr]
            stack.append((_strip(o), False))
    return order, leaves


def _near_shuffles(v: Value) -> list[tuple[int, Value, Value]]:
    """The butterfly shuffles (d, source, result) the first MAX_SLICE pure ops above `v` read,
    breadth first (the step that made `v` is the nearest)."""
    out: list[tuple[int, Value, Value]] = []
    seen: set[int] = {id(v)}
    queue = [_strip(v)]
    i = 0
    while i < len(queue) and i < MAX_SLICE:
        x = queue[i]
        i += 1
        b = _bfly(x)
        if b is not None:
            out.append((b[0], b[1], x))
            continue
        if not _pure(x):
            continue
        for o in x.op.operands:  # type: ignore[union-attr]
            s = _strip(o)
            if id(s) not in seen:
                seen.add(id(s))
                queue.append(s)
    return out


@dataclass
class Step:
    """One candidate butterfly step above a value: `v` = f(X, shfl.bfly(X, d), L)."""

    v: Value
    d: int
    xs: list[Value]
    others: list[Value]
    ops: list[OpResult]
    pairs: list[tuple[Value, Value]]
    verdict: bool | None = None

    def symmetric(self, ctx: Any = None) -> bool:
        """Whether f is symmetric in X and the shuffled X (decided once)."""
        if self.verdict is None:
            self.verdict = _symmetric(self.v, self.ops, self.pairs, self.others, ctx)
        return self.verdict


def butterfly_steps(v: Value) -> list[Step]:
    """The candidate steps above `v`, one per shuffle offset its nearby slice reads (no solver yet: the
    caller first rules out steps whose other inputs differ across the pair)."""
    if not _pure(v) or getattr(v.type, "is_bool", False):
        return []  # a predicate is a step's intermediate, not what lanes store or carry on
    by_d: dict[int, list[tuple[Value, Value]]] = {}
    for d, x, y in _near_shuffles(v):
        by_d.setdefault(d, []).append((x, y))
    out: list[Step] = []
    for d, pairs in by_d.items():
        xs = list(dict.fromkeys(x for x, _ in pairs))
        ys = list(dict.fromkeys(y for _, y in pairs))
        sub = _slice(v, set(xs) | set(ys), MAX_COMBINE)
        if sub is None:
            continue
        ops, lv = sub
        if not any(y in lv for y in ys):
            continue
        others = [x for x in lv if x not in xs and x not in ys]
        out.append(Step(v, d, xs, others, ops, pairs))
    return out


def symmetric_step(v: Value, ctx: Any = None) -> tuple[int, list[Value], list[Value]] | None:
    """(d, X, L) for the first step above `v` the solver proves symmetric, else None."""
    for st in butterfly_steps(v):
        if st.symmetric(ctx):
            return st.d, st.xs, st.others
    return None


# small pools, so that random inputs often tie (the cases a combine's tie-breaking decides)
_POOL_INT = (0, 1, 2, 3, 0xFFFFFFFF)
_POOL_F = {16: (0x0000, 0x3C00, 0xBC00, 0x4000, 0x8000), 32: (0, 0x3F800000, 0xBF800000, 0x40000000, 0x80000000),
           64: (0, 0x3FF0000000000000, 0xBFF0000000000000, 0x4000000000000000, 1 << 63)}  # fmt: skip
_TRIALS = 12


def _refuted(m: Any, ctx: Any, vars_: list[tuple[Any, Value]], differ: Any) -> bool:
    """A concrete input where the two orders differ (z3's simplifier evaluates the ground terms): most
    combines that are not symmetric (a compare-exchange, a difference) fail here, without a solver call."""
    rng = random.Random(0)
    for _ in range(_TRIALS):
        sub = []
        for var, val in vars_:
            if m.is_bool(var):
                sub.append((var, m.BoolVal(rng.random() < 0.5, ctx=ctx)))
                continue
            w = var.size()
            pool = _POOL_F.get(w, _POOL_INT) if getattr(val.type, "is_float", False) else _POOL_INT
            sub.append((var, m.BitVecVal(rng.choice(pool) & ((1 << w) - 1), w, ctx=ctx)))
        if m.is_true(m.simplify(m.substitute(differ, *sub))):
            return True
    return False


def _symmetric(v: Value, ops: list[OpResult], pairs: list[tuple[Value, Value]], others: list[Value],
               ctx: Any) -> bool:  # fmt: skip
    from irc.analysis.symbolic.solver import z3

    m = z3()
    ctx = ctx() if callable(ctx) else (ctx or m.Context())
    try:
        enc = _Enc(m, ctx)
        a: dict[int, Any] = {}
        b: dict[int, Any] = {}
        vars_: list[tuple[Any, Value]] = []
        for i, (x, y) in enumerate(pairs):
            if id(x) not in a:
                a[id(x)] = enc.var(f"a{i}", x)
                b[id(x)] = enc.var(f"b{i}", x)
                vars_ += [(a[id(x)], x), (b[id(x)], x)]
            a[id(y)] = b[id(x)]
            b[id(y)] = a[id(x)]
        for i, o in enumerate(others):
            a[id(o)] = b[id(o)] = enc.var(f"l{i}", o)
            vars_.append((a[id(o)], o))
        t1 = enc.run(v, ops, a)
        t2 = enc.run(v, ops, b)
        if t1 is None or t2 is None:
            return False
        differ = t1 != t2
        if enc.assume and m.is_bv(t1) and t1.size() in _FP:
            # a float compare chose the result: +0 and -0 are one value (an argmax of equal zeros)
            mag = m.BitVecVal((1 << (t1.size() - 1)) - 1, t1.size(), ctx=ctx)
            differ = m.And(differ, m.Not(((t1 | t2) & mag) == 0))
        if _refuted(m, ctx, vars_, differ):
            return False
        s = m.Solver(ctx=ctx)
        s.set("timeout", TIMEOUT_MS)
        for c in enc.assume:
            s.add(c)
        s.add(differ)
        return s.check() == m.unsat
    except Exception:  # noqa: BLE001 - a sort the encoding does not cover: not proven
        return False


class _Enc:
    def __init__(self, m: Any, ctx: Any) -> None:
        self.m = m
        self.ctx = ctx
        self.ufs: dict[tuple, Any] = {}
        self.assume: list[Any] = []

    def var(self, name: str, v: Value) -> Any:
        t = v.type
        if getattr(t, "is_bool", False):
            return self.m.Bool(name, ctx=self.ctx)
        return self.m.BitVec(name, _bits(v), ctx=self.ctx)

    def run(self, v: Value, ops: list[OpResult], env: dict[int, Any]) -> Any:
        env = dict(env)
        for r in ops:
            t = self.op(r, [env.get(id(_strip(o))) for o in r.op.operands], env)
            if t is None:
                return None
            env[id(r)] = t
        return env.get(id(_strip(v)))

    def const(self, r: OpResult) -> Any:
        val = r.op.attrs.get("value")
        if getattr(r.type, "is_bool", False):
            return self.m.BoolVal(bool(val), ctx=self.ctx)
        if isinstance(val, bool) or not isinstance(val, int):
            return None
        return self.m.BitVecVal(val, _bits(r), ctx=self.ctx)

    def op(self, r: OpResult, args: list[Any], env: dict[int, Any]) -> Any:
        m = self.m
        op = r.op
        n = op.name
        for i, o in enumerate(op.operands):
            s = _strip(o)
            if args[i] is None and isinstance(s, OpResult) and s.op.name == "const":
                args[i] = env[id(s)] = self.const(s)
        if any(x is None for x in args):
            return None
        ty = op.operands[0].type if op.operands else r.type
        if n == "select":
            return m.If(args[0], args[1], args[2])
        if n == "cmp":
            return self.cmp(str(op.attrs.get("pred")), ty, args[0], args[1])
        if n == "not" and len(args) == 1:
            return m.Not(args[0]) if m.is_bool(args[0]) else ~args[0]
        if n in _LOGIC and all(m.is_bool(x) for x in args):
            return {"and": m.And, "or": m.Or, "xor": m.Xor}[n](*args)
        if getattr(r.type, "is_float", False):
            if n in _COMM_FLOAT and len(args) == 2:
                lo = m.If(m.ULE(args[0], args[1]), args[0], args[1])
                hi = m.If(m.ULE(args[0], args[1]), args[1], args[0])
                args = [lo, hi]
            return self.uf(r, args)
        if getattr(r.type, "is_int", False) and n in _INT_BIN and len(args) == 2:
            x, y = args
            signed = getattr(r.type, "is_signed", False)
            if n == "min":
                return m.If((x < y) if signed else m.ULT(x, y), x, y)
            if n == "max":
                return m.If((x > y) if signed else m.UGT(x, y), x, y)
            if n == "shl":
                return x << y
            if n == "shr":
                return (x >> y) if signed else m.LShR(x, y)
            return {"add": x + y, "sub": x - y, "mul": x * y, "and": x & y, "or": x | y, "xor": x ^ y}[n]
        return self.uf(r, args)

    def uf(self, r: OpResult, args: list[Any]) -> Any:
        key = (r.op.name, tuple(sorted((k, repr(x)) for k, x in r.op.attrs.items())), str(r.type),
               tuple(str(a.sort()) for a in args))  # fmt: skip
        f = self.ufs.get(key)
        if f is None:
            rs = self.m.BoolSort(ctx=self.ctx) if getattr(r.type, "is_bool", False) else None
            rs = rs or self.m.BitVecSort(_bits(r), ctx=self.ctx)
            f = self.ufs[key] = self.m.Function(f"uf{len(self.ufs)}", *[a.sort() for a in args], rs)
        return f(*args)

    def cmp(self, pred: str, ty: Any, x: Any, y: Any) -> Any:
        m = self.m
        base = pred[:-1] if pred.endswith("u") and pred not in ("equ",) and len(pred) == 3 else pred
        base = "eq" if pred == "equ" else base
        if getattr(ty, "is_float", False):
            eb, sb = _BF16 if str(ty) == "bf16" else _FP[ty.bits]
            srt = m.FPSort(eb, sb, ctx=self.ctx)
            fx, fy = m.fpToFP(x, srt, ctx=self.ctx), m.fpToFP(y, srt, ctx=self.ctx)
            self.assume += [m.Not(m.fpIsNaN(fx, ctx=self.ctx)), m.Not(m.fpIsNaN(fy, ctx=self.ctx))]
            table = {"eq": m.fpEQ, "ne": m.fpNEQ, "lt": m.fpLT, "le": m.fpLEQ, "gt": m.fpGT, "ge": m.fpGEQ}
            f = table.get(base)
            if f is None:
                raise ValueError(pred)
            return f(fx, fy, ctx=self.ctx)  # z3's float functions fall back to the global context
        signed = getattr(ty, "is_signed", False)
        table = {"eq": x == y, "ne": x != y}
        if base in table:
            return table[base]
        if signed:
            return {"lt": x < y, "le": x <= y, "gt": x > y, "ge": x >= y}[base]
        return {"lt": m.ULT(x, y), "le": m.ULE(x, y), "gt": m.UGT(x, y), "ge": m.UGE(x, y)}[base]


def _bits(v: Value) -> int:
    from irc.ir.types import bit_width

    return bit_width(v.type)
