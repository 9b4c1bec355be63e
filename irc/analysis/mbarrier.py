"""Facts about asynchronous pipelines: mbarrier objects, who arrives on them, and how each loop iteration
uses them (the protocol analysis behind the checks in `irc.analysis.checks.async_protocol`).

Why symbolic-by-evaluation: the protocol of a pipeline is a function of the loop counter (stage
`k % S`, parity `(k / S) & 1`). Instead of a general symbolic algebra we evaluate the IR concretely for
the first iterations of each loop, starting from the loop's constant initial values, with everything
that is per-thread or per-launch left unknown. A fact derived that way is exact for those iterations;
whenever something the protocol depends on stays unknown the analysis answers None ("cannot decide")
and the checks stay silent.

Pieces (all pure functions of one `Function` + its `CFG`):
  * `Eval`: a small evaluator over SSA values: ints, shared addresses `SAddr(sym, offset)`, or None.
  * `shared_root`: the shared symbol a pointer points into (through casts, `ptradd`, integer `add`).
  * `Roles`: how many threads of the CTA execute a block (from `tid.x` / warp-index / `elect` guards).
  * `iteration_loop` / `executes`: the loop an op repeats with (spin-wait loops are transparent) and
    whether the op runs in iteration k (conditions on the loop counter evaluated; per-thread role
    conditions do not change from one iteration to the next and are ignored).
  * `Protocol`: per barrier object (shared symbol): inits, arrival sites, expect_tx sites, copies that
    complete bytes on it, and waits.
"""

from __future__ import annotations

from irc.analysis.cfg import CFG, Loop
from irc.ir.core import Block, BlockArg, Function, Op, OpResult, Value
from irc.ir.optable import OPS
from irc.records import field, record

_CASTS = ("bitcast", "cvt", "copy")
WAIT_OPS = ("mbarrier_wait", "mbarrier_try_wait", "mbarrier_test_wait")
ARRIVE_OPS = ("mbarrier_arrive", "mbarrier_arrive_expect_tx", "tcgen05_commit", "cp_async_mbarrier_arrive")
ANNOUNCE_OPS = ("mbarrier_arrive_expect_tx", "mbarrier_expect_tx")
COPY_OPS = ("tma_load", "bulk_load")
MAX_ITERS = 12


@record(frozen=True)
class SAddr:
    """A shared-memory address: symbol + constant byte offset."""

    sym: str
    off: int


def strip(v: Value) -> Value:
    while isinstance(v, OpResult) and v.op.name in _CASTS and v.op.operands:
        v = v.op.operands[0]
    return v


def users_through_casts(v: Value) -> list[Op]:
    """The ops using `v`, looking through the casts the lifter puts between a register and its use (the
    inverse of `strip`; at most 64 values walked)."""
    out: list[Op] = []
    work = [v]
    seen: set[int] = set()
    while work and len(seen) < 64:
        x = work.pop()
        if id(x) in seen:
            continue
        seen.add(id(x))
        for u in x.users:
            if u.name in _CASTS and u.results:
                work.extend(u.results)
            else:
                out.append(u)
    return out


def shared_root(v: Value, depth: int = 0, through_args: bool = True) -> str | None:
    r = _shared_root(v, depth, through_args)
    return None if r == _CYCLE and depth == 0 else r


def _shared_root(v: Value, depth: int = 0, through_args: bool = True) -> str | None:
    """The shared symbol pointer `v` points into, or None when the chain leaves casts/adds/ptradds. A
    block argument points into the symbol every incoming value (other than itself) points into: the
    barrier address a pipelined loop computes in one iteration and waits on in the next."""
    while depth < 64:
        depth += 1
        v = strip(v)
        if isinstance(v, BlockArg):
            return _arg_root(v, depth) if through_args else None
        if not isinstance(v, OpResult):
            return None
        op = v.op
        if op.name == "shared_addr":
            sp = op.attrs.get("space")
            return str(op.attrs.get("sym")) if sp in (None, "shared") else None
        if op.name == "ptradd":
            v = op.operands[0]
            continue
        if op.name == "add" and len(op.operands) == 2:
            a = _shared_root(op.operands[0], depth, through_args)
            if a is not None and a != _CYCLE:
                return a
            b = _shared_root(op.operands[1], depth, through_args)
            return b if b is not None else a
        return None
    return None


