"""Control-flow facts for one function: reachability, reverse post-order, dominators, post-dominators
with a single virtual exit, control dependence (Ferrante, Ottenstein, Warren 1987), loops and their exits.

Why a virtual exit: a kernel ends a thread with `ret` (or aborts with `trap`) from several blocks. Joining
all of them at one `EXIT` node makes post-dominance a tree, so "B is control dependent on the branch at
the end of D" is one walk up that tree. An early `ret` under a divergent condition then makes everything
after the join control dependent on that condition, which is exactly the PARITY-114 shape.

Robustness choices (all conservative for the checks that consume these facts):
- Unreachable blocks are ignored: they never run, so no fact about them can matter.
- Blocks that cannot reach `EXIT` (infinite loops) get one virtual edge to `EXIT` from the last block, in
  reverse post-order, of every terminal strongly connected component. Choosing the latch-like last block
  keeps the body of `while (1) { ...; barrier(); }` post-dominated by its barrier (no false control
  dependence), while a branch *into* the infinite loop still controls whatever follows it.
- Edges into blocks that always end in `trap` are ignored for post-dominance: a trap aborts the whole
  grid, so threads that take it cannot leave the rest of the block waiting at a barrier. (`assert`-style
  guards must not make every later barrier "divergent".)
- Loops are found by recursive SCC decomposition (a loop nesting forest), which equals the natural loops
  on reducible graphs and still gives a sound nest (several headers) on irreducible ones.
"""

from __future__ import annotations

from collections.abc import Iterable

from irc import limits
from irc.ir.core import Block, Function
from irc.ir.graphs import (
    immediate_dominators,
    reverse_postorder,
    sink_components,
    strongly_connected_components,
)


class AnalysisBudgetExceeded(Exception):
    """The control-flow facts of one function would take more than `analysis_steps_per_block` steps per
    block (docs/limits.md): the analyzer reports the function as not analysed instead of running for
    minutes (quadratic shapes exist: thousands of branches that all target one far label)."""


