"""CFG simplification: constant conditional branches become branches, a `cbr` whose two edges are equal
becomes a `br`, unreachable blocks are deleted, and a block with a single predecessor that ends in a
plain `br` to it is merged into that predecessor (its arguments replaced by the branch's values).
"""

from __future__ import annotations

from irc.ir.builder import Builder
from irc.ir.core import Function, Module
from irc.passes.manager import Pass, PassContext
from irc.passes.util import const_value, is_const, reachable


class SimplifyCFG(Pass):
    """Needs: verified IR. Establishes: every block is reachable; no `cbr` on a constant; no block is the
    only successor of its only predecessor."""

    name = "simplify-cfg"

    def run(self, module: Module, ctx: PassContext) -> None:
        for fn in module.functions:
            changed = True
            while changed:
                changed = self.fold_branches(fn) | self.remove_unreachable(fn) | self.merge(fn)

    def fold_branches(self, fn: Function) -> bool:
        changed = False
        for b in fn.blocks:
            t = b.terminator
            if t is None or t.name != "cbr":
                continue
            c = t.operands[0]
            if is_const(c):
                k = 0 if const_value(c) else 1
            elif t.successors[0] is t.successors[1] and all(
                x is y for x, y in zip(t.succ_args[0], t.succ_args[1])
            ):
                k = 0
            else:
                continue
            dest, args = t.successors[k], list(t.succ_args[k])
            span = t.span
            t.erase()
            Builder(b, span).br(dest, args)
            changed = True
        return changed

    def remove_unreachable(self, fn: Function) -> bool:
        live = {id(b) for b in reachable(fn)}
        dead = [b for b in fn.blocks if id(b) not in live]
        for b in dead:
            for op in b.ops:
                op.drop_operands()
        for b in dead:
            for op in b.ops:
                for r in op.results:
                    r.uses.clear()
            for a in b.args:
                a.uses.clear()
            b.function = None
        if dead:
            fn.blocks[:] = [b for b in fn.blocks if id(b) in live]
        return bool(dead)

    def merge(self, fn: Function) -> bool:
        """Merge every block into its only predecessor when that ends in `br`, in one sweep over one
        predecessor map (a merge moves terminator ops between blocks, which the map survives)."""
        preds_of = fn.predecessor_map()
        merged: set[int] = set()
        for b in list(fn.blocks[1:]):
            preds = preds_of.get(id(b), [])
            if len(preds) != 1:
                continue
            t = preds[0]
            p = t.block
            if t.name != "br" or p is b or p is None:
                continue
            for a, v in zip(b.args, t.succ_args[0]):
                a.replace_all_uses_with(v)
            t.erase()
            for op in list(b.ops):
                op.block = p
                p.ops.append(op)
            b.ops = []
            b.args = []
            b.function = None
            merged.add(id(b))
        if merged:  # one rebuild of the block list (a `remove` per merge is quadratic)
            fn.blocks[:] = [b for b in fn.blocks if id(b) not in merged]
        return bool(merged)
