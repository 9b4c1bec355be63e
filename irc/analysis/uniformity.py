"""Uniformity (divergence) analysis: for every SSA value, across how many threads it is guaranteed equal.

Lattice (top to bottom): GRID (same in every thread of the grid) > BLOCK > WARP > THREAD (may differ
per thread). The analysis is optimistic (everything starts at GRID) and only lowers levels, so the
worklist fixpoint terminates after at most three lowerings per value. Rules (spec section 8, design notes
"Uniformity (divergence) analysis"; `docs/analyzer.md` is the user-facing statement):

Seeds
- `const`, parameters, `ntid.*`, `nctaid.*`, `undef` (an unspecified value may be chosen uniform, as LLVM
  does; reading it is reported by the `uninitialized` check instead): GRID.
- `ctaid.*`, `cluster_ctarank`, `cluster_ctaid.*`, `smid`: BLOCK.
- `tid.*`, `laneid`, clocks, unknown special registers, atomics, `opaque`/`call` results, `activemask`
  (it does not synchronize: lanes may observe different masks), `elect`, mbarrier waits, fragment
  loads (`ldmatrix`, `wmma_load`, `tcgen05_ld`, `mma` results): THREAD.
- Global loads at an address of level L: min(L, BLOCK) (other blocks run at other times); volatile: THREAD.
- Shared loads at an address of level L >= WARP: min(L, BLOCK) when no write to the same shared
  location can run in the same barrier interval (no write that may alias reaching the load without
  crossing a block-wide barrier, and no write reachable from it whose bounded byte range overlaps it);
  otherwise THREAD. This is the sound version of "shared loads are uniform after a barrier": the classic
  `if (tid == 0) s = ...; barrier(); x = s;` broadcast is BLOCK, but a load racing with a store in the
  same interval is not. A write only after the load at an address we cannot bound is assumed not to race
  with it (`_shared_quiet`; a race is `shared-race`'s finding).
- Warp collectives: `vote` all/any/uni: max(WARP, level of the predicate) and `ballot`/`redux`: WARP, when
  the mask is warp-uniform and control is warp-uniform (else THREAD). `shfl`: the shuffled value's level
  when it is at least WARP; WARP for `idx` mode with a warp-uniform source lane under warp-uniform control.
- Anything else: the meet (minimum) of its operands' levels.

Warp structure (known bits). Warps are formed from the linearized thread index; if the block's x-extent
is a multiple of 32 (or the block is one-dimensional) then `tid.x` = 32 * warp + lane, so:
- generalized to "lane-preserving" values L = 32 * w + lane (w uniform per warp, lane = tid.x % 32): tid.x
  itself, and `(L + k) & m` with the low 5 bits of m set (`tid.x & 127`), `(L + k) | c` / `^ c` with
  c % 32 == 0, unsigned `(L + k) % c` with c % 32 == 0 (all with k % 32 == 0); `tid_off[v] = k` records
  v == L + k. A value that depends on tid.x only through bits >= 5 is then recognized:
- `(L + k) >> s` (s >= 5), `(L + k) / c` (c % 32 == 0), `(L + k) & m` (m % 32 == 0, e.g. `tid.x & ~31`),
  with k % 32 == 0, are WARP (and so is any function of them, by the meet rule);
- `L + k < c` / `>= c` are WARP (`(tid.x & 127) < 32`) when (c - k) % 32 == 0, `<= c` / `> c` when (c + 1 - k) % 32 == 0
  (nvcc writes `warp < 2` as `tid.x > 63`), provided no unsigned wrap-around splits a warp; comparisons
  with a warp-uniform value known to be a multiple of 32 (e.g. `n_producer_warps * 32`) likewise;
- `tid.y` is WARP when the x-extent is a multiple of 32, `tid.z` when x*y is; either is GRID (zero) when
  its extent is 1.
The extents come from `block_dims` or the kernel attribute `launch`; when unknown, the x-extent is ASSUMED
to be a multiple of 32 (documented; every real kernel in the corpus satisfies it) unless the kernel
attribute `ntid_x_multiple_of_32` is False (set by the PTX lifter for a `.maxntid` x extent that is not a
multiple of 32): then every warp-structure rule above is off.

Control
- The control level of a block (`block_level`) is the meet of the condition levels of the branches it is
  transitively control dependent on (post-dominance with a virtual exit, see `irc.analysis.cfg`), so an
  early `ret` under a divergent condition makes everything after the join divergent-control.
- Sync dependence: block arguments at a join of a branch with condition level L get at most L (unless
  every incoming value is the same SSA value).
- Temporal divergence: a value defined inside a loop whose exits are taken at level L (the meet of the
  exiting branches and the in-loop branches they depend on) has at most level L where it is used outside
  the loop (loop-invariant values excepted).
"""

from __future__ import annotations

