"""Copy propagation: uses of `copy` results read the source instead, and trivial block arguments (every
incoming value is the same value, or the argument itself) are replaced by that value and removed.

A trivial argument's single incoming value dominates every predecessor, hence the block, so replacing
it keeps SSA dominance.
"""

from __future__ import annotations

from irc.ir.core import Function, Module
from irc.passes.manager import Pass, PassContext


class CopyProp(Pass):
    """Needs: verified IR. Establishes: no used `copy` results; no trivial block arguments."""

    name = "copyprop"

    def run(self, module: Module, ctx: PassContext) -> None:
        for fn in module.functions:
            for op in list(fn.ops()):
                if op.name == "copy" and op.operands[0].type == op.result.type:
                    op.result.replace_all_uses_with(op.operands[0])
            self.trivial_args(fn)

    def trivial_args(self, fn: Function) -> None:
        changed = True
        while changed:
            changed = False
            preds_of = fn.predecessor_map()  # removing arguments leaves the CFG as it is
            for b in fn.blocks[1:]:
                preds = preds_of.get(id(b), [])
                if not preds:
                    continue
                for i in range(len(b.args) - 1, -1, -1):
                    a = b.args[i]
                    incoming = set()
                    same = None
                    for t in preds:
                        for s, succ in enumerate(t.successors):
                            if succ is b:
                                v = t.succ_args[s][i]
                                if v is not a:
                                    incoming.add(id(v))
                                    same = v
                    if len(incoming) == 1 and same is not None:
                        a.replace_all_uses_with(same)
                        b.remove_arg(i, preds)
                        changed = True