_VISITING: set[int] = set()  # block arguments whose root is being asked (a cycle through a loop)
_CYCLE = "\0cycle"


def _arg_root(a: BlockArg, depth: int) -> str | None:
    if id(a) in _VISITING:
        return _CYCLE  # the value comes round the loop from itself: says nothing about the symbol
    if depth > 24 or a.block.function is None or a.block is a.block.function.entry:
        return None
    _VISITING.add(id(a))
    try:
        roots = {_shared_root(v, depth + 2) for v in a.incoming()}
    finally:
        _VISITING.discard(id(a))
    roots.discard(_CYCLE)
    return next(iter(roots)) if len(roots) == 1 else None


def barrier_operand(op: Op) -> Value | None:
    """The mbarrier an op acts on (or completes bytes on)."""
    n = op.name
    if n in WAIT_OPS or n in ARRIVE_OPS or n in ("mbarrier_init", "mbarrier_expect_tx", "mbarrier_inval",
                                                 "mbarrier_complete_tx"):  # fmt: skip
        return op.operands[0] if op.operands else None
    if n in COPY_OPS and op.operands:
        return op.operands[-1]
    return None


Val = int | SAddr | None


class Eval:
    """Evaluate values of `fn` for one iteration environment (loop header arguments -> values)."""

    def __init__(self, fn: Function, cfg: CFG):
        self.fn = fn
        self.cfg = cfg

    def value(self, v: Value, env: dict[BlockArg, Val], depth: int = 0) -> Val:
        if depth > 200:
            return None
        if isinstance(v, BlockArg):
            if v in env:
                return env[v]
            return self._phi(v, env, depth)
        if not isinstance(v, OpResult):
            return None
        op = v.op
        n = op.name
        ev = self.value
        if n == "const":
            c = op.attrs.get("value")
            if isinstance(c, bool):
                return int(c)
            return c if isinstance(c, int) else None
        if n == "shared_addr":
            if op.attrs.get("space") not in (None, "shared"):
                return None
            return SAddr(str(op.attrs.get("sym")), 0)
        if n in _CASTS and op.operands:
            x = ev(op.operands[0], env, depth + 1)
            if isinstance(x, SAddr) or x is None:
                return x  # (an address stays an address through casts)
            return self._fold(op, [x])
        # (an operand that decides the answer alone skips the other: evaluation has no side effects, and
        # the softmax loops of attention kernels chain dozens of float maxima and sums)
        if n == "ptradd" or (n == "add" and len(op.operands) == 2):
            a = ev(op.operands[0], env, depth + 1)
            if a is None:
                return None
            b = ev(op.operands[1], env, depth + 1)
            if b is None:
                return None
            if isinstance(a, SAddr) and isinstance(b, int):
                return SAddr(a.sym, a.off + b)
            if isinstance(b, SAddr) and isinstance(a, int):
                return SAddr(b.sym, b.off + a)
            if isinstance(a, int) and isinstance(b, int):
                return self._fold(op, [a, b])
            return None
        if n == "select":
            c = ev(op.operands[0], env, depth + 1)
            if not isinstance(c, int):
                return None
            return ev(op.operands[1] if c else op.operands[2], env, depth + 1)
        d = OPS.get(n)
        if d is None or d.sem is None or not d.has("pure") or len(op.results) != 1:
            return None
        args: list[int] = []
        for o in op.operands:
            x = ev(o, env, depth + 1)
            if not isinstance(x, int):
                return None
            args.append(x)
        return self._fold(op, args)

    @staticmethod
    def _fold(op: Op, args: list[int]) -> int | None:
        """An integer op on integer operands, by the op table's semantics (`OpDef.fold`): the value read
        at the result's type (a bool is 0 or 1)."""
        r = OPS[op.name].fold(args, op.results[0].type, op.attrs, [o.type for o in op.operands])
        return int(r) if isinstance(r, (int, bool)) else None

    def _phi(self, a: BlockArg, env: dict[BlockArg, Val], depth: int) -> Val:
        """A block argument of a join inside an iteration: the incoming value of the path the evaluated
        branch condition selects (None when the branch is not decidable)."""
        b = a.block
        if b is self.fn.entry:
            return None  # a kernel parameter (also when a branch targets the entry block): unknown
        preds = self.cfg.preds.get(b, [])
        inc: list[tuple[Block, Value]] = []
        for p in preds:
            t = p.terminator
            if t is None:
                return None
            for si, s in enumerate(t.successors):
                if s is b:
                    args = t.succ_args[si]
                    if a.index >= len(args):
                        return None
                    inc.append((p, args[a.index]))
        if not inc:
            return None
        if len({id(x) for _, x in inc}) == 1:
            return self.value(inc[0][1], env, depth + 1)
        d = self.cfg.idom.get(b)
        t = d.terminator if d is not None else None
        if t is None or t.name != "cbr" or len(t.successors) != 2:
            return None
        c = self.value(t.operands[0], env, depth + 1)
        if not isinstance(c, int):
            return None
        chosen = t.successors[0 if c else 1]
        picks = []
        for p, x in inc:
            if p is d:
                if chosen is b:
                    picks.append(x)
            elif self.cfg.dominates(chosen, p) and chosen is not b:
                picks.append(x)
        if len({id(x) for x in picks}) != 1:
            return None
        return self.value(picks[0], env, depth + 1)

    def depends_on(self, v: Value, args: set[BlockArg], depth: int = 0, seen: set | None = None) -> bool:
        """Whether `v` may depend on any of `args` (through ops and block arguments of the same loop)."""
        seen = set() if seen is None else seen
        if id(v) in seen or depth > 400:
            return id(v) not in seen
        seen.add(id(v))
        if isinstance(v, BlockArg):
            if v in args:
                return True
            for p in self.cfg.preds.get(v.block, []):
                t = p.terminator
                if t is None:
                    continue
                for si, s in enumerate(t.successors):
                    if s is not v.block:
                        continue
                    if v.index >= len(t.succ_args[si]):  # a branch into the entry block (parameters)
                        return True  # unknown: assume it may depend (the check then stays silent)
                    if self.depends_on(t.succ_args[si][v.index], args, depth + 1, seen):
                        return True
            return False
        if isinstance(v, OpResult):
            return any(self.depends_on(o, args, depth + 1, seen) for o in v.op.operands)
        return False

    def varies(self, v: Value, lp: Loop, depth: int = 0, seen: set | None = None) -> bool:
        """Whether `v` may change from one iteration of `lp` to the next: it depends on a value carried
        around the loop or on something read inside it (a load, an opaque instruction, a collective).
        Per-thread values computed outside the loop (`tid.x == 0`, `elect`) do not vary."""
        seen = set() if seen is None else seen
        if id(v) in seen or depth > 400:
            return id(v) not in seen
        seen.add(id(v))
        b = v.defining_block
        if b is None or b not in lp.blocks:
            return False
        if isinstance(v, BlockArg):
            return True
        if isinstance(v, OpResult):
            from irc.ir.optable import OPS

            d = OPS.get(v.op.name)
            if d is None or not (d.has("pure") or v.op.name in ("sreg", "shared_addr", "elect")):
                return True
            return any(self.varies(o, lp, depth + 1, seen) for o in v.op.operands)
        return True