from irc.analysis import collectives, linear_tid, shared_loc
from irc.analysis.cfg import CFG, Loop
from irc.analysis.uniformity_base import (  # re-exported: the checks import them from here
    Level as Level,
)
from irc.analysis.uniformity_base import (
    Reason as Reason,
)
from irc.analysis.uniformity_base import (
    WhyStep as WhyStep,
)
from irc.analysis.uniformity_base import (
    const_value as const_value,
)
from irc.analysis.uniformity_base import (
    has_trait as has_trait,
)
from irc.analysis.uniformity_base import (
    int_const as int_const,
)
from irc.analysis.uniformity_base import (
    is_block_barrier as is_block_barrier,
)
from irc.analysis.uniformity_base import (
    is_named_barrier as is_named_barrier,
)
from irc.analysis.uniformity_base import (
    shared_base as shared_base,
)
from irc.ir.core import Block, Function, Op, OpResult, Value
from irc.ir.optable import OPS
from irc.ir.types import PtrType, ScalarType

_WARP_FORM_OPS = frozenset({"shr", "div", "and", "cmp", "sub"})  # the ops `Solver._warp_form` has rules for

# The lattice's members as plain names: `Level.GRID` is a lookup through the enum's metaclass (about 70 ns),
# in loops that run for every operand of every op of the fixpoint.
_THREAD, _WARP, _BLOCK, _GRID = Level.THREAD, Level.WARP, Level.BLOCK, Level.GRID

_SREG_LEVEL: dict[str, Level] = {
    **{f"ntid.{a}": _GRID for a in "xyz"},
    **{f"nctaid.{a}": _GRID for a in "xyz"},
    **{f"nclusterid.{a}": _GRID for a in "xyz"},
    **{f"cluster_nctaid.{a}": _GRID for a in "xyz"},
    **{f"ctaid.{a}": _BLOCK for a in "xyz"},
    **{f"clusterid.{a}": _BLOCK for a in "xyz"},
    **{f"cluster_ctaid.{a}": _BLOCK for a in "xyz"},
    "cluster_ctarank": _BLOCK,
    "cluster_nctarank": _GRID,
    "nsmid": _GRID,
    "nwarpid": _GRID,
    "gridid": _GRID,
    "smid": _BLOCK,
    "dynamic_smem_size": _GRID,
    "total_smem_size": _GRID,
}

# Per-op facts come from the op table (`irc.ir.optable`): `uniformity` names the rule below that gives an
# op's result level, `mask` the member-mask operand of a collective, `shared_write` the operand holding the
# shared-memory pointer an op writes through.
# ops whose results never carry a uniformity guarantee
_VARYING_OPS = frozenset(n for n, d in OPS.items() if d.uniformity == "varying" and d.results)
# collectives whose result depends on which lanes execute them together
_CONTROL_SENSITIVE = frozenset(n for n, d in OPS.items() if d.uniformity in ("collective", "vote", "shuffle"))
# (op name -> index of the shared-memory pointer it writes)
_SHARED_WRITERS = {n: d.shared_write for n, d in OPS.items() if d.shared_write is not None}
_ANY = "*"  # "writes some unknown shared location"
_NTID_ATTR = "ntid_x_multiple_of_32"  # kernel attribute: False turns the warp-structure rules off


def _is_signed(t: object) -> bool:
    return isinstance(t, ScalarType) and t.is_signed


class UniformityFacts:
    """The result of `analyze_uniformity`: levels per value and per block, plus explanations."""

    def __init__(self, fn: Function, cfg: CFG, dims: tuple[int, int, int] | None, warp_structure: bool):
        self.fn = fn
        self.cfg = cfg
        self.block_dims = dims
        self.warp_structure = warp_structure
        self._level: dict[Value, Level] = {}
        self._reason: dict[Value, Reason] = {}
        self._cond: dict[Block, Level] = {}
        self._block: dict[Block, Level] = {}
        self._exit: dict[int, Level] = {}
        self.bfly: dict[Value, int] = {}  # the xor-butterfly offsets each value combined (the solver's)

    # -- queries -----------------------------------------------------------------------------------
    def level(self, v: Value) -> Level:
        """The level of `v` at its definition (values in unreachable code are vacuously GRID)."""
        return self._level.get(v, _GRID)

    def block_level(self, b: Block) -> Level:
        """How uniform the control reaching `b` is: the meet of the branch conditions `b` depends on."""
        return self._block.get(b, _GRID)

    def branch_level(self, d: Block) -> Level:
        """The level of the condition of the branch ending `d` (GRID for unconditional terminators)."""
        return self._cond.get(d, _GRID)

    def loop_exit_level(self, lp: Loop) -> Level:
        """How uniformly threads leave `lp` (GRID/BLOCK: every thread runs the same iterations)."""
        return self._exit.get(id(lp), _GRID)

    def reason(self, v: Value) -> Reason | None:
        return self._reason.get(v)

    def controlling_branches(self, b: Block, below: Level) -> list[Block]:
        """Branch blocks `b` is (transitively) control dependent on whose condition is below `below`,
        nearest first (the direct control dependences before the transitive ones, then by layout)."""
        direct = set(self.cfg.cd.get(b, ()))
        cands = [d for d in self.cfg.cd_closure(b) if self.branch_level(d) < below]
        idx = self.cfg.rpo_index
        cands.sort(key=lambda d: (d not in direct, -idx[d]))
        return cands

    def why(self, v: Value) -> list[WhyStep]:
        """The chain from `v` back to the seed that made it non-uniform: [(value, op, level, text)...]."""
        chain: list[WhyStep] = []
        seen: set[int] = set()
        cur: Value | None = v
        while cur is not None and id(cur) not in seen and len(chain) < 64:
            seen.add(id(cur))
            r = self._reason.get(cur)
            op = cur.op if isinstance(cur, OpResult) else None
            lvl = self.level(cur)
            if r is None:
                chain.append(WhyStep(cur, op, lvl, "uniform"))
                break
            chain.append(WhyStep(cur, op, lvl, r.text or r.kind))
            cur = r.value if r.kind == "operand" else None
        return chain

    def seed(self, v: Value) -> tuple[Reason | None, list[Value]]:
        """The seed reason of `v`'s level and the named values on the way (nearest first)."""
        chain = self.why(v)
        named = [s.value for s in chain[1:] if s.value.name]
        last = chain[-1] if chain else None
        return (self._reason.get(last.value) if last else None), named


