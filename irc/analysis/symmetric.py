"""Symmetric butterfly steps: `z = f(X, shfl.bfly(X, d))` where swapping a lane's inputs with its
partner's leaves `z` unchanged, decided by the SMT solver.

Why: the lattice's butterfly rule knows one commutative op (`max(x, shfl_xor(x, d))`). Reductions over
pairs combine with more than one op: Triton's argmax keeps (value, index) and picks
`a > b || (a == b && ia < ib) ? (a, ia) : (b, ib)`; after the step lane t and lane t ^ d hold the same
pair, because the combine is symmetric. A rule per idiom would not generalise, so the question goes to the
solver: with the step's shuffled sources X (lane t's) and results Y (lane t ^ d's values of X) as free
bit-vectors, is there an input where f(X, Y) != f(Y, X)? UNSAT: the lanes of the pair agree.

Each op means what the op table's semantics says, in the z3 domain (`irc.analysis.symbolic.domain`): exact
for integers and predicates; floats are bit patterns compared as IEEE values, with float arithmetic as
uninterpreted functions that know only commutativity. Two choices are this query's: compared floats are
taken as not NaN (an argmax over NaNs picks by lane order: a data question, not a race), and where such a
compare chooses the result, +0 and -0 count as one value. An op without semantics is an uninterpreted
function of its operands, so a combine that depends on operand order (Welford's update, `a - b`) is never
proven symmetric.

`symmetric_step(v, ctx)` answers (d, X, the other inputs) or None; lanegroups turns it into lane-group
facts (one z3 context per function: making a context costs more than most of these queries).
"""

from __future__ import annotations

import random
from typing import Any

from irc.analysis.collectives import COMMUTATIVE, bfly_step, strip_copies
from irc.analysis.collectives import strip_moves as _strip
from irc.ir.core import OpResult, Value
from irc.ir.semantics import width
from irc.records import record

MAX_SLICE = 96  # ops in the backward slice searched for a step's shuffles
MAX_COMBINE = 48  # ops in the combine itself
#: z3 resource units one symmetry question may spend (about half a second; `symbolic.solver`)
LIMIT = 5_000_000

_FLOAT_WIDTHS = (16, 32, 64)


def pure_op(v: Value) -> bool:
    if not isinstance(v, OpResult):
        return False
    op = v.op
    return len(op.results) == 1 and op.has_trait("pure") and op.name not in ("sreg", "shfl", "load")


def bfly_of(v: Value) -> tuple[int, Value] | None:
    """(d, source) when `v` (through copies) is a whole-warp `shfl.bfly` by a constant power of two, or a
    64-bit value shuffled as its two halves (`pack_b64(shfl(lo(w), d), shfl(hi(w), d))`, how 64-bit and
    packed `f32x2` values cross lanes): (d, w)."""
    s = _strip(v)
    if isinstance(s, OpResult) and s.op.name == "pack_b64" and len(s.op.operands) == 2:
        # each half's own source through copies only: the pair is matched as `lo(w)`, `hi(w)` of one w
        halves = [_half_bfly(o) for o in s.op.operands]
        srcs = [h[1] if h is not None else None for h in halves]
        if (
            all(h is not None for h in halves)
            and halves[0][0] == halves[1][0]  # type: ignore[index]
            and all(isinstance(x, OpResult) and x.op.name == "unpack_b64" for x in srcs)
            and srcs[0].op is srcs[1].op  # type: ignore[union-attr]
            and [srcs[0].op.results.index(srcs[0]), srcs[1].op.results.index(srcs[1])] == [0, 1]  # type: ignore[union-attr]
        ):
            return halves[0][0], _strip(srcs[0].op.operands[0])  # type: ignore[index, union-attr]
        return None
    return _half_bfly(v, _strip)