# --------------------------------------------------------------------------------------- loops
_SPIN_OK = frozenset(
    {*WAIT_OPS, "not", "select", "cmp", "cbr", "br", "const", *_CASTS, "opaque", "shared_addr"}
)


def is_spin_loop(lp: Loop) -> bool:
    """A `try_wait` polling loop (`L: try_wait p; @!p bra L`, or polled from C: the result through
    `selp`/`setp` to the branch): repeats one wait, nothing else."""
    hit = lp.memo.get("spin")
    if hit is not None:
        return bool(hit)
    names = {op.name for b in lp.blocks for op in b.ops}
    # the wait, control, and pure arithmetic (the barrier's address recomputed in the loop: `shared_addr`,
    # `ptradd`), `opaque` for a backoff's `nanosleep`; nothing that writes or arrives
    r = bool(names & set(WAIT_OPS)) and all(
        n in _SPIN_OK or (OPS.get(n) is not None and OPS[n].has("pure")) for n in names
    )
    lp.memo["spin"] = r  # once per loop: a function with 20,000 waits asks once per wait
    return r


def iteration_loop(cfg: CFG, b: Block) -> Loop | None:
    """The innermost loop whose iterations repeat `b`, skipping spin-wait loops."""
    for lp in cfg.loops_containing(b):
        if not is_spin_loop(lp):
            return lp
    return None