def block_dims_of(fn: Function) -> tuple[int, int, int] | None:
    """The kernel's launch extents from the `launch` attribute, padded with 1s, or None."""
    launch = fn.attrs.get("launch")
    if isinstance(launch, (list, tuple)) and launch and all(isinstance(x, int) for x in launch):
        dims = list(launch)[:3] + [1] * (3 - min(len(launch), 3))
        return (dims[0], dims[1], dims[2])
    return None


def analyze_uniformity(
    fn: Function, block_dims: tuple[int, ...] | None = None, cfg: CFG | None = None
) -> UniformityFacts:
    """Compute uniformity facts for `fn`. `block_dims` overrides the kernel's `launch` attribute; when both
    are absent the x-extent is assumed to be a multiple of 32."""
    cfg = cfg or CFG(fn)
    dims: tuple[int, int, int] | None
    if block_dims is not None:
        d = list(block_dims)[:3] + [1] * (3 - min(len(block_dims), 3))
        dims = (d[0], d[1], d[2])
    else:
        dims = block_dims_of(fn)
    if dims is None:
        # unknown extents: assume a multiple of 32 unless the kernel says otherwise (the PTX lifter sets
        # `ntid_x_multiple_of_32 = False` for a `.maxntid`/`.reqntid` x extent that is not)
        warp_structure = fn.attrs.get(_NTID_ATTR) is not False
    else:
        warp_structure = dims[0] % 32 == 0 or (dims[1] == 1 and dims[2] == 1)
    facts = UniformityFacts(fn, cfg, dims, warp_structure)
    solver = Solver(facts)
    solver.run()
    facts.bfly = solver.bfly
    return facts


