"""`barrier-divergence`: a block-wide barrier that some threads of the block may not reach (PARITY-114).

A block-wide barrier (`barrier` without a thread count) is wrong when it is (transitively) control
dependent on a branch, loop exit or early `ret` whose condition is not uniform across the block.

Refinement (design notes): the hardware matches barrier ids, not program locations. When the offending
branch is uniform per warp (warp-specialized producer/consumer code), compare the sequences of block-wide
barrier ids each arm executes between the branch and its immediate post-dominator (to the end of the
thread when an arm returns). Loops inside an arm count as one token `loop(body sequence)` and must have
block-uniform exits; their trip counts are assumed equal across arms (a documented gap). Equal
sequences: accepted. Different or incomparable ones (unknown barrier ids, a loop with a divergent exit,
arms that disagree internally): flagged. Named barriers with a count need only warp-uniform control
(the `warp-sync-divergence` check), but under a warp-uniform role branch the two arms' sequences of
counted barriers on the ids both arms use are replayed against each other (`bar.arrive` does not wait,
`bar.sync` does): a replay that deadlocks (roles that wait on the same ids in different orders) or pairs
one id with different thread counts is flagged here. Unknown sequences are not judged (precision).
"""

from __future__ import annotations

from irc.analysis.cfg import EXIT, Loop, Node
from irc.analysis.checks.common import (
    FunctionContext,
    branch_span,
    condition_value,
    describe_dependence,
    leaving_arms,
    not_decided,
    witness_json,
)
from irc.analysis.uniformity import Level, const_value, is_block_barrier, is_named_barrier
from irc.diagnostics import Diagnostic, Label, error
from irc.ir.core import Block, Op

CHECK = "barrier-divergence"

Seq = tuple  # a tuple of tokens: ("bar", id) or ("loop", body, prefix)
_CONFLICT = object()


def barrier_id(op: Op) -> int | None:
    """The constant barrier id (default 0), or None when it is computed at run time."""
    if "id" in op.attrs:
        v = op.attrs["id"]
        return v if isinstance(v, int) else None
    if op.operands:
        c = const_value(op.operands[0])
        return c if isinstance(c, int) and not isinstance(c, bool) else None
    return 0


