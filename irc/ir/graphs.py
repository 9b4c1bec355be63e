"""Graph algorithms on control-flow graphs: reverse postorder, dominators, the weak topological order,
strongly connected components. The one implementation of each in irc (the IR adapters are in
`irc.ir.order`, the emulator's block order is `weak_topological_order`).

Why not networkx: importing it costs about 0.1 s per process, more than compiling a small kernel, and these
two algorithms are all the compiler needs. Both are iterative (no recursion limit on deep CFGs) and linear
or near linear. networkx stays in the tests as the reference they are checked against.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable
from typing import TypeVar

N = TypeVar("N", bound=Hashable)

__all__ = [
    "reverse_postorder",
    "immediate_dominators",
    "dominator_tree_preorder",
    "weak_topological_order",
    "strongly_connected_components",
    "sink_components",
]


def reverse_postorder(entry: N, succs: Callable[[N], Iterable[N]]) -> list[N]:
    """The nodes reachable from `entry` in reverse postorder of a depth-first search (successors visited in
    the order `succs` gives them)."""
    seen = {entry}
    post: list[N] = []
    stack = [(entry, iter(succs(entry)))]
    while stack:
        node, it = stack[-1]
        for s in it:
            if s not in seen:
                seen.add(s)
                stack.append((s, iter(succs(s))))
                break
        else:
            stack.pop()
            post.append(node)
    post.reverse()
    return post


def immediate_dominators(
    entry: N, succs: Callable[[N], Iterable[N]], order: list[N] | None = None
) -> dict[N, N | None]:
    """node -> its immediate dominator, for every node reachable from `entry` (`entry` maps to None).
    `order`, when the caller has it, is `reverse_postorder(entry, succs)` (not recomputed).

    Cooper, Harvey and Kennedy, "A Simple, Fast Dominance Algorithm": iterate `idom` over the reverse
    postorder, intersecting the dominator-tree paths of the processed predecessors, until nothing changes
    (two or three sweeps on reducible graphs)."""
    if order is None:
        order = reverse_postorder(entry, succs)
    index = {n: i for i, n in enumerate(order)}
    preds: list[list[int]] = [[] for _ in order]
    for i, n in enumerate(order):
        for s in succs(n):
            j = index.get(s)
            if j is not None:
                preds[j].append(i)
    idom = [-1] * len(order)
    idom[0] = 0
    changed = True
    while changed:
        changed = False
        for b in range(1, len(order)):
            new = -1
            for p in preds[b]:
                if idom[p] < 0:
                    continue
                if new < 0:
                    new = p
                    continue
                a, c = p, new
                while a != c:
                    while a > c:
                        a = idom[a]
                    while c > a:
                        c = idom[c]
                new = a
            if new != idom[b]:
                idom[b] = new
                changed = True
    out: dict[N, N | None] = {n: order[idom[i]] for i, n in enumerate(order)}
    out[entry] = None
    return out


def dominator_tree_preorder(order: list[N], idom: dict[N, N | None]) -> list[N]:
    """The dominator tree's preorder, children in the order of `order` (a reverse postorder whose first
    node is the root). Colouring SSA definitions in this order is a perfect elimination order."""
    children: dict[N, list[N]] = {n: [] for n in order}
    for n in order[1:]:
        children[idom[n]].append(n)  # type: ignore[index]
    out: list[N] = []
    stack = [order[0]]
    while stack:
        n = stack.pop()
        out.append(n)
        stack.extend(reversed(children[n]))
    return out


def weak_topological_order(entry: int, succ: list[list[int]]) -> list[int]:
    """Bourdoncle's weak topological order of the nodes reachable from `entry`, flattened: a reverse
    postorder in which every loop is contiguous (its head first, the nodes after the loop after the whole
    body). `succ[v]` is visited in the order given.

    Bourdoncle ("Efficient chaotic iteration strategies with widenings", 1993) states it as two mutually
    recursive procedures; here they are generators driven by an explicit stack, so depth is bounded by
    memory, not by the interpreter's recursion limit, and the order is exactly the recursive one."""
    inf = 1 << 62
    dfn = [0] * len(succ)
    stack: list[int] = []
    num = 0

    def visit(v: int, part: list):
        nonlocal num
        stack.append(v)
        num += 1
        dfn[v] = head = num
        loop = False
        for w in succ[v]:
            mn = (yield ("visit", w, part)) if dfn[w] == 0 else dfn[w]
            if mn <= head:
                head, loop = mn, True
        if head == dfn[v]:
            dfn[v] = inf
            e = stack.pop()
            if loop:
                while e != v:
                    dfn[e] = 0
                    e = stack.pop()
                part.insert(0, (yield ("component", v, None)))
            else:
                part.insert(0, v)
        return head

    def component(v: int, _unused: object):
        part: list = []
        for w in succ[v]:
            if dfn[w] == 0:
                yield ("visit", w, part)
        return [v, *part]

    top: list = []
    frames = [visit(entry, top)]
    value = None
    while frames:
        try:
            kind, node, arg = frames[-1].send(value)
        except StopIteration as done:
            frames.pop()
            value = done.value
            continue
        frames.append((visit if kind == "visit" else component)(node, arg))
        value = None
    out: list[int] = []
    work: list = [iter(top)]
    while work:  # flatten the nested components
        for x in work[-1]:
            if isinstance(x, list):
                work.append(iter(x))
                break
            out.append(x)
        else:
            work.pop()
    return out


def strongly_connected_components(nodes: Iterable[N], succs: Callable[[N], Iterable[N]]) -> list[set[N]]:
    """The strongly connected components of the graph on `nodes` (edges to nodes outside it are ignored),
    sinks first (Tarjan's algorithm, iterative)."""
    nodes = list(nodes)
    inside = set(nodes)
    index: dict[N, int] = {}
    low: dict[N, int] = {}
    stack: list[N] = []
    on: set[N] = set()
    out: list[set[N]] = []
    for root in nodes:
        if root in index:
            continue
        index[root] = low[root] = len(index)
        stack.append(root)
        on.add(root)
        work = [(root, iter(succs(root)))]
        while work:
            v, it = work[-1]
            for w in it:
                if w not in inside:
                    continue
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(succs(w))))
                    break
                if w in on and index[w] < low[v]:
                    low[v] = index[w]
            else:
                work.pop()
                if work:
                    u = work[-1][0]
                    if low[v] < low[u]:
                        low[u] = low[v]
                if low[v] == index[v]:
                    comp: set[N] = set()
                    while True:
                        w = stack.pop()
                        on.discard(w)
                        comp.add(w)
                        if w is v or w == v:
                            break
                    out.append(comp)
    return out


def sink_components(nodes: Iterable[N], succs: Callable[[N], Iterable[N]]) -> list[set[N]]:
    """The strongly connected components that no edge leaves (within `nodes`): the sinks of the
    condensation."""
    nodes = list(nodes)
    comps = strongly_connected_components(nodes, succs)
    of = {n: i for i, c in enumerate(comps) for n in c}
    return [c for i, c in enumerate(comps) if all(of.get(s, i) == i for n in c for s in succs(n))]
