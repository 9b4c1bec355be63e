"""The questions the checks ask the solver, each as a satisfiability query over two symbolic threads.

- `branch_diverges(ctx, d, scope)`: can two threads of one block (`scope="block"`) or of one warp
  (`"warp"`), both reaching the branch ending `d` in the same iterations of the loops around it, take
  different successors? This is the barrier- and collective-divergence question: UNSAT proves the branch
  uniform where the lattice could not (nvcc's signed-division `tid / 32`, an impossible guard
  `tid.x == 2147483647`, an early exit the launch contract rules out).
- `reachable_by(ctx, b)`: some thread of some launch reaches `b` (a witness launch for any finding).

Each returns an `Outcome` and, when satisfiable, a `Witness`.
"""

from __future__ import annotations

from typing import Any

from irc.analysis.symbolic.encode import Encoder
from irc.analysis.symbolic.launch import Launch
from irc.analysis.symbolic.solver import Budget, Outcome, Session
from irc.analysis.symbolic.witness import Witness, enumerate_threads, from_model, ranges
from irc.ir.core import Block


class Symbolic:
    """The symbolic model of one function for one `check_module` run (cached on the context)."""

    def __init__(self, ctx: Any):
        self.ctx = ctx
        contract = ctx.cache.get("contract")
        self.launch = Launch(ctx.fn, contract)
        if contract is not None:
            self.launch.param_names = contract.param_names  # type: ignore[attr-defined]
        self.enc = Encoder(ctx, self.launch)
        self.budget = Budget()
        self.session = Session(self.launch.z)
        self.contract_text = contract.text if contract is not None else ""
        # answers kept for the function: the proven difference facts of each loop-header argument
        # (`invariants.partners`) and whether an edge can be taken (`asyncq.edge_live`)
        self.partners: dict[int, list] = {}
        self.live_edges: dict[tuple[int, int], bool] = {}

    def solve(self, query: list, threads: tuple = ("a", "b"), prefer: bool = True) -> Outcome:
        ths = [self.enc.thread(n) for n in threads]
        pref = self.preferences(ths) if prefer else None
        return self.session.check(self.enc.constraints(*ths), query, self.budget, pref)

    def solve_shapes(self, query: list, threads: tuple = ("a", "b")) -> Outcome:
        """`query` for the launch the kernel fixes, or, for a 2-D/3-D kernel whose block shape the PTX
        leaves open, under every canonical shape of its thread bound (`canonical_shapes`): which threads'
        tiles overlap depends on the shape the host picks (16x16 tiles indexed by a 1x130 block overlap in
        a correct kernel), so a finding must hold for each shape the kernel is plausibly written for. A
        contract that fixes the block decides it instead."""
        L = self.launch
        if L.fixed_block is not None or L.one_d or getattr(L.contract, "block", None) is not None:
            return self.solve(query, threads)
        bound = L.fn.attrs.get("max_threads")
        n = 256
        if isinstance(bound, (list, tuple)) and bound and all(isinstance(x, int) for x in bound):
            n = 1
            for x in bound:
                n *= x
        z = self.enc.z
        first: Outcome | None = None
        for bx, by in canonical_shapes(n):
            shape = [L.ntid[0] == z.BitVecVal(bx, 32), L.ntid[1] == z.BitVecVal(by, 32), L.ntid[2] == 1]
            out = self.solve(query + shape, threads)
            if not out.sat:
                return out
            first = first or out
        assert first is not None
        return first

    def preferences(self, threads: list) -> list[list]:
        """What makes a witness read like a real launch, in tiers, most important first (see `solve`)."""
        z = self.enc.z
        L = self.launch
        bv = z.BitVecVal
        tiers = [[L.ntid[1] == 1, L.ntid[2] == 1, L.nctaid[1] == 1, L.nctaid[2] == 1, L.ctaid[0] == 0]]
        if L.fixed_block is None:
            tiers += [[L.ntid[0] == bv(n, 32)] for n in (256, 128, 512, 64, 32, 1024)]
        tiers += [[L.nctaid[0] == 1], [z.ULE(L.nctaid[0], 8)]]
        small = [z.ULE(p, bv(512, p.size())) for p in L.params.values()]
        if small:
            tiers.append(small)
        ks = [z.ULE(k, 4) for th in threads for k in th.iters.values()]
        if ks:
            tiers.append(ks)
        return tiers