class _ArmWalker:
    """Computes the barrier-id sequence every path of one arm executes (None when paths disagree)."""

    def __init__(self, ctx: FunctionContext, branch: Block, stop: Node | None):
        self.ctx = ctx
        self.cfg = ctx.cfg
        self.facts = ctx.facts
        self.branch = branch
        self.stop = stop
        self.memo: dict[tuple[int, Block], dict | None] = {}
        self.onstack: set[tuple[int, Block]] = set()

    def own(self, b: Block) -> Seq | None:
        toks: list[tuple] = []
        for op in b.ops:
            if is_block_barrier(op):
                i = barrier_id(op)
                if i is None:
                    return None
                toks.append(("bar", i))
        return tuple(toks)

    @staticmethod
    def merge(parts: list[dict | None], prefix: Seq) -> dict | None:
        out: dict = {}
        for p in parts:
            if p is None:
                return None
            for k, v in p.items():
                seq = prefix + v
                if k in out and out[k] != seq:
                    return None
                out[k] = seq
        return out

    def _quick(self, b: Block, loop: Loop | None) -> tuple[bool, dict | None]:
        """(True, answer) when `enter(b, loop)` needs no walk of `b`."""
        if loop is not None:
            if b in loop.headers:
                return True, {"back": ()}
            if b not in loop.blocks:
                return True, {("out", id(b)): ()}
        if b is self.stop:
            return True, {"stop": ()}
        if b in self.cfg.abort:
            return True, {}
        key = (id(loop), b)
        if key in self.memo:
            return True, self.memo[key]
        if key in self.onstack:
            return True, None
        return False, None

    def enter(self, b: Block, loop: Loop | None) -> dict | None:
        """The barrier sequences from `b` on, per way out. The walk follows chains of blocks as long as
        the code is (fully unrolled kernels have thousands): an explicit stack of generators, each
        yielding the `(block, loop)` it needs entered next, instead of recursion."""
        done, res = self._quick(b, loop)
        if done:
            return res
        key = (id(loop), b)
        self.onstack.add(key)
        stack = [(key, self._block(b, loop))]
        send: dict | None = None
        while stack:
            k, g = stack[-1]
            try:
                sb, sl = g.send(send)
            except StopIteration as fin:
                stack.pop()
                self.onstack.discard(k)
                self.memo[k] = fin.value
                send = fin.value
                continue
            done, send = self._quick(sb, sl)
            if done:
                continue
            nk = (id(sl), sb)
            self.onstack.add(nk)
            stack.append((nk, self._block(sb, sl)))
            send = None
        return self.memo[key]

    def _block(self, b: Block, loop: Loop | None):  # type: ignore[no-untyped-def]
        inner = self.cfg.loop_of.get(b)
        while inner is not None and inner is not loop and b not in inner.headers:
            inner = inner.parent
        if inner is not None and inner is not loop:
            if self.branch in inner.blocks:
                return None  # went around the loop that contains the branch itself
            return (yield from self._through_loop(inner, loop))
        return (yield from self._plain(b, loop))

    def _plain(self, b: Block, loop: Loop | None):  # type: ignore[no-untyped-def]
        own = self.own(b)
        if own is None:
            return None
        parts: list[dict | None] = []
        for s in self.cfg.succs[b]:
            parts.append((yield (s, loop)))
        if self.cfg.exits_thread(b) and b not in self.cfg.abort:
            parts.append({"exit": ()})
        return self.merge(parts, own)

    def _through_loop(self, lp: Loop, outer: Loop | None):  # type: ignore[no-untyped-def]
        h = lp.header
        body = yield from self._plain(h, lp)
        if body is None:
            return None
        cycle = body.get("back", ())
        prefixes = {k: v for k, v in body.items() if k != "back"}
        if "stop" in prefixes:
            return None
        seqs = set(prefixes.values()) | {cycle}
        if all(s == () for s in seqs):
            token: Seq = ()
        else:
            if len(set(prefixes.values())) > 1 or self.facts.loop_exit_level(lp) < Level.BLOCK:
                return None
            prefix = next(iter(prefixes.values()), ())
            token = (("loop", cycle, prefix),)
        parts: list[dict | None] = []
        for k in prefixes:
            if k == "exit":
                parts.append({"exit": ()})
            else:
                target = next(t for (u, t) in lp.exits if id(t) == k[1])
                parts.append((yield (target, outer)))
        return self.merge(parts, token)

    def arm(self, s: Block) -> Seq | None:
        res = self.enter(s, None)
        if res is None or len(res) != 1:
            return None
        return next(iter(res.values()))


class _NamedArmWalker(_ArmWalker):
    """The same walk over counted named barriers: tokens ("nbar", id, count, kind)."""

    def own(self, b: Block) -> Seq | None:
        toks: list[tuple] = []
        for op in b.ops:
            if is_named_barrier(op):
                i, n = op.attrs.get("id"), op.attrs.get("count")
                if not isinstance(i, int) or not isinstance(n, int):
                    return None
                toks.append(("nbar", i, n, op.attrs.get("kind", "sync")))
        return tuple(toks)


def arm_sequences(ctx: FunctionContext, d: Block, named: bool = False) -> list[Seq | None]:
    """The barrier sequence of each arm of the branch ending `d` (arms that always trap are skipped);
    with `named`, the sequence of counted named barriers instead of block-wide ones."""
    cfg = ctx.cfg
    stop = cfg.ipdom.get(d)
    walker = _NamedArmWalker if named else _ArmWalker
    w = walker(ctx, d, None if stop is EXIT else stop)
    return [w.arm(s) for s in cfg.succs[d] if s not in cfg.abort]


