"""Block orders of a function: reverse post-order and the dominator-tree preorder.

Why in `irc.ir`: the optimization passes (GVN walks the dominator tree) and the backend (liveness, the
chordal allocator's perfect elimination order) both need them, and the passes must not import the backend.
"""

from __future__ import annotations

from irc.ir.core import Block, Function

__all__ = ["reverse_postorder", "dominator_preorder"]


def reverse_postorder(fn: Function) -> list[Block]:
    """Blocks reachable from the entry in reverse post-order (successors visited in terminator order)."""
    seen: set[int] = set()
    post: list[Block] = []
    entry = fn.entry
    stack: list[tuple[Block, list[Block], int]] = [(entry, entry.successors, 0)]
    seen.add(id(entry))
    while stack:
        b, succs, i = stack[-1]
        if i < len(succs):
            stack[-1] = (b, succs, i + 1)
            s = succs[i]
            if id(s) not in seen:
                seen.add(id(s))
                stack.append((s, s.successors, 0))
        else:
            stack.pop()
            post.append(b)
    return post[::-1]


def dominator_preorder(fn: Function, rpo: list[Block]) -> tuple[list[Block], dict[Block, Block | None]]:
    """Cooper-Harvey-Kennedy immediate dominators; returns the dominator-tree preorder (children in RPO
    order) and the idom map. Colouring definitions in this order is a perfect elimination order."""
    index = {b: i for i, b in enumerate(rpo)}
    preds: dict[Block, list[Block]] = {b: [] for b in rpo}
    for b in rpo:
        for s in b.successors:
            if s in preds and b not in preds[s]:
                preds[s].append(b)
    idom: dict[Block, Block | None] = {rpo[0]: rpo[0]}
    changed = True
    while changed:
        changed = False
        for b in rpo[1:]:
            new: Block | None = None
            for p in preds[b]:
                if p not in idom:
                    continue
                if new is None:
                    new = p
                    continue
                a, c = p, new
                while a is not c:
                    while index[a] > index[c]:
                        a = idom[a]  # type: ignore[assignment]
                    while index[c] > index[a]:
                        c = idom[c]  # type: ignore[assignment]
                new = a
            if new is not None and idom.get(b) is not new:
                idom[b] = new
                changed = True
    children: dict[Block, list[Block]] = {b: [] for b in rpo}
    for b in rpo[1:]:
        children[idom[b]].append(b)  # type: ignore[index]
    order: list[Block] = []
    stack = [rpo[0]]
    while stack:
        b = stack.pop()
        order.append(b)
        stack.extend(reversed(children[b]))
    out_idom: dict[Block, Block | None] = {b: (None if b is rpo[0] else idom[b]) for b in rpo}
    return order, out_idom
