"""`barrier-divergence` for grid-wide barriers: cooperative groups' `grid.sync()` under control that is not
uniform across the grid (some blocks skip it, the others wait forever).

Why: `this_grid().sync()` is no single PTX instruction. nvcc lowers it to `bar.sync 0`, then one thread
per block does `atom.add.release.gpu` on the grid's sync word and spins on `ld.acquire.gpu` until every
block has arrived, then `bar.sync 0` again. The sync word's address comes from the launch environment
registers `%envreg1`/`%envreg2` (the cooperative launch workspace). So a grid barrier is recognized as an
atomic whose address is computed from `envreg1`/`envreg2`; the grid barrier's entry is the nearest block
barrier that dominates that atomic. The block barrier check already reports control that is not uniform
across the *block*; this check adds control that is uniform per block but not across the grid
(`if (blockIdx.x % 2 == 0) grid.sync();`). Only conditions computed from the block index alone are judged:
a value loaded from global memory after a grid barrier (a convergence test `while (r > tol)` on a dot
product every block reads) is uniform across the grid, which the per-value rule cannot see.
"""

from __future__ import annotations

from irc.analysis.checks.common import FunctionContext, branch_span, condition_value, describe_dependence
from irc.analysis.uniformity import Level, is_block_barrier
from irc.diagnostics import Diagnostic, Label, error
from irc.ir.core import BlockArg, Op, OpResult, Value

CHECK = "barrier-divergence"
_ENV = ("envreg1", "envreg2")


def _from_envreg(v: Value, depth: int = 0) -> bool:
    if depth > 10 or not isinstance(v, OpResult):
        return False
    op = v.op
    if op.name == "sreg":
        return op.attrs.get("name") in _ENV
    if op.name in ("load", "atomic", "call", "opaque"):
        return False
    return any(_from_envreg(o, depth + 1) for o in op.operands)


def _grid_atomics(ctx: FunctionContext) -> list[Op]:
    atomics = []
    env = False
    for op in ctx.fn.ops():
        n = op.name
        if n == "atomic":
            atomics.append(op)
        elif n == "sreg" and not env:
            env = op.attrs.get("name") in _ENV
    if not env or not atomics:
        return []
    reach = ctx.cfg.reachable
    return [op for op in atomics if op.block in reach and op.operands and _from_envreg(op.operands[0])]


_BLOCK_SREGS = ("ctaid.", "clusterid.", "cluster_ctaid.", "cluster_ctarank", "smid")


def _block_seeded(v: Value, preds: dict, seen: set[int] | None = None) -> tuple[bool, bool]:
    """(depends on the block index, depends on memory) for a branch condition. A value read from global
    memory after a grid barrier is uniform across the grid although the per-value rule calls loads
    BLOCK at best, so only conditions built from the block index alone are judged."""
    seen = seen if seen is not None else set()
    if id(v) in seen or len(seen) > 256:
        return False, False
    seen.add(id(v))
    ins: list[Value] = []
    if isinstance(v, OpResult):
        op = v.op
        if op.name == "sreg":
            return str(op.attrs.get("name", "")).startswith(_BLOCK_SREGS), False
        if op.name in ("load", "load_vec", "atomic", "atomic_cas", "opaque", "call"):
            return False, True
        ins = list(op.operands)
    elif isinstance(v, BlockArg) and v.block is not None:
        for p in preds.get(v.block, []):
            t = p.terminator
            if t is None:
                continue
            for succ, args in zip(t.successors, t.succ_args):
                if succ is v.block and v.index < len(args):
                    ins.append(args[v.index])
        if not ins:
            return False, True  # unknown incoming values: do not judge
    blk = mem = False
    for o in ins:
        b, m = _block_seeded(o, preds, seen)
        blk, mem = blk or b, mem or m
    return blk, mem


def _entry_barrier(ctx: FunctionContext, atom: Op) -> Op | None:
    """The nearest block-wide barrier that dominates `atom` (the first half of the grid barrier)."""
    b = atom.block
    ops = b.ops[: b.ops.index(atom)] if b is not None else []
    while b is not None:
        for op in reversed(ops):
            if is_block_barrier(op):
                return op
        b = ctx.cfg.idom.get(b)
        ops = b.ops if b is not None else []
    return None


def check_grid_sync(ctx: FunctionContext) -> list[Diagnostic]:
    if not ctx.fn.is_kernel or not ctx.has_sync_ops():  # a grid barrier contains block barriers
        return []
    atoms = _grid_atomics(ctx)
    if not atoms:
        return []
    facts = ctx.facts
    out: list[Diagnostic] = []
    seen: set[int] = set()
    for atom in atoms:
        bar = _entry_barrier(ctx, atom)
        if bar is None or id(bar) in seen or bar.block is None:
            continue
        seen.add(id(bar))
        ds = [
            d
            for d in facts.controlling_branches(bar.block, Level.GRID)
            if facts.branch_level(d) == Level.BLOCK
            and (c := condition_value(d)) is not None
            and _block_seeded(c, ctx.cfg.preds) == (True, False)
        ]
        if not ds:
            continue  # thread-varying control is the block barrier check's; memory-driven is not judged
        d = ds[0]
        cond = condition_value(d)
        dep, extra = describe_dependence(ctx, cond) if cond is not None else ("is not uniform", [])
        labels = (
            [Label(sp, f"this condition {dep}, so it is not uniform across the grid")]
            if (sp := branch_span(d))
            else []
        )
        if atom.span is not None:
            labels.append(Label(atom.span, "one thread per block arrives at the grid barrier here"))
        out.append(
            error(
                CHECK,
                "grid-wide barrier (cooperative groups `grid.sync()`) may not be reached by every block of "
                "the grid",
                bar.span,
                labels=labels + extra,
                help="every block of a cooperative launch must call grid.sync() the same number of times: "
                "move it out of block-dependent control",
            )
        )
    return out