_SHOWN = 8


def format_seq(seq: Seq | None) -> str:
    if seq is None:
        return "an unknown sequence"
    if not seq:
        return "no barrier"
    parts = []
    for t in seq[
        :_SHOWN
    ]:  # a message names the first few (20,000 barriers in a row made each finding 20k long)
        if t[0] == "bar":
            parts.append(f"barrier {t[1]}")
        elif t[0] == "nbar":
            parts.append(f"{'arrive' if t[3] == 'arrive' else 'barrier'}({t[1]}, {t[2]})")
        else:
            parts.append(f"loop {{ {format_seq(t[1])} }}")
    if len(seq) > _SHOWN:
        parts.append(f"... ({len(seq)} in all)")
    return ", ".join(parts)


def _warp_specialized_ok(ctx: FunctionContext, d: Block) -> tuple[bool, list[Seq | None]]:
    key = f"wsok:{id(d)}"
    hit = ctx.cache.get(key)
    if hit is None:
        seqs = arm_sequences(ctx, d)
        ok = bool(seqs) and all(s is not None for s in seqs) and all(s == seqs[0] for s in seqs)
        hit = (ok, seqs)
        ctx.cache[key] = hit
    return hit  # type: ignore[return-value]


def _flat(seq: Seq | None) -> tuple[int, ...] | None:
    """The barrier ids of a sequence without loop tokens, or None."""
    if seq is None or any(t[0] != "bar" for t in seq):
        return None
    return tuple(t[1] for t in seq)


def _region(ctx: FunctionContext, d: Block, s: Block, stop: Node | None) -> set[Block] | None:
    """Blocks reachable from arm `s` of the branch `d` before `stop`; None when the arm re-enters `d`."""
    cfg = ctx.cfg
    seen: set[Block] = set()
    work = [s]
    while work:
        b = work.pop()
        if b is stop or b in seen or b in cfg.abort:
            continue
        if b is d:
            return None
        seen.add(b)
        work.extend(cfg.succs[b])
    return seen


def _region_ids(region: set[Block]) -> dict[Block, tuple[int, ...]] | None:
    """The block-wide barrier ids each block of `region` executes, in order; None when one is not a
    constant (the walks over them cannot compare it)."""
    own: dict[Block, tuple[int, ...]] = {}
    for b in region:
        ids: list[int] = []
        for op in b.ops:
            if is_block_barrier(op):
                i = barrier_id(op)
                if i is None:
                    return None
                ids.append(i)
        own[b] = tuple(ids)
    return own


def _can_run(ctx: FunctionContext, start: Block, region: set[Block], stop: Node | None,
             want: tuple[int, ...]) -> bool:  # fmt: skip
    """Whether some path from `start` through `region` to `stop` (or to the end of the thread) executes
    exactly the block-wide barrier ids `want` (an NFA walk over (block, position in `want`))."""
    cfg = ctx.cfg
    own = _region_ids(region)
    if own is None:
        return False
    seen: set[tuple[Block, int]] = set()
    work = [(start, 0)]
    n = len(want)
    while work:
        b, pos = work.pop()
        if (b, pos) in seen:
            continue
        seen.add((b, pos))
        ids = own[b]
        end = pos + len(ids)
        if end > n or want[pos:end] != ids:
            continue
        if cfg.exits_thread(b) and b not in cfg.abort and end == n:
            return True
        for t in cfg.succs[b]:
            if t is stop:
                if end == n:
                    return True
            elif t in region:
                work.append((t, end))
    return False


_WORDS_CAP = 16  # finite roles: at most this many barrier-id sequences ...
_WORD_LEN = 64  # ... of at most this many barriers (longer counts as unbounded: a loop of barriers)
_WORD_STATES = 20000


