"""Dead-code elimination: pure ops whose results are unused, and unused arguments of non-entry blocks.

Only ops with the `pure` trait are removed (loads may trap, atomics and barriers have effects); removing
an op can make its operands dead, so a worklist runs to a fixpoint.
"""

from __future__ import annotations

from irc.ir.core import Block, BlockArg, Function, Module, Op, OpResult
from irc.passes.manager import Pass, PassContext


class DCE(Pass):
    """Needs: verified IR. Establishes: every pure op has a used result; every non-entry block argument
    is used."""

    name = "dce"

    def run(self, module: Module, ctx: PassContext) -> None:
        for fn in module.functions:
            self.run_function(fn)

    def run_function(self, fn: Function) -> None:
        """One worklist for both kinds of dead code: erasing an op or an argument drops the uses of what
        fed it, and only those values are looked at again (a sweep of the whole function per round of
        argument removal was quadratic: 4,000 blocks of nested ifs took 40 s)."""
        work: list[Op] = list(fn.ops())
        blocks: list[Block] = list(fn.blocks[1:])
        queued = {id(b) for b in blocks}
        preds_of = fn.predecessor_map()  # removing arguments leaves the CFG as it is

        def dropped(v: object) -> None:
            if isinstance(v, OpResult):
                if v.op.block is not None and not v.uses:
                    work.append(v.op)
            elif isinstance(v, BlockArg) and not v.uses and v.block is not fn.entry:
                if id(v.block) not in queued:
                    queued.add(id(v.block))
                    blocks.append(v.block)

        # erased ops leave their blocks' lists in one sweep at the end (a list search per erased op was
        # quadratic in the size of a block); meanwhile `op.block is None` marks them
        erased: set[int] = set()
        touched: dict[int, Block] = {}
        while work or blocks:
            while work:
                op = work.pop()
                if op.block is None or not op.has_trait("pure") or op.has_trait("terminator"):
                    continue
                if any(r.uses for r in op.results):
                    continue
                operands = list(op.all_operands())
                op.drop_operands()
                touched[id(op.block)] = op.block
                erased.add(id(op))
                op.block = None
                for v in operands:
                    dropped(v)
            while blocks:
                b = blocks.pop()
                queued.discard(id(b))
                preds = preds_of.get(id(b), [])
                for i in range(len(b.args) - 1, -1, -1):
                    if b.args[i].uses:
                        continue
                    incoming = [
                        args[i] for t in preds for s, args in zip(t.successors, t.succ_args) if s is b
                    ]
                    b.remove_arg(i, preds)
                    for v in incoming:
                        dropped(v)
        for b in touched.values():
            b.ops[:] = [op for op in b.ops if id(op) not in erased]
