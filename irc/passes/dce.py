"""Dead-code elimination: pure ops whose results are unused, and unused arguments of non-entry blocks.

Only ops with the `pure` trait are removed (loads may trap, atomics and barriers have effects); removing
an op can make its operands dead, so a worklist runs to a fixpoint.
"""

from __future__ import annotations

from irc.ir.core import Function, Module, OpResult
from irc.passes.manager import Pass, PassContext


class DCE(Pass):
    """Needs: verified IR. Establishes: every pure op has a used result; every non-entry block argument
    is used."""

    name = "dce"

    def run(self, module: Module, ctx: PassContext) -> None:
        for fn in module.functions:
            self.run_function(fn)

    def run_function(self, fn: Function) -> None:
        work = [op for op in fn.ops()]
        while work:
            op = work.pop()
            if op.block is None or not op.has_trait("pure") or op.has_trait("terminator"):
                continue
            if any(r.uses for r in op.results):
                continue
            operands = list(op.all_operands())
            op.erase()
            for v in operands:
                if isinstance(v, OpResult) and v.op.block is not None and not v.uses:
                    work.append(v.op)
        changed = True
        while changed:
            changed = False
            preds_of = fn.predecessor_map()  # removing arguments leaves the CFG as it is
            for b in fn.blocks[1:]:
                for i in range(len(b.args) - 1, -1, -1):
                    if not b.args[i].uses:
                        b.remove_arg(i, preds_of.get(id(b), []))
                        changed = True
            if changed:
                self._sweep(fn)

    def _sweep(self, fn: Function) -> None:
        for op in reversed(list(fn.ops())):
            if op.block is not None and op.has_trait("pure") and not op.has_trait("terminator"):
                if not any(r.uses for r in op.results):
                    op.erase()