def _finite_words(ctx: FunctionContext, start: Block, region: set[Block], stop: Node | None) -> set | None:
    """Every block-wide barrier-id sequence a path from `start` through `region` to `stop` (or to the end
    of the thread) can execute, when there are few and each is short (a role whose block-uniform
    branches pick one of a few sequences: Triton's default partition skips its warp-specialised region
    when it has no tile). None when the set is large or unbounded (a loop of barriers) or an id is unknown."""
    cfg = ctx.cfg
    own = _region_ids(region)
    if own is None:
        return None
    words: set[tuple[int, ...]] = set()
    seen: set[tuple[Block, tuple[int, ...]]] = set()
    work: list[tuple[Block, tuple[int, ...]]] = [(start, ())]
    while work:
        b, w = work.pop()
        if (b, w) in seen:
            continue
        seen.add((b, w))
        if len(seen) > _WORD_STATES:
            return None
        w2 = w + own[b]
        if len(w2) > _WORD_LEN:
            return None
        if cfg.exits_thread(b) and b not in cfg.abort:
            words.add(w2)
        for t in cfg.succs[b]:
            if t is stop:
                words.add(w2)
            elif t in region:
                work.append((t, w2))
        if len(words) > _WORDS_CAP:
            return None
    return words


def _role_region_ok(ctx: FunctionContext, d: Block) -> list[set[Block]] | None:
    """Warp-specialized roles whose sequences are not statically fixed (Triton's worker partition: a loop
    that runs `barrier.sync 1` at its header and dispatches on a per-warp state byte in shared memory,
    so its trip count is set at run time by the default partition). Accepted when the arms whose
    block-wide barrier-id sequences form a small finite set (one fixed sequence, or a few picked by
    block-uniform branches) agree on that set, and every other arm (a loop of barriers) can execute each
    of those sequences exactly along some path (compared by id, as the hardware matches them). The
    analysis cannot tell which sequence the run-time state picks, so an arm that can match is left alone
    and one that cannot match any is reported. Returns the regions of the arms judged this way (branches
    inside them are covered by this judgement), or None."""
    key = f"role:{id(d)}"
    if key in ctx.cache:
        return ctx.cache[key]  # type: ignore[return-value]
    res: list[set[Block]] | None = None
    cfg = ctx.cfg
    if ctx.facts.branch_level(d) == Level.WARP:
        ok, seqs = _warp_specialized_ok(ctx, d)
        arms = [s for s in cfg.succs[d] if s not in cfg.abort]
        if not ok and len(arms) == len(seqs):
            stop0 = cfg.ipdom.get(d)
            stop = None if stop0 is EXIT else stop0
            finite: list[frozenset] = []
            open_arms: list[tuple[Block, set[Block]]] = []
            for s, q in zip(arms, seqs):
                reg = _region(ctx, d, s, stop)  # type: ignore[arg-type]
                if reg is None:
                    open_arms = []
                    finite = []
                    break
                flat = _flat(q)
                if q is not None and flat is None:  # a counted loop of barriers: not a role of this shape
                    finite = []
                    break
                words = {flat} if flat is not None else _finite_words(ctx, s, reg, stop)
                if words is None:
                    open_arms.append((s, reg))
                else:
                    finite.append(frozenset(words))
            if finite and open_arms and len(set(finite)) == 1:
                wanted = finite[0]
                if all(w for w in wanted) and all(
                    _can_run(ctx, s, reg, stop, w)
                    for s, reg in open_arms
                    for w in wanted  # type: ignore[arg-type]
                ):
                    res = [reg for _, reg in open_arms]
    ctx.cache[key] = res
    return res


def _judged_by_role(ctx: FunctionContext, d: Block) -> bool:
    """`d` is a warp-uniform branch accepted by `_role_region_ok` itself or lying inside a role region
    accepted at an enclosing warp-uniform branch."""
    facts = ctx.facts
    if facts.branch_level(d) != Level.WARP:
        return False
    if _role_region_ok(ctx, d) is not None:
        return True
    for r in ctx.cfg.cd_closure(d):
        if r is d or facts.branch_level(r) != Level.WARP:
            continue
        regs = _role_region_ok(ctx, r)
        if regs is not None and any(d in reg for reg in regs):
            return True
    return False


