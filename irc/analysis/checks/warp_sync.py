"""`warp-sync-divergence`: a warp collective that needs every lane of the warp, run under control that is
not uniform across the warp (e.g. a full-mask `shfl` under `tid.x % 32 < 16`, or inside a loop with a
per-thread trip count).

Only masks that are provably full are checked (a `const 0xffffffff`, through copies; an absent mask
operand and the `.aligned` collectives without a mask, like `mma`/`ldmatrix`/`wmma`/`tcgen05`, count as
full). A partial constant or a computed mask names the lanes the author expects, so it is not flagged:
precision over recall. Named barriers with a thread count (`barrier {id, count}`) synchronize whole warps,
so they too need warp-uniform control (spec section 8 lists them under this check).
"""

from __future__ import annotations

from irc.analysis import collectives
from irc.analysis.checks.common import (
    FunctionContext,
    branch_span,
    condition_value,
    describe_dependence,
    not_decided,
    witness_json,
)
from irc.analysis.uniformity import Level, const_value, has_trait, is_named_barrier
from irc.diagnostics import Diagnostic, Label, error
from irc.ir.core import Op
from irc.ir.optable import OPS

CHECK = "warp-sync-divergence"

# op -> index of its mask operand, from the op table (ops without one have no mask: the whole warp, `.aligned`)
MASK_INDEX = {n: d.mask for n, d in OPS.items() if d.mask is not None}
_FULL = (0xFFFFFFFF, -1)


def has_full_mask(op: Op) -> bool:
    """Whether `op` provably needs all 32 lanes."""
    i = MASK_INDEX.get(op.name)
    if i is None and op.name == "ptx_collective":  # lifted generically: the lifter marks a register mask
        m = op.attrs.get("mask_operand")
        i = m if isinstance(m, int) and ".sync" in str(op.attrs.get("text", "")) else None
    if i is None or len(op.operands) <= i:
        return True
    c = const_value(op.operands[i])
    return isinstance(c, int) and not isinstance(c, bool) and c in _FULL


def constant_mask(op: Op) -> int | None:
    """The member mask of a collective when it is a constant (None: absent, i.e. full, or computed)."""
    i = MASK_INDEX.get(op.name)
    if i is None or len(op.operands) <= i:
        return None
    c = const_value(op.operands[i])
    return c & 0xFFFFFFFF if isinstance(c, int) and not isinstance(c, bool) else None


def check_warp_sync_divergence(ctx: FunctionContext) -> list[Diagnostic]:
    # a collective with a partial constant mask is judged even in straight-line code (every lane runs
    # it); the divergence questions need branches, so without any the lattice is not even computed
    branchy = ctx.has_sync_ops()
    out: list[Diagnostic] = []
    for b in ctx.cfg.rpo:
        for op in b.ops:
            named = is_named_barrier(op)
            collective = has_trait(op, "warp_collective")
            if not (named or collective):
                continue
            full = named or has_full_mask(op)
            mask = None if full else constant_mask(op)
            if not full and mask is None:
                continue  # a computed mask names the lanes its author expects: not judged
            if not full:
                out.extend(_partial_mask(ctx, op, b, mask, branchy))  # type: ignore[arg-type]
                continue
            if not named and (d := _partial_last_warp(ctx, op, b)) is not None:
                out.append(d)
                continue
            if not branchy or ctx.facts.block_level(b) >= Level.WARP:
                continue
            ds = ctx.facts.controlling_branches(b, Level.WARP)
            if not ds or collectives.in_full_warp_region(ctx.cfg, b, ds):
                continue
            out.extend(_decide(ctx, op, b, ds, named, None))
    return out


