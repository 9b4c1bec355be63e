"""Boolean join arguments that restate a branch condition: `cbr c, A, J(false); A: br J(true)` (what a
short-circuit `c && true` or `c || false` leaves once the constant side has folded) passes `c` itself to
`J`. The argument is replaced by `c` (or `not c` when the constants are the other way round). Then any
`cbr` whose two edges reach one block with equal arguments, directly or through an empty forwarding
block (SimplifyCFG only folds the direct case), becomes a `br`.

Why: every such diamond became a branch and two predicate moves in the PTX, and ptxas if-converts 64 of
them (one per masked score of an unrolled softmax) into code that keeps more registers live than the
plain `setp` (issue 15: `examples/fmha_sm100.kdsl`).

Soundness: the join has exactly two incoming edges, one on each side of the same `cbr`, each either the
`cbr`'s own edge or the only edge into a block the `cbr` is the only way into. So the join is reached only
through that `cbr` (its block dominates the join, and so does `c`), and which edge was taken is exactly
the value of `c`.
"""

from __future__ import annotations

from irc.ir.builder import Builder
from irc.ir.core import Block, Function, Module, Op, Value
from irc.ir.types import BOOL
from irc.passes.manager import Pass, PassContext
from irc.passes.util import const_value, is_const

# Ops a side block may hold to be executed unconditionally before the cbr instead (`c && key <= row`):
# pure, cheap, and unable to fault or to divide (`b != 0 && a / b > 1` must keep its branch)
SPECULABLE = frozenset(
    {"const", "copy", "cmp", "add", "sub", "mul", "and", "or", "xor", "not", "min", "max", "shl", "shr"}
    | {"select", "cvt", "mulwide", "neg", "abs", "sreg"}
)
SPECULATE_MAX = 4


class BoolArg(Pass):
    """Needs: verified IR. Establishes: no bool block argument whose two incoming values are the constants
    selected by the `cbr` the join is reached through."""

    name = "bool-arg"

    def run(self, module: Module, ctx: PassContext) -> None:
        for fn in module.functions:
            self.run_function(fn)

    def run_function(self, fn: Function) -> None:
        preds_of = fn.predecessor_map()
        for j in list(fn.blocks[1:]):
            if not any(a.type == BOOL for a in j.args):
                continue
            sides = _sides(j, preds_of)
            if sides is None:
                continue
            cbr, edges = sides
            _Join(j, cbr, edges).rewrite(preds_of[id(j)])
        for b in fn.blocks:
            t = b.terminator
            if t is not None and t.name == "cbr":
                _collapse(t)


class _Join:
    """One join reached through `cbr`: `edges` are its (terminator, successor index) edges on the true and
    the false side."""

    def __init__(self, j: Block, cbr: Op, edges: tuple[tuple[Op, int], tuple[Op, int]]):
        self.j, self.cbr, self.edges = j, cbr, edges
        self.cond: Value = cbr.operands[0]
        self.at = 0  # where the next op goes in j (the ops made here stay in creation order)
        self.negated: Value | None = None
        self.moved: set[int] = set()

    def make(self, name: str, operands: list[Value]) -> Value:
        op = Builder(self.j, self.cbr.span).before(self.j.ops[self.at]).create(name, operands)
        self.at += 1
        return op.result

    def not_cond(self) -> Value:
        if self.negated is None:
            self.negated = self.make("not", [self.cond])
        return self.negated

    def side_block(self, side: int) -> Block | None:
        """The forwarding block on `side` (0 true, 1 false), None when the cbr's own edge reaches j."""
        t = self.edges[side][0]
        return None if t is self.cbr else t.block

    def available(self, v: Value, side: int) -> bool:
        """`v` can be used in j and in the cbr's block: it is not defined in the side block, or that
        block's ops can all be executed before the cbr (then they are moved there)."""
        x = self.side_block(side)
        if x is None or v.defining_block is not x:
            return True
        ops = x.ops[:-1]
        if id(x) in self.moved:
            return True
        if len(ops) > SPECULATE_MAX or any(
            op.name not in SPECULABLE or not op.has_trait("pure") for op in ops
        ):
            return False
        for op in ops:
            x.ops.remove(op)
            self.cbr.block.insert(self.cbr.block.ops.index(self.cbr), op)
        self.moved.add(id(x))
        return True

    def value(self, vt: Value, vf: Value) -> Value | None:
        """The bool the join receives, as an expression of the condition; None when it is not one."""
        kt = const_value(vt) if is_const(vt) else None
        kf = const_value(vf) if is_const(vf) else None
        if kt is not None and kf is not None:
            if bool(kt) == bool(kf):
                return None  # the same constant on both sides: CopyProp's trivial argument
            return self.cond if kt else self.not_cond()
        if kt is None and kf is None:
            return None
        if kf is not None:  # c ? v : k
            if not self.available(vt, 0):
                return None
            return self.make("or", [self.not_cond(), vt]) if kf else self.make("and", [self.cond, vt])
        if not self.available(vf, 1):  # c ? k : v
            return None
        return self.make("or", [self.cond, vf]) if kt else self.make("and", [self.not_cond(), vf])

    def rewrite(self, preds: list[Op]) -> None:
        (tt, ts), (ft, fs) = self.edges
        for i in range(len(self.j.args) - 1, -1, -1):
            a = self.j.args[i]
            if a.type != BOOL:
                continue
            v = self.value(tt.succ_args[ts][i], ft.succ_args[fs][i])
            if v is None:
                continue
            a.replace_all_uses_with(v)
            self.j.remove_arg(i, preds)


