"""The IR verifier: structural and SSA invariants every pass must preserve.

It collects every problem (not only the first), each naming the op, its block and its source span:
unknown ops, operand and result counts and type constraints from the op table, required attributes,
exactly one terminator per block (at the end), successors inside the function with the right number and
types of block arguments, and SSA dominance (networkx dominators) of every use by its definition.
"""

from __future__ import annotations

from irc.diagnostics import Diagnostic, Span, error
from irc.ir.core import Block, BlockArg, Function, Module, Op, OpResult, Value, traits_of
from irc.ir.graphs import immediate_dominators
from irc.ir.optable import OPS, OpDef
from irc.ir.types import MBarrierType, PtrType, ScalarType, TensorMapType, Type

CHECK = "ir-verify"


class VerifyError(Exception):
    def __init__(self, diagnostics: list[Diagnostic]):
        self.diagnostics = diagnostics
        super().__init__("\n".join(d.message for d in diagnostics))


_SCALAR_MATCH: dict[tuple[str, str], bool] = {}  # (constraint, scalar type name) -> `_matches`


def _matches(c: str, t: Type) -> bool:
    if c in ("any", "T"):
        return True
    if t.__class__ is ScalarType:  # decided by the name alone: remembered (asked for every operand)
        key = (c, t.name)  # type: ignore[attr-defined]
        hit = _SCALAR_MATCH.get(key)
        if hit is None:
            hit = _SCALAR_MATCH[key] = _matches_type(c, t)
        return hit
    return _matches_type(c, t)


def _matches_type(c: str, t: Type) -> bool:
    if c == "scalar":
        return isinstance(t, ScalarType) or isinstance(t, PtrType)
    if c == "int":
        return isinstance(t, ScalarType) and t.is_int
    if c == "float":
        return isinstance(t, ScalarType) and t.is_float
    if c == "num":
        return isinstance(t, ScalarType) and (t.is_int or t.is_float)
    if c == "ptr":
        return isinstance(t, PtrType)
    if c == "gptr":
        return isinstance(t, PtrType) and t.space == "global"
    if c == "sptr":
        return isinstance(t, PtrType) and t.space == "shared"
    if c == "tmap":
        return isinstance(t, TensorMapType)
    if c in ("u32", "u64", "i32", "bool", "f32"):
        # PTX registers are untyped: an exact integer constraint also admits the same-width b/i/u types.
        if isinstance(t, ScalarType):
            if t.name == c:
                return True
            if c in ("u32", "i32") and t.name in ("u32", "i32", "b32"):
                return True
            if c == "u64" and t.name in ("u64", "i64", "b64"):
                return True
        if c == "u64" and isinstance(t, MBarrierType):
            return True
        return False
    return False


_EXPANDED: dict[tuple[tuple[str, ...], int], tuple[str, ...] | None] = {}


def _expand(cons: tuple[str, ...], n: int) -> tuple[str, ...] | None:
    """Expand a constraint list whose "..." repeats the constraint before it (zero or more times, anywhere
    in the list, e.g. `sptr tmap i32 ... sptr`) to n entries; None if n does not fit. Expanded once per
    op-table row and count."""
    key = (cons, n)
    hit = _EXPANDED.get(key, False)
    if hit is False:
        hit = _EXPANDED[key] = _expand_new(cons, n)
    return hit  # type: ignore[return-value]


def _expand_new(cons: tuple[str, ...], n: int) -> tuple[str, ...] | None:
    if "..." not in cons:
        return cons if n == len(cons) else None
    k = cons.index("...")
    head, tail = cons[: k - 1], cons[k + 1 :]
    rep = n - len(head) - len(tail)
    if rep < 0:
        return None
    return head + (cons[k - 1],) * rep + tail


class _Ctx:
    def __init__(self, fn: Function):
        self.fn = fn
        self.diags: list[Diagnostic] = []
        self.bindex = {id(b): i for i, b in enumerate(fn.blocks)}

    def where(self, op: Op | None, block: Block) -> str:
        b = f"^bb{self.bindex.get(id(block), '?')}"
        return f"`{op.name}` in @{self.fn.name} {b}" if op is not None else f"@{self.fn.name} {b}"

    def err(self, msg: str, op: Op | None, block: Block) -> None:
        span = op.span if op is not None else self.fn.span
        self.diags.append(error(CHECK, f"{self.where(op, block)}: {msg}", span or Span.point("<ir>", 1, 1)))