def _unrolled(seq: Seq) -> list[tuple]:
    """A sequence of named-barrier tokens with every loop run twice (trip counts are assumed equal across
    roles, as for block-wide barriers)."""
    out: list[tuple] = []
    for t in seq:
        if t[0] == "loop":
            body = _unrolled(t[1])
            out.extend(body + body + _unrolled(t[2]))
        else:
            out.append(t)
    return out


def _replay_conflict(a: list[tuple], b: list[tuple]) -> bool:
    """Replays two roles' counted barriers on the ids both use: the k-th use of an id in one role meets the
    k-th use in the other; `sync` waits for the other role's arrival, `arrive` does not. True when the
    replay deadlocks with both roles waiting, or a meeting pairs different thread counts."""
    seqs = (a, b)
    pos = [0, 0]
    seen: list[dict[int, int]] = [{}, {}]
    arrived: list[dict[tuple[int, int], int]] = [{}, {}]
    progress = True
    while progress:
        progress = False
        for r in (0, 1):
            while pos[r] < len(seqs[r]):
                _, i, n, kind = seqs[r][pos[r]]
                k = seen[r].get(i, 0)
                arrived[r][(i, k)] = n
                other = arrived[1 - r].get((i, k))
                if other is not None and other != n:
                    return True
                if kind == "sync" and other is None:
                    break
                seen[r][i] = k + 1
                pos[r] += 1
                progress = True
    return pos[0] < len(a) and pos[1] < len(b)


def _named_mismatch(ctx: FunctionContext, d: Block) -> tuple[list[Seq], set[int]] | None:
    """For a warp-uniform two-way role branch: the arms' named-barrier sequences and the ids they share,
    when replaying them deadlocks or pairs different counts; None when they match or are unknown."""
    key = f"nbar:{id(d)}"
    if key in ctx.cache:
        return ctx.cache[key]  # type: ignore[return-value]
    res: tuple[list[Seq], set[int]] | None = None
    seqs = arm_sequences(ctx, d, named=True)
    if len(seqs) == 2 and all(q is not None for q in seqs):
        flat = [_unrolled(q) for q in seqs]  # type: ignore[arg-type]
        ids = [{t[1] for t in f} for f in flat]
        shared = ids[0] & ids[1]
        if shared:
            a, b = ([t for t in f if t[1] in shared] for f in flat)
            if _replay_conflict(a, b):
                res = (seqs, shared)  # type: ignore[assignment]
    ctx.cache[key] = res
    return res


def _check_named_order(ctx: FunctionContext) -> list[Diagnostic]:
    facts = ctx.facts
    out: list[Diagnostic] = []
    for b in ctx.cfg.rpo:
        for op in b.ops:
            if not is_named_barrier(op):
                continue
            for d in facts.controlling_branches(b, Level.BLOCK):
                if facts.branch_level(d) != Level.WARP:
                    continue
                bad = _named_mismatch(ctx, d)
                if bad is not None and op.attrs.get("id") in bad[1]:
                    out.append(_report_named(ctx, op, d, bad[0]))
                    break
    return out


def _report_named(ctx: FunctionContext, op: Op, d: Block, seqs: list[Seq]) -> Diagnostic:
    arms = " vs ".join(format_seq(s) for s in seqs)
    labels: list[Label] = []
    sp = branch_span(d)
    if sp is not None:
        labels.append(Label(sp, f"this condition is uniform per warp, and its arms wait on named barriers "
                                f"in an order the other arm cannot match ({arms})"))  # fmt: skip
    msg = (
        f"named barrier {op.attrs.get('id')} (count {op.attrs.get('count')}) is executed in an order "
        f"(or with a thread count) that the other warp role cannot match: {arms}"
    )
    help_text = (
        "warp roles that share named barriers must wait on the shared ids in the same order with the "
        "same thread count (a role that only signals can use `bar.arrive`)"
    )
    return error(CHECK, msg, op.span, labels=labels, help=help_text)


