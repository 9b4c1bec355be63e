"""Global value numbering (dominator-scoped CSE): a pure op equal to one that dominates it -- same name,
attributes, result types and operands (sorted for commutative ops) -- reuses the dominating result.

Walks the dominator tree in preorder with a scoped table, so only dominating definitions are reused and
SSA dominance is preserved. Warp-collective ops are excluded (their result depends on which lanes
execute them together, which differs between program points).
"""

from __future__ import annotations

from irc.ir.core import Block, Function, Module, Op, Value
from irc.passes.manager import Pass, PassContext
from irc.passes.util import dom_preorder


def _freeze(v: object) -> object:
    if isinstance(v, list):
        return tuple(_freeze(x) for x in v)
    if isinstance(v, float):
        return ("f", repr(v))  # -0.0 and 0.0, nan: distinct keys
    return v


class GVN(Pass):
    """Needs: verified SSA IR. Establishes: no pure, non-collective op is equal to a dominating one."""

    name = "gvn"

    def run(self, module: Module, ctx: PassContext) -> None:
        for fn in module.functions:
            self.run_function(fn)

    def run_function(self, fn: Function) -> None:
        order, idom = dom_preorder(fn)
        num: dict[Value, int] = {}
        for b in fn.blocks:
            for a in b.args:
                num[a] = len(num)
            for op in b.ops:
                for r in op.results:
                    num[r] = len(num)
        # One scoped table with an undo log per dominator-tree node (entering a block adds its keys,
        # leaving it removes them): copying the table per block is quadratic on deep dominator trees.
        kids: dict[Block, list[Block]] = {}
        roots = []
        for b in order:
            parent = idom[b]
            if parent is None:
                roots.append(b)
            else:
                kids.setdefault(parent, []).append(b)
        table: dict = {}
        for root in roots:
            stack: list[tuple[Block, list | None]] = [(root, None)]
            while stack:
                b, added = stack.pop()
                if added is not None:  # leaving b
                    for key in added:
                        del table[key]
                    continue
                added = []
                dead: set[int] = set()
                for op in b.ops:
                    key = self.key(op, num)
                    if key is None:
                        continue
                    prev = table.get(key)
                    if prev is not None:
                        for r, pr in zip(op.results, prev.results):
                            r.replace_all_uses_with(pr)
                        op.drop_operands()  # erased below in one sweep: one list search per op was
                        op.block = None  # quadratic on blocks of thousands of ops
                        dead.add(id(op))
                    else:
                        table[key] = op
                        added.append(key)
                if dead:
                    b.ops = [op for op in b.ops if id(op) not in dead]
                stack.append((b, added))
                for k in reversed(kids.get(b, [])):
                    stack.append((k, None))

    @staticmethod
    def key(op: Op, num: dict[Value, int]) -> tuple | None:
        if not op.has_trait("pure") or op.has_trait("warp_collective") or op.has_trait("terminator"):
            return None
        ids = [num.get(v, -1) for v in op.operands]
        if op.has_trait("commutative"):
            ids.sort()
        attrs = tuple(sorted((k, _freeze(v)) for k, v in op.attrs.items()))
        return (op.name, tuple(ids), attrs, tuple(str(r.type) for r in op.results))