def _edge_into(t: Op, j: Block) -> list[int]:
    return [s for s, b in enumerate(t.successors) if b is j]


def _sides(
    j: Block, preds_of: dict[int, list[Op]]
) -> tuple[Op, tuple[tuple[Op, int], tuple[Op, int]]] | None:
    """The `cbr` that `j` is reached through and `j`'s (terminator, successor index) edge on its true and
    its false side, or None when `j` is not such a join."""
    edges = [(t, s) for t in preds_of.get(id(j), []) for s in _edge_into(t, j)]
    if len(edges) != 2:
        return None
    found: list[tuple[Op, bool]] = []
    for t, s in edges:
        if t.name == "cbr":
            if t.block is j:
                return None
            found.append((t, s == 0))
            continue
        p = t.block
        if t.name != "br" or p is None or p is j or p.args:
            return None
        into_p = preds_of.get(id(p), [])
        if len(into_p) != 1 or into_p[0].name != "cbr":
            return None
        d = into_p[0]
        k = _edge_into(d, p)
        if len(k) != 1 or d.block is p or d.block is j:
            return None
        found.append((d, k[0] == 0))
    (d0, side0), (d1, side1) = found
    if d0 is not d1 or side0 == side1:
        return None
    t_edge, f_edge = (edges[0], edges[1]) if side0 else (edges[1], edges[0])
    return d0, (t_edge, f_edge)


def _forward(b: Block) -> tuple[Block, list[Value]] | None:
    """Where an empty block (nothing but unused pure ops, e.g. the constant it passed before) branches
    to, with the arguments; None for any other block."""
    t = b.terminator
    if t is None or t.name != "br" or b.args:
        return None
    for op in b.ops[:-1]:
        if not op.has_trait("pure") or op.has_trait("warp_collective") or any(r.uses for r in op.results):
            return None
    return t.successors[0], list(t.succ_args[0])


def _collapse(cbr: Op) -> bool:
    """`cbr c, A, B` whose two sides reach one block with the same arguments (directly, or through an
    empty block that only branches there) becomes `br`; the emptied side blocks become unreachable."""
    sides: list[list[tuple[Block, list[Value]]]] = []
    for s, b in enumerate(cbr.successors):
        reach = [(b, list(cbr.succ_args[s]))]
        f = _forward(b) if b is not cbr.block else None
        if f is not None and f[0] is not b:
            reach.append(f)
        sides.append(reach)
    for d0, a0 in sides[0]:
        match = [a1 for d1, a1 in sides[1] if d1 is d0 and len(a1) == len(a0)]
        if any(all(x is y for x, y in zip(a0, a1)) for a1 in match):
            break
    else:
        return False
    b = cbr.block
    span = cbr.span
    cbr.erase()
    Builder(b, span).br(d0, a0)
    return True