def _check_op(cx: _Ctx, op: Op, block: Block) -> None:
    d: OpDef | None = OPS.get(op.name)
    if d is None:
        cx.err("unknown op", op, block)
        return
    cons = _expand(d.operands, len(op.operands))
    if cons is None:
        cx.err(f"expects {len(d.operands)} operands, got {len(op.operands)}", op, block)
        return
    tvar: Type | None = None
    for i, (c, v) in enumerate(zip(cons, op.operands)):
        if not _matches(c, v.type):
            cx.err(f"operand {i} has type `{v.type}`, expected {c}", op, block)
        if c == "T":
            if tvar is None:
                tvar = v.type
            elif v.type is not tvar and v.type != tvar:
                cx.err(f"type mismatch: operand {i} is `{v.type}` but operand 0 is `{tvar}`", op, block)
    if d.results != ("decl",):
        rcons = _expand(d.results, len(op.results))
        if rcons is None:
            cx.err(f"expects {len(d.results)} results, got {len(op.results)}", op, block)
        else:
            for i, (c, r) in enumerate(zip(rcons, op.results)):
                if c == "T":
                    if tvar is not None and r.type is not tvar and r.type != tvar:
                        cx.err(
                            f"type mismatch: result {i} is `{r.type}` but operands are `{tvar}`", op, block
                        )
                elif not _matches(c, r.type):
                    cx.err(f"result {i} has type `{r.type}`, expected {c}", op, block)
    for a in d.attrs:
        if a not in op.attrs:
            cx.err(f"missing attribute `{a}`", op, block)
    if op.name == "const" and len(op.results) == 1 and "value" in op.attrs:
        _check_const(cx, op, block)
    if not op.successors and op.name not in ("br", "cbr"):  # (most ops: only this can be wrong below)
        if op.succ_args:
            cx.err("successor argument lists do not match successors", op, block)
        return
    is_term = "terminator" in d.traits
    if is_term != bool(op.successors) and op.name in ("br", "cbr"):
        cx.err("branch without successors", op, block)
    if op.name == "br" and len(op.successors) != 1:
        cx.err("`br` needs exactly one successor", op, block)
    if op.name == "cbr" and len(op.successors) != 2:
        cx.err("`cbr` needs exactly two successors", op, block)
    if len(op.succ_args) != len(op.successors):
        cx.err("successor argument lists do not match successors", op, block)
    for s, args in zip(op.successors, op.succ_args):
        if s.function is not cx.fn or id(s) not in cx.bindex:
            cx.err("branch to a block outside the function", op, block)
            continue
        if s is cx.fn.entry:
            cx.err("branch to the entry block", op, block)
        if len(args) != len(s.args):
            cx.err(
                f"passes {len(args)} block arguments to ^bb{cx.bindex[id(s)]}, which takes {len(s.args)}",
                op,
                block,
            )
            continue
        for i, (v, a) in enumerate(zip(args, s.args)):
            if v.type is not a.type and v.type != a.type:
                cx.err(
                    f"block argument {i} of ^bb{cx.bindex[id(s)]} is `{a.type}` but `{v.type}` is passed",
                    op,
                    block,
                )


_CONST_KIND: dict[str, tuple] = {}  # scalar type name -> ("bool",) | ("float",) | ("int", lo, hi)


def _const_kind(t: ScalarType) -> tuple:
    k = _CONST_KIND.get(t.name)
    if k is None:
        if t.is_bool:
            k = ("bool",)
        elif t.is_float:
            k = ("float",)
        else:
            k = ("int", -(1 << (t.bits - 1)), 1 << t.bits)
        _CONST_KIND[t.name] = k
    return k


def _check_const(cx: _Ctx, op: Op, block: Block) -> None:
    t, v = op.results[0].type, op.attrs["value"]
    if t.__class__ is ScalarType and v.__class__ is int:  # the common case, as decided below
        k = _const_kind(t)  # type: ignore[arg-type]
        if k[0] == "float" or (k[0] == "int" and k[1] <= v < k[2]):
            return
    if isinstance(t, ScalarType):
        if t.is_bool:
            ok = isinstance(v, bool)
        elif t.is_float:
            ok = isinstance(v, (int, float)) and not isinstance(v, bool)
        else:
            ok = isinstance(v, int) and not isinstance(v, bool) and -(1 << (t.bits - 1)) <= v < (1 << t.bits)
    else:
        ok = isinstance(v, int) and not isinstance(v, bool)
    if not ok:
        cx.err(f"constant {v!r} does not fit type `{t}`", op, block)


