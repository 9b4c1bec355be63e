"""The analyzer's checks: one module each, all with the signature `check(ctx) -> list[Diagnostic]`.

`CHECKS` maps the stable check name (spec section 8) to the function; `UNIFORMITY_CHECKS` need the
uniformity facts, which only make sense for kernels (device functions have no launch context).
"""

from __future__ import annotations

from collections.abc import Callable

from irc.analysis.checks.async_protocol import CHECKS as ASYNC_CHECKS
from irc.analysis.checks.barrier import check_barrier_divergence
from irc.analysis.checks.barrier_count import check_barrier_count
from irc.analysis.checks.bulk import check_bulk_size, check_bulk_tx, check_bulk_wait
from irc.analysis.checks.calls import NOTE_CHECK, check_calls
from irc.analysis.checks.common import FunctionContext
from irc.analysis.checks.grid_sync import check_grid_sync
from irc.analysis.checks.mbarrier_life import check_init_fence, check_reuse
from irc.analysis.checks.mbarrier_stage import check_stage_mismatch
from irc.analysis.checks.mbarrier_starved import check_arrival
from irc.analysis.checks.self_cancel import check_self_cancel
from irc.analysis.checks.shared_race import check_shared_race
from irc.analysis.checks.tma import check_mbarrier_tx, check_tma_misaligned
from irc.analysis.checks.tmem_overwrite import check_tmem_overwrite
from irc.analysis.checks.tx_undelivered import check_announced_too_few
from irc.analysis.checks.uninit import check_uninitialized
from irc.analysis.checks.warp_sync import check_warp_sync_divergence
from irc.diagnostics import Diagnostic

CheckFn = Callable[[FunctionContext], list[Diagnostic]]

CHECKS: dict[str, CheckFn] = {
    # barriers and collectives written in the kernel, and those its calls run (callee summaries)
    "barrier-divergence": lambda ctx: (
        check_barrier_divergence(ctx) + check_calls(ctx, "barrier-divergence") + check_grid_sync(ctx)
    ),
    "warp-sync-divergence": lambda ctx: (
        check_warp_sync_divergence(ctx) + check_calls(ctx, "warp-sync-divergence")
    ),
    "barrier-count": check_barrier_count,
    "self-cancel": check_self_cancel,
    "uninitialized": check_uninitialized,
    # TMA / bulk addresses and box limits (tma.py), bulk copy sizes (bulk.py)
    "tma-misaligned": lambda ctx: check_tma_misaligned(ctx) + check_bulk_size(ctx),
    # the TMA byte totals (tma.py), copies on a barrier nobody announces bytes on (async_protocol.py), and
    # announcement/copy groups of known sizes (bulk.py)
    "mbarrier-tx-mismatch": lambda ctx: _tx(ctx),
    # bulk stores whose source is overwritten (bulk.py), TMEM columns written under a pending tcgen05.ld
    "async-overwrite": lambda ctx: check_bulk_wait(ctx) + check_tmem_overwrite(ctx),
    "mbarrier-reuse": check_reuse,
    "mbarrier-stage-mismatch": check_stage_mismatch,
    NOTE_CHECK: lambda ctx: check_calls(ctx, NOTE_CHECK),
    "shared-race": check_shared_race,
    # the mbarrier protocol and async-memory checks (async_protocol.py)
    **{
        n: f
        for n, f in ASYNC_CHECKS.items()
        if n not in ("mbarrier-tx-mismatch", "async-proxy-fence", "mbarrier-arrival-mismatch")
    },
    # the symbol-wide count rules (async_protocol.py) and a ring element's first phase (mbarrier_starved.py)
    "mbarrier-arrival-mismatch": check_arrival,
    # generic-proxy writes the async proxy reads: stores (async_protocol.py), mbarrier.init (mbarrier_life.py)
    "async-proxy-fence": lambda ctx: ASYNC_CHECKS["async-proxy-fence"](ctx) + check_init_fence(ctx),
}


def _tx(ctx: FunctionContext) -> list[Diagnostic]:
    out = check_mbarrier_tx(ctx) + ASYNC_CHECKS["mbarrier-tx-mismatch"](ctx) + check_announced_too_few(ctx)
    return out + check_bulk_tx(ctx, {d.span for d in out if d.span is not None})


#: Checks that need the launch context, so they run on kernels only: the divergence checks need the
#: uniformity facts; the TMA checks follow a kernel's barriers and tensormap parameters.
UNIFORMITY_CHECKS = frozenset(
    {"barrier-divergence", "warp-sync-divergence", "shared-race", "barrier-count", NOTE_CHECK}
)
KERNEL_ONLY_CHECKS = UNIFORMITY_CHECKS | {"tma-misaligned", "mbarrier-tx-mismatch"}
#: Kernel-only checks that also judge a device function whose callers give it one launch of whole blocks
#: (`irc.analysis.caller_launch`: a `__noinline__` block reduction).
CALLER_LAUNCH_CHECKS = frozenset({"shared-race"})
#: Checks about what the source says: the .kdsl driver runs them on the IR before the optimization passes
#: (`irc.compiler`), because value numbering makes operands equal that the source wrote differently
#: (`min(v | 0, v)` becomes `min(v, v)`). Lifted PTX has no optimizer: every check runs on it as lifted.
SOURCE_CHECKS = frozenset({"self-cancel"})

__all__ = [
    "CALLER_LAUNCH_CHECKS",
    "CHECKS",
    "KERNEL_ONLY_CHECKS",
    "SOURCE_CHECKS",
    "UNIFORMITY_CHECKS",
    "CheckFn",
    "FunctionContext",
]