def _partial_last_warp(ctx: FunctionContext, op: Op, b) -> Diagnostic | None:  # type: ignore[no-untyped-def]
    """A full-mask collective that lanes of the block's last warp reach when the block size is not a
    multiple of 32 (`.reqntid 80`, or a launch at `.maxntid 80`): that warp has fewer lanes than the mask
    names, and lanes that do not exist never arrive (undefined: values from absent lanes, or a hang).
    Judged only when the block shape is known and the threads that reach the collective are decided."""
    from irc.analysis.checks.common import launch_eval

    ev = launch_eval(ctx)
    if ev is None:
        return None
    dims = ev.dims
    n = dims[0] * dims[1] * dims[2]
    if n % 32 == 0:
        return None
    from irc.analysis.symbolic.witness import Witness

    g = ev.guard(b, {lp: 0 for lp in ctx.cfg.loops_containing(b)})
    last = n // 32
    if g is None or last not in ev.warps(g):
        return None
    lanes = n % 32
    what = op.attrs.get("text") if op.name == "ptx_collective" else None
    d = error(
        CHECK,
        f"`{what or op.name}` with a full mask runs in the block's last warp, which has only {lanes} lanes "
        f"(a block of {n} threads): lanes {lanes}..31 do not exist and never take part",
        op.span,
        help=f"pass the mask of the lanes that exist in that warp (0x{(1 << lanes) - 1:08x} for warp {last}), "
        "and ignore what a shuffle returns from beyond it; or make the block a multiple of 32 threads",
    )
    base = 32 * last
    w = Witness(
        dims, (1, 1, 1), (0, 0, 0), [(base % dims[0], base // dims[0] % dims[1], base // (dims[0] * dims[1]))]
    )
    w.story = f"lanes 0..{lanes - 1} of warp {last} of {{block}} execute it, lanes {lanes}..31 do not exist"
    d.witness = w.to_json()
    return d


def _what(op: Op) -> str:
    what = op.attrs.get("text") if op.name == "ptx_collective" else None
    return f"`{what or op.name}`"


def _decide(ctx: FunctionContext, op: Op, b, ds, named: bool, mask: int | None) -> list[Diagnostic]:  # type: ignore[no-untyped-def]
    """Ask the solver, branch by branch, whether two lanes of one warp (both in `mask`, when given) can
    decide it differently while one goes on to the collective (see barrier-divergence's `_decide`)."""
    from irc.analysis.symbolic.queries import divergence, lane_in

    extra = None
    if mask is not None:

        def extra(enc, ta, tb):  # type: ignore[no-untyped-def]
            return [lane_in(enc, ta, mask), lane_in(enc, tb, mask)]

    unknown: list[str] = []
    for d in ds:
        outcome, witness = divergence(ctx, d, b, "warp", _what(op), op.span, extra)
        if outcome.unsat:
            continue
        if outcome.sat:
            diag = _report(ctx, op, d, named, mask)
            diag.witness = witness_json(witness)
            return [diag]
        unknown.append(outcome.reason)
    return [not_decided(CHECK, op, unknown[0])] if unknown else []


def _partial_mask(ctx: FunctionContext, op: Op, b, mask: int, branchy: bool) -> list[Diagnostic]:  # type: ignore[no-untyped-def]
    """A constant partial mask: every executing lane must be in it, and every lane in it must execute
    the collective (the lanes of the mask that take another path hang it or read garbage)."""
    from irc.analysis.symbolic.queries import lane_outside_mask

    outcome, witness = lane_outside_mask(ctx, b, mask, _what(op), op.span)
    if outcome.sat:
        d = error(
            CHECK,
            f"{_what(op)} runs on lanes outside its member mask 0x{mask:08x}",
            op.span,
            help="the member mask must name every lane that executes the collective: use the mask of "
            "the lanes that reach it (e.g. `__activemask()` or a ballot of the guard), or widen the guard",
        )
        d.witness = witness_json(witness)
        return [d]
    if not outcome.unsat:
        return [not_decided(CHECK, op, outcome.reason)]
    if not branchy or ctx.facts.block_level(b) >= Level.WARP:
        return []
    ds = ctx.facts.controlling_branches(b, Level.WARP)
    if not ds or collectives.in_full_warp_region(ctx.cfg, b, ds):
        return []
    return _decide(ctx, op, b, ds, False, mask)


def _report(ctx: FunctionContext, op: Op, d, named: bool, mask: int | None = None) -> Diagnostic:  # type: ignore[no-untyped-def]
    cfg = ctx.cfg
    labels: list[Label] = []
    cond = condition_value(d)
    dep, extra = describe_dependence(ctx, cond) if cond is not None else ("is not uniform", [])
    in_loop = any(d in lp.exiting_blocks for lp in cfg.loops_containing(op.block))  # type: ignore[arg-type]
    if in_loop:
        text = f"lanes leave this loop at different iterations: the condition {dep}"
    else:
        text = f"this condition {dep}, so lanes of one warp may disagree"
    sp = branch_span(d)
    if sp is not None:
        labels.append(Label(sp, text))
    labels.extend(extra)
    if named:
        cnt = op.attrs.get("count")
        msg = f"named barrier {op.attrs.get('id', '?')} (count {cnt}) may be reached by only some lanes of a warp"
        help_text = (
            "named barriers count whole warps: put them under control that is uniform across each warp"
        )
    else:
        what = op.attrs.get("text") if op.name == "ptx_collective" else None  # the PTX opcode
        msg = f"`{what or op.name}` with a full mask may run with only some lanes of the warp"
        if mask is not None:
            msg = f"`{what or op.name}` may run with only some of the lanes of its mask 0x{mask:08x}"
        help_text = (
            "run the collective with every lane of the warp (hoist it out of the branch or loop and "
            "select the result), or pass the mask of exactly the lanes that take this path"
        )
    return error(CHECK, msg, op.span, labels=labels, help=help_text)
