"""Hoisting of cheap pure integer arithmetic: loop-invariant code motion, and speculation out of the arms
of a conditional branch.

An op moves up the dominator tree as far as its operands allow, to the block of smallest loop depth on
that path (the closest one among equals): a computation whose operands are defined outside a loop leaves
the loop. An op in the arm of a `cbr` (a block whose only predecessor ends in that branch) also moves
into the branching block at equal loop depth, so the same index computed in each guarded arm (`c ? p[i +
1] : 0; c ? p[i + 2] : 0` unrolled) becomes one computation that GVN then shares. Why: each guarded load
used to recompute its index and 64-bit address (issue 15).

Only ops that cannot trap or cost more than a few instructions move: pure ops on integers, pointers and
booleans, not `div` / `rem`, not `undef`, no memory access, no float math. Executing one on a path that
did not compute it before is harmless (its result is simply unused there).
"""

from __future__ import annotations

from irc.floatbits import value_key
from irc.ir.core import Block, Function, Module, Op, OpResult, Value, traits_of
from irc.ir.types import ScalarType
from irc.passes.manager import Pass, PassContext
from irc.passes.util import dom_preorder

_NEVER = frozenset({"div", "rem", "undef", "copy"})


_FLOATS = frozenset({"f16", "bf16", "f32", "f64"})  # the names `ScalarType.is_float` accepts


_CHEAP_NAMES: dict[str, bool] = {}  # op name -> pure and not in _NEVER


def _cheap(op: Op) -> bool:
    ok = _CHEAP_NAMES.get(op.name)
    if ok is None:
        ok = _CHEAP_NAMES[op.name] = op.name not in _NEVER and "pure" in traits_of(op.name)
    if not ok or len(op.results) != 1 or op.successors:
        return False
    t = op.results[0].type
    if isinstance(t, ScalarType) and t.name in _FLOATS:
        return False
    for v in op.operands:
        t = v.type
        if isinstance(t, ScalarType) and t.name in _FLOATS:
            return False
    return True


def loop_depths(
    blocks: list[Block], idom: dict[Block, Block | None], preds: dict[int, list[Op]]
) -> dict[Block, int]:
    """Natural-loop nesting depth of each block (back edges are edges to a dominator); `preds` is
    `Function.predecessor_map()`. `blocks` is a dominator-tree preorder (`dom_preorder`). Linear in the
    loops' sizes: one body walk per loop header from all its latches together, and dominance from
    preorder intervals (a walk per back edge up the dominator tree made 4,000-block kernels take seconds)."""
    depth = dict.fromkeys(blocks, 0)
    tin, tout = dom_intervals(blocks, idom)
    latches: dict[Block, list[Block]] = {}
    for b in blocks:
        for h in b.successors:
            if h in tin and tin[h] <= tin[b] and tout[b] <= tout[h]:
                latches.setdefault(h, []).append(b)
    for h, ls in latches.items():
        body = {h}
        work = list(ls)
        while work:
            x = work.pop()
            if x in body or x not in tin:
                continue
            body.add(x)
            work.extend(t.block for t in preds.get(id(x), []) if t.block is not None)
        for x in body:
            depth[x] += 1
    return depth


def dom_intervals(
    order: list[Block], idom: dict[Block, Block | None]
) -> tuple[dict[Block, int], dict[Block, int]]:
    """Entry and exit times of a depth-first walk of the dominator tree (`order` is its preorder):
    a dominates b iff tin[a] <= tin[b] and tout[b] <= tout[a]."""
    kids: dict[Block, list[Block]] = {b: [] for b in order}
    for b in order[1:]:
        p = idom.get(b)
        if p is not None and p in kids:
            kids[p].append(b)
    tin: dict[Block, int] = {}
    tout: dict[Block, int] = {}
    if not order:
        return tin, tout
    clock = 0
    stack: list[tuple[Block, int]] = [(order[0], 0)]
    while stack:
        b, i = stack.pop()
        if i == 0:
            tin[b] = clock
            clock += 1
        if i < len(kids[b]):
            stack.append((b, i + 1))
            stack.append((kids[b][i], 0))
        else:
            tout[b] = clock
            clock += 1
    return tin, tout


