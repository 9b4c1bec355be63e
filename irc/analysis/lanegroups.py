"""Lane groups: which lane bits a value may differ in across the lanes of one warp.

Why: Triton reduces over part of a warp (an xor butterfly by 1 and 2 leaves every quad of lanes holding
its own total) and then every lane of a group stores that total to the group's slot, or keeps computing
with it (the online softmax's row maximum and sum, carried through a loop, then `m + log2(l)`). Those
stores write one value per group: not a race. The uniformity lattice knows only "per warp" and "per
thread"; this fact refines "per thread" by the lane bits that matter.

`mask(v)`: a 5-bit set of lane bits; lanes whose ids differ only outside it hold the same value of `v`.
0 means warp-uniform, 31 means any two lanes may differ. Rules (a monotone fixpoint from 0):
- a value the lattice calls warp-uniform (or better): 0;
- `op(x, shfl.bfly(x, d))` for a commutative `op` (the butterfly step the lattice recognises, with its
  offset d): mask(x) without the bit d;
- `shfl.bfly(x, d)` over the whole warp by a constant: mask(x) (lanes that agree in its bits read
  partners that agree in them too);
- any other shuffle, a thread coordinate, an atomic, a call, anything with effects: 31;
- `f(X, shfl.bfly(X, d))` for a combine the solver proves symmetric in X and the shuffled X
  (`irc.analysis.symmetric`: an argmax's (value, index) pair): the masks of X and f's other inputs,
  without the bit d (the other inputs must not differ in bit d);
- a load: the mask of its address (lanes of a group read one address, so one value);
- any other pure op, a block argument: the union of its inputs' masks;
- a value computed from thread coordinates alone (`tid`, `laneid`, `warpid`, a known `ntid`, constants),
  when the block shape is known: the lane bits flipping which changes its per-thread value in that block
  (`ThreadEval`), not 31. Triton's bitonic sort picks each compare's direction from one lane bit
  (`bfe(tid, 4, 1)`); a direction flag that does not depend on lane bit d is the same for both lanes of
  a xor-d pair, and the compare-exchange is then symmetric. A value that also reads `ctaid`, a shared
  address or anything loaded keeps the union rule (its lane differences could depend on those).
A near miss (a butterfly missing a step, a different offset) keeps the bit, so the store stays a race.
"""

from __future__ import annotations

from irc.analysis.collectives import COMMUTATIVE, bfly_step, strip_copies, strip_moves
from irc.analysis.symmetric import Nodes, Step, butterfly_steps, with_inputs
from irc.analysis.symmetric import bfly_of as near_bfly
from irc.analysis.symmetric import pure_op as near_pure
from irc.analysis.uniformity import Level
from irc.ir.core import BlockArg, Function, OpResult, Value

ALL = 31
#: special registers whose per-thread values a known block shape fixes (`ctaid` is the same for every
#: lane but its value is not known, so a value that mixes it in is not evaluated)
_COORDINATES = ("tid.", "laneid", "warpid", "ntid.")


