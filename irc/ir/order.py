"""Block orders of a function: reverse post-order and the dominator-tree preorder, as adapters from the IR
to the one implementation of each in `irc.ir.graphs`.

Why in `irc.ir`: the optimization passes (GVN walks the dominator tree) and the backend (liveness, the
chordal allocator's perfect elimination order) both need them, and the passes must not import the backend.
"""

from __future__ import annotations

from irc.ir import graphs
from irc.ir.core import Block, Function

__all__ = ["reverse_postorder", "dominator_preorder"]


def _succs(b: Block) -> list[Block]:
    return b.successors


def reverse_postorder(fn: Function) -> list[Block]:
    """Blocks reachable from the entry in reverse post-order (successors visited in terminator order)."""
    return graphs.reverse_postorder(fn.entry, _succs)


def dominator_preorder(fn: Function, rpo: list[Block]) -> tuple[list[Block], dict[Block, Block | None]]:
    """The dominator-tree preorder (children in RPO order) and the immediate-dominator map of the blocks
    in `rpo` (`reverse_postorder(fn)`). Colouring definitions in this order is a perfect elimination
    order."""
    idom = graphs.immediate_dominators(rpo[0], _succs, rpo)
    return graphs.dominator_tree_preorder(rpo, idom), idom