def header_recurrence(cfg: CFG, lp: Loop) -> dict[BlockArg, tuple[Value, Value]] | None:
    """For each argument of the loop header: (initial value, next value); None for irregular loops."""
    if len(lp.headers) != 1:
        return None
    h = lp.header
    out: dict[BlockArg, tuple[Value, Value]] = {}
    for a in h.args:
        init: list[Value] = []
        nxt: list[Value] = []
        for p in cfg.preds.get(h, []):
            t = p.terminator
            if t is None:
                return None
            for si, s in enumerate(t.successors):
                if s is h:
                    if a.index >= len(t.succ_args[si]):
                        return None  # a branch into the entry block: irregular
                    (nxt if p in lp.blocks else init).append(t.succ_args[si][a.index])
        if len({id(x) for x in init}) != 1 or len({id(x) for x in nxt}) != 1:
            return None
        out[a] = (init[0], nxt[0])
    return out


def iterations(ev: Eval, cfg: CFG, lp: Loop, n: int = MAX_ITERS) -> list[dict[BlockArg, Val]] | None:
    """The header-argument environments of the first `n` iterations (values None where unknown). Computed
    once per loop and count (every wait of a loop asks; the environments are never modified)."""
    key = f"iterations{n}"
    if key in lp.memo:
        return lp.memo[key]  # type: ignore[return-value]
    rec = header_recurrence(cfg, lp)
    out: list[dict[BlockArg, Val]] | None = None
    if rec is not None:
        env: dict[BlockArg, Val] = {a: ev.value(i, {}) for a, (i, _) in rec.items()}
        out = [env]
        for _ in range(n - 1):
            env = {a: ev.value(x, env) for a, (_, x) in rec.items()}
            out.append(env)
    lp.memo[key] = out
    return out


def constant_trips(ev: Eval, cfg: CFG, lp: Loop, b: Block | None = None, limit: int = 256) -> int | None:
    """How many times block `b` of `lp` runs (default: the header), when that is a constant the iterations'
    evaluation decides (`for (k = 0; k < 32; k += 8)`, unrolled or not): its one exit's condition evaluated
    per iteration, the first iteration that takes it ends the loop. The exit's own block, and the blocks
    before it, run in that last iteration too; past an exit tested in the header, the body does not. None
    otherwise (a parameter, several exits, more than `limit`). Why: the solver's `exists` only says that
    iteration k - 1 went on, which a counter compared with `!=` also satisfies at absurd k; a read in
    iteration 32 of a 4-trip loop would step past its tile."""
    k = _exit_iteration(ev, cfg, lp, limit)
    if k is None:
        return None
    d = list(lp.exits)[0][0]
    return k if (d is lp.header and b is not None and b is not lp.header) else k + 1


def _exit_iteration(ev: Eval, cfg: CFG, lp: Loop, limit: int) -> int | None:
    """The first iteration whose evaluation takes the loop's one exit (memoised per loop)."""
    if "trips" in lp.memo:
        return lp.memo["trips"]  # type: ignore[return-value]
    out: int | None = None
    exits = list(lp.exits)
    if len(lp.headers) == 1 and len(exits) == 1:
        d, gone = exits[0]
        t = d.terminator
        if t is not None and t.name == "cbr" and len(t.successors) == 2 and t.operands:
            taken = t.successors[0] is gone  # the exit is the true side
            for k, env in enumerate(iterations(ev, cfg, lp, limit) or []):
                c = ev.value(t.operands[0], env)
                if not isinstance(c, int):
                    break
                if bool(c) == taken:
                    out = k
                    break
    lp.memo["trips"] = out
    return out


def guards(cfg: CFG, b: Block, within: set[Block] | None = None) -> list[tuple[Op, bool]]:
    """Branches that must go one way for `b` to run: (cbr, polarity) for each `cbr` (inside `within`,
    when given) one of whose successors dominates `b` and is entered only from that branch."""
    out: list[tuple[Op, bool]] = []
    x: Block | None = b
    seen: set[int] = set()
    while x is not None and id(x) not in seen:
        seen.add(id(x))
        d = cfg.idom.get(x)
        if d is None:
            break
        t = d.terminator
        if t is not None and t.name == "cbr" and len(t.successors) == 2 and (within is None or d in within):
            s0, s1 = t.successors
            if s0 is not s1:
                for pol, s in ((True, s0), (False, s1)):
                    if cfg.preds.get(s) == [d] and cfg.dominates(s, b):
                        out.append((t, pol))
        x = d
    return out


