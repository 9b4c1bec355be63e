"""`async-unwaited` for registers: the accumulators of `wgmma.mma_async` are written asynchronously, so
a read of them before the `wgmma.wait_group N` that retires their group reads whatever the registers held
(PTX ISA: accessing them before the wait is undefined).

Why: Hopper GEMMs and attention keep their tiles in registers that the tensor cores fill behind the
thread's back; dropping the `wgmma.wait_group 0` after the K loop, or the one after QK^T, gives a silently
wrong epilogue or softmax, and the memory-side checks cannot see it: no memory is read.

`tcgen05.ld` is not judged here: its destination registers are read before `tcgen05.wait::ld` in Triton's
ordinary sm_100a output (the wait orders the load against later tensor-memory writes, as CUTLASS's
`fence_view_async_tmem_load` before releasing an accumulator buffer does), so reporting that read would
be a false positive on working code.

One thread's view, a dataflow along the CFG like cp.async's groups. The state is the set of issued
instances still pending, each `(op, age)`: a `wgmma.mma_async` not yet committed has age -1, a committed
group counts the `commit_group`s since (capped). An SSA result names the newest instance of its op, which
is pending whenever any instance is (groups retire in order). A block argument that receives a pending
result (a loop-carried accumulator, a predicated split) carries that very instance, so a value from an
older, retired iteration is not confused with the newest one still in flight (attention's pipelined
softmax of S(i-1) beside the wgmma of S(i)). Merges are unions (may-pending). Another `wgmma.mma_async`
naming the same accumulators is no read (chaining without a wait is the documented use), and a call ends
what this view knows (silence, not a guess).
"""

from __future__ import annotations

from irc.analysis.checks.common import FunctionContext
from irc.diagnostics import Diagnostic, Label, error
from irc.ir.core import Block, BlockArg, Op, OpResult, Value

CHECK = "async-unwaited"
_CAP = 8

Inst = tuple[int, int]  # (id of the producing op, age)


def _text(op: Op) -> str:
    return str(op.attrs.get("text", "")) if op.name in ("ptx_collective", "opaque") else ""


def _kind(op: Op) -> str | None:
    t = _text(op)
    if t.startswith("wgmma.mma_async") and op.results:
        return "mma"
    if t.startswith("wgmma.commit_group"):
        return "commit"
    if t.startswith("wgmma.wait_group"):
        return "wait"
    if op.name == "call":
        return "call"
    return None


def check_register_pending(ctx: FunctionContext) -> list[Diagnostic]:
    fn, cfg = ctx.fn, ctx.cfg
    kinds = {id(op): k for op in fn.ops() if (k := _kind(op)) is not None}
    if "mma" not in kinds.values():
        return []
    producers = {id(op): op for op in fn.ops() if kinds.get(id(op)) == "mma"}
    State = tuple[frozenset, frozenset]  # (pending instances, (block-arg id, instance) carried)
    state_in: dict[Block, State] = {cfg.entry: (frozenset(), frozenset())}
    found: dict[int, tuple[Op, Op]] = {}

    def newest(pending: frozenset, pid: int) -> Inst | None:
        ages = [a for p, a in pending if p == pid]
        if not ages:
            return None
        return (pid, min(ages))

    def instance(v: Value, pending: frozenset, carried: set) -> Inst | None:
        if isinstance(v, OpResult) and id(v.op) in producers:
            return newest(pending, id(v.op))
        if isinstance(v, BlockArg):
            for x, inst in carried:
                if x == id(v) and inst in pending:
                    return inst
        return None

    def age(i: Inst) -> Inst:
        p, a = i
        return (p, 0 if a == -1 else min(a + 1, _CAP))

    def transfer(b: Block, st: State, report: bool) -> dict[Block, State]:
        pending = set(st[0])
        carried = set(st[1])
        for op in b.ops:
            k = kinds.get(id(op))
            if report and k != "mma":
                fz = frozenset(pending)
                for v in op.operands:
                    inst = instance(v, fz, carried)
                    if inst is not None and inst[0] not in found:
                        found[inst[0]] = (producers[inst[0]], op)
            if k == "mma":
                pending.add((id(op), -1))
            elif k == "commit":
                pending = {age(i) for i in pending}
                carried = {(x, age(i)) for x, i in carried}
            elif k == "wait":
                n = op.attrs.get("n")
                keep = n if isinstance(n, int) else 0
                pending = {(p, a) for p, a in pending if not (0 <= keep <= a)}
            elif k == "call":
                pending, carried = set(), set()
        fz = frozenset(pending)
        carried = {(x, i) for x, i in carried if i in fz}
        out: dict[Block, State] = {}
        t = b.terminator
        for s in cfg.succs.get(b, []):
            ids = {id(a) for a in s.args}
            mine = {(x, i) for x, i in carried if x not in ids}
            if t is not None:
                for succ, args in zip(t.successors, t.succ_args):
                    if succ is not s:
                        continue
                    for a, v in zip(s.args, args):
                        inst = instance(v, fz, carried)
                        if inst is not None:
                            mine.add((id(a), inst))
            out[s] = (fz, frozenset(mine))
        return out

    changed, rounds = True, 0
    while changed and rounds < 60:
        changed, rounds = False, rounds + 1
        for b in cfg.rpo:
            if b not in state_in:
                continue
            for s, st in transfer(b, state_in[b], False).items():
                old = state_in.get(s)
                new = st if old is None else (old[0] | st[0], old[1] | st[1])
                if new != old:
                    state_in[s] = new
                    changed = True
    for b in cfg.rpo:
        if b in state_in:
            transfer(b, state_in[b], True)
    return [_diag(p, r) for p, r in found.values()]


def _line(op: Op) -> str:
    return f"line {op.span.line}" if op.span is not None else "here"


def _diag(producer: Op, read: Op) -> Diagnostic:
    labels = []
    if producer.span is not None:
        labels.append(Label(producer.span, "writes these accumulator registers asynchronously"))
    if read.span is not None:
        labels.append(Label(read.span, "read here before a `wgmma.wait_group` retires that group"))
    return error(
        CHECK,
        f"the accumulators of the `wgmma.mma_async` at {_line(producer)} are read before the "
        "`wgmma.wait_group N` that retires its group: the read may see the registers' old contents",
        read.span,
        labels=labels,
        help="`wgmma.commit_group` and then `wgmma.wait_group 0` (or an N below the groups committed since) "
        "before reading the accumulators",
    )