def check_barrier_divergence(ctx: FunctionContext) -> list[Diagnostic]:
    if not ctx.has_sync_ops():
        return []
    facts = ctx.facts
    out: list[Diagnostic] = []
    for b in ctx.cfg.rpo:
        for op in b.ops:
            if not is_block_barrier(op):
                continue
            bad: list[tuple[Block, list[Seq | None] | None]] = []
            for d in facts.controlling_branches(b, Level.BLOCK):
                if facts.branch_level(d) >= Level.WARP:
                    ok, seqs = _warp_specialized_ok(ctx, d)
                    if ok or _judged_by_role(ctx, d):
                        continue
                    bad.append((d, seqs))
                else:
                    bad.append((d, None))
            if bad:
                out.extend(_decide(ctx, op, b, bad))
    out.extend(_check_named_order(ctx))
    return out


def _decide(ctx: FunctionContext, op: Op, b: Block, bad: list) -> list[Diagnostic]:
    """The lattice could not show these branches uniform: ask the solver, branch by branch, whether two
    threads of the block can decide one differently while one of them goes on to the barrier. The first
    witnessed branch is the finding; branches proven uniform are dropped; when none is witnessed and the
    solver could not decide some, the barrier is reported as not analysed (never silently dropped)."""
    from irc.analysis.symbolic.queries import divergence

    unknown: list[str] = []
    for d, seqs in bad:
        outcome, witness = divergence(ctx, d, b, "block", "the barrier", op.span)
        if outcome.unsat:
            continue
        if outcome.sat:
            diag = _report(ctx, op, b, d, seqs)
            diag.witness = witness_json(witness)
            return [diag]
        unknown.append(outcome.reason)
    if unknown:
        return [not_decided(CHECK, op, unknown[0])]
    return []


def _report(ctx: FunctionContext, op: Op, b: Block, d: Block, seqs: list[Seq | None] | None) -> Diagnostic:
    cfg = ctx.cfg
    bid = barrier_id(op)
    what = f"barrier {bid}" if bid is not None else "barrier"
    labels: list[Label] = []
    cond = condition_value(d)
    dep, extra = describe_dependence(ctx, cond) if cond is not None else ("is not uniform", [])
    in_loop = [lp for lp in cfg.loops_containing(b) if d in lp.exiting_blocks]
    leaving = leaving_arms(ctx, d, b)
    sp = branch_span(d)
    help_text = (
        "compute the predicate, keep every thread of the block through the barrier, "
        "and guard only the memory accesses"
    )
    if seqs is not None:
        arms = " vs ".join(format_seq(s) for s in seqs)
        text = f"this condition is uniform per warp, but its arms execute different barriers ({arms})"
        help_text = (
            "every warp must execute the same sequence of block-wide barrier ids; "
            "use named barriers with a thread count for barriers that only some warps execute"
        )
    elif in_loop:
        text = f"threads leave this loop at different iterations: the condition {dep}"
        help_text = (
            "give the loop a trip count that is uniform across the block (loop to the block-wide bound) "
            "and guard only the per-thread work inside it"
        )
    else:
        text = f"this condition {dep}, so it is not uniform across the block"
    if sp is not None:
        labels.append(Label(sp, text))
    labels.extend(extra)
    for i, exit_op in leaving:
        if exit_op.span is None or in_loop:
            continue
        side = "true" if i == 0 else "false"
        verb = "abort" if exit_op.name == "trap" else "return"
        labels.append(Label(exit_op.span, f"threads for which the condition is {side} {verb} here"))
    msg = f"{what} may not be reached by every thread of the block"
    if seqs is None and not in_loop and not leaving:
        msg = f"{what} is inside a branch that is not uniform across the block"
    return error(CHECK, msg, op.span, labels=labels, help=help_text)