def _sole_exit_of_inner_loop(cfg: CFG, lp: Loop, t: Op) -> bool:
    """`t` is the only exit of a loop nested in `lp`: once that loop ends, control is on `t`'s exit edge,
    so the code there runs whatever the condition (the `@!p bra WAIT` of a polling loop is the case)."""
    d = t.block
    for il in cfg.loops_containing(d) if d is not None else ():
        if il is lp or not il.blocks < lp.blocks:
            continue
        exits = list(il.exits)
        if len(exits) == 1 and exits[0][0] is d and any(s not in il.blocks for s in t.successors):
            return True
    return False


def executes(ev: Eval, cfg: CFG, lp: Loop, b: Block, env: dict[BlockArg, Val]) -> bool | None:
    """Whether block `b` of loop `lp` runs in the iteration `env` (for the threads of its role); None when
    a condition that changes with the iteration cannot be evaluated."""
    hargs = set(lp.header.args)
    for t, pol in guards(cfg, b, lp.blocks):
        if any(s not in lp.blocks for s in t.successors):
            continue  # the loop's own exit test: decides the trip count, not what one iteration does
        if _sole_exit_of_inner_loop(cfg, lp, t):
            continue  # an inner loop (a try_wait polling loop) always ends on that edge: not a condition
        c = ev.value(t.operands[0], env)
        if isinstance(c, int):
            if bool(c) != pol:
                return False
            continue
        if ev.depends_on(t.operands[0], hargs) or ev.varies(t.operands[0], lp):
            return None
    return True


# --------------------------------------------------------------------------------------- roles
@record
class Threads:
    """How many threads of one CTA execute a block: between `lo` and `hi` (hi None: unbounded)."""

    lo: int
    hi: int | None
    why: str = ""
    # the `tid.x` interval the guards select (1-D blocks), when some guard decides it: the role's threads
    tids: tuple[int, int] | None = None


def block_size(fn: Function) -> int | None:
    for key in ("launch", "max_threads"):
        v = fn.attrs.get(key)
        if isinstance(v, (list, tuple)) and v and all(isinstance(x, int) for x in v):
            n = 1
            for x in v:
                n *= x
            return n
    return None


def _tid_interval(v: Value, pol: bool, lo: int, hi: int) -> tuple[int, int] | None:
    """Narrow [lo, hi] of tid.x by `cmp(f(tid.x), const) == pol`; None when not a tid.x condition."""
    v = strip(v)
    if not isinstance(v, OpResult) or v.op.name != "cmp":
        return None
    a, c = strip(v.op.operands[0]), strip(v.op.operands[1])
    pred = str(v.op.attrs.get("pred"))
    if not (isinstance(c, OpResult) and c.op.name == "const" and isinstance(c.op.attrs.get("value"), int)):
        return None
    k = int(c.op.attrs["value"])
    scale = 1
    if isinstance(a, OpResult) and a.op.name in ("shr", "div") and len(a.op.operands) == 2:
        s = strip(a.op.operands[1])
        if isinstance(s, OpResult) and s.op.name == "const" and isinstance(s.op.attrs.get("value"), int):
            sv = int(s.op.attrs["value"])
            scale = (1 << sv) if a.op.name == "shr" else sv
            a = strip(a.op.operands[0])
    elif isinstance(a, OpResult) and a.op.name == "and" and len(a.op.operands) == 2:
        s = strip(a.op.operands[1])
        m = s.op.attrs.get("value") if isinstance(s, OpResult) and s.op.name == "const" else None
        m = m & 0xFFFFFFFF if isinstance(m, int) and not isinstance(m, bool) else None
        low = (~m) & 0xFFFFFFFF if m is not None else 0
        if m is not None and (m & (m + 1)) == 0 and hi <= m:
            a = strip(a.op.operands[0])  # Triton's `(tid & 127) == 0` in a block of at most 128: tid itself
        elif low and (low & (low + 1)) == 0 and k % (low + 1) == 0 and pred in ("eq", "ne"):
            # nvcc's `warp == k` for warp = tid / 32: `(tid & -32) == 32 * k`, i.e. (tid >> 5) == k
            scale, k = low + 1, k // (low + 1)
            a = strip(a.op.operands[0])
    if not (isinstance(a, OpResult) and a.op.name == "sreg" and a.op.attrs.get("name") == "tid.x"):
        return None
    if not pol:
        pred = {"eq": "ne", "ne": "eq", "lt": "ge", "ge": "lt", "le": "gt", "gt": "le"}.get(pred, "")
    # the condition on q = tid / scale, as an interval of tid
    if pred == "eq":
        return max(lo, k * scale), min(hi, k * scale + scale - 1)
    if pred == "lt":
        return lo, min(hi, k * scale - 1)
    if pred == "le":
        return lo, min(hi, k * scale + scale - 1)
    if pred == "gt":
        return max(lo, (k + 1) * scale), hi
    if pred == "ge":
        return max(lo, k * scale), hi
    if pred == "ne" and k * scale <= lo and lo <= k * scale + scale - 1:
        return k * scale + scale, hi
    if pred == "ne" and k * scale <= hi and hi <= k * scale + scale - 1:
        return lo, k * scale - 1
    return None  # `ne` in the middle: not an interval


