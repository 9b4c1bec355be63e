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

from irc.ir.core import Block, Function, Module, Op, OpResult, Value
from irc.ir.types import ScalarType
from irc.passes.manager import Pass, PassContext
from irc.passes.util import dom_preorder

_NEVER = frozenset({"div", "rem", "undef", "copy"})


def _cheap(op: Op) -> bool:
    if op.name in _NEVER or len(op.results) != 1 or op.successors or not op.has_trait("pure"):
        return False
    for v in (op.result, *op.operands):
        t = v.type
        if isinstance(t, ScalarType) and t.is_float:
            return False
    return True


def loop_depths(
    blocks: list[Block], idom: dict[Block, Block | None], preds: dict[int, list[Op]]
) -> dict[Block, int]:
    """Natural-loop nesting depth of each block (back edges are edges to a dominator); `preds` is
    `Function.predecessor_map()`."""
    depth = dict.fromkeys(blocks, 0)
    pos = {b: i for i, b in enumerate(blocks)}

    def dominates(a: Block, b: Block) -> bool:
        while True:
            if a is b:
                return True
            up = idom.get(b)
            if up is None or up is b:
                return False
            b = up

    for b in blocks:
        for h in b.successors:
            if h in pos and dominates(h, b):
                body = {h}
                work = [b]
                while work:
                    x = work.pop()
                    if x in body or x not in pos:
                        continue
                    body.add(x)
                    work.extend(t.block for t in preds.get(id(x), []) if t.block is not None)
                for x in body:
                    depth[x] += 1
    return depth


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
        # dominator-tree intervals: a dominates b iff tin[a] <= tin[b] and tout[b] <= tout[a]
        kids: dict[Block, list[Block]] = {b: [] for b in order}
        for b in order[1:]:
            p = idom.get(b)
            if p is not None:
                kids[p].append(b)
        tin: dict[Block, int] = {}
        tout: dict[Block, int] = {}
        clock = 0
        stack: list[tuple[Block, int]] = [(entry, 0)]
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
        preds = fn.predecessor_map()
        depth = loop_depths(order, idom, preds)

        def available(op: Op, at: Block) -> bool:
            for v in op.operands:
                d = v.defining_block
                if d is None or d not in tin:
                    return False
                if not (tin[d] <= tin[at] and tout[at] <= tout[d]):
                    return False
            return True

        # Speculating out of an arm pays only when the same computation also appears in another arm
        # (GVN then shares them); alone it lengthens live ranges. Shapes: expression trees through
        # cheap ops, other values by identity.
        memo: dict[int, object] = {}

        def shape(v: Value) -> object:
            got = memo.get(id(v))
            if got is None:
                if isinstance(v, OpResult) and _cheap(v.op):
                    o = v.op
                    got = (
                        o.name,
                        repr(sorted(o.attrs.items())),
                        str(v.type),
                        *(shape(x) for x in o.operands),
                    )
                else:
                    got = id(v)
                memo[id(v)] = got
            return got

        arms: list[Block] = []
        for b in order[1:]:
            into = preds.get(id(b), [])
            if len(into) == 1 and into[0].name == "cbr" and into[0].block is idom.get(b):
                arms.append(b)
        shape_count: dict[object, int] = {}
        for b in arms:
            for sh in {shape(op.result) for op in b.ops if _cheap(op)}:
                shape_count[sh] = shape_count.get(sh, 0) + 1
        arm_set = set(arms)

        for b in order[1:]:
            arm = b in arm_set
            moved: list[Op] = []
            for op in b.ops:
                if not _cheap(op):
                    continue
                chain = [b]
                while True:
                    up = idom.get(chain[-1])
                    if up is None or up is chain[-1] or not available(op, up):
                        break
                    chain.append(up)
                best = min(range(len(chain)), key=lambda i: (depth[chain[i]], i))
                if best == 0 and arm and len(chain) > 1 and depth[chain[1]] == depth[b]:
                    if shape_count.get(shape(op.result), 0) > 1:
                        best = 1
                if best == 0:
                    continue
                moved.append(op)
                chain[best].insert_before_terminator(op)  # sets op.block: later ops see it moved
            if moved:
                gone = {id(op) for op in moved}
                b.ops = [op for op in b.ops if id(op) not in gone]
