"""What every check needs: one function's CFG and uniformity facts (computed once, lazily), value naming
for messages, and the explanation of a divergent branch condition ("depends on `tid.x` through `gid`").

Analyses return facts; checks (the sibling modules) turn facts into diagnostics. Keeping the naming and
explanation here makes every check word its labels the same way.
"""

from __future__ import annotations

from irc.analysis.cfg import CFG, EXIT
from irc.analysis.uniformity import Level, Reason, UniformityFacts, analyze_uniformity
from irc.diagnostics import Diagnostic, Label, Span, note
from irc.ir.core import Block, Function, Module, Op, OpResult, Value
from irc.ir.printer import Namer
from irc.records import field, record


@record
class FunctionContext:
    """Per-function state shared by the checks of one `check_module` run."""

    fn: Function
    module: Module | None
    arch: str = "sm_80"
    _cfg: CFG | None = None
    _facts: UniformityFacts | None = None
    _namer: Namer | None = None
    cache: dict[str, object] = field(default_factory=dict)

    @property
    def cfg(self) -> CFG:
        if self._cfg is None:
            self._cfg = CFG(self.fn)
        return self._cfg

    @property
    def facts(self) -> UniformityFacts:
        if self._facts is None:
            self._facts = analyze_uniformity(self.fn, None, cfg=self.cfg)
        return self._facts

    @property
    def is_ptx(self) -> bool:
        src = self.module.source if self.module is not None else None
        return bool(src) and str(src).endswith(".ptx")

    def name(self, v: Value) -> str:
        """How messages name a value: its source-name hint (`%f8` for lifted PTX registers) or its IR id."""
        if v.name:
            if self.is_ptx and not v.name.startswith("%"):
                return "%" + v.name
            return v.name
        if self._namer is None:
            self._namer = Namer(self.fn)
        return self._namer.v(v)

    def has_sync_ops(self) -> bool:
        """Whether any op could be flagged by the divergence checks (barriers, warp collectives) in a
        function with branches. Why: most of the cost of `irc check` is the uniformity fixpoint, and kernels
        without such ops (or without any branch) need none of it."""
        hit = self.cache.get("has_sync_ops")
        if hit is None:
            from irc.ir.optable import OPS

            multi = len(self.fn.blocks) > 1
            hit = multi and any(
                (d := OPS.get(op.name)) is not None
                and ("barrier" in d.traits or "warp_collective" in d.traits)
                for op in self.fn.ops()
            )
            self.cache["has_sync_ops"] = hit
        return bool(hit)

    def reachable_ops(self):  # -> Iterator[Op]
        for b in self.cfg.rpo:
            yield from b.ops


def op_span(op: Op | None) -> Span | None:
    return op.span if op is not None else None


def value_span(v: Value) -> Span | None:
    return v.op.span if isinstance(v, OpResult) else None


def branch_span(d: Block) -> Span | None:
    """Where to point for the branch ending `d`: the terminator, else the condition's definition."""
    t = d.terminator
    if t is not None and t.span is not None:
        return t.span
    if t is not None and t.operands:
        return value_span(t.operands[0])
    return None


def describe_dependence(ctx: FunctionContext, v: Value) -> tuple[str, list[Label]]:
    """'depends on `tid.x` through `gid`' for a non-uniform value, plus labels for what it merges from."""
    facts = ctx.facts
    chain = facts.why(v)
    labels: list[Label] = []
    if not chain:
        return "is not uniform", labels
    last = chain[-1]
    r: Reason | None = facts.reason(last.value)
    named = [s.value for s in chain[1:-1] if s.value.name]
    through = f" through `{ctx.name(named[0])}`" if named else ""
    for step in chain:
        sr = facts.reason(step.value)
        if sr is not None and sr.kind == "operand" and sr.block is not None and sr.value is not None:
            nm = ctx.name(sr.value)
            return (
                f"depends on `{nm}`, carried out of a loop that threads leave at different iterations",
                labels,
            )
    if r is None:
        return "is not uniform", labels
    if r.kind == "seed":
        text = r.text
        if text and all(c.isalnum() or c in "._" for c in text):
            seed = f"`{text}`"
        else:
            seed = text or "a thread-dependent value"
        return f"depends on {seed}{through}", labels
    if r.kind == "sync" and r.block is not None:
        sp = branch_span(r.block)
        if sp is not None:
            labels.append(Label(sp, "values merge here after this branch, which is not uniform"))
        nm = ctx.name(last.value)
        return f"depends on `{nm}`{through}, which merges values from a divergent branch", labels
    if r.kind == "operand" and r.block is not None:
        return (
            f"depends on a value carried out of a loop that threads leave at different iterations{through}",
            labels,
        )
    return f"is not uniform{through}", labels


def witness_json(w: object | None) -> dict | None:
    """A solver witness as the finding carries it (JSON, plus the sentence renderers print)."""
    if w is None:
        return None
    return w.to_json()  # type: ignore[attr-defined]