def _half_bfly(v: Value, source=strip_copies) -> tuple[int, Value] | None:  # type: ignore[no-untyped-def]
    """(d, source) when `v` is a whole-warp `shfl.bfly` by a constant power of two, the source seen through
    `source`: through copies only for one half of a shuffled 64-bit pair (its unpack kept, to match the
    halves as `lo(w)`, `hi(w)`), through moves as well for a 32-bit value (`bfly_of`)."""
    s = _strip(v)
    if not (isinstance(s, OpResult) and s.op.name == "shfl" and s.op.operands):
        return None
    step = bfly_step(s.op.operands[0], s)
    return None if step is None else (step[0], source(s.op.operands[0]))


#: Value -> `_node`'s answer, kept by a caller that searches many overlapping slices (`lanegroups`)
Nodes = dict


def _node(x: Value, memo: Nodes | None) -> tuple[tuple[int, Value] | None, tuple[Value, ...] | None]:
    """(`bfly_of(x)`, x's operands with copies stripped when x is a `pure_op`, else None). Why memoised:
    lanegroups searches the slice above each of a thousand values of an attention kernel, and the slices
    overlap; each node is classified once instead of once per slice."""
    hit = memo.get(x) if memo is not None else None
    if hit is None:
        ops = tuple(_strip(o) for o in x.op.operands) if pure_op(x) else None  # type: ignore[union-attr]
        hit = (bfly_of(x), ops)
        if memo is not None:
            memo[x] = hit
    return hit


def _slice(
    v: Value, stop: set[Value], limit: int, memo: Nodes | None = None
) -> tuple[list[OpResult], list[Value]] | None:
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
        ops = _node(x, memo)[1]
        if x in stop or ops is None or x.op.name == "const":  # type: ignore[union-attr]
            if not (isinstance(x, OpResult) and x.op.name == "const"):
                leaves.append(x)
            continue
        if len(order) + len(stack) > limit:
            return None
        stack.append((x, True))
        for o in ops:
            stack.append((o, False))
    return order, leaves


def _near_shuffles(v: Value, memo: Nodes | None = None) -> list[tuple[int, Value, Value]]:
    """The butterfly shuffles (d, source, result) the first MAX_SLICE pure ops above `v` read,
    breadth first (the step that made `v` is the nearest)."""
    out: list[tuple[int, Value, Value]] = []
    seen: set[int] = {id(v)}
    queue = [_strip(v)]
    i = 0
    while i < len(queue) and i < MAX_SLICE:
        x = queue[i]
        i += 1
        b, ops = _node(x, memo)
        if b is not None:
            out.append((b[0], b[1], x))
            continue
        if ops is None:
            continue
        for s in ops:
            if id(s) not in seen:
                seen.add(id(s))
                queue.append(s)
    return out


@record(eq=False)
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


def butterfly_steps(v: Value, memo: Nodes | None = None) -> list[Step]:
    """The candidate steps above `v`, one per shuffle offset its nearby slice reads (no solver yet: the
    caller first rules out steps whose other inputs differ across the pair). `memo`: see `_node`."""
    if not pure_op(v) or getattr(v.type, "is_bool", False):
        return []  # a predicate is a step's intermediate, not what lanes store or carry on
    by_d: dict[int, list[tuple[Value, Value]]] = {}
    for d, x, y in _near_shuffles(v, memo):
        by_d.setdefault(d, []).append((x, y))
    out: list[Step] = []
    for d, pairs in by_d.items():
        xs = list(dict.fromkeys(x for x, _ in pairs))
        ys = list(dict.fromkeys(y for _, y in pairs))
        sub = _slice(v, set(xs) | set(ys), MAX_COMBINE, memo)
        if sub is None:
            continue
        ops, lv = sub
        if not any(y in lv for y in ys):
            continue
        others = [x for x in lv if x not in xs and x not in ys]
        out.append(Step(v, d, xs, others, ops, pairs))
    return out


def with_inputs(st: Step, inputs: set[Value], memo: Nodes | None = None) -> Step | None:
    """`st` with `inputs` (values its combine computes, copies stripped) taken as the combine's other inputs
    instead of computed: a direction flag made from `tid` inside the combine is then one free input whose
    lane bits the caller knows, not `tid` itself. None when the step no longer reads the shuffle."""
    ys = [y for _, y in st.pairs]
    sub = _slice(st.v, set(st.xs) | set(ys) | inputs, MAX_COMBINE, memo)
    if sub is None:
        return None
    ops, lv = sub
    if not any(y in lv for y in ys):
        return None
    others = [x for x in lv if x not in st.xs and x not in ys]
    return Step(st.v, st.d, st.xs, others, ops, st.pairs)


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