class _Exit:
    """The virtual exit node; a singleton that sorts after every block."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "<EXIT>"


EXIT = _Exit()
Node = Block | _Exit


class Loop:
    """A cycle of the loop nesting forest: `headers` (one for natural loops) and its `blocks`."""

    __slots__ = ("headers", "blocks", "parent", "children", "exits", "depth", "memo")

    def __init__(self, headers: list[Block], blocks: set[Block], parent: Loop | None):
        self.headers = headers
        self.blocks = blocks
        self.parent = parent
        self.children: list[Loop] = []
        self.exits: list[tuple[Block, Block]] = []  # edges (inside, outside)
        self.depth = 0 if parent is None else parent.depth + 1
        self.memo: dict[str, object] = {}  # per-loop facts analyses compute once (e.g. "spin")

    @property
    def header(self) -> Block:
        return self.headers[0]

    @property
    def exiting_blocks(self) -> list[Block]:
        seen: dict[int, Block] = {}
        for u, _ in self.exits:
            seen.setdefault(id(u), u)
        return list(seen.values())

    def __contains__(self, b: object) -> bool:
        return b in self.blocks

    def __repr__(self) -> str:
        return f"<Loop header={self.header.label} blocks={len(self.blocks)}>"


def _distinct(blocks: Iterable[Block]) -> list[Block]:
    out: list[Block] = []
    seen: set[int] = set()
    for b in blocks:
        if id(b) not in seen:
            seen.add(id(b))
            out.append(b)
    return out


class CFG:
    """All control-flow facts of `fn`, computed eagerly (cheap: near-linear except control dependence,
    which is O(blocks x post-dominator depth))."""

    def __init__(self, fn: Function):
        self.fn = fn
        self.entry = fn.entry
        self.succs: dict[Block, list[Block]] = {}
        self.preds: dict[Block, list[Block]] = {}
        self.steps_left = limits.get("analysis_steps_per_block") * (len(fn.blocks) + 100)
        self._dom_iv: dict | None = None  # interval numbers of the (post-)dominator trees, on first query
        self._pdom_iv: dict | None = None
        self._compute_reachable()
        self._compute_dominators()
        self._compute_abort()
        self._compute_postdominators()
        self._compute_control_dependence()
        self._compute_loops()
        self._cd_closure: dict[Block, frozenset[Block]] = {}
        self._joins: dict[Block, list[Block]] = {}

    # -- basic structure ---------------------------------------------------------------------------
    def _compute_reachable(self) -> None:
        succ_cache: dict[Block, list[Block]] = {}

        def succs(b: Block) -> list[Block]:
            ss = succ_cache.get(b)
            if ss is None:
                ss = succ_cache[b] = _distinct(b.successors)
            return ss

        order = reverse_postorder(self.entry, succs)
        seen = set(order)
        self.rpo: list[Block] = order
        self.rpo_index: dict[Block, int] = {b: i for i, b in enumerate(order)}
        self.reachable: set[Block] = seen
        for b in order:
            self.succs[b] = succ_cache[b]
            self.preds.setdefault(b, [])
        for b in order:
            for s in self.succs[b]:
                self.preds[s].append(b)

    def is_reachable(self, b: Block) -> bool:
        return b in self.reachable

    def _compute_dominators(self) -> None:
        idom = immediate_dominators(self.entry, self.succs.__getitem__)
        self.idom: dict[Block, Block | None] = {b: idom.get(b) for b in self.rpo}

    def dominates(self, a: Block, b: Block) -> bool:
        """Whether `a` dominates `b` (reflexive). O(1): b's interval of the dominator tree nests in a's (a
        walk up the idom chain per query is quadratic on long straight-line code)."""
        iv = self._dom_iv
        if iv is None:
            iv = self._dom_iv = _tree_intervals(self.idom)
        if a is b:
            return True
        ia, ib = iv.get(a), iv.get(b)
        return ia is not None and ib is not None and ia[0] <= ib[0] and ib[1] <= ia[1]

    def _compute_abort(self) -> None:
        """Blocks from which every path ends in `trap` (backward fixpoint)."""
        abort: set[Block] = set()
        changed = True
        while changed:
            changed = False
            for b in reversed(self.rpo):
                if b in abort:
                    continue
                t = b.terminator
                ss = self.succs[b]
                if (t is not None and t.name == "trap") or (ss and all(s in abort for s in ss)):
                    abort.add(b)
                    changed = True
        self.abort: set[Block] = abort

    def exits_thread(self, b: Block) -> bool:
        """Whether `b` ends the thread (`ret`, `trap`, or no successors)."""
        t = b.terminator
        return t is None or t.name in ("ret", "trap") or not self.succs[b]

    # -- post-dominance ----------------------------------------------------------------------------
    def _pdom_succs(self, b: Block) -> list[Node]:
        ss: list[Node] = [s for s in self.succs[b] if b in self.abort or s not in self.abort]
        if self.exits_thread(b):
            ss.append(EXIT)
        return ss

    def _compute_postdominators(self) -> None:
        psucc: dict[Block, list[Node]] = {b: self._pdom_succs(b) for b in self.rpo}
        # which blocks reach EXIT?
        rpred: dict[Node, list[Block]] = {EXIT: []}
        for b in self.rpo:
            rpred.setdefault(b, [])
        for b, ss in psucc.items():
            for s in ss:
                rpred[s].append(b)
        reach = {EXIT}
        work: list[Node] = [EXIT]
        while work:
            n = work.pop()
            for p in rpred[n]:
                if p not in reach:
                    reach.add(p)
                    work.append(p)
        stuck = [b for b in self.rpo if b not in reach]
        self.fake_exit: set[Block] = set()
        if stuck:
            for members in sink_components(stuck, psucc.__getitem__):
                last = max(members, key=lambda x: self.rpo_index[x])
                self.fake_exit.add(last)
                psucc[last].append(EXIT)
        self.pdom_succs = psucc
        rsucc: dict[Node, list[Block]] = {EXIT: []}
        for b in self.rpo:
            rsucc.setdefault(b, [])
        for b, ss in psucc.items():
            for s in ss:
                rsucc[s].append(b)  # reversed
        ipdom = immediate_dominators(EXIT, rsucc.__getitem__)
        self.ipdom: dict[Node, Node | None] = {b: ipdom.get(b) for b in self.rpo}
        self.ipdom[EXIT] = None

    def post_dominates(self, a: Node, b: Node) -> bool:
        """Whether `a` post-dominates `b` (reflexive); O(1) like `dominates`."""
        iv = self._pdom_iv
        if iv is None:
            iv = self._pdom_iv = _tree_intervals(self.ipdom)
        if a is b:
            return True
        ia, ib = iv.get(a), iv.get(b)
        return ia is not None and ib is not None and ia[0] <= ib[0] and ib[1] <= ia[1]

    # -- control dependence ------------------------------------------------------------------------
    def _compute_control_dependence(self) -> None:
        """cd[B] = the blocks D such that B is control dependent on D's terminator (Ferrante et al.)."""
        cd: dict[Block, list[Block]] = {b: [] for b in self.rpo}
        have: set[tuple[int, int]] = set()  # (runner, d) pairs already in cd: list membership is linear
        for d in self.rpo:
            ss = _distinct_nodes(self.pdom_succs[d])
            if len(ss) < 2:
                continue
            stop = self.ipdom[d]
            for s in ss:
                runner: Node | None = s
                while runner is not None and runner is not stop and runner is not EXIT:
                    self.spend()
                    if (id(runner), id(d)) not in have:
                        have.add((id(runner), id(d)))
                        cd[runner].append(d)  # type: ignore[index]
                    runner = self.ipdom.get(runner)
        self.cd = cd

    def spend(self, steps: int = 1) -> None:
        """Count analysis work against the function's budget (`AnalysisBudgetExceeded` when spent)."""
        self.steps_left -= steps
        if self.steps_left < 0:
            raise AnalysisBudgetExceeded(self.fn.name)

    def cd_closure(self, b: Block) -> frozenset[Block]:
        """The branch blocks `b` is transitively control dependent on."""
        r = self._cd_closure.get(b)
        if r is not None:
            return r
        seen: set[Block] = set()
        work = list(self.cd.get(b, ()))
        while work:
            d = work.pop()
            if d in seen:
                continue
            seen.add(d)
            cached = self._cd_closure.get(d)
            if cached is not None:
                self.spend(len(cached))
                seen |= cached
                continue
            self.spend()
            work.extend(self.cd.get(d, ()))
        r = frozenset(seen)
        self._cd_closure[b] = r
        return r

    def dependents(self) -> dict[Block, set[Block]]:
        """Inverse of `cd_closure`: branch block -> blocks transitively control dependent on it."""
        out: dict[Block, set[Block]] = {}
        for b in self.rpo:
            for d in self.cd_closure(b):
                out.setdefault(d, set()).add(b)
        return out

    # -- sync dependence ---------------------------------------------------------------------------
    def joins(self, d: Block) -> list[Block]:
        """The join blocks of the branch at the end of `d`: blocks reached from two different successors
        of `d` by paths that first meet there (where values flowing from the arms merge). Label propagation
        as in LLVM's SyncDependenceAnalysis: each successor starts its own label, a block seeing two labels is
        a join and starts a label of its own. Propagation stops at the immediate post-dominator of `d` (every
        later block is reached through it) and never re-enters `d`."""
        r = self._joins.get(d)
        if r is not None:
            return r
        ss = self.succs.get(d, [])
        if len(ss) < 2:
            self._joins[d] = []
            return []
        stop = self.ipdom.get(d)
        label: dict[Block, Block] = {}
        joins: set[Block] = set()
        work = list(ss)
        budget = 8 * (len(self.rpo) + 4) * (len(ss) + 1)
        while work:
            self.spend()
            budget -= 1
            if budget < 0:  # pathological: be conservative, every merge point is a join
                joins = {b for b in label if len(self.preds[b]) > 1}
                break
            b = work.pop()
            incoming: set[Block] = set()
            for p in self.preds[b]:
                if p is d:
                    incoming.add(b)
                elif p in label:
                    incoming.add(label[p])
            if not incoming:
                continue
            if len(incoming) > 1 or b in joins:
                joins.add(b)
                new = b
            else:
                (new,) = incoming
            if label.get(b) is new:
                continue
            label[b] = new
            if b is stop:
                continue
            for s in self.succs[b]:
                if s is not d:
                    work.append(s)
        out = sorted(joins, key=self.rpo_index.__getitem__)
        self._joins[d] = out
        return out

    # -- loops -------------------------------------------------------------------------------------
    def _compute_loops(self) -> None:
        self.loops: list[Loop] = []
        self.loop_of: dict[Block, Loop | None] = {b: None for b in self.rpo}
        self._find_loops(set(self.rpo), set(), None)
        for lp in self.loops:
            for b in lp.blocks:
                cur = self.loop_of[b]
                if cur is None or lp.depth > cur.depth:
                    self.loop_of[b] = lp
            for u in sorted(lp.blocks, key=self.rpo_index.__getitem__):
                for s in self.succs[u]:
                    if s not in lp.blocks:
                        lp.exits.append((u, s))

    def _find_loops(self, nodes: set[Block], cut: set[tuple[Block, Block]], parent: Loop | None) -> None:
        inner: dict[Block, list[Block]] = {
            u: [s for s in self.succs[u] if s in nodes and (u, s) not in cut] for u in nodes
        }
        for comp in strongly_connected_components(
            sorted(nodes, key=self.rpo_index.__getitem__), inner.__getitem__
        ):
            if len(comp) == 1:
                (n,) = tuple(comp)
                if n not in inner[n]:
                    continue
            comp = set(comp)
            headers = [b for b in comp if b is self.entry or any(p not in comp for p in self.preds[b])]
            if not headers:  # entered only through a cut edge of the parent: its parent's header
                headers = [min(comp, key=self.rpo_index.__getitem__)]
            headers.sort(key=self.rpo_index.__getitem__)
            lp = Loop(headers, comp, parent)
            if parent is not None:
                parent.children.append(lp)
            self.loops.append(lp)
            hs = set(headers)
            inner_cut = set(cut) | {(u, h) for u in comp for h in self.succs[u] if h in hs}
            self._find_loops(comp, inner_cut, lp)

    def latches(self, lp: Loop) -> list[Block]:
        """The blocks of `lp` with an edge back to its header."""
        return [p for p in self.preds.get(lp.header, []) if p in lp.blocks]

    def loops_containing(self, b: Block) -> list[Loop]:
        """Loops containing `b`, innermost first."""
        out = []
        lp = self.loop_of.get(b)
        while lp is not None:
            out.append(lp)
            lp = lp.parent
        return out

    def union_fixpoint(self, transfer) -> dict[Block, frozenset]:  # type: ignore[no-untyped-def]
        """The state at the start of each reachable block of a forward may-analysis whose states are sets
        merged by union: `transfer(block, state, None)` returns the state after the block (it may change
        the set it is given). Checks then run `transfer` once more per block with a list to report into."""
        state_in: dict[Block, frozenset] = {self.entry: frozenset()}
        changed = True
        rounds = 0
        while changed and rounds < 60:
            changed = False
            rounds += 1
            for b in self.rpo:
                if b not in state_in:
                    continue
                out = transfer(b, set(state_in[b]), None)
                for s in self.succs.get(b, []):
                    old = state_in.get(s, frozenset())
                    new = old | frozenset(out)
                    if s not in state_in or new != old:
                        state_in[s] = new
                        changed = True
        return state_in


def _distinct_nodes(nodes: list[Node]) -> list[Node]:
    out: list[Node] = []
    for n in nodes:
        if not any(n is o for o in out):
            out.append(n)
    return out


def _tree_intervals(parent: dict) -> dict:
    """node -> (preorder, postorder) numbers of the tree given by `parent` (roots map to None): `a` is an
    ancestor of `b` (or `b` itself) iff b's interval nests in a's. Iterative, so deep trees are fine."""
    kids: dict = {}
    roots = []
    for n, p in parent.items():
        if p is None:
            roots.append(n)
        else:
            kids.setdefault(p, []).append(n)
    out: dict = {}
    clock = 0
    for r in roots:
        pre = {r: clock}
        stack = [(r, iter(kids.get(r, ())))]
        while stack:
            node, it = stack[-1]
            child = next(it, None)
            if child is None:
                stack.pop()
                clock += 1
                out[node] = (pre[node], clock)
            else:
                clock += 1
                pre[child] = clock
                stack.append((child, iter(kids.get(child, ()))))
        clock += 1
    return out