def not_decided(check: str, op: Op, reason: str) -> Diagnostic:
    """The note for a question the lattice could not settle and the solver did not answer: silence would
    read as a clean bill, a finding would be a guess."""
    why = {
        "timeout": "its query limit was reached",
        "budget": "the function's solver budget was spent",
    }.get(reason, reason)
    return note(
        "not-analysed",
        f"`{check}` could not be decided here: the solver gave no answer ({why})",
        op.span,
        help="raise IRC_SOLVER_LIMIT or IRC_SOLVER_BUDGET, or state a launch contract (docs/analyzer.md)",
    )


def condition_value(d: Block) -> Value | None:
    t = d.terminator
    if t is not None and t.name == "cbr" and t.operands:
        return t.operands[0]
    return None


def level_words(level: Level) -> str:
    return {
        Level.BLOCK: "uniform across the block",
        Level.WARP: "uniform across the warp",
        Level.GRID: "uniform",
        Level.THREAD: "uniform",
    }[level]


def _reach(ctx: FunctionContext, start: Block) -> set[Block]:
    seen: set[Block] = set()
    work = [start]
    while work:
        b = work.pop()
        if b not in seen:
            seen.add(b)
            work.extend(ctx.cfg.succs.get(b, []))
    return seen


def leaving_arms(ctx: FunctionContext, d: Block, target: Block) -> list[tuple[int, Op]]:
    """For the branch ending `d`: (successor index, the `ret`/`trap` op) of each arm that ends the thread
    without ever meeting the other arms again and without reaching `target` (an early exit, as in
    `if (gid >= n) return;`), or that jumps straight to a block holding only `ret` (lifted PTX shares
    one `$L_exit: ret` between the early exit and the normal end). If/else arms that rejoin are not."""
    cfg = ctx.cfg
    out: list[tuple[int, Op]] = []
    t = d.terminator
    if t is None or len(t.successors) < 2:
        return out
    reach = [_reach(ctx, s) for s in t.successors]
    for i, s in enumerate(t.successors):
        mine = reach[i]
        if target in mine or d in mine:
            continue
        others: set[Block] = set()
        for k, r in enumerate(reach):
            if k != i and t.successors[k] is not s:
                others |= r
        direct_exit = cfg.exits_thread(s) and len(s.ops) == 1  # `@p bra $L_exit` with `$L_exit: ret`
        if mine & others and not direct_exit:
            continue
        exits = [b for b in mine if cfg.exits_thread(b) and b.terminator is not None]
        if exits:
            exits.sort(key=lambda b: cfg.rpo_index.get(b, 0))
            out.append((i, exits[0].terminator))  # type: ignore[arg-type]
    return out


__all__ = [
    "EXIT",
    "FunctionContext",
    "branch_span",
    "condition_value",
    "describe_dependence",
    "leaving_arms",
    "level_words",
    "not_decided",
    "witness_json",
    "op_span",
    "value_span",
]


def launch_dims(fn, contract=None) -> tuple[tuple[int, int, int], bool]:  # type: ignore[no-untyped-def]
    """The block shape a kernel runs with (a contract, `@launch`/`.reqntid`, else `.maxntid`: a launch at the
    bound is legal, so a witness there is a real one), and whether it is known (else `DEFAULT_BLOCK`)."""
    if contract is not None and getattr(contract, "block", None) is not None:
        return tuple(contract.block), True  # type: ignore[return-value]
    la = fn.attrs.get("launch")
    if la:
        d = (list(la) + [1, 1])[:3]
        return (int(d[0]), int(d[1]), int(d[2])), True
    mx = fn.attrs.get("max_threads")
    if mx:  # a launch at the bound is legal, so a witness there is a real one
        d = (list(mx) + [1, 1])[:3]
        return (int(d[0]), int(d[1]), int(d[2])), True
    from irc.analysis.races import DEFAULT_BLOCK

    return DEFAULT_BLOCK, False


def launch_eval(ctx: FunctionContext):  # type: ignore[no-untyped-def]
    """The per-thread evaluation (`irc.analysis.races.ThreadEval`) of a kernel whose block shape is known
    and at most 1,024 threads, shared by the checks that ask which threads reach what (`shared-race`,
    `barrier-count`, the partial-warp rule of `warp-sync-divergence`) with its memos; else None."""
    fn = ctx.fn
    if not fn.is_kernel and "caller_launch" not in ctx.cache:
        return None  # a device function: only in the launch its callers give it (`caller_launch`)
    dims, known = launch_dims(fn, ctx.cache.get("contract"))
    if not known or dims[0] * dims[1] * dims[2] > 1024:
        return None
    key = ("thread-eval", dims)
    if key not in ctx.cache:
        from irc.analysis.races import ThreadEval

        ctx.cache[key] = ThreadEval(fn, ctx.cfg, lambda: ctx.facts, dims, True)
    return ctx.cache[key]