#: verdicts by the combine's shape (`_shape`): a reduction repeats one combine per butterfly step, and a
#: corpus of Triton kernels repeats a handful of combines in every file. Data only (booleans), per process.
_VERDICTS: dict[tuple, bool] = {}
MAX_VERDICTS = 4096


def _shape(
    v: Value, ops: list[OpResult], pairs: list[tuple[Value, Value]], others: list[Value]
) -> tuple | None:
    """The combine up to the names of its values: each op's name, attributes, result type and operands as
    positions (the pair's two sides, the other inputs, earlier ops, constants by value). Two combines with
    one shape are one formula, so one verdict. None when an operand is none of these (not cached)."""
    tok: dict[int, str] = {}
    for i, (x, y) in enumerate(pairs):
        if id(x) not in tok:
            tok[id(x)] = f"a{i}:{x.type}"
            tok[id(y)] = f"b{i}:{x.type}"
        else:
            tok[id(y)] = "b" + tok[id(x)][1:]
    for i, o in enumerate(others):
        tok[id(o)] = f"l{i}:{o.type}"
    items: list[tuple] = []
    for j, r in enumerate(ops):
        args = []
        for o in r.op.operands:
            c = _strip(o)
            t = tok.get(id(c))
            if t is None and isinstance(c, OpResult) and c.op.name == "const":
                t = f"k{c.op.attrs.get('value')!r}:{c.type}"
            if t is None:
                return None
            args.append(t)
        attrs = tuple(sorted((k, repr(x)) for k, x in r.op.attrs.items()))
        items.append((r.op.name, attrs, str(r.type), r.index, tuple(args)))
        tok[id(r)] = f"o{j}"
    top = tok.get(id(_strip(v)))
    return None if top is None else (top, tuple(items))


def _symmetric(v: Value, ops: list[OpResult], pairs: list[tuple[Value, Value]], others: list[Value],
               ctx: Any) -> bool:  # fmt: skip
    key = _shape(v, ops, pairs, others)
    if key is not None and key in _VERDICTS:
        return _VERDICTS[key]
    out = _decide(v, ops, pairs, others, ctx)
    if key is not None and len(_VERDICTS) < MAX_VERDICTS:
        _VERDICTS[key] = out
    return out