class LaneGroups:
    def __init__(self, fn: Function, facts, threads=None) -> None:  # type: ignore[no-untyped-def]
        """`threads`: the kernel's per-thread evaluation (`irc.analysis.races.ThreadEval`) when its block
        shape is known, for the exact masks of values of thread coordinates alone; else None."""
        self.facts = facts
        self._threads = threads
        self._coord: dict[Value, bool] = {}
        self._exact: dict[Value, int | None] = {}
        self.m: dict[Value, int] = {}
        self.sym: dict[Value, object] = {}
        self._cone: dict[Value, bool] = {}
        self._nodes: Nodes = {}  # the slice searches' per-value classification (`symmetric._node`)
        self._cyclic = False
        self._z3 = None
        self._solve(fn)

    def mask(self, v: Value) -> int:
        return self.m.get(v, ALL)

    def _get(self, v: Value) -> int:
        return self.m.get(v, 0)  # not yet computed: bottom of the fixpoint

    def _solve(self, fn: Function) -> None:
        blocks = fn.blocks
        edges: dict[BlockArg, list[Value]] = {}
        for b in blocks:
            t = b.terminator
            if t is None:
                continue
            for s, args in zip(t.successors, t.succ_args):
                for a, v in zip(s.args, args):
                    edges.setdefault(a, []).append(v)
        for a in fn.params:
            self.m[a] = 0 if self._uniform(a) else ALL
        changed = True
        rounds = 0
        while changed and rounds < 64:
            changed = False
            rounds += 1
            for b in blocks:
                for a in b.args:
                    if b is fn.entry:
                        continue
                    new = 0 if self._uniform(a) else self._union(edges.get(a, ()), default=ALL)
                    if new != self.m.get(a):
                        self.m[a] = new
                        changed = True
                for op in b.ops:
                    for r in op.results:
                        new = self._rule(op, r)
                        if new != self.m.get(r):
                            self.m[r] = new
                            changed = True

    def _uniform(self, v: Value) -> bool:
        try:
            return self.facts.level(v) >= Level.WARP
        except Exception:  # noqa: BLE001 - a value the lattice did not see
            return False

    def _union(self, vals, default: int = 0) -> int:  # type: ignore[no-untyped-def]
        out = 0
        seen = False
        for v in vals:
            seen = True
            out |= self._get(v)
        return out if seen else default

    def _rule(self, op, r: OpResult) -> int:  # type: ignore[no-untyped-def]
        if self._uniform(r):
            return 0
        n = op.name
        if n == "unpack_b64":
            src = strip_moves(r)
            if src is not r:
                return self._get(src)  # a half of a pack made here: that half's own mask
        if n in COMMUTATIVE and len(op.operands) == 2:
            for x, y in ((op.operands[0], op.operands[1]), (op.operands[1], op.operands[0])):
                d = _bfly_offset(x, y)
                if d is not None:
                    return self._get(x) & ~d & ALL
        if n == "load":
            if op.attrs.get("volatile") or not op.operands:
                return ALL
            return self._get(op.operands[0])
        if n == "shfl" and op.operands and bfly_step(op.operands[0], r) is not None:
            # lanes that agree in mask(x)'s bits have partners (t ^ d) that agree in them too
            return self._get(op.operands[0])
        if n == "sreg" or (n != "shfl" and op.has_trait("pure")):
            e = self._coordinate_mask(r)
            if e is not None:
                return e
        if n == "sreg" or n == "shfl" or not op.has_trait("pure"):
            return ALL
        out = self._union(op.operands)
        if out and len(op.results) == 1:
            for st in self._steps(r):
                if any(self._get(o) & st.d for o in st.others):
                    st = self._coordinates_as_inputs(st)
                    if st is None or any(self._get(o) & st.d for o in st.others):
                        continue  # the other inputs differ across the pair: no fact, whatever f is
                if st.symmetric(self._context):
                    return (self._union(st.xs) | self._union(st.others)) & ~st.d & ALL
        return out

    def _coordinates_as_inputs(self, st: Step) -> Step | None:
        """`st` with the values of thread coordinates its combine computes (a compare's direction flag,
        `bfe(tid, 4, 1) != 0`) as inputs of their own, whose exact masks then decide whether they differ
        across the pair; None when it computes none."""
        inputs = {x for x in st.ops if x.op.name != "const" and self._coordinate_mask(x) is not None}
        return with_inputs(st, inputs, self._nodes) if inputs else None

    def _coordinate_mask(self, r: OpResult) -> int | None:
        """The exact mask of a value of thread coordinates alone (module docstring), or None."""
        if self._threads is None:
            return None
        if r in self._exact:
            return self._exact[r]
        out = None
        if self._of_coordinates(r):
            vec = self._threads.value(r, {})
            if vec is not None:
                n = len(vec)
                lin = self._threads.lin
                out = 0
                for b in range(5):
                    partner = lin ^ (1 << b)
                    inside = partner < n
                    if bool((vec[inside] != vec[partner[inside]]).any()):
                        out |= 1 << b
        self._exact[r] = out
        return out

    def _of_coordinates(self, v: Value) -> bool:
        """Whether `v` is computed by pure ops from constants and `tid`/`laneid`/`warpid`/`ntid` only."""
        hit = self._coord.get(v)
        if hit is not None:
            return hit
        self._coord[v] = False  # SSA has no cycles of pure ops, but be safe
        ok = False
        if isinstance(v, OpResult) and len(v.op.results) == 1:
            op = v.op
            if op.name == "const":
                ok = True
            elif op.name == "sreg":
                ok = str(op.attrs.get("name", "")).startswith(_COORDINATES)
            elif op.name not in ("shfl", "load", "shared_addr") and op.has_trait("pure") and op.operands:
                ok = all(self._of_coordinates(o) for o in op.operands)
        self._coord[v] = ok
        return ok

    def _context(self):  # type: ignore[no-untyped-def]
        """One z3 context for the function's queries, made (and z3 imported) only when one is asked."""
        if self._z3 is None:
            from irc.analysis.symbolic.solver import z3

            self._z3 = z3().Context()
        return self._z3

    def _steps(self, r: OpResult) -> list[Step]:
        """The butterfly steps above `r` (found once per value; each decided once, when first asked)."""
        hit = self.sym.get(r)
        if hit is None:
            # no butterfly shuffle anywhere among the pure ops above r: `butterfly_steps` would search its
            # slice and find none (most values of most kernels; the search is most of this fixpoint's time)
            hit = self.sym[r] = butterfly_steps(r, self._nodes) if self._bfly_above(strip_copies(r)) else []
        return hit  # type: ignore[return-value]

    def _bfly_above(self, x: Value) -> bool:
        """Whether `symmetric._near_shuffles(x)`'s search, unbounded, meets a butterfly shuffle: x is one,
        or x is a pure op with an operand (copies stripped) for which this holds. Once per value; always
        True (the search itself decides) once a cycle of pure ops is met, which SSA does not make."""
        if self._cyclic:
            return True
        memo = self._cone
        open_: set[int] = set()
        stack: list[tuple[Value, bool]] = [(x, False)]
        while stack:
            y, done = stack.pop()
            if done:
                memo[y] = any(memo[strip_copies(o)] for o in y.op.operands)  # type: ignore[attr-defined]
                open_.discard(id(y))
                continue
            if y in memo:
                continue
            if id(y) in open_:
                self._cyclic = True
                return True
            if near_bfly(y) is not None:
                memo[y] = True
            elif not near_pure(y):
                memo[y] = False
            else:
                open_.add(id(y))
                stack.append((y, True))
                stack.extend((strip_copies(o), False) for o in y.op.operands)  # type: ignore[attr-defined]
        return memo[x]


def _bfly_offset(x: Value, y: Value) -> int | None:
    """d when `y` is `shfl.bfly(x, d)` over the whole warp with a constant power-of-two d < 32 (the
    lattice's own recognition of one butterfly step)."""
    step = bfly_step(x, y)
    return None if step is None else step[0]


def lane_groups(ctx, threads=None) -> LaneGroups:  # type: ignore[no-untyped-def]
    """The function's lane-group facts (computed once per check run); `threads` as for `LaneGroups`."""
    hit = ctx.cache.get("lanegroups")
    if hit is None or hit._threads is not threads:  # a context judged under another block shape
        hit = ctx.cache["lanegroups"] = LaneGroups(ctx.fn, ctx.facts, threads)
    return hit  # type: ignore[return-value]