#: 1-D blocks a kernel with no launch bound is judged with, by the checks whose answer depends on the
#: block shape: a finding must hold with each of them (`under_common_shapes`)
COMMON_BLOCKS = ((128, 1, 1), (256, 1, 1), (1024, 1, 1))
#: the same for a kernel that reads x and y coordinates (written for 2-D blocks): the shapes 2-D kernels
#: are launched with (16x16 tiles, 32x8 transposes, 8x8 DCT blocks, 32x32); the first words the finding
COMMON_BLOCKS_2D = ((16, 16, 1), (32, 8, 1), (8, 8, 1), (32, 32, 1))


def under_common_shapes(ctx: FunctionContext, run, what: str) -> list[Diagnostic] | None:  # type: ignore[no-untyped-def]
    """For a kernel with no launch bound that reads only x coordinates (written for 1-D blocks): `run` in a
    context for each block of `COMMON_BLOCKS` (stated as its contract, which the witness repeats), and the
    findings every one of them gives (by location), as the 256-thread run words them; for one that reads x
    and y (2-D blocks) the same with `COMMON_BLOCKS_2D`, worded by the 16x16 run. Which block the host
    launches is not in the PTX; a finding that one guessed shape alone shows (a 512-thread block indexing
    past its stage's row, a 32x8 block overflowing a 16x16 tile's rows) would be a guess. `run` returns None
    for a shape the kernel cannot have been written for (its threads index past a shared array): that shape
    is left out, and no finding comes from no shape. A 2-D kernel with only a `.maxntid` bound is judged the
    same way with the 2-D shapes of that many threads (`bounded_2d`). None when the kernel has a fixed
    block (`.reqntid`), a contract, a 1-D bound, or reads z."""
    from irc.analysis.symbolic.contract import Contract
    from irc.analysis.symbolic.launch import reads_yz, reads_z

    fn = ctx.fn
    if not fn.is_kernel or ctx.cache.get("contract") is not None or fn.attrs.get("launch"):
        return None
    bound = bounded_2d(fn)
    if bound is not None:
        from irc.analysis.symbolic.queries import canonical_shapes

        blocks = tuple((bx, by, 1) for bx, by in canonical_shapes(bound))
        main = blocks[0]
        shapes = ", ".join(f"{d[0]}x{d[1]}" for d in blocks)
        origin = f".maxntid {bound} on a 2-D kernel; {what} occurs with blocks of {shapes} threads"
    elif launch_dims(fn)[1]:
        return None
    elif not reads_yz(fn):
        blocks, main = COMMON_BLOCKS, (256, 1, 1)
        origin = (
            f"no launch bound: a 1-D block; {what} occurs with {', '.join(str(d[0]) for d in blocks)} threads"
        )
    elif not reads_z(fn):
        blocks, main = COMMON_BLOCKS_2D, (16, 16, 1)
        shapes = ", ".join(f"{d[0]}x{d[1]}" for d in blocks)
        origin = f"no launch bound: a 2-D block; {what} occurs with blocks of {shapes} threads"
    else:
        return None
    runs: list[list[Diagnostic]] = []
    shapes_run: list[tuple[int, int, int]] = []
    for dims in blocks:
        sub = FunctionContext(fn, ctx.module, ctx.arch, _cfg=ctx.cfg, _facts=ctx.facts)
        sub.cache["contract"] = Contract(block=dims, origin=origin)
        got = run(sub)
        if got is None:
            continue  # a shape the kernel cannot be written for (`run` says why)
        if not got:
            return []
        runs.append(got)
        shapes_run.append(dims)
    if not runs:
        return []
    common = set.intersection(*[{d.span for d in r} for r in runs])
    first = runs[shapes_run.index(main)] if main in shapes_run else runs[0]
    return [d for d in first if d.span in common]


def bounded_2d(fn: Function) -> int | None:
    """The thread bound of a kernel that reads x and y coordinates (not z) and has only a `.maxntid`
    (`__launch_bounds__(512)` gives `.maxntid 512, 1, 1`): the bound says how many threads, not the shape,
    and 512x1x1 is not the 32x16 block such a kernel is written for. None otherwise."""
    from irc.analysis.symbolic.launch import reads_yz, reads_z

    mx = fn.attrs.get("max_threads")
    if not fn.is_kernel or fn.attrs.get("launch") or not mx or not reads_yz(fn) or reads_z(fn):
        return None
    n = 1
    for x in mx:
        n *= int(x)
    return n if n > 1 else None


def cp_groups(ctx: FunctionContext):  # type: ignore[no-untyped-def]
    """The function's cp.async group facts (`irc.analysis.cp_groups.pending_reads`, computed once for
    `async-unwaited` and `shared-race`), with the solver telling the dataflow which edges no thread takes
    (`irc.analysis.symbolic.asyncq.edge_live`)."""
    from irc.analysis.cp_groups import pending_reads

    def live(p: Block, s: Block) -> bool:
        from irc.analysis.symbolic.asyncq import edge_live

        return edge_live(ctx, p, s)

    return pending_reads(ctx.cfg, ctx.cache, facts=lambda: ctx.facts, live=live)
