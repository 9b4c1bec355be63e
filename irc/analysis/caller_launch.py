"""The launch a device function (`.func`, a `__noinline__` helper) runs in, taken from its callers.

Why: a block reduction kept out of line (`__noinline__ float block_reduce_sum(...)`) holds the kernel's
shared-memory protocol, and the race check needs a block shape to evaluate its threads. A device function
inherits one when every call of it is made by a kernel of one known block shape, from control that every
thread of the block takes alike (so all threads of the block run the function together), and every
argument that reaches a shared address or a branch in the function is block-uniform at each call (so the
function's parameters may be modelled like a kernel's). Lifted PTX passes arguments through `.param`
memory, which its `call` op does not carry: there a parameter that steers an address or a branch makes the
function ineligible whatever is passed (only a value stored, the one reduced, is fine). Anything else:
None, and the function is not judged (silence, not a guess).
"""

from __future__ import annotations

from irc.analysis.mbarrier import guards
from irc.ir.core import BlockArg, Function, Module, Op, OpResult, Value
from irc.ir.types import PtrType


def caller_launch(fn: Function, module: Module | None) -> tuple[tuple[int, int, int], str] | None:
    """(block shape, caller kernel's name) when `fn` runs in one known launch of whole blocks; else None."""
    from irc.analysis.checks.common import FunctionContext, launch_dims
    from irc.analysis.mbarrier import block_uniform

    if fn.is_kernel or module is None:
        return None
    calls: list[tuple[Function, Op]] = []
    for g in module.functions:
        for op in g.ops():
            if op.name == "call" and op.attrs.get("callee") == fn.name:
                calls.append((g, op))
    if not calls or any(not g.is_kernel for g, _ in calls):
        return None
    shapes = {launch_dims(g) for g, _ in calls}
    if len(shapes) != 1:
        return None
    ((dims, known),) = shapes
    if not known:
        return None
    steered = _steering_params(fn)
    contexts: dict[str, FunctionContext] = {}
    for g, op in calls:
        ctx = contexts.setdefault(g.name, FunctionContext(g, module))
        if op.block is None:
            return None
        for t, _ in guards(ctx.cfg, op.block):
            if not block_uniform(ctx.facts, t.operands[0]):
                return None
        for i in steered:
            if i >= len(op.operands) or not block_uniform(ctx.facts, op.operands[i]):
                return None
    return dims, calls[0][0].name


def _steering_params(fn: Function) -> set[int]:
    """Indices of the parameters whose value flows into an address or a branch condition of `fn`."""
    index = {id(p): i for i, p in enumerate(fn.params)}
    tainted: dict[int, set[int]] = {}

    def sources(v: Value, depth: int = 0) -> set[int]:
        if id(v) in index:
            return {index[id(v)]}
        if depth > 64 or not isinstance(v, (OpResult, BlockArg)):
            return set()
        key = id(v)
        if key not in tainted:
            tainted[key] = set()  # a cycle through a loop-carried value adds nothing new
            ins = v.op.operands if isinstance(v, OpResult) else v.incoming()
            out: set[int] = set()
            for o in ins:
                out |= sources(o, depth + 1)
            tainted[key] = out
        return tainted[key]

    hit: set[int] = set()
    for op in fn.ops():
        if op.operands and (op.name == "cbr" or isinstance(op.operands[0].type, PtrType)):
            hit |= sources(op.operands[0])  # a branch condition, or an address
    return hit