def canonical_shapes(n: int) -> list[tuple[int, int]]:
    """The 2-D block shapes people launch with `n` threads: square-ish ones (256: 16x16 and 32x8)."""
    out = []
    x = 1
    while x * x < n:
        x *= 2
    for bx in (x, 2 * x):
        if bx <= n and n % bx == 0:
            out.append((bx, n // bx))
    return out or [(n, 1)]


def symbolic(ctx: Any) -> Symbolic | None:
    """The context's symbolic model, or None when no solver is installed (then checks keep the lattice's
    answer and say the solver was not available)."""
    hit = ctx.cache.get("symbolic")
    if hit is None:
        from irc.analysis.symbolic.solver import available

        if not available():
            return None
        hit = ctx.cache["symbolic"] = Symbolic(ctx)
    return hit  # type: ignore[return-value]


def same_iterations(sym: Symbolic, b: Block, ta: Any, tb: Any) -> list:
    """Both threads are in the same, existing iteration of every loop around `b`."""
    enc = sym.enc
    out = []
    for lp in enc.cfg.loops_containing(b):
        out += [enc.iteration(lp, ta) == enc.iteration(lp, tb), enc.exists(lp, ta)]
    return out


def branch_diverges(ctx: Any, d: Block, scope: str = "block") -> tuple[Outcome, Witness | None]:
    sym = symbolic(ctx)
    if sym is None:
        return Outcome("unknown", reason="solver unavailable (pip install z3-solver)"), None
    enc = sym.enc
    z = enc.z
    t = d.terminator
    if t is None or t.name != "cbr" or len(t.successors) < 2:
        return Outcome("unsat"), None
    ta, tb = enc.thread("a"), enc.thread("b")
    ca, cb = enc.value(t.operands[0], ta), enc.value(t.operands[0], tb)
    if not z.is_bool(ca):
        ca, cb = ca != 0, cb != 0
    q = [enc.reach(d, ta), enc.reach(d, tb), ca, z.Not(cb), enc.distinct(ta, tb)]
    q += same_iterations(sym, d, ta, tb)
    if scope == "warp":
        q.append(enc.warp_of(ta) == enc.warp_of(tb))
    out = sym.solve(q)
    if not out.sat:
        return out, None
    w = from_model(out.model, enc, ["a", "b"], sym.contract_text)

    def cond(th: Any) -> Any:
        c = enc.value(t.operands[0], th)
        return c if z.is_bool(c) else c != 0

    split = enumerate_threads(out.model, enc, cond)
    if split is not None:
        if scope == "warp":
            lane0 = (
                w.threads[0][0] + w.block_dim[0] * (w.threads[0][1] + w.block_dim[1] * w.threads[0][2])
            ) // 32
            for k in (True, False):
                split[k] = [i for i in split[k] if i // 32 == lane0]
        w.groups = [
            (ranges(split[True]), "take the `true` arm"),
            (ranges(split[False]), "take the `false` arm"),
        ]
    return out, w


def reachable_by(ctx: Any, b: Block) -> tuple[Outcome, Witness | None]:
    sym = symbolic(ctx)
    if sym is None:
        return Outcome("unknown", reason="solver unavailable (pip install z3-solver)"), None
    enc = sym.enc
    ta = enc.thread("a")
    out = sym.solve([enc.reach(b, ta)], ("a",))
    if not out.sat:
        return out, None
    return out, from_model(out.model, enc, ["a"], sym.contract_text, blocks=[b])


def _arm_reaches(ctx: Any, d: Block, i: int, target: Block) -> bool:
    """Whether successor `i` of `d` can lead to `target` (without passing `d` again)."""
    t = d.terminator
    start = t.successors[i]  # type: ignore[union-attr]
    seen: set[Block] = set()
    work = [start]
    while work:
        b = work.pop()
        if b is target:
            return True
        if b in seen or b is d:
            continue
        seen.add(b)
        work.extend(ctx.cfg.succs.get(b, ()))
    return False


def divergence(
    ctx: Any,
    d: Block,
    target: Block,
    scope: str = "block",
    what: str = "the barrier",
    at_span: Any = None,
    extra: Any = None,
) -> tuple[Outcome, Witness | None]:
    """Can two threads of one block (or lanes of one warp), both at the branch ending `d` in the same
    iterations of the loops around it, decide it differently while one of them goes on to `target`?
    UNSAT proves that `d` never splits the threads that reach `target`."""
    sym = symbolic(ctx)
    if sym is None:
        return Outcome("unknown", reason="solver unavailable (pip install z3-solver)"), None
    enc = sym.enc
    z = enc.z
    t = d.terminator
    if t is None or t.name != "cbr" or len(t.successors) < 2:
        return Outcome("unsat"), None
    ta, tb = enc.thread("a"), enc.thread("b")
    ca, cb = enc.value(t.operands[0], ta), enc.value(t.operands[0], tb)
    if not z.is_bool(ca):
        ca, cb = ca != 0, cb != 0
    q = [enc.reach(d, ta), enc.reach(d, tb), ca != cb, enc.reach(target, ta), enc.distinct(ta, tb)]
    q += same_iterations(sym, d, ta, tb)
    if scope == "warp":
        q.append(enc.warp_of(ta) == enc.warp_of(tb))
        if not ctx.cfg.loops_containing(target):
            # lanes that split at `d` but all arrive at the collective (nvcc's jump threading sends lane 0
            # through `if (tid == 0)` and the others around it, both into `if (warp == 0)`) run it
            # together: only a lane that never gets there makes it divergent (in a loop, "never" would
            # also drop a lane that left in a later iteration, so loops keep the plain question)
            q.append(z.Not(enc.reach(target, tb)))
    if extra is not None:
        q += extra(enc, ta, tb)
    out = sym.solve(q)
    if not out.sat:
        return out, None
    w = from_model(out.model, enc, ["a", "b"], sym.contract_text)
    a_true = z.is_true(out.model.eval(ca, model_completion=True))
    goes = [_arm_reaches(ctx, d, 0, target), _arm_reaches(ctx, d, 1, target)]
    tspan = at_span if at_span is not None else next((o.span for o in target.ops if o.span is not None), None)
    at = f" at {w.ref(tspan)}" if tspan is not None else ""

    def words(arm_true: bool, one: bool) -> str:
        i = 0 if arm_true else 1
        side = "`true`" if arm_true else "`false`"
        v = (lambda verb: verb + ("es" if verb.endswith("o") or verb.endswith("h") else "s")) if one else str
        if arm_true == a_true:
            return f"{v('take')} the {side} arm and {v('reach')} {what}{at}"
        if goes[i]:
            return f"{v('take')} the {side} arm"
        exits = [b for b in ctx.cfg.rpo if ctx.cfg.exits_thread(b) and _arm_reaches(ctx, d, i, b)]
        if exits and exits[0].terminator is not None and exits[0].terminator.span is not None:
            e = exits[0]
            # a lone `ret` many paths jump to (nvcc's shared exit) sits at the closing brace: name the
            # branch that sends these threads there instead
            shared = len(e.ops) == 1 and len(ctx.cfg.preds.get(e, ())) > 1 and t.span is not None
            where = w.ref(t.span if shared else e.terminator.span)
            return f"{v('take')} the {side} arm and {v('exit')} at {where} without reaching {what}"
        return f"{v('take')} the {side} arm and {v('do')} not reach {what}"

    def cond(th: Any) -> Any:
        c = enc.value(t.operands[0], th)
        return c if z.is_bool(c) else c != 0

    split = enumerate_threads(out.model, enc, cond)
    if split is not None:
        if scope == "warp":
            lin = [x + w.block_dim[0] * (y + w.block_dim[1] * zz) for x, y, zz in w.threads]
            split = {k: [i for i in v if i // 32 == lin[0] // 32] for k, v in split.items()}
        w.groups = [
            (ranges(split[k]), words(k, len(split[k]) == 1)) for k in (a_true, not a_true) if split[k]
        ]
    else:
        ida, idb = w.threads
        w.story = f"thread {coord(ida)} of {{block}} {words(a_true, True)} while thread {coord(idb)} {words(not a_true, True)}"
    return out, w


def coord(t: tuple) -> str:
    return f"({t[0]}, {t[1]}, {t[2]})"


def lane_in(enc: Any, th: Any, mask: int) -> Any:
    """Lane of `th` is a member of the constant `mask`."""
    z = enc.z
    return (z.LShR(z.BitVecVal(mask & 0xFFFFFFFF, 32), enc.lane_of(th)) & 1) == 1


def lane_outside_mask(
    ctx: Any, b: Block, mask: int, what: str, at_span: Any
) -> tuple[Outcome, Witness | None]:
    """Can a lane whose bit is not in the constant member `mask` execute the collective in `b`? (PTX: the
    executing thread must be in the mask.)"""
    sym = symbolic(ctx)
    if sym is None:
        return Outcome("unknown", reason="solver unavailable (pip install z3-solver)"), None
    enc = sym.enc
    z = enc.z
    ta = enc.thread("a")
    q = [enc.reach(b, ta), z.Not(lane_in(enc, ta, mask))]
    L = sym.launch
    contract = ctx.cache.get("contract")
    if (
        L.fixed_block is None
        and not ctx.fn.attrs.get("max_threads")
        and getattr(contract, "block", None) is None
    ):
        # No launch bound: a partial constant mask is how a kernel specialised for small blocks says
        # which lanes exist (cuda-samples' reduce7<16> passes 0xffff); only a block that small is judged
        n = L.ntid
        q.append(z.ULE(n[0] * n[1] * n[2], z.BitVecVal(max(1, (mask & 0xFFFFFFFF).bit_length()), 32)))
    out = sym.solve(q, ("a",))
    if not out.sat:
        return out, None
    w = from_model(out.model, enc, ["a"], sym.contract_text)
    split = enumerate_threads(
        out.model, enc, lambda th: z.And(enc.reach(b, th), z.Not(lane_in(enc, th, mask)))
    )
    lin = w.threads[0][0] + w.block_dim[0] * (w.threads[0][1] + w.block_dim[1] * w.threads[0][2])
    at = w.ref(at_span) if at_span is not None else "it"
    if split is not None:
        lanes = [i % 32 for i in split[True] if i // 32 == lin // 32]
        w.story = (
            f"lanes {ranges(lanes)} of warp {lin // 32} of {{block}} execute {what} at {at}, "
            f"but the member mask 0x{mask & 0xFFFFFFFF:08x} leaves them out"
        )
    else:
        w.story = (
            f"lane {lin % 32} of warp {lin // 32} of {{block}} executes {what} at {at}, "
            f"but the member mask 0x{mask & 0xFFFFFFFF:08x} leaves it out"
        )
    return out, w


def attach_reach_witnesses(ctx: Any, diags: list) -> None:
    """Give every error or warning that has no witness of its own a launch in which a thread executes
    the offending instruction (its block's path condition, with the loop iterations), so every finding
    shows a concrete launch. Findings whose instruction no thread of any launch (within the contract) can
    reach are dropped: they describe code that never runs (`if (threadIdx.x == 2147483647)`)."""
    by_span: dict = {}
    for b in ctx.cfg.rpo:
        for op in b.ops:
            if op.span is not None and op.span not in by_span:
                by_span[op.span] = b
    drop = []
    for d in diags:
        if d.witness is not None or d.severity == "note" or d.span is None:
            continue
        b = by_span.get(d.span)
        if b is None:
            continue
        out, w = reachable_by(ctx, b)
        if out.unsat:
            drop.append(d)
            continue
        if w is not None:
            w.story = f"thread {coord(w.threads[0])} of {{block}} executes it"
            d.witness = w.to_json()
    for d in drop:
        diags.remove(d)