def _decide(v: Value, ops: list[OpResult], pairs: list[tuple[Value, Value]], others: list[Value],
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
        if _same_tree(v, ops, pairs, others):  # one term up to commuted operands: the solver's unsat
            return True
        differ = t1 != t2
        if enc.D.compared_floats and t1.size() in _FLOAT_WIDTHS:
            # a float compare chose the result: +0 and -0 are one value (an argmax of equal zeros)
            mag = m.BitVecVal((1 << (t1.size() - 1)) - 1, t1.size(), ctx=ctx)
            differ = m.And(differ, m.Not(((t1 | t2) & mag) == 0))
        if _refuted(m, ctx, vars_, differ):
            return False
        from irc.analysis.symbolic.solver import limit_solver

        s = m.Solver(ctx=ctx)
        limit_solver(s, LIMIT)
        for c in enc.assume:
            s.add(c)
        s.add(differ)
        return s.check() == m.unsat
    except Exception:  # noqa: BLE001 - a sort the encoding does not cover: not proven
        return False


def _same_tree(v: Value, ops: list[OpResult], pairs: list[tuple[Value, Value]], others: list[Value]) -> bool:
    """Whether the combine computes one expression in both orders, with the operands of each commutative
    op (`COMMUTATIVE` names the op table marks commutative: their semantics, and the uninterpreted
    function `_Enc.op` falls back to, ignore operand order) taken as a set: then f(X, Y) and f(Y, X) are
    equal for every input, so the solver's question is unsat. Most combines of a reduction (a max, a sum,
    the online softmax's rescale) are this; the rest (an argmax's tie-break) go to the solver.

    Why: each solver question costs ~25 ms (bit-blasting compares and float UFs), a few dozen per Triton
    attention file; this walk costs microseconds. Leaves are named as `_decide` names its variables."""
    a: dict[int, int] = {}
    b: dict[int, int] = {}
    nodes: dict[tuple, int] = {}

    def intern(key: tuple) -> int:
        return nodes.setdefault(key, len(nodes))

    for i, (x, y) in enumerate(pairs):
        if id(x) not in a:
            a[id(x)] = intern(("a", i))
            b[id(x)] = intern(("b", i))
        a[id(y)] = b[id(x)]
        b[id(y)] = a[id(x)]
    for i, o in enumerate(others):
        a[id(o)] = b[id(o)] = intern(("l", i))

    def tree(env: dict[int, int]) -> int | None:
        env = dict(env)
        for r in ops:
            op = r.op
            args: list[int] = []
            for o in op.operands:
                c = _strip(o)
                t = env.get(id(c))
                if t is None and isinstance(c, OpResult) and c.op.name == "const":
                    t = intern(("k", repr(c.op.attrs.get("value")), str(c.type)))
                if t is None:
                    return None
                args.append(t)
            if len(args) == 2 and op.name in COMMUTATIVE and op.has_trait("commutative"):
                args.sort()
            attrs = tuple(sorted((k, repr(x)) for k, x in op.attrs.items()))
            env[id(r)] = intern((op.name, attrs, str(r.type), tuple(args)))
        return env.get(id(_strip(v)))

    t1 = tree(a)
    return t1 is not None and t1 == tree(b)


class _Enc:
    """Terms of the combine: each op's semantics from the op table in the z3 domain; an op without one
    (or a case it leaves undefined) is an uninterpreted function of its operands."""

    def __init__(self, m: Any, ctx: Any) -> None:
        from irc.analysis.symbolic.domain import Z3Domain

        self.m = m
        self.ctx = ctx
        self.D = Z3Domain(m, ctx, ordered=True)

    @property
    def assume(self) -> list[Any]:
        return self.D.assumptions

    def var(self, name: str, v: Value) -> Any:
        return self.m.BitVec(name, width(v.type), ctx=self.ctx)

    def run(self, v: Value, ops: list[OpResult], env: dict[int, Any]) -> Any:
        env = dict(env)
        for r in ops:
            args = [env.get(id(_strip(o))) for o in r.op.operands]
            for i, o in enumerate(r.op.operands):
                c = _strip(o)
                if args[i] is None and isinstance(c, OpResult) and c.op.name == "const":
                    args[i] = self.const(c)
            if any(x is None for x in args):
                return None
            env[id(r)] = self.op(r, args)
        return env.get(id(_strip(v)))

    def const(self, r: OpResult) -> Any:
        val = r.op.attrs.get("value")
        t = r.type
        if getattr(t, "is_float", False):
            return self.D.fconst(float(val), str(t))  # type: ignore[arg-type]
        if isinstance(val, bool):
            val = int(val)
        if not isinstance(val, int):
            raise ValueError("constant")
        return self.D.const(val, width(r.type))

    def op(self, r: OpResult, args: list[Any]) -> Any:
        from irc.ir.optable import OPS
        from irc.ir.semantics import Unknown

        op = r.op
        d = OPS.get(op.name)
        if d is not None and d.sem is not None:
            try:
                return d.sem(self.D, args, r.type, op.attrs, [o.type for o in op.operands])
            except Unknown:
                pass
        # no semantics here: a function of the operands; one that commutes (a packed `add.f32x2`) with
        # its operands in a canonical order
        base = str(op.attrs.get("text", "")).split(".")[0] if op.name == "ptx_pure" else op.name
        key = (op.name, tuple(sorted((k, repr(x)) for k, x in op.attrs.items())), str(r.type),
               tuple(a.size() for a in args))  # fmt: skip
        return self.D.uf(key, args, width(r.type), commutative=base in COMMUTATIVE)
