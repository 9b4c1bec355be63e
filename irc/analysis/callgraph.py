"""Interprocedural summaries: what a `.func` (a `__noinline__` helper, every function of a `-G` build)
does that matters to its callers' divergence checks.

Why: a `__syncthreads()` or a full-mask shuffle inside a callee, called under thread-dependent control,
is the same bug as one written inline; without summaries the call was a hole (no finding, exit 0).

`Summary` of a function, transitively through its own calls (memoized; a recursive cycle is cut and
counts as "not analysed"):
- `barrier`: a block-wide barrier op the callee may execute (the first in layout order), with the chain
  of calls that leads to it (for the message);
- `collective`: a full-mask warp collective or a named barrier it may execute, likewise;
- `unknown`: the name of a callee with no body in the module (an extern) or an indirect call, unless it
  is one of the CUDA runtime's leaf functions known to contain neither (`vprintf`, `malloc`, ...).
"""

from __future__ import annotations

from irc.analysis.uniformity import has_trait, is_block_barrier, is_named_barrier
from irc.ir.core import Function, Module, Op, OpResult
from irc.ir.types import PtrType
from irc.records import record

# CUDA runtime / libdevice externs that synchronize nobody (printf, device malloc, assert, device launch)
SAFE_EXTERNS = frozenset(
    {
        "vprintf",
        "malloc",
        "free",
        "__assertfail",
        "__assert_fail",
        "cudaGetParameterBufferV2",
        "cudaGetParameterBuffer",
        "cudaLaunchDeviceV2",
        "cudaLaunchDevice",
        "cudaStreamCreateWithFlags",
        "cudaDeviceSynchronize",
        "cudaGetLastError",
        "cudaPeekAtLastError",
        "cudaMalloc",
        "cudaFree",
    }
)


@record(frozen=True)
class Summary:
    barrier: tuple[Op, ...] | None = None  # call chain ... -> the barrier op (last)
    collective: tuple[Op, ...] | None = None
    unknown: str | None = None
    unknown_collective_only: bool = False  # only a warp collective may hide there (not a block barrier)


EMPTY_SUMMARY = Summary()


def _is_collective(op: Op) -> bool:
    from irc.analysis.checks.warp_sync import has_full_mask

    return is_named_barrier(op) or (has_trait(op, "warp_collective") and has_full_mask(op))


def _mask_from_caller(op: Op, entry_args: set) -> bool:
    """The collective's mask is a parameter of its function (a register argument, or read from .param
    memory as in -G builds of `__shfl_xor_sync`): only the call sites know whether it is full."""
    from irc.analysis.checks.warp_sync import MASK_INDEX

    i = MASK_INDEX.get(op.name)
    if i is None or len(op.operands) <= i:
        return False
    v = op.operands[i]
    for _ in range(16):
        if v in entry_args:
            return True
        if not isinstance(v, OpResult) or not v.op.operands:
            return False
        if v.op.name == "load":
            t = v.op.operands[0].type
            return isinstance(t, PtrType) and t.space == "param"
        if v.op.name not in ("copy", "bitcast", "cvt"):
            return False
        v = v.op.operands[0]
    return False


class CallGraph:
    """Summaries of the functions of one module, computed on demand."""

    def __init__(self, module: Module | None):
        self.fns: dict[str, Function] = {}
        if module is not None:
            for f in module.functions:
                if f.blocks:
                    self.fns[f.name] = f
        self.memo: dict[str, Summary] = {}
        self.active: set[str] = set()

    def callee(self, op: Op) -> str | None:
        """The called function's name; None for an indirect call (`call %rd, (...), prototype_N;`: nvcc
        names the call's signature `prototype_N`, which the lifter sees as the only symbol)."""
        c = op.attrs.get("callee")
        if c is None or (str(c).startswith("prototype_") and str(c) not in self.fns):
            return None
        return str(c)

    def summary_of_call(self, op: Op) -> Summary:
        name = self.callee(op)
        if name is None:
            return Summary(unknown="an indirect call")
        return self.summary(name)

    def summary(self, name: str) -> Summary:
        hit = self.memo.get(name)
        if hit is not None:
            return hit
        fn = self.fns.get(name)
        if fn is None:  # the CUDA device runtime (CDP) entry points synchronize nobody either
            return (
                EMPTY_SUMMARY
                if name in SAFE_EXTERNS or name.startswith("__cudaCDP")
                else Summary(unknown=name)
            )
        if name in self.active:
            return Summary(unknown=name)  # recursion: not analysed
        self.active.add(name)
        barrier = collective = None
        unknown = None
        coll_only = False
        entry_args = set(fn.blocks[0].args) if fn.blocks else set()
        for op in fn.ops():
            if barrier is None and is_block_barrier(op):
                barrier = (op,)
            elif collective is None and _is_collective(op):
                collective = (op,)
            elif unknown is None and has_trait(op, "warp_collective") and _mask_from_caller(op, entry_args):
                unknown = f"`{name}` (its warp collective's mask is passed in by the caller)"
                coll_only = True
            elif op.name == "call":
                s = self.summary_of_call(op)
                if barrier is None and s.barrier is not None:
                    barrier = (op, *s.barrier)
                if collective is None and s.collective is not None:
                    collective = (op, *s.collective)
                if unknown is None and s.unknown is not None:
                    unknown, coll_only = s.unknown, s.unknown_collective_only
        self.active.discard(name)
        res = Summary(barrier, collective, unknown, coll_only)
        self.memo[name] = res
        return res