class Solver:
    """The worklist fixpoint. Items are ops (re-evaluate results / branch conditions) and blocks
    (re-evaluate block arguments)."""

    def __init__(self, facts: UniformityFacts):
        self.f = facts
        self.cfg = facts.cfg
        self.fn = facts.fn
        self.dims = facts.block_dims
        self.lv = facts._level
        self.reason = facts._reason
        self.cond = facts._cond
        self.blk = facts._block
        self.exit = facts._exit
        self.tid_off: dict[Value, int] = {}  # v == tid.x + k
        self.aligned: set[Value] = set()  # v % 32 == 0
        # v == 32 * w + lane with w uniform per warp and the offset an unknown multiple of 32 (linear thread
        # ids, `ctaid.x * ntid.x + tid.x`); `exact` marks those that need no block-shape assumption
        self.lane_form: set[Value] = set()
        self.exact: set[Value] = set()
        self.suni: dict[Value, bool] = {}  # memo: structurally uniform per warp (linear_tid)
        self.tplus: dict[Value, bool] = {}  # memo: tid.x plus a value uniform per warp (linear_tid)
        self.entry_args: set[Value] = set()
        self.bfly: dict[Value, int] = {}  # xor-butterfly offsets (bit mask) a value has combined
        self.bfly_chain: dict[Value, tuple[Op, ...]] = {}  # ... and the shuffles that did it
        self.def_block: dict[Value, Block] = {}
        self.dependents = self.cfg.dependents()
        self.join_of: dict[Block, list[Block]] = {}  # join block -> branches it joins
        self._joins_done: set[Block] = set()
        self._temporal_cache: dict[tuple[int, int], list[Loop]] = {}
        self._invariant: dict[tuple[int, int], bool] = {}
        self._shared_ok: dict[int, bool] = {}
        self._write_info: dict[Block, tuple[list[tuple[int, object]], bool]] = {}
        self.loop_branches: dict[int, set[Block]] = {}
        self.loops_of_branch: dict[Block, list[Loop]] = {}
        self.escaping: dict[int, list[object]] = {}

    # -- setup -------------------------------------------------------------------------------------
    def _prepare(self) -> None:
        entry = self.cfg.entry
        self.entry_args.update(entry.args)
        for b in self.cfg.rpo:
            for a in b.args:
                self.def_block[a] = b
            for op in b.ops:
                for r in op.results:
                    self.def_block[r] = b
                self._structural(op)
        for lp in self.cfg.loops:
            rel: set[Block] = set()
            for u in lp.exiting_blocks:
                rel.add(u)
                rel |= {d for d in self.cfg.cd_closure(u) if d in lp.blocks}
            self.loop_branches[id(lp)] = rel
            for d in rel:
                self.loops_of_branch.setdefault(d, []).append(lp)
            esc: list[object] = []
            for b in lp.blocks:
                vals: list[Value] = list(b.args) + [r for op in b.ops for r in op.results]
                for v in vals:
                    for u in v.users:
                        ub = u.block
                        if ub is None or ub not in self.cfg.reachable:
                            continue
                        if ub not in lp.blocks:
                            esc.append(u)
                        if u.successors:
                            for s, args in zip(u.successors, u.succ_args):
                                if s not in lp.blocks and any(a is v for a in args):
                                    esc.append(s)
            self.escaping[id(lp)] = esc

    def _structural(self, op: Op) -> None:
        """Known-bits facts that do not depend on the fixpoint: tid.x + k forms and multiples of 32."""
        if not op.results:
            return
        r = op.results[0]
        n = op.name
        if n in linear_tid.NAMES:
            linear_tid.structural(self, op, r)
        if n in collectives.COMMUTATIVE:
            collectives.structural(self, op)
        self._structural_base(op, r, n)
        if self.exact and (r in self.tid_off or r in self.lane_form):
            linear_tid.propagate_exact(self, op, r)

    def _structural_base(self, op: Op, r: Value, n: str) -> None:
        if n == "sreg":
            name = op.attrs.get("name")
            if name == "tid.x":
                self.tid_off[r] = 0
            if name == "ntid.x" and (
                self.dims[0] % 32 == 0
                if self.dims is not None
                else self.fn.attrs.get(_NTID_ATTR) is not False
            ):
                self.aligned.add(r)
            return
        if n == "const":
            c = op.attrs.get("value")
            if isinstance(c, int) and not isinstance(c, bool) and c % 32 == 0:
                self.aligned.add(r)
            return
        ops = op.operands
        if n in ("copy", "bitcast", "cvt") and ops:
            t = r.type
            if isinstance(t, ScalarType) and t.is_int and t.bits >= 16:
                if ops[0] in self.tid_off:
                    self.tid_off[r] = self.tid_off[ops[0]]
                if ops[0] in self.aligned:
                    self.aligned.add(r)
            return
        if len(ops) != 2:
            return
        a, b = ops
        ca, cb = int_const(a), int_const(b)
        if n in ("add", "sub"):
            if a in self.tid_off and cb is not None:
                self.tid_off[r] = self.tid_off[a] + (cb if n == "add" else -cb)
            elif n == "add" and b in self.tid_off and ca is not None:
                self.tid_off[r] = self.tid_off[b] + ca
            if a in self.aligned and b in self.aligned:
                self.aligned.add(r)
        elif n == "mul":
            if (ca is not None and ca % 32 == 0) or (cb is not None and cb % 32 == 0):
                self.aligned.add(r)
            elif a in self.aligned or b in self.aligned:
                self.aligned.add(r)
        elif n == "shl":
            if (cb is not None and cb >= 5) or a in self.aligned:
                self.aligned.add(r)
        elif n == "and":
            if (ca is not None and ca % 32 == 0) or (cb is not None and cb % 32 == 0):
                self.aligned.add(r)
            elif a in self.aligned or b in self.aligned:
                self.aligned.add(r)
            self._lane_preserving(r, a, cb, n)
            self._lane_preserving(r, b, ca, n)
        elif n in ("or", "xor", "rem"):
            self._lane_preserving(r, a, cb, n)
            if n != "rem":
                self._lane_preserving(r, b, ca, n)

    def _lane_preserving(self, r: Value, x: Value, c: int | None, n: str) -> None:
        """`r = x OP c` keeps the form 32 * w + lane (w uniform per warp) when x = 32 * w' + lane + k with
        k % 32 == 0: masks with the low 5 bits set (`tid.x & 127`), `|`/`^` with a multiple of 32, and
        unsigned `%` by a positive multiple of 32 only rewrite the warp bits."""
        k = self.tid_off.get(x)
        if k is None or c is None or r in self.tid_off:
            return
        t = r.type
        bits = t.bits if isinstance(t, ScalarType) else 64
        if n == "and" and (c == -1 or c == (1 << bits) - 1):
            self.tid_off[r] = k  # an all-ones mask of the value's width is the identity
            return
        if k % 32 != 0:
            return
        if n == "and" and c & 31 == 31:
            self.tid_off[r] = 0
        elif n in ("or", "xor") and c % 32 == 0:
            self.tid_off[r] = 0
        elif n == "rem" and c > 0 and c % 32 == 0 and not _is_signed(x.type) and k >= 0:
            self.tid_off[r] = 0

    # -- helpers -----------------------------------------------------------------------------------
    def level_at(self, v: Value, use_block: Block) -> tuple[Level, Loop | None]:
        """The level of `v` as seen from `use_block` (temporal divergence applied)."""
        base = self.lv.get(v, _GRID)
        if base == _THREAD:
            return base, None
        db = self.def_block.get(v)
        if db is None or self.cfg.loop_of.get(db) is None:
            return base, None
        key = (id(db), id(use_block))
        loops = self._temporal_cache.get(key)
        if loops is None:
            loops = [lp for lp in self.cfg.loops_containing(db) if use_block not in lp.blocks]
            self._temporal_cache[key] = loops
        worst: Loop | None = None
        for lp in loops:
            e = self.exit.get(id(lp), _GRID)
            if e < base and not self._is_invariant(v, lp):
                base = e
                worst = lp
        return base, worst

    def _is_invariant(self, v: Value, lp: Loop) -> bool:
        key = (id(v), id(lp))
        r = self._invariant.get(key)
        if r is not None:
            return r
        self._invariant[key] = False  # cycles through block args are not invariant
        db = self.def_block.get(v)
        if db is None or db not in lp.blocks:
            r = True
        elif isinstance(v, OpResult) and has_trait(v.op, "pure") and v.op.name not in ("undef",):
            r = all(self._is_invariant(o, lp) for o in v.op.operands)
        else:
            r = False
        self._invariant[key] = r
        return r

    # -- transfer functions ------------------------------------------------------------------------
    def _operand_meet(self, op: Op, vals: list[Value]) -> tuple[Level, Reason | None]:
        b = op.block
        best = _GRID
        why: Reason | None = None
        lv_get = self.lv.get
        for v in vals:
            lvl = lv_get(v, _GRID)
            if lvl == _THREAD:  # (what `level_at` answers first: no loop can lower it further)
                lp = None
            else:
                lvl, lp = self.level_at(v, b)  # type: ignore[arg-type]
            if lvl < best:
                best = lvl
                if lp is not None:
                    why = Reason(
                        "operand",
                        "defined in a loop that threads leave at different iterations",
                        v,
                        lp.header,
                    )
                else:
                    why = Reason("operand", "", v)
        return best, why

    def _eval(self, op: Op) -> list[tuple[Level, Reason | None]]:
        n = op.name
        nres = len(op.results)
        if n == "const" or n == "undef":
            return [(_GRID, None)] * nres
        if n == "shared_addr":
            return [(_GRID, None)] * nres
        if n == "sreg":
            return [self._sreg(op)]
        if n in _VARYING_OPS:
            return [(_THREAD, Reason("seed", f"the result of `{n}`"))] * nres
        d = OPS.get(n)
        rule = d.uniformity if d is not None else "varying"
        if rule == "load":
            return [self._load(op)] * nres
        if rule == "vote":
            return [self._vote(op)] * nres
        if rule == "collective":
            return [self._ballot_like(op, d.mask if d is not None and d.mask is not None else 1)] * nres
        if rule == "shuffle":
            return [self._shfl(op)]
        warp = self._warp_form(op)
        if warp is not None:
            return [warp] * nres
        if not has_trait(op, "pure"):
            return [(_THREAD, Reason("seed", f"the result of `{n}`"))] * nres
        lvl, why = self._operand_meet(op, op.operands)
        if lvl < _WARP and op.results[0] in self.bfly and collectives.all_reduced(self, op):
            return [
                (
                    _WARP,
                    Reason("seed", "a full xor-butterfly all-reduce (every lane holds the same value)"),
                )
            ] * nres
        return [(lvl, why)] * nres

    def _sreg(self, op: Op) -> tuple[Level, Reason | None]:
        name = str(op.attrs.get("name"))
        lvl = _SREG_LEVEL.get(name)
        if lvl is not None:
            return lvl, (Reason("seed", name) if lvl < _GRID else None)
        dims = self.dims
        if name in ("tid.y", "tid.z"):
            axis = 1 if name == "tid.y" else 2
            if dims is not None and dims[axis] == 1:
                return _GRID, None
            stride = 1 if dims is None else (dims[0] if axis == 1 else dims[0] * dims[1])
            if (dims is None or stride % 32 == 0) and self.f.warp_structure:
                return _WARP, Reason("seed", name)
            return _THREAD, Reason("seed", name)
        if name == "tid.x" and dims is not None and dims[0] == 1:
            return _GRID, None
        return _THREAD, Reason("seed", name)

    def _load(self, op: Op) -> tuple[Level, Reason | None]:
        if not op.operands:
            return _THREAD, Reason("seed", "a load")
        addr = op.operands[0]
        la, why = self._operand_meet(op, [addr])
        t = addr.type
        if op.attrs.get("volatile"):
            return _THREAD, Reason("seed", "a volatile load")
        if la < _WARP:
            return _THREAD, why or Reason("seed", "a load at a varying address")
        if isinstance(t, PtrType) and t.space == "shared":
            if not self._shared_quiet(op):
                return _THREAD, Reason(
                    "seed", "a shared-memory load that may race with a store in the same barrier interval"
                )
        return min(la, _BLOCK), why

    def _vote(self, op: Op) -> tuple[Level, Reason | None]:
        mode = op.attrs.get("mode")
        mi = OPS["vote"].mask if OPS["vote"].mask is not None else 1
        if mode == "ballot" or len(op.operands) < 2:
            return self._ballot_like(op, mi)
        base = self._ballot_like(op, mi)
        if base[0] < _WARP:
            return base
        lp, why = self._operand_meet(op, [op.operands[0]])
        return (max(lp, _WARP), why if lp > _WARP else None)

    def _ballot_like(self, op: Op, mask_index: int) -> tuple[Level, Reason | None]:
        b = op.block
        ctl = self.blk.get(b, _GRID)  # type: ignore[arg-type]
        if ctl < _WARP and collectives._full_tests(self.cfg):  # after `activemask() == ~0u` (collectives)
            div = [d for d in self.cfg.cd_closure(b) if self.cond.get(d, _GRID) < _WARP]  # type: ignore[arg-type]
            if collectives.in_full_warp_region(self.cfg, b, div):
                ctl = _WARP
        mask_lvl = _GRID
        if len(op.operands) > mask_index:
            mask_lvl, _ = self._operand_meet(op, [op.operands[mask_index]])
        if ctl >= _WARP and mask_lvl >= _WARP:
            return _WARP, Reason("seed", f"the result of `{op.name}` (uniform per warp)")
        return _THREAD, Reason("seed", f"the result of `{op.name}` under divergent control")

    def _shfl(self, op: Op) -> tuple[Level, Reason | None]:
        if len(op.operands) < 1:
            return _THREAD, Reason("seed", "a shuffle")
        lv, why = self._operand_meet(op, [op.operands[0]])
        if lv >= _WARP:
            return lv, why
        if op.attrs.get("mode") == "idx" and len(op.operands) >= 2:
            ll, _ = self._operand_meet(op, op.operands[1:])
            if ll >= _WARP and self.blk.get(op.block, _GRID) >= _WARP:  # type: ignore[arg-type]
                return _WARP, Reason("seed", "a broadcast shuffle (uniform per warp)")
        return _THREAD, Reason("seed", "the result of a shuffle")

    def _warp_form(self, op: Op) -> tuple[Level, Reason | None] | None:
        """Known-bits rules that prove WARP for functions of the warp index (see module docstring)."""
        n = op.name
        if n not in _WARP_FORM_OPS or len(op.operands) != 2:  # (the rules below are for these only)
            return None
        if not self.f.warp_structure and not any(o in self.exact for o in op.operands):
            return None
        a, b = op.operands
        res = (_WARP, Reason("seed", "tid.x (uniform per warp: a function of the warp index)"))
        if n == "sub":
            return linear_tid.minus_lane(self, op)
        if n in ("shr", "div", "and"):
            lf = linear_tid.warp_index(self, op)
            if lf is not None:
                return lf
            k = self.tid_off.get(a)
            c = int_const(b)
            if n == "and" and k is None:
                k, c = self.tid_off.get(b), int_const(a)
            if k is None or c is None or k % 32 != 0:
                return None
            if n == "shr" and c >= 5:
                return res
            if n == "div" and c > 0 and c % 32 == 0 and (k >= 0 or not _is_signed(a.type)):
                return res
            if n == "and" and c % 32 == 0:
                return res
            return None
        if n != "cmp":
            return None
        shifted = linear_tid.shifted_compare(self, op) or collectives.full_activemask_test(op)
        if shifted is not None:
            return shifted
        pred = op.attrs.get("pred")
        flip = {"lt": "gt", "gt": "lt", "le": "ge", "ge": "le"}
        if a in self.tid_off:
            t, other = a, b
        elif b in self.tid_off and pred in flip:
            t, other, pred = b, a, flip[pred]
        else:
            return None
        if pred not in ("lt", "ge", "le", "gt"):
            return None
        k = self.tid_off[t]
        wrap_ok = k % 32 == 0 or k >= 0 or _is_signed(t.type)
        c = int_const(other)
        if c is not None:
            bound = c - k if pred in ("lt", "ge") else c + 1 - k
            if bound % 32 == 0 and wrap_ok:
                return res
            return None
        if other in self.aligned and k % 32 == 0 and pred in ("lt", "ge"):
            lo, _ = self.level_at(other, op.block)  # type: ignore[arg-type]
            if lo >= _WARP:
                return res
        return None

    # -- shared-memory barrier intervals -----------------------------------------------------------
    def _block_writes(self, b: Block) -> tuple[list[tuple[int, object]], bool]:
        """(list of (op index, sym or _ANY) of shared writes, list ends at barriers) for block `b`."""
        info = self._write_info.get(b)
        if info is not None:
            return info
        events: list[tuple[int, object]] = []
        has_bar = False
        for i, op in enumerate(b.ops):
            n = op.name
            relevant = _WRITE_RELEVANT.get(n)
            if relevant is None:
                relevant = _WRITE_RELEVANT[n] = (
                    n in _SHARED_WRITERS or n in ("call", "opaque") or has_trait(op, "barrier")
                )
            if not relevant:
                continue  # (most ops: neither a barrier nor a possible shared write)
            if is_block_barrier(op):
                events.append((i, "BAR"))
                has_bar = True
                continue
            w = _shared_write(op)
            if w is not None:
                events.append((i, w))
        info = (events, has_bar)
        self._write_info[b] = info
        return info

    def _shared_quiet(self, load: Op) -> bool:
        """No write to the load's shared location can change what a thread reads there in the load's
        barrier interval.

        A write that reaches the load without a barrier (before it in the interval, or in a loop around
        it) conflicts whenever it may alias. A write only *after* the load in its interval (reachable from
        it, never reaching it without a barrier) changes what another thread reads only by racing with
        that read, a bug `shared-race` reports; it counts as a conflict only where the race is evident
        from the addresses (both byte ranges bounded and overlapping, `smem[tid.x]` after a read of
        `smem[0]`). A later write at an address we cannot bound (cub's per-warp histograms in the union
        of temporary storages that also holds the broadcast tile index) is assumed not to race."""
        key = id(load)
        r = self._shared_ok.get(key)
        if r is not None:
            return r
        sym = shared_base(load.operands[0]) or shared_loc.symbol(load.operands[0])
        loc = shared_loc.location(load) if sym is not None else None
        b = load.block
        assert b is not None
        pos = b.ops.index(load)

        def conflicts(w: object) -> bool:
            if isinstance(w, tuple):  # a store at a known location (per byte range)
                return sym is None or (shared_loc.overlap(loc, w) if loc is not None else w[0] == sym)
            return w == _ANY or sym is None or w == sym

        def races_after(w: object) -> bool:  # a write ordered after the load (see the docstring)
            return (
                isinstance(w, tuple)
                and loc is not None
                and None not in (loc[1], loc[2], w[1], w[2])
                and shared_loc.overlap(loc, w)
            )

        ok = True
        events, _ = self._block_writes(b)
        # forward within the block
        fwd_open = True
        for i, w in events:
            if i <= pos:
                continue
            if w == "BAR":
                fwd_open = False
                break
            if races_after(w):
                ok = False
        bwd_open = True
        for i, w in reversed(events):
            if i >= pos:
                continue
            if w == "BAR":
                bwd_open = False
                break
            if conflicts(w):
                ok = False
        if ok and bwd_open:
            ok = self._scan(b, forward=False, conflicts=conflicts)
        if ok and fwd_open:  # after the backward scan: a write on a cycle through the load conflicts fully
            ok = self._scan(b, forward=True, conflicts=races_after)
        self._shared_ok[key] = ok
        return ok

    def _scan(self, start: Block, forward: bool, conflicts) -> bool:  # type: ignore[no-untyped-def]
        seen: set[Block] = set()
        work = list(self.cfg.succs[start] if forward else self.cfg.preds[start])
        while work:
            b = work.pop()
            if b in seen:
                continue
            seen.add(b)
            events, has_bar = self._block_writes(b)
            seq = events if forward else list(reversed(events))
            for _, w in seq:
                if w == "BAR":
                    break
                if conflicts(w):
                    return False
            if not has_bar:
                work.extend(self.cfg.succs[b] if forward else self.cfg.preds[b])
        return True

    # -- fixpoint ----------------------------------------------------------------------------------
    def run(self) -> None:
        self._prepare()
        cfg = self.cfg
        work: list[object] = []
        for b in reversed(cfg.rpo):
            for op in reversed(b.ops):
                work.append(op)
            if b.args and b is not cfg.entry:
                work.append(b)
        in_work: set[int] = {id(x) for x in work}
        control_ops: dict[Block, list[Op]] = {}
        for b in cfg.rpo:
            control_ops[b] = [op for op in b.ops if op.name in _CONTROL_SENSITIVE]
        for r, chain in self.bfly_chain.items():  # a butterfly's result depends on its shuffles' control
            for sh in chain:
                if sh.block in control_ops and isinstance(r, OpResult):
                    control_ops[sh.block].append(r.op)

        def push(x: object) -> None:
            if isinstance(x, Block):
                push_block(x)
            elif id(x) not in in_work:
                in_work.add(id(x))
                work.append(x)

        reachable = cfg.reachable

        def push_value_users(v: Value) -> None:
            for u in v.uses:
                ub = u.block
                if ub is None or ub not in reachable:
                    continue
                if id(u) not in in_work:
                    in_work.add(id(u))
                    work.append(u)
                if u.successors:
                    for s, args in zip(u.successors, u.succ_args):
                        if id(s) not in in_work and any(a is v for a in args):
                            push_block(s)

        # Blocks (their argument merges) wait until no op is pending: a loop header that carries hundreds of
        # registers (an unrolled accumulator tile) is then merged once per wave of changes, not once per
        # changed argument; the fixpoint is the same, as every transfer is monotone.
        blocks: list[Block] = [x for x in work if isinstance(x, Block)]
        work = [x for x in work if not isinstance(x, Block)]

        def push_block(b: Block) -> None:
            if id(b) not in in_work:
                in_work.add(id(b))
                blocks.append(b)

        while work or blocks:
            if not work:
                blk = blocks.pop()
                in_work.discard(id(blk))
                self._eval_args(blk, push_value_users)
                continue
            item = work.pop()
            in_work.discard(id(item))
            if isinstance(item, Block):
                self._eval_args(item, push_value_users)
                continue
            op: Op = item  # type: ignore[assignment]
            if op.results:
                for r, (lvl, why) in zip(op.results, self._eval(op)):
                    if lvl < self.lv.get(r, _GRID):
                        self.lv[r] = lvl
                        if why is not None:
                            self.reason[r] = why
                        push_value_users(r)
            if op.successors and op.block is not None:
                if len(op.successors) > 1 and all(x is op.successors[0] for x in op.successors):
                    push(op.successors[0])  # `cbr c, ^b(x), ^b(y)` is a select on c
                self._eval_branch(op, push, control_ops, push_value_users)

    def _eval_args(self, b: Block, push_value_users) -> None:  # type: ignore[no-untyped-def]
        cfg = self.cfg
        incoming: list[list[Value]] = [[] for _ in b.args]
        cfg.spend(len(cfg.preds.get(b, ())) * (len(b.args) + 1))
        for p in cfg.preds.get(b, []):
            t = p.terminator
            if t is None:
                continue
            for s, args in zip(t.successors, t.succ_args):
                if s is b:
                    for i, v in enumerate(args[: len(b.args)]):
                        incoming[i].append(v)
        selects: list[tuple[Op, Level]] = []  # `cbr c, ^b(x), ^b(y)`: the argument depends on c
        for p in cfg.preds.get(b, []):
            t = p.terminator
            if t is not None and t.name == "cbr" and t.operands and len(t.successors) > 1:
                if all(x is b for x in t.successors):
                    selects.append((t, self.level_at(t.operands[0], p)[0]))
        for i, a in enumerate(b.args):
            best = _GRID
            why: Reason | None = None
            for t, clvl in selects:
                vs = [args[i] for args in t.succ_args if i < len(args)]
                if clvl < best and any(v is not vs[0] for v in vs):
                    best = clvl
                    why = Reason("operand", "", t.operands[0])
            for v in incoming[i]:
                lvl, lp = self.level_at(v, b)
                if lvl < best:
                    best = lvl
                    why = Reason("operand", "" if lp is None else "carried out of a loop", v)
            vals = incoming[i]
            if vals and any(v is not vals[0] for v in vals):
                for d in self.join_of.get(b, ()):
                    c = self.cond.get(d, _GRID)
                    if c < best:
                        best = c
                        why = Reason("sync", "merged after a divergent branch", None, d)
            if best < self.lv.get(a, _GRID):
                self.lv[a] = best
                if why is not None:
                    self.reason[a] = why
                push_value_users(a)

    def _eval_branch(self, op: Op, push, control_ops, push_value_users) -> None:  # type: ignore[no-untyped-def]
        d = op.block
        assert d is not None
        if len(self.cfg.succs.get(d, [])) < 2:
            return
        if op.name == "cbr" and op.operands:
            lvl, _ = self.level_at(op.operands[0], d)
        else:
            lvl = _THREAD  # a multi-way terminator we do not model
        if lvl >= self.cond.get(d, _GRID):
            return
        self.cond[d] = lvl
        # sync dependence: block arguments at the joins of this branch
        if d not in self._joins_done:
            self._joins_done.add(d)
            for j in self.cfg.joins(d):
                self.join_of.setdefault(j, []).append(d)
        for j in self.cfg.joins(d):
            if j.args:
                push(j)
        # control: blocks depending on this branch
        for b in self.dependents.get(d, ()):
            if lvl < self.blk.get(b, _GRID):
                self.blk[b] = lvl
                for cop in control_ops.get(b, ()):
                    push(cop)
        # temporal divergence: loops whose exits depend on this branch
        for lp in self.loops_of_branch.get(d, ()):
            if lvl < self.exit.get(id(lp), _GRID):
                self.exit[id(lp)] = lvl
                for u in self.escaping.get(id(lp), ()):
                    push(u)


# op name -> whether `_block_writes` must look at the op: a barrier, or a possible shared-memory write
_WRITE_RELEVANT: dict[str, bool] = {}


def _shared_write(op: Op) -> object | None:
    """The shared allocation `op` may write (a symbol), `_ANY`, or None when it writes no shared memory."""
    idx = _SHARED_WRITERS.get(op.name)
    if idx is not None:
        if len(op.operands) <= idx:
            return None
        p = op.operands[idx]
        t = p.type
        if isinstance(t, PtrType) and t.space != "shared":
            return None
        if not isinstance(t, PtrType):
            return _ANY
        base = shared_base(p) or shared_loc.symbol(p)
        if base is None:
            return _ANY
        if op.name in ("store", "store_vec"):
            return shared_loc.location(op) or base
        return base
    if op.name == "call":
        return _ANY
    if op.name == "opaque":
        text = str(op.attrs.get("text", "")).lower()
        if any(
            k in text for k in ("st.", "atom", "red.", "cp.", "bulk", "shared", "tcgen05.alloc", "stmatrix")
        ):
            return _ANY
    return None