class Hoist(Pass):
    """Needs: verified SSA IR. Establishes: no cheap pure integer op sits inside a loop when its operands
    are defined outside it, nor in the arm of a conditional branch when its operands are available in the
    branching block. Run GVN afterwards to share the hoisted copies."""

    name = "hoist"

    def run(self, module: Module, ctx: PassContext) -> None:
        for fn in module.functions:
            self.hoist(fn)

    def hoist(self, fn: Function) -> None:
        order, idom = dom_preorder(fn)
        if not order:
            return
        entry = order[0]
        tin, tout = dom_intervals(order, idom)
        preds = fn.predecessor_map()
        depth = loop_depths(order, idom, preds)

        def limit(op: Op, b: Block) -> Block:
            """The highest block `op` may move to: the deepest block defining one of its operands (they
            all dominate `b` in SSA, so they lie on one dominator-tree path), the entry when it has none,
            `b` itself when an operand is defined nowhere the tree reaches."""
            lim = entry
            lim_in = tin[entry]
            b_in, b_out = tin[b], tout[b]
            for v in op.operands:
                d = v.op.block if v.__class__ is OpResult else v.defining_block  # type: ignore[attr-defined]
                d_in = tin.get(d) if d is not None else None
                if d_in is None or not (d_in <= b_in and b_out <= tout[d]):
                    return b
                if d_in > lim_in:
                    lim, lim_in = d, d_in
            return lim

        # Where an op goes: on the dominator-tree path from its block b up to its limit, the block of least
        # loop depth, the closest to b among equals. Walking the path per op was quadratic on long
        # straight-line code; instead jump from block to block of strictly smaller depth: `lower[x]` is
        # x's closest proper dominator of smaller loop depth (at most the loop nesting depth of jumps).
        level: dict[Block, int] = {entry: 0}
        lower: dict[Block, Block | None] = {entry: None}
        for x in order[1:]:
            p = idom.get(x)
            if p is None or p not in level:
                level[x], lower[x] = 0, None
                continue
            level[x] = level[p] + 1
            q: Block | None = p
            while q is not None and depth[q] >= depth[x]:
                q = lower[q]
            lower[x] = q

        def dest_of(b: Block, lim: Block) -> Block:
            best = b
            nxt = lower[b]
            while nxt is not None and level[nxt] >= level[lim]:
                best, nxt = nxt, lower[nxt]
            return best

        # Speculating out of an arm pays only when the same computation also appears in another arm
        # (GVN then shares them); alone it lengthens live ranges. Shapes: expression trees through
        # cheap ops, other values by identity.
        # Shapes are hash-consed to small integers: a shape as a nested tuple is a tree, exponential in
        # the depth of a DAG that reuses values (`v = (c ? v : v) << (v & 31)` repeated), and hashing it
        # walked the whole tree (fuzz campaign: 10 such lines took 9 s).
        memo: dict[Value, int] = {}  # (values hash by identity)
        interned: dict[tuple, int] = {}
        cheap_ops: dict[Op, bool] = {}  # `_cheap` of each op asked about (ops hash by identity)

        def cheap(op: Op) -> bool:
            c = cheap_ops.get(op)
            if c is None:
                c = cheap_ops[op] = _cheap(op)
            return c

        def shape(v: Value) -> int:
            got = memo.get(v)
            if got is None:
                if v.__class__ is OpResult and cheap(v.op):  # type: ignore[attr-defined]
                    o = v.op  # type: ignore[attr-defined]
                    key = (
                        o.name,
                        repr(sorted((k, value_key(x)) for k, x in o.attrs.items())) if o.attrs else "[]",
                        str(v.type),
                        *map(shape, o.operands),
                    )
                    got = interned.setdefault(key, len(interned) + 1)
                else:
                    got = -len(memo) - 1  # a value only equal to itself
                memo[v] = got
            return got

        arms: list[Block] = []
        for b in order[1:]:
            into = preds.get(id(b), [])
            if len(into) == 1 and into[0].name == "cbr" and into[0].block is idom.get(b):
                arms.append(b)
        shape_count: dict[int, int] = {}
        for b in arms:
            for sh in {shape(op.result) for op in b.ops if cheap(op)}:
                shape_count[sh] = shape_count.get(sh, 0) + 1
        arm_set = set(arms)

        # Ops moving into a block go in front of its terminator in the order they move; the insertions are
        # made at the end (a list insert per op), and `op.block` at once (later ops' limits read it). A
        # destination dominates the block an op leaves, so it was visited already.
        arrivals: dict[Block, list[Op]] = {}
        for b in order[1:]:
            arm = b in arm_set
            moved: list[Op] = []
            for op in b.ops:
                c = cheap_ops.get(op)  # (`cheap`, inline)
                if c is None:
                    c = cheap_ops[op] = _cheap(op)
                if not c:
                    continue
                lim = limit(op, b)
                dest = dest_of(b, lim)
                if dest is b and arm and lim is not b:
                    up = idom.get(b)
                    if up is not None and depth[up] == depth[b] and shape_count.get(shape(op.result), 0) > 1:
                        dest = up
                if dest is b:
                    continue
                moved.append(op)
                op.block = dest  # later ops see it moved
                got = arrivals.get(dest)
                if got is None:
                    arrivals[dest] = [op]
                else:
                    got.append(op)
            if moved:
                gone = {id(op) for op in moved}
                b.ops = [op for op in b.ops if id(op) not in gone]
        for dest, ops in arrivals.items():
            at = len(dest.ops) - 1 if dest.terminator is not None else len(dest.ops)
            dest.ops[at:at] = ops
        # `shape` is a recursive closure, so its cell and everything it reaches live until the cyclic
        # garbage collector runs: empty what it reaches now (ops are deleted by later passes)
        cheap_ops.clear()
        memo.clear()
        interned.clear()