def block_uniform(facts: object, v: Value) -> bool:
    from irc.analysis.uniformity import Level

    try:
        return facts.level(v) >= Level.BLOCK  # type: ignore[attr-defined]
    except Exception:  # noqa: BLE001 - a value the facts did not see: not uniform
        return False


def _is_elect(v: Value) -> bool:
    v = strip(v)
    if isinstance(v, OpResult) and v.op.name == "elect":
        return True
    if isinstance(v, OpResult) and v.op.name == "cmp" and v.op.attrs.get("pred") == "eq":
        a, c = strip(v.op.operands[0]), strip(v.op.operands[1])
        is_lane = isinstance(a, OpResult) and a.op.name == "sreg" and a.op.attrs.get("name") == "laneid"
        return is_lane and isinstance(c, OpResult) and c.op.name == "const" and c.op.attrs.get("value") == 0
    return False


def threads_of(
    fn: Function, cfg: CFG, b: Block, loop_blocks: set[Block] | None = None, facts: object = None
) -> Threads:
    """Threads of one CTA that execute `b` (once per iteration of its loop). With the uniformity `facts`,
    a guard every thread of the block decides alike (`k < ntiles`, the entry test of a loop with a
    parameter trip count) does not change how many threads arrive when the block runs at all."""
    T = block_size(fn)
    launch = fn.attrs.get("launch") or fn.attrs.get("max_threads")
    one_dim = isinstance(launch, (list, tuple)) and len(launch) >= 1 and all(x == 1 for x in launch[1:])
    lo, hi = 0, (T - 1 if T is not None else 1 << 30)
    elect = False
    exact = True
    tid_seen = False
    conds: list[tuple[Value, bool]] = []
    for t, pol in guards(cfg, b):
        if (
            loop_blocks is not None
            and t.block in loop_blocks
            and any(s not in loop_blocks for s in t.successors)
        ):
            continue  # loop exit tests
        if _inevitable_exit(cfg, t, b):
            continue  # a polling wait's or an inner loop's only exit: every thread that enters leaves there
        conds += _conjuncts(t.operands[0], pol)
    for c, pol in conds:
        if facts is not None and block_uniform(facts, c):
            continue
        if _is_elect(c) and pol:
            elect = True
            continue
        iv = _tid_interval(c, pol, lo, hi) if one_dim else None
        if iv is not None:
            lo, hi = iv
            tid_seen = True
            continue
        cv = strip(c)
        if isinstance(cv, OpResult) and cv.op.name == "not" and _is_elect(cv.op.operands[0]) and not pol:
            elect = True
            continue
        exact = False
    if hi < lo:
        return Threads(0, 0, "no thread")
    if T is None and not tid_seen and not elect:
        return Threads(0 if not exact else 0, None, "every thread (block size unknown)")
    n = hi - lo + 1
    if elect:
        n = hi // 32 - lo // 32 + 1
        why = "one elected lane per warp" if n > 1 else "one elected lane"
    elif tid_seen:
        why = f"threads with tid.x in {lo}..{hi}" if n > 1 else f"thread tid.x == {lo}"
    else:
        why = f"all {n} threads of the block"
    return Threads(n if exact else 0, n, why, (lo, hi) if one_dim and not elect else None)