def _check_dominance(cx: _Ctx) -> None:
    fn = cx.fn
    by_id = {id(b): b for b in fn.blocks}
    doms = immediate_dominators(
        id(fn.entry), lambda n: [id(s) for s in by_id[n].successors if id(s) in cx.bindex]
    )
    idom = {n: (n if p is None else p) for n, p in doms.items()}
    pos_cache: dict[int, dict[int, int]] = {}

    # Pre/post numbers of the dominator tree: `a` dominates `b` iff b's interval nests in a's (O(1) per
    # query; walking the idom chain per use is quadratic on deeply nested code).
    kids: dict[int, list[int]] = {}
    for n, p in idom.items():
        if n != p:
            kids.setdefault(p, []).append(n)
    pre: dict[int, int] = {}
    post: dict[int, int] = {}
    clock = 0
    stack = [(id(fn.entry), iter(kids.get(id(fn.entry), ())))]
    pre[id(fn.entry)] = clock
    while stack:
        node, it = stack[-1]
        child = next(it, None)
        if child is None:
            stack.pop()
            clock += 1
            post[node] = clock
            continue
        clock += 1
        pre[child] = clock
        stack.append((child, iter(kids.get(child, ()))))

    def dominates(a: Block, b: Block) -> bool:
        x, y = id(a), id(b)
        if x not in pre or y not in pre:
            return False
        return pre[x] <= pre[y] and post[y] <= post[x]

    def def_site(v: Value) -> tuple[Block | None, int]:
        if isinstance(v, BlockArg):
            return v.block, -1
        if isinstance(v, OpResult):
            db = v.op.block
            if db is None:
                return None, -2
            if id(db) not in pos_cache:
                pos_cache[id(db)] = {id(o): i for i, o in enumerate(db.ops)}
            return db, pos_cache[id(db)].get(id(v.op), -2)
        return None, -2

    def dominated_by(db: Block | None, b_pre: int | None, b_post: int | None) -> bool:
        """The block numbered (b_pre, b_post) in the dominator tree's pre/post order is dominated by
        `db`, a reachable block of this function."""
        return (
            db is not None
            and db.function is fn
            and id(db) in idom
            and b_pre is not None
            and pre.get(id(db), b_pre + 1) <= b_pre
            and b_post <= post[id(db)]  # type: ignore[operator]
        )

    for b in fn.blocks:
        if id(b) not in idom:
            continue  # unreachable: no dominance facts
        pos = pos_cache.setdefault(id(b), {id(o): i for i, o in enumerate(b.ops)})
        b_ok = b.function is fn
        b_pre, b_post = pre.get(id(b)), post.get(id(b))
        for op in b.ops:
            at = pos[id(op)]
            for v in op.all_operands():
                # the common cases, decided as below without its lookups: a result defined earlier in this
                # block, a result of or an argument of a block dominating this one
                if v.__class__ is OpResult:
                    db = v.op.block  # type: ignore[attr-defined]
                    if db is b:
                        if b_ok and -2 < pos.get(id(v.op), -2) < at:  # type: ignore[attr-defined]
                            continue
                    elif (
                        dominated_by(db, b_pre, b_post)
                        and id(db) in pos_cache
                        and id(v.op) in pos_cache[id(db)]  # type: ignore[attr-defined]
                    ):
                        continue
                elif v.__class__ is BlockArg:
                    db = v.block  # type: ignore[attr-defined]
                    if db is b:
                        if b_ok:
                            continue
                    elif dominated_by(db, b_pre, b_post):
                        continue
                db, di = def_site(v)
                if db is None or db.function is not fn or di == -2:
                    cx.err(f"uses a value defined outside this function ({v.type})", op, b)
                    continue
                if id(db) not in idom:
                    cx.err("uses a value defined in an unreachable block", op, b)
                    continue
                if db is b:
                    if di >= at:
                        cx.err("use of a value before its definition (not dominated)", op, b)
                elif not dominates(db, b):
                    cx.err(
                        f"use of a value defined in ^bb{cx.bindex[id(db)]}, which does not dominate this use",
                        op,
                        b,
                    )


def verify_function(fn: Function) -> list[Diagnostic]:
    cx = _Ctx(fn)
    if not fn.blocks:
        cx.diags.append(error(CHECK, f"@{fn.name}: function has no blocks", fn.span))
        return cx.diags
    for b in fn.blocks:
        if b.function is not fn:
            cx.err("block does not belong to the function", None, b)
        if not b.ops or "terminator" not in traits_of(b.ops[-1].name):
            cx.err("block has no terminator", b.ops[-1] if b.ops else None, b)
        last = len(b.ops) - 1
        for i, op in enumerate(b.ops):
            if op.block is not b:
                cx.err("op's parent block is wrong", op, b)
            if i != last and "terminator" in traits_of(op.name):
                cx.err("terminator in the middle of a block", op, b)
            _check_op(cx, op, b)
    _check_dominance(cx)
    return cx.diags


def verify(m: Module) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    for f in m.functions:
        out.extend(verify_function(f))
    return out


def verify_or_raise(m: Module) -> None:
    d = verify(m)
    if d:
        raise VerifyError(d)
