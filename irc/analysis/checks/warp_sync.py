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
from irc.analysis.checks.common import FunctionContext, branch_span, condition_value, describe_dependence
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


def check_warp_sync_divergence(ctx: FunctionContext) -> list[Diagnostic]:
    if not ctx.has_sync_ops():
        return []
    facts = ctx.facts
    out: list[Diagnostic] = []
    for b in ctx.cfg.rpo:
        if facts.block_level(b) >= Level.WARP:
            continue
        for op in b.ops:
            named = is_named_barrier(op)
            if not (named or (has_trait(op, "warp_collective") and has_full_mask(op))):
                continue
            ds = facts.controlling_branches(b, Level.WARP)
            if not ds or collectives.in_full_warp_region(ctx.cfg, b, ds):
                continue
            out.append(_report(ctx, op, ds[0], named))
    return out


def _report(ctx: FunctionContext, op: Op, d, named: bool) -> Diagnostic:  # type: ignore[no-untyped-def]
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
        help_text = (
            "run the collective with every lane of the warp (hoist it out of the branch or loop and "
            "select the result), or pass the mask of exactly the lanes that take this path"
        )
    return error(CHECK, msg, op.span, labels=labels, help=help_text)
