"""The static analyzer behind `irc check`: control-flow facts (`cfg`), uniformity facts (`uniformity`)
and the checks (`checks`) that turn facts into diagnostics. It runs on the SSA IR, so .kdsl kernels and
PTX lifted from any generator are analyzed by the same code. See docs/analyzer.md.

Entry points: `check_module(module, arch=...)` and the pass `AnalyzerPass` (name "check").
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from irc import limits
from irc.analysis.cfg import CFG, EXIT, AnalysisBudgetExceeded, Loop
from irc.analysis.checks import CALLER_LAUNCH_CHECKS, CHECKS, KERNEL_ONLY_CHECKS
from irc.analysis.checks.common import FunctionContext
from irc.analysis.tma_facts import CHECK_ALIGN, CHECK_TX
from irc.analysis.uniformity import Level, UniformityFacts, analyze_uniformity
from irc.diagnostics import Diagnostic, note
from irc.ir.core import Function, Module
from irc.passes.manager import Pass, PassContext

# reported by `irc.analysis.checks.tma` (one computation of the facts serves both)
TMA_CHECKS = (CHECK_ALIGN, CHECK_TX)


def allowed_checks(fn: Function) -> frozenset[str]:
    """Checks suppressed in `fn` by the kernel attribute `allow = [...]`."""
    a = fn.attrs.get("allow")
    if isinstance(a, str):
        return frozenset({a})
    if isinstance(a, (list, tuple)):
        return frozenset(str(x) for x in a)
    return frozenset()


def check_function(
    fn: Function,
    module: Module | None = None,
    *,
    arch: str = "sm_80",
    checks: Iterable[str] | None = None,
    contract: object | None = None,
) -> list[Diagnostic]:
    """Run the analyzer's checks on one function (uniformity and TMA checks only on kernels). `contract`
    (`irc.analysis.symbolic.contract.Contract`) restricts the launches the solver considers."""
    ctx = FunctionContext(fn, module, arch)
    if contract is not None:
        ctx.cache["contract"] = contract
    allow = allowed_checks(fn)
    wanted = list(dict.fromkeys(checks if checks is not None else CHECKS))
    out: list[Diagnostic] = []
    if len(fn.blocks) > limits.get("max_analysis_blocks"):
        return [not_analysed(fn, f"it has {len(fn.blocks)} blocks (`max_analysis_blocks`)")]
    inherited = not fn.is_kernel and _inherit_launch(ctx, wanted, allow)
    try:
        for name in wanted:
            if name in allow or name not in CHECKS:
                continue
            if (
                name in KERNEL_ONLY_CHECKS
                and not fn.is_kernel
                and not (name in CALLER_LAUNCH_CHECKS and inherited)
            ):
                continue
            out.extend(CHECKS[name](ctx))
    except AnalysisBudgetExceeded:
        steps = limits.get("analysis_steps_per_block")
        out = out + [not_analysed(fn, f"its control flow needs more than {steps} steps per block")]
    for d in out:
        if d.kernel is None:
            d.kernel = fn.name
    if fn.is_kernel and any(d.witness is None and d.severity != "note" for d in out):
        from irc.analysis.symbolic.queries import attach_reach_witnesses

        attach_reach_witnesses(ctx, out)
    return out


def _inherit_launch(ctx: FunctionContext, wanted: list[str], allow: frozenset[str]) -> bool:
    """A device function with shared-memory writes, run by whole blocks of one known shape (its callers'):
    the checks of `CALLER_LAUNCH_CHECKS` then judge it under that launch, stated as its contract so the
    witness says where the block shape came from (`irc.analysis.caller_launch`)."""
    if not any(n in wanted and n not in allow for n in CALLER_LAUNCH_CHECKS):
        return False
    from irc.analysis.races import shared_accesses

    if not any(a.write for a in shared_accesses(ctx.fn, ctx.cfg)):
        return False
    from irc.analysis.caller_launch import caller_launch
    from irc.analysis.symbolic.contract import Contract

    got = caller_launch(ctx.fn, ctx.module)
    if got is None:
        return False
    dims, kernel = got
    ctx.cache["contract"] = Contract(block=dims, origin=f"the launch of its caller `{kernel}`")
    ctx.cache["caller_launch"] = kernel
    return True


def not_analysed(fn: Function, why: str) -> Diagnostic:
    """The note for a function too costly to analyse (docs/limits.md): no finding is not a clean bill."""
    return note(
        "not-analysed",
        f"`{fn.name}` was not fully analysed: {why}",
        fn.span,
        help="raise the limit with IRC_LIMIT_<NAME>=N (see docs/limits.md)",
    )


def check_module(
    module: Module,
    *,
    arch: str = "sm_80",
    checks: Iterable[str] | None = None,
    contract_for: Callable[[Function], object | None] | None = None,
) -> list[Diagnostic]:
    """Run every check on every function of `module` (the divergence checks on kernels only); findings are
    sorted by position. Kernel attribute `allow = [names]` suppresses checks per kernel. `contract_for`
    gives each kernel's launch contract (`irc.tooling.contracts.Binder.for_kernel`)."""
    names = list(checks) if checks is not None else None
    out: list[Diagnostic] = []
    for fn in module.functions:
        contract = contract_for(fn) if contract_for is not None and fn.is_kernel else None
        out.extend(check_function(fn, module, arch=arch, checks=names, contract=contract))
    out.sort(key=Diagnostic.sort_key)
    return out


class AnalyzerPass(Pass):
    """`irc check` as a pass: needs valid IR; changes nothing; appends findings to `ctx.diagnostics`."""

    name = "check"

    def run(self, module: Module, ctx: PassContext) -> None:
        ctx.diagnostics.extend(check_module(module, arch=ctx.arch))


__all__ = [
    "CFG",
    "CHECKS",
    "EXIT",
    "TMA_CHECKS",
    "AnalyzerPass",
    "Level",
    "Loop",
    "UniformityFacts",
    "analyze_uniformity",
    "check_function",
    "check_module",
]