def _inevitable_exit(cfg: CFG, t: Op, b: Block) -> bool:
    """`t` is the only exit of a loop that holds `t` but not `b` (a `try_wait` polling loop, an inner loop
    of the body): a thread in that loop reaches `b`'s side through `t` whatever its condition, so the
    condition selects no threads."""
    d = t.block
    if d is None:
        return False
    for lp in cfg.loops_containing(d):
        if b in lp.blocks:
            continue
        exits = list(lp.exits)
        if exits and all(src is d for src, _ in exits):
            return True
    return False


def _conjuncts(c: Value, pol: bool) -> list[tuple[Value, bool]]:
    """The conditions that all hold when `c == pol`: the operands of a taken `and` (`tid % 128 == 0 &&
    k_tiles > 0`, one predicate in PTX) or of a not-taken `or`, each judged on its own; else `c` itself."""
    v = strip(c)
    if isinstance(v, OpResult) and len(v.op.operands) == 2 and getattr(v.type, "is_bool", False):
        if (v.op.name == "and" and pol) or (v.op.name == "or" and not pol):
            return [x for o in v.op.operands for x in _conjuncts(o, pol)]
    return [(c, pol)]


# --------------------------------------------------------------------------------------- protocol
@record
class BarrierObject:
    """Everything one shared symbol holding mbarriers sees."""

    sym: str
    inits: list[Op] = field(default_factory=list)
    arrives: list[Op] = field(default_factory=list)
    announces: list[Op] = field(default_factory=list)
    copies: list[Op] = field(default_factory=list)
    waits: list[Op] = field(default_factory=list)
    others: list[Op] = field(default_factory=list)


@record
class Protocol:
    objects: dict[str, BarrierObject]
    opaque: bool  # calls or unmodelled ops that might touch mbarriers: decide nothing about unknown objects
    untraced: bool  # some barrier operand could not be traced to a symbol
    carried: bool = False  # some barrier operand reaches its symbol only through a loop-carried value


def protocol(fn: Function, cfg: CFG) -> Protocol:
    objs: dict[str, BarrierObject] = {}
    opaque = untraced = carried = False
    for b in cfg.rpo:
        for op in b.ops:
            if op.name == "call":
                opaque = True
                continue
            if op.name in ("opaque", "ptx_collective"):
                text = str(op.attrs.get("text", ""))
                if any(w in text for w in ("mbarrier", "cp.async", "tcgen05.commit", "complete_tx")):
                    opaque = True
                continue
            bar = barrier_operand(op)
            if bar is None:
                continue
            sym = shared_root(bar)
            if sym is None:
                untraced = True
                continue
            if shared_root(bar, through_args=False) is None:
                carried = True
            o = objs.setdefault(sym, BarrierObject(sym))
            n = op.name
            if n == "mbarrier_init":
                o.inits.append(op)
            elif n in WAIT_OPS:
                o.waits.append(op)
            elif n in COPY_OPS:
                o.copies.append(op)
            else:
                if n in ARRIVE_OPS:
                    o.arrives.append(op)
                if n in ANNOUNCE_OPS:
                    o.announces.append(op)
                if n not in ARRIVE_OPS and n not in ANNOUNCE_OPS:
                    o.others.append(op)
    return Protocol(objs, opaque, untraced, carried)


def arrival_count(op: Op) -> int | None:
    """Arrivals one thread contributes by executing `op`."""
    if op.name == "cp_async_mbarrier_arrive":
        return 1 if op.attrs.get("noinc") else 0
    c = op.attrs.get("count", 1)
    return c if isinstance(c, int) else None


def const_int(v: Value) -> int | None:
    v = strip(v)
    if isinstance(v, OpResult) and v.op.name == "const":
        c = v.op.attrs.get("value")
        if isinstance(c, int) and not isinstance(c, bool):
            return c
    return None


__all__ = [
    "ANNOUNCE_OPS",
    "ARRIVE_OPS",
    "COPY_OPS",
    "WAIT_OPS",
    "BarrierObject",
    "Eval",
    "Protocol",
    "SAddr",
    "Threads",
    "arrival_count",
    "barrier_operand",
    "block_size",
    "block_uniform",
    "const_int",
    "executes",
    "guards",
    "iteration_loop",
    "iterations",
    "protocol",
    "shared_root",
    "strip",
    "threads_of",
]
