"""Symbolic terms for the IR values and path conditions of one function, per symbolic thread.

A query reasons about two threads (`a`, `b`) of one block (or one warp) of one launch. Each IR value gets
a bit-vector term (booleans: a boolean term) over:

- the thread's coordinates (`tid.*`, per thread; `laneid` and the warp index derived from the linear
  thread index), the launch (`ntid`, `nctaid`, `ctaid`: shared, `irc.analysis.symbolic.launch`), the
  kernel parameters (shared);
- one iteration counter per loop and thread (`k`): a loop-header argument that steps by a loop-invariant
  amount is `init + k * step`; other loop-carried values are fresh symbols;
- opaque values (loads, floats, calls, anything without integer semantics here) as fresh symbols: one per
  thread when the uniformity lattice says the value varies, one shared by both threads (a function of the
  loop iterations) when it says the value is uniform across the block, one per warp when uniform per warp.

Path conditions: a block is reached when some incoming forward edge is taken (its source reached and its
branch condition true); a loop header is reached when the loop is entered, at any iteration. Join
arguments are fresh symbols constrained to the value of the edge taken. Every approximation here admits
more behaviours than the program has (never fewer), so UNSAT proves the property; a SAT model is a
candidate witness that the emulator can replay (`irc check --confirm`).

Integer semantics: two's complement bit-vectors of the value's width, as PTX computes them (shifts past the
width give 0 or the sign, as z3's do). Floats are their bit patterns with opaque arithmetic.
"""

from __future__ import annotations

from typing import Any

from irc.analysis.cfg import Loop
from irc.analysis.symbolic.launch import AXES, Launch
from irc.analysis.symbolic.solver import z3 as _z3
from irc.analysis.uniformity import Level
from irc.analysis.uniformity_base import const_value
from irc.ir.core import Block, BlockArg, Function, Op, OpResult, Value
from irc.ir.types import PtrType, ScalarType, Type, bit_width


def _width(t: Type) -> int:
    try:
        w = bit_width(t)
    except Exception:  # noqa: BLE001 - a type with no register width: an opaque 64-bit term
        return 64
    return w if w > 0 else 64


def _is_bool(t: Type) -> bool:
    return isinstance(t, ScalarType) and t.is_bool


def _signed(t: Type) -> bool:
    return isinstance(t, ScalarType) and t.is_signed


def _is_int(t: Type) -> bool:
    return (isinstance(t, ScalarType) and t.is_int) or isinstance(t, PtrType)


MAX_ITERATIONS = 1 << 20  # iterations of one loop the model allows (docs/analyzer.md, the symbolic model)
TRIP_SCAN = 64  # back-edge conditions on the counter alone are evaluated this far (`_last_iteration`)


class Thread:
    """One symbolic thread: its coordinates, its iteration counters and its memo of terms."""

    def __init__(self, name: str, z: Any, tid: list | None = None, parent: Thread | None = None):
        self.name = name
        if tid is None:
            tid = [z.ZeroExt(32 - w, z.BitVec(f"tid.{a}@{name}", w)) for a, w in zip(AXES, (10, 10, 6))]
        self.tid = tid
        # a lane another thread reads with `shfl` is that thread in the same iterations: it shares the
        # reader's iteration counters and definitional constraints
        self.iters: dict[int, Any] = parent.iters if parent is not None else {}
        # (loop id, n) -> the counter's residue modulo n (`Encoder.phase`), shared like the counters
        self.phases: dict[tuple[int, int], Any] = parent.phases if parent is not None else {}
        self.memo: dict[tuple[str, int], Any] = {}
        self.side: list = parent.side if parent is not None else []
        self.derived: dict[int, Thread] = {}


class Encoder:
    """Terms and path conditions of `fn` for symbolic threads. Each thread collects the definitional
    constraints of its terms (bounds of its coordinates, join arguments); a query includes those of its
    threads (`constraints`)."""

    def __init__(self, ctx: Any, launch: Launch):
        self.ctx = ctx
        self.fn: Function = ctx.fn
        self.cfg = ctx.cfg
        self.launch = launch
        self.z = launch.z
        self.threads: dict[str, Thread] = {}
        self._loop_of: dict[Block, Loop] = {}
        self._loop_ids: dict[int, int] = {}
        for lp in self.cfg.loops:
            self._loop_ids[id(lp)] = len(self._loop_ids)
            for h in lp.headers:
                cur = self._loop_of.get(h)
                if cur is None or lp.depth > cur.depth:
                    self._loop_of[h] = lp
        self._fresh = 0
        self._origin: dict[str, Block | None] = {}  # fresh unknown -> the block defining its value
        self.determined: set[str] = set()  # join symbols that are functions of the path (see `pure`)
        self._undet_memo: dict[tuple[int, int], bool] = {}
        self._exists_memo: dict[tuple[int, str], Any] = {}
        self._pure_memo: dict[int, bool] = {}
        # the terms those memos are keyed by (z3 ids): kept alive, since z3 reuses the id of a freed term
        self._memo_terms: list[Any] = []
        self._ufs: dict[tuple, Any] = {}
        self._layout: tuple[dict[str, int], dict[str, int]] | None = None
        self._derived = 0
        self._domain: Any = None  # the op table's semantics over z3 terms (`_table`), made on first use
        # name of the fresh symbol of a loop-header argument the encoding leaves unknown -> (argument,
        # loop, symbol): what `irc.analysis.symbolic.invariants` may relate to the loop's other arguments
        self.carried: dict[str, tuple[BlockArg, Loop, Any]] = {}
        self._header_cyc: dict[tuple[int, str], Any] = {}  # (argument, thread) -> its symbol in a cycle
        self._trips: dict[int, int | None] = {}  # loop -> its last iteration, when a constant (`_exists`)

    # ---------------------------------------------------------------------------- threads and launch
    def thread(self, name: str) -> Thread:
        th = self.threads.get(name)
        if th is None:
            z = self.z
            th = self.threads[name] = Thread(name, self.z)
            for t, n in zip(th.tid, self.launch.ntid):
                th.side.append(z.ULT(t, n))
        return th

    def constraints(self, *threads: Thread) -> list:
        """The launch's constraints and the definitional constraints of `threads`' terms."""
        out = list(self.launch.constraints)
        for th in threads:
            out += th.side
        return out

    def linear_tid(self, th: Thread) -> Any:
        """tid.x + ntid.x * (tid.y + ntid.y * tid.z), computed in 16 bits (it is below 1024)."""
        z = self.z
        n16 = [z.Extract(15, 0, n) for n in self.launch.ntid]
        t16 = [z.Extract(15, 0, t) for t in th.tid]
        return z.ZeroExt(16, t16[0] + n16[0] * (t16[1] + n16[1] * t16[2]))

    def distinct(self, a: Thread, b: Thread) -> Any:
        """`a` and `b` are different threads of the block."""
        return self.z.Or(*[x != y for x, y in zip(a.tid, b.tid)])

    def warp_of(self, th: Thread) -> Any:
        return self.z.LShR(self.linear_tid(th), 5)

    def lane_of(self, th: Thread) -> Any:
        return self.linear_tid(th) & 31

    def iteration(self, lp: Loop, th: Thread) -> Any:
        """The iteration counter of loop `lp` for thread `th` (0 at the first iteration)."""
        k = th.iters.get(id(lp))
        if k is None:
            k = th.iters[id(lp)] = self.z.BitVec(f"k{self._loop_ids[id(lp)]}@{th.name}", 32)
            # `exists` only says iteration k-1 went on, which a counter compared with `!=` or a pointer
            # that wraps around the 32-bit shared window also satisfies at absurd k (a 4-iteration loop
            # "reaching" another allocation after 6 million steps): loops run fewer than 2^20 times
            th.side.append(self.z.ULT(k, self.z.BitVecVal(MAX_ITERATIONS, 32)))
        return k

    def phase(self, lp: Loop, th: Thread, n: int) -> Any:
        """The iteration counter of `lp` modulo n, as its own symbol: k = n*q + ph with 0 <= ph < n (n is
        a constant, so the relation is linear; a 32-bit remainder would cost the solver a divider circuit).
        A step back (`step_back`) maps it to `ph == 0 ? n-1 : ph-1`, as it maps k to k-1."""
        key = (id(lp), n)
        ph = th.phases.get(key)
        if ph is None:
            z = self.z
            k = self.iteration(lp, th)
            lid = self._loop_ids[id(lp)]
            ph = th.phases[key] = z.BitVec(f"ph{n}:k{lid}@{th.name}", 32)
            q = z.BitVec(f"q{n}:k{lid}@{th.name}", 32)
            nn = z.BitVecVal(n, 32)
            th.side += [z.ULT(ph, nn), z.ULE(q, k), k == nn * q + ph]
        return ph

    def phases_apart(self, lp: Loop, ta: Thread, tb: Thread, n: int) -> list:
        """When `tb` is n iterations of `lp` after `ta`: each residue of `tb`'s counter is `ta`'s plus n,
        wrapped. Implied by the counters' definitions, but said outright, so the solver does not have to
        rediscover modular arithmetic through `k = m*q + ph` (Triton's 3-stage sm_80 matmul: its K-loop
        question took 0.9-1.3 s, over the per-query timeout, and takes 0.2 s with this)."""
        z = self.z
        out = []
        for m in sorted({key[1] for key in list(ta.phases) + list(tb.phases) if key[0] == id(lp)}):
            pa, pb = self.phase(lp, ta, m), self.phase(lp, tb, m)
            t = pa + z.BitVecVal(n % m, 32)
            out.append(pb == z.If(z.UGE(t, z.BitVecVal(m, 32)), t - z.BitVecVal(m, 32), t))
        return out

    def step_back(self, lp: Loop, th: Thread) -> list:
        """Substitutions that turn a term of iteration k of `lp` into the same term in iteration k-1: the
        counter one lower, its residues one lower, and the loops nested in `lp` at fresh (existential)
        iterations (the back edge of k-1 left them where they were then, not where this thread is now)."""
        z = self.z
        k = self.iteration(lp, th)
        subs = [(k, k - 1)]
        for (lid, n), ph in th.phases.items():
            if lid == id(lp):
                subs.append((ph, z.If(ph == 0, z.BitVecVal(n - 1, 32), ph - 1)))
        for inner in self.cfg.loops:
            ki = th.iters.get(id(inner))
            if inner is not lp and inner.blocks < lp.blocks and ki is not None:
                self._fresh += 1
                subs.append((ki, z.BitVec(f"k{self._loop_ids[id(inner)]}'{self._fresh}@{th.name}", 32)))
                for (lid, n), ph in th.phases.items():
                    if lid == id(inner):
                        subs.append((ph, z.BitVec(f"ph{n}'{self._fresh}@{th.name}", 32)))
        return subs

    def loops_of(self, b: Block | None) -> list[Loop]:
        """The loops containing `b`, outermost first."""
        if b is None:
            return []
        return list(reversed(self.cfg.loops_containing(b)))

    def shared_bases(self) -> dict[str, int]:
        """The shared allocations' addresses (`irc.analysis.races.shared_layout`, the one layout)."""
        if self._layout is None:
            from irc.analysis.races import shared_layout

            self._layout = shared_layout(self.fn)
        return self._layout[0]

    def shared_sizes(self) -> dict[str, int]:
        self.shared_bases()
        return self._layout[1]  # type: ignore[index]

    def exists(self, lp: Loop, th: Thread) -> Any:
        """A necessary condition for `th` to be in iteration `k` of `lp`: k is 0, or some back edge was
        taken in iteration k-1 (its condition with the loop's counter one lower). Only added when that
        condition is a function of the counters, coordinates and parameters (a fresh unknown in it would
        stand for its value in iteration k, not k-1): else just True."""
        key = (id(lp), th.name)
        hit = self._exists_memo.get(key)
        if hit is None:
            hit = self._exists_memo[key] = self._exists(lp, th)
        return hit

    def _exists(self, lp: Loop, th: Thread) -> Any:
        z = self.z
        k = self.iteration(lp, th)
        conts = []
        for h in lp.headers:
            for p, i in self._in_edges(h):
                if p in lp.blocks:
                    conts.append(self.edge(p, i, th))
        if not conts:
            return z.BoolVal(True)
        cont = conts[0] if len(conts) == 1 else z.Or(*conts)
        last = self._last_iteration(lp, th, k)
        bound = z.ULE(k, z.BitVecVal(last, 32)) if last is not None else z.BoolVal(True)
        if self.undetermined(cont, lp):
            return bound
        prev = z.substitute(cont, *self.step_back(lp, th))
        return z.And(z.Or(k == 0, prev), bound) if last is not None else z.Or(k == 0, prev)

    def _last_iteration(self, lp: Loop, th: Thread, k: Any) -> int | None:
        """The last iteration a loop can reach when its one back edge tests its counter alone (an unrolled
        row loop: `r += 2048; if (r != 9216) continue`): the first j at which the test fails, found by
        evaluating it for j = 0, 1, ... (up to `TRIP_SCAN`). Iteration k needs the test true in every
        earlier iteration, while `exists` alone says only that it held in iteration k - 1, which a `!=` test
        also does past the end (j = 5 of a 4-iteration loop). None when the test depends on anything else,
        the loop has several back edges, or it runs longer."""
        key = id(lp)
        if key in self._trips:
            return self._trips[key]
        self._trips[key] = None
        z = self.z
        backs = [(p, i) for h in lp.headers for p, i in self._in_edges(h) if p in lp.blocks]
        if len(backs) != 1:
            return None
        p, i = backs[0]
        t = p.terminator
        if t is None or t.name != "cbr" or not t.operands or t.successors[0] is t.successors[1]:
            return None
        c = self.value(t.operands[0], th)
        if not z.is_bool(c):
            c = c != 0
        stay = c if i == 0 else z.Not(c)
        got: int | None = None
        for j in range(TRIP_SCAN):
            v = z.simplify(z.substitute(stay, (k, z.BitVecVal(j, 32))))
            if z.is_false(v):
                got = j  # the back edge is not taken after iteration j: it is the last
                break
            if not z.is_true(v):
                break
        self._trips[key] = got
        return got

    # ---------------------------------------------------------------------------- opaque values
    def _sort(self, t: Type) -> Any:
        z = self.z
        return z.BoolSort() if _is_bool(t) else z.BitVecSort(_width(t))

    def fresh(self, t: Type, hint: str, th: Thread, where: Block | None = None) -> Any:
        """A fresh unknown for the value of `hint` defined in block `where` (None: unknown place)."""
        self._fresh += 1
        z = self.z
        name = f"{hint}#{self._fresh}@{th.name}"
        self._origin[name] = where
        return z.Const(name, self._sort(t))

    def opaque(self, v: Value, th: Thread, level: Level | None = None) -> Any:
        """An unknown value: shared by the threads for which the lattice says it is equal (block- or
        warp-uniform), a function of the iterations of the loops around its definition."""
        z = self.z
        if level is None:
            try:
                level = self.ctx.facts.level(v)
            except Exception:  # noqa: BLE001 - a value the lattice did not see: varying
                level = Level.THREAD
        loops = self.loops_of(v.defining_block)
        args = [self.iteration(lp, th) for lp in loops]
        doms = [z.BitVecSort(32)] * len(args)
        if level == Level.THREAD:
            # a function of the thread (its linear id; the block is shared) and the iterations: the lane a
            # `shfl` reads is the same function at that lane's id
            args.append(self.linear_tid(th))
            doms.append(z.BitVecSort(32))
        elif level == Level.WARP:
            args.append(self.warp_of(th))
            doms.append(z.BitVecSort(32))
        key = (id(v), len(args))
        f = self._ufs.get(key)
        if f is None:
            self._fresh += 1
            nm = f"{v.name or 'u'}#{'t' if level == Level.THREAD else 'u'}{self._fresh}"
            f = self._ufs[key] = (
                z.Function(nm, *doms, self._sort(v.type)) if doms else z.Const(nm, self._sort(v.type))
            )
        return f(*args) if doms else f

    # ---------------------------------------------------------------------------- the driver
    def value(self, v: Value, th: Thread) -> Any:
        return self._get(("v", v), th)

    def reach(self, b: Block, th: Thread) -> Any:
        """Path condition of `b` for `th` (at some iteration of the loops around it: `iteration`)."""
        return self._get(("pc", b), th)

    def edge(self, p: Block, i: int, th: Thread) -> Any:
        """`th` reaches `p` and its terminator takes successor `i`."""
        return self._get(("edge", (p, i)), th)

    def _get(self, key: tuple, th: Thread) -> Any:
        memo = th.memo
        mk = (key[0], id(key[1]) if key[0] != "edge" else (id(key[1][0]), key[1][1]))
        hit = memo.get(mk)  # type: ignore[arg-type]
        if hit is not None:
            return hit
        stack: list[tuple[Any, Any]] = [(mk, self._gen(key, th))]
        active = {mk}
        send: Any = None
        while stack:
            k, g = stack[-1]
            try:
                req = g.send(send)
            except StopIteration as done:
                memo[k] = done.value
                active.discard(k)
                stack.pop()
                send = done.value
                continue
            rk = (req[0], id(req[1]) if req[0] != "edge" else (id(req[1][0]), req[1][1]))
            h = memo.get(rk)  # type: ignore[arg-type]
            if h is not None:
                send = h
                continue
            if rk in active:  # a cycle the encoding does not break: an unknown value
                send = self._cycle_breaker(req, th)
                continue
            active.add(rk)  # type: ignore[arg-type]
            stack.append((rk, self._gen(req, th)))
            send = None
        return memo[mk]  # type: ignore[index]

    def _cycle_breaker(self, req: tuple, th: Thread) -> Any:
        z = self.z
        if req[0] == "v":
            v = req[1]
            if isinstance(v, BlockArg) and v.block in self._loop_of:
                # a loop-header argument asked for while its own back-edge value is being encoded: its
                # value in this iteration, the symbol `_arg` gives it if it finds no closed form
                key = (id(v), th.name)
                x = self._header_cyc.get(key)
                if x is None:
                    x = self._header_cyc[key] = self.fresh(v.type, v.name or "phi", th, v.block)
                return x
            return self.fresh(v.type, "cyc", th, v.defining_block)
        self._fresh += 1
        return z.Bool(f"pc#{self._fresh}@{th.name}")

    def _gen(self, key: tuple, th: Thread):  # type: ignore[no-untyped-def]
        kind, obj = key
        if kind == "pc":
            return self._pc(obj, th)
        if kind == "edge":
            return self._edge(obj[0], obj[1], th)
        if isinstance(obj, BlockArg):
            return self._arg(obj, th)
        return self._op_value(obj, th)

    # ---------------------------------------------------------------------------- control flow
    def _back_edge(self, p: Block, b: Block) -> bool:
        lp = self._loop_of.get(b)
        return lp is not None and p in lp.blocks

    def _in_edges(self, b: Block) -> list[tuple[Block, int]]:
        out = []
        for p in self.cfg.preds.get(b, ()):
            t = p.terminator
            if t is None:
                continue
            for i, s in enumerate(t.successors):
                if s is b:
                    out.append((p, i))
        seen: set[tuple[int, int]] = set()
        uniq = []
        for p, i in out:
            if (id(p), i) not in seen:
                seen.add((id(p), i))
                uniq.append((p, i))
        return uniq

    def _pc(self, b: Block, th: Thread):  # type: ignore[no-untyped-def]
        z = self.z
        if b is self.fn.entry:
            return z.BoolVal(True)
        if not self.cfg.is_reachable(b):
            return z.BoolVal(False)
        terms = []
        for p, i in self._in_edges(b):
            if self._back_edge(p, b):
                continue
            terms.append((yield ("edge", (p, i))))
        if not terms:
            return z.BoolVal(False)
        return terms[0] if len(terms) == 1 else z.Or(*terms)

    def _edge(self, p: Block, i: int, th: Thread):  # type: ignore[no-untyped-def]
        z = self.z
        pc = yield ("pc", p)
        t = p.terminator
        if t is None or t.name != "cbr" or len(t.successors) < 2 or t.successors[0] is t.successors[1]:
            return pc
        if self._leaves_spin_loop(p, t.successors[i]) or self._rotated_poll(t):
            return pc  # a polling wait (`L: try_wait p; @!p bra L`) ends on this edge once it returns
        c = yield ("v", t.operands[0])
        if not z.is_bool(c):
            c = c != 0
        return z.And(pc, c if i == 0 else z.Not(c))

    def _rotated_poll(self, t: Op) -> bool:
        """The first test of a polling wait that nvcc rotated (`if (!test_wait(..)) do { nanosleep; } while
        (!test_wait(..))`): one side enters the spin loop, whose only way out is the other side. Either way
        the thread goes on past the wait, so the test is not a path condition (the join after it would
        otherwise keep the wait's result as an unknown: `(x and r) or (x and not r)`)."""
        from irc.analysis.mbarrier import is_spin_loop

        s0, s1 = t.successors[0], t.successors[1]
        for into, out in ((s0, s1), (s1, s0)):
            for lp in self.cfg.loops_containing(into):
                if lp.header is into and is_spin_loop(lp) and lp.exits and all(e[1] is out for e in lp.exits):
                    return True
        return False

    def _leaves_spin_loop(self, p: Block, s: Block) -> bool:
        from irc.analysis.mbarrier import is_spin_loop

        for lp in self.cfg.loops_containing(p):
            if s not in lp.blocks and is_spin_loop(lp):
                return True
        return False

    # ---------------------------------------------------------------------------- block arguments
    def arg_edges(self, a: BlockArg) -> list[tuple[Block, int, Value]] | None:
        """(predecessor, successor index, value passed) for each edge into `a`'s block; None when an edge
        passes no value for it."""
        out = []
        for p, i in self._in_edges(a.block):
            t = p.terminator
            args = t.succ_args[i] if t is not None and i < len(t.succ_args) else []
            if a.index >= len(args):
                return None
            out.append((p, i, args[a.index]))
        return out

    def _arg(self, a: BlockArg, th: Thread):  # type: ignore[no-untyped-def]
        z = self.z
        b = a.block
        if b is self.fn.entry:
            if not self.fn.is_kernel:
                return self.opaque(a, th)
            if _is_bool(a.type):
                return z.Bool(f"param:{a.index}:{a.name}")
            if not _is_int(a.type):
                return self.opaque(a, th, Level.GRID)
            return self.launch.param(a.index, _width(a.type))
        incoming = self.arg_edges(a)
        if incoming is None:
            return self.opaque(a, th)
        lp = self._loop_of.get(b)
        if lp is not None:
            inside = [(p, i, v) for p, i, v in incoming if p in lp.blocks]
            outside = [(p, i, v) for p, i, v in incoming if p not in lp.blocks]
            init = yield from self._join(a, outside, th)
            step = self._induction_step(a, lp, [v for _, _, v in inside])
            ring = self._ring(a, lp, [v for _, _, v in inside], outside) if step is None else None
            if ring is not None and not z.is_bool(init):
                w = _width(a.type)
                kk = _resize(self.iteration(lp, th), w, False)
                c0, n = ring
                ph = _resize(self.phase(lp, th, n), w, False)
                t = z.BitVecVal(c0 % n, w) + ph  # below 2n: one conditional subtraction is the remainder
                t = z.If(z.UGE(t, z.BitVecVal(n, w)), t - z.BitVecVal(n, w), t)
                return z.If(kk == 0, z.BitVecVal(c0, w), t)
            if ring is None and step is None and not z.is_bool(init):
                bounded = self._ring_with_retries(a, lp, inside, outside, th)
                if bounded is not None:
                    return bounded
            if step is None and init is not None and not _self_dependent(a, lp, [v for _, _, v in inside]):
                prev = yield from self._previous(a, lp, [v for _, _, v in inside], init, th)
                if prev is not None:
                    return prev
            if step is None or init is None:
                x = self._header_cyc.get((id(a), th.name))
                if x is None:
                    x = self.fresh(a.type, a.name or "phi", th, a.block)
                self.carried[str(x)] = (a, lp, x)
                return x
            s = yield ("v", step[0])
            k = self.iteration(lp, th)
            w = _width(a.type)
            if z.is_bool(s) or z.is_bool(init):
                return self.fresh(a.type, a.name or "phi", th, a.block)
            s = _resize(s, w, _signed(step[0].type))
            kk = _resize(k, w, False)
            return init + kk * s if step[1] > 0 else init - kk * s
        got = yield from self._join(a, incoming, th)
        return got if got is not None else self.opaque(a, th)

    def _join(self, a: BlockArg, incoming: list, th: Thread):  # type: ignore[no-untyped-def]
        """The value of `a` over the edges `incoming`: the edge's value when there is one edge, else a
        fresh symbol equal to the value of whichever edge was taken."""
        z = self.z
        if not incoming:
            return None
        if len(incoming) == 1 or all(v is incoming[0][2] for _, _, v in incoming):
            return (yield ("v", incoming[0][2]))
        x = self.fresh(a.type, a.name or "phi", th, a.block)
        alts, edges, vals = [], [], []
        for p, i, v in incoming:
            e = yield ("edge", (p, i))
            val = yield ("v", v)
            if z.is_bool(val) != z.is_bool(x) or (not z.is_bool(x) and val.size() != x.size()):
                return None
            edges.append(e)
            vals.append(val)
            alts.append(z.And(e, x == val))
        th.side.append(z.Implies(z.Or(*edges), z.Or(*alts)))
        if all(self.pure(t) for t in edges + vals):
            self.determined.add(str(x))  # a function of the path: not an unknown (`pure`)
        return x

    def pure(self, term: Any) -> bool:
        """Whether `term` is a function of the coordinates, the launch, the parameters and the iteration
        counters only (`witness.has_unknowns`), where join symbols fixed by their incoming edges count as
        determined."""
        key = term.get_id()
        hit = self._pure_memo.get(key)
        if hit is None:
            hit = self._pure_memo[key] = not self._unknown_in(term, None)
            self._memo_terms.append(term)
        return hit

    def undetermined(self, term: Any, lp: Loop) -> bool:
        """`pure`'s question for `exists`: besides determined joins, an unknown whose value is defined
        outside `lp` is the same in iteration k-1, so it does not spoil the substitution."""
        key = (term.get_id(), id(lp))
        hit = self._undet_memo.get(key)
        if hit is None:
            hit = self._undet_memo[key] = self._unknown_in(term, lp)
            self._memo_terms.append(term)
        return hit

    def _unknown_in(self, term: Any, lp: Loop | None) -> bool:
        from irc.analysis.symbolic.solver import RawTerms

        r = RawTerms.get()
        c = term.ctx_ref()
        pure = self._pure_memo
        seen: set = set()
        work = [term.as_ast()]
        while work:
            t = work.pop()
            tid = r.id(c, t)
            if tid in seen or pure.get(tid):
                continue  # (a subterm known pure has no unknown for any loop)
            seen.add(tid)
            kind = r.kind(c, t)
            if kind in r.APPS and r.decl_kind(c, r.decl(c, t)) == r.UNINTERPRETED:
                n = r.name(c, r.decl(c, t))
                if ("#" in n and "#u" not in n and not n.startswith("elect#")) or n.startswith(
                    ("ld:", "pf:")
                ):
                    if n in self.determined:
                        pass
                    elif lp is not None and r.num_args(c, t) == 0 and n in self._origin:
                        where = self._origin[n]
                        if where is None or where in lp.blocks:
                            return True
                    else:
                        return True
            work.extend(r.children(c, t, kind))
        return False

    def _induction_step(self, a: BlockArg, lp: Loop, backs: list[Value]) -> tuple[Value, int] | None:
        """(step, +1/-1) when every back edge passes `a + step` (or `a - step`) with `step` defined
        outside the loop."""
        found: tuple[Value, int] | None = None
        for v in backs:
            v = _strip(v)
            if not isinstance(v, OpResult) or v.op.name not in ("add", "sub", "ptradd"):
                return None
            x, y = v.op.operands[0], v.op.operands[1]
            cand: tuple[Value, int] | None = None
            if _strip(x) is a and self._invariant(y, lp):
                cand = (y, 1 if v.op.name != "sub" else -1)
            elif v.op.name == "add" and _strip(y) is a and self._invariant(x, lp):
                cand = (x, 1)
            if cand is None:
                return None
            if found is not None and (found[1] != cand[1] or not _same(found[0], cand[0])):
                return None
            found = cand
        return found

    def _previous(self, a: BlockArg, lp: Loop, backs: list[Value], init: Any, th: Thread):  # type: ignore[no-untyped-def]
        """`a` in iteration k when its back edge passes one value computed from other loop variables (not
        from `a` itself): `init` in iteration 0, else that value as it was in iteration k-1 (its term with
        the counter one lower). Triton's stage pointer `base + (stage << 13)` of a ring counter. None when
        the value depends on `a`, or on an unknown defined in the loop (not the same one iteration back)."""
        z = self.z
        if not backs or any(v is not backs[0] for v in backs):
            return None
        t = yield ("v", backs[0])
        if z.is_bool(t) != z.is_bool(init) or (not z.is_bool(t) and t.size() != init.size()):
            return None
        if self.undetermined(t, lp):
            return None
        k = self.iteration(lp, th)
        return z.If(k == 0, init, z.substitute(t, *self.step_back(lp, th)))

    def _ring_with_retries(self, a: BlockArg, lp: Loop, inside: list, outside: list, th: Thread) -> Any:
        """A stage index whose loop shares its header with a polling wait (the wait is the body's first
        instruction, so nvcc's `@!p bra HEADER` retries the whole header): the retry edge passes the index
        unchanged, the other edges step the ring. The iteration counter then also counts retries, so the
        index is not `(c + k) % n`; it is still one of the ring's values, which is what is said: an
        unknown (shared as the lattice allows) within [0, n), or the start c."""
        z = self.z
        steps = [v for _, _, v in inside if _strip(v) is not a]
        if not steps or len(steps) == len(inside):
            return None
        ring = self._ring(a, lp, steps, outside)
        if ring is None:
            return None
        c0, n = ring
        w = _width(a.type)
        x = self.opaque(a, th)
        th.side.append(z.Or(x == z.BitVecVal(c0 % (1 << w), w), z.ULT(x, z.BitVecVal(n, w))))
        return x

    def _ring(self, a: BlockArg, lp: Loop, backs: list[Value], outside: list) -> tuple[int, int] | None:
        """(c, n) when `a` is a stage index counting modulo n from the constant c (-1 <= c < n): every back
        edge passes `t = a + 1` wrapped to 0 at n (Triton's and CUTLASS's `selp(t > n-1, 0, t)`,
        `selp(t == n, 0, t)`, `selp(t < n, t, 0)`), so it is c in iteration 0 and `(c + k) % n` after
        (Triton starts at -1 and steps at the top of the body)."""
        inits = {const_value(v) for _, _, v in outside}
        if len(inits) != 1 or not backs:
            return None
        c = next(iter(inits))
        if not isinstance(c, int) or isinstance(c, bool):
            return None
        w = _width(a.type)
        if w and c >= 1 << (w - 1):
            c -= 1 << w  # `mov.b32 %r, -1` is 0xffffffff in a b32 register
        ns: set[int] = set()
        for v in backs:
            v = _strip(v)
            if not isinstance(v, OpResult) or v.op.name != "select" or len(v.op.operands) != 3:
                return None
            cond, x, y = (_strip(o) for o in v.op.operands)
            if not isinstance(cond, OpResult) or cond.op.name != "cmp" or len(cond.op.operands) != 2:
                return None
            pred = cond.op.attrs.get("pred")
            lhs, bound = _strip(cond.op.operands[0]), const_value(cond.op.operands[1])
            wrap, keep = (
                (x, y)
                if pred in ("gt", "ge", "eq")
                else (y, x)
                if pred in ("lt", "le", "ne")
                else (None, None)
            )
            if (
                wrap is None
                or const_value(wrap) != 0
                or not isinstance(bound, int)
                or _strip(keep) is not lhs
            ):
                return None
            if not isinstance(lhs, OpResult) or lhs.op.name != "add" or len(lhs.op.operands) != 2:
                return None
            o0, o1 = (_strip(o) for o in lhs.op.operands)
            if not ((o0 is a and const_value(o1) == 1) or (o1 is a and const_value(o0) == 1)):
                return None
            ns.add(bound + 1 if pred in ("gt", "le") else bound)
        if len(ns) != 1:
            return None
        n = next(iter(ns))
        return (c, n) if -1 <= c < n <= 1 << 10 else None  # n * q stays below 2^32 (phase)

    def _invariant(self, v: Value, lp: Loop) -> bool:
        """Defined outside `lp`, or a constant (the lifter materialises constants where PTX uses them,
        so nvcc's `add.s32 %r163, %r163, 4` has its step defined inside the loop)."""
        return self._invariant_at(v, lp, 8)

    def _invariant_at(self, v: Value, lp: Loop, depth: int) -> bool:
        """Defined outside `lp`, or a constant, a launch register (`mov.u32 %r, %ntid.x` inside the loop)
        or a pure op of such values."""
        b = v.defining_block
        if b is None or b not in lp.blocks:
            return True
        v = _strip(v)
        if not isinstance(v, OpResult) or depth <= 0:
            return False
        op = v.op
        if op.name == "const":
            return True
        if op.name == "sreg":
            return str(op.attrs.get("name", "")).split(".")[0] in ("ntid", "nctaid", "ctaid", "tid", "laneid")
        if not op.has_trait("pure") or not op.operands:
            return False
        return all(self._invariant_at(o, lp, depth - 1) for o in op.operands)

    # ---------------------------------------------------------------------------- ops
    def _op_value(self, v: OpResult, th: Thread):  # type: ignore[no-untyped-def]
        op = v.op
        if len(op.results) != 1:
            return self.opaque(v, th)
        if op.name == "shfl":
            got = yield from self._shfl(op, v, th)
            return got if got is not None else self.opaque(v, th)
        rule = _RULES.get(op.name)
        pure = op.has_trait("pure")
        if rule is None and not pure and op.name != "load":
            return self.opaque(v, th)
        vals = []
        for o in op.operands:
            vals.append((yield ("v", o)))
        got = rule(self, op, v, vals, th) if rule is not None else None
        if got is None and rule is None and pure:
            got = self._table(op, v, vals)
        if got is not None:
            return got
        if op.name == "load":
            return self._load(op, v, vals, th)
        return self._function(op, v, vals) if pure else self.opaque(v, th)

    def _table(self, op: Op, r: Value, xs: list) -> Any:
        """An integer op without a rule here, by its semantics in the op table over z3 terms
        (`irc.analysis.symbolic.domain`): `bfe.u32` of a lane index is its bits, not an unknown. Integer
        operands and result only (floats stay uninterpreted functions: see `_function`); None when the
        table has no semantics for the op or leaves this case undefined."""
        from irc.ir.optable import OPS
        from irc.ir.semantics import Unknown

        d = OPS.get(op.name)
        if d is None or d.sem is None or not _is_int(r.type):
            return None
        if not all(_is_int(o.type) for o in op.operands) or any(self.z.is_bool(x) for x in xs):
            return None
        if self._domain is None:
            from irc.analysis.symbolic.domain import Z3Domain

            self._domain = Z3Domain(self.z.m, self.z.ctx)
        try:
            return d.sem(self._domain, xs, r.type, op.attrs, [o.type for o in op.operands])
        except (Unknown, TypeError, ValueError, AttributeError):
            return None

    def _function(self, op: Op, r: Value, xs: list) -> Any:
        """A pure op without integer semantics here (float arithmetic, conversions): an uninterpreted
        function of its operands, so equal inputs give equal results (two lanes holding one reduced
        value); commutative ops see their operands in a canonical order."""
        z = self.z
        if (
            op.has_trait("commutative")
            and len(xs) == 2
            and not z.is_bool(xs[0])
            and xs[0].sort() == xs[1].sort()
        ):
            a, b = xs
            le = z.ULE(a, b)
            xs = [z.If(le, a, b), z.If(le, b, a)]
        attrs = ",".join(f"{k}={op.attrs[k]}" for k in sorted(op.attrs))
        key = ("pf", op.name, attrs, str(r.type), tuple(str(x.sort()) for x in xs))
        f = self._ufs.get(key)
        if f is None:
            f = self._ufs[key] = z.Function(
                f"pf:{op.name}[{attrs}]:{r.type}", *[x.sort() for x in xs], self._sort(r.type)
            )
        return f(*xs)

    def _load(self, op: Op, r: Value, xs: list, th: Thread) -> Any:
        """A load: a function of its address (and the iterations around it), so two threads reading one
        address in one iteration read one value. Volatile loads are fresh unknowns (the value may change
        between the two reads)."""
        z = self.z
        if op.attrs.get("volatile") or not xs or z.is_bool(xs[0]):
            return self.opaque(r, th)
        try:  # the lattice knows when one address can give two readers two values (a racing store)
            if self.ctx.facts.level(r) < self.ctx.facts.level(op.operands[0]):
                return self.opaque(r, th)
        except Exception:  # noqa: BLE001 - a value the lattice did not see: a fresh unknown
            return self.opaque(r, th)
        loops = self.loops_of(op.block)
        args = [xs[0], *[self.iteration(lp, th) for lp in loops]]
        key = ("ld", id(op), str(r.type))
        f = self._ufs.get(key)
        if f is None:
            self._fresh += 1
            f = self._ufs[key] = z.Function(
                f"ld:{self._fresh}", *[a.sort() for a in args], self._sort(r.type)
            )
        return f(*args)

    def one_d(self) -> bool:
        L = self.launch
        return L.one_d or (L.fixed_block is not None and L.fixed_block[1] == 1 and L.fixed_block[2] == 1)

    def _shfl(self, op: Op, r: Value, th: Thread):  # type: ignore[no-untyped-def]
        """`shfl.sync` over the whole warp (clamp 31) in a 1-D block: the value operand at the source lane
        (bfly: lane ^ c, down: lane + c within the warp, up: lane - c, idx: c), encoded for that lane as
        a thread of its own. Other shapes are unknown values."""
        z = self.z
        mode = str(op.attrs.get("mode"))
        c = op.attrs.get("c", 31)
        if (
            mode not in ("bfly", "down", "up", "idx")
            or c not in (31, None)
            or not self.one_d()
            or len(op.operands) < 2
        ):
            return None
        off = yield ("v", op.operands[1])
        if z.is_bool(off):
            return None
        off = _resize(off, 32, False) & 31
        lin = self.linear_tid(th)
        lane = lin & 31
        if mode == "bfly":
            src = lane ^ off
        elif mode == "down":
            src = z.If(z.ULE(lane + off, 31), lane + off, lane)
        elif mode == "up":
            src = z.If(z.UGE(lane, off), lane - off, lane)
        else:
            src = off
        d = th.derived.get(id(op))
        if d is None and self._derived >= MAX_DERIVED:
            return None  # each lane a shuffle reads re-encodes its inputs: past this many, an unknown
        if d is None:
            self._derived += 1
            self._fresh += 1
            d = th.derived[id(op)] = Thread(
                f"{th.name}~{self._fresh}", z, [(lin & ~31) | src, z.BitVecVal(0, 32), z.BitVecVal(0, 32)], th
            )
        return self.value(op.operands[0], d)


MAX_DERIVED = 16  # lanes read through `shfl` encoded as threads of their own, per function


def _self_dependent(a: BlockArg, lp: Loop, backs: list[Value]) -> bool:
    """Whether a back-edge value of header argument `a` is computed from `a` (through the loop body's ops
    and join arguments): `Encoder._previous` cannot give it a closed form then, and encoding the body to
    find that out, while `a` itself is being encoded, would leave the body's terms with a stand-in for
    each value on the cycle (a branch condition on `a` among them) instead of the values."""
    seen: set[int] = {id(a)}
    work: list[Value] = [a]
    while work:
        v = work.pop()
        for u in v.users:
            if u.block not in lp.blocks:
                continue
            nxt: list[Value] = list(u.results)
            for k, args in enumerate(u.succ_args):
                t = u.successors[k]
                if t in lp.blocks and t not in lp.headers:
                    nxt += [t.args[j] for j, x in enumerate(args) if x is v and j < len(t.args)]
            for x in nxt:
                if id(x) not in seen:
                    seen.add(id(x))
                    work.append(x)
    return any(id(b) in seen for b in backs)


def _strip(v: Value) -> Value:
    """`v` through same-width bitcasts and copies (the lifter's reinterpretations)."""
    while isinstance(v, OpResult) and v.op.name in ("bitcast", "copy") and len(v.op.operands) == 1:
        src = v.op.operands[0]
        if _width(src.type) != _width(v.type) or _is_bool(src.type) != _is_bool(v.type):
            break
        v = src
    return v


def _same(x: Value, y: Value) -> bool:
    x, y = _strip(x), _strip(y)
    if x is y:
        return True
    cx = x.op.attrs.get("value") if isinstance(x, OpResult) and x.op.name == "const" else None
    cy = y.op.attrs.get("value") if isinstance(y, OpResult) and y.op.name == "const" else None
    return cx is not None and cx == cy and type(cx) is type(cy)


def _resize(t: Any, w: int, signed: bool) -> Any:
    import z3 as z  # operations on existing terms: the context comes with them

    n = t.size()
    if n == w:
        return t
    if n > w:
        return z.Extract(w - 1, 0, t)
    return z.SignExt(w - n, t) if signed else z.ZeroExt(w - n, t)


# ------------------------------------------------------------------------------------------------ rules
# Each rule: (encoder, op, result, operand terms, thread) -> term, or None for "opaque".


def _const(e: Encoder, op: Op, r: Value, xs: list, th: Thread) -> Any:
    z = e.z
    val = op.attrs.get("value")
    t = r.type
    if _is_bool(t):
        return z.BoolVal(bool(val))
    w = _width(t)
    if isinstance(val, bool):
        return z.BitVecVal(int(val), w)
    if isinstance(val, int):
        return z.BitVecVal(val & ((1 << w) - 1), w)
    if isinstance(val, float) and isinstance(t, ScalarType) and t.is_float:
        import struct

        if w == 32:
            return z.BitVecVal(struct.unpack("<I", struct.pack("<f", val))[0], 32)
        if w == 64:
            return z.BitVecVal(struct.unpack("<Q", struct.pack("<d", val))[0], 64)
    return None


def _sreg(e: Encoder, op: Op, r: Value, xs: list, th: Thread) -> Any:
    z = e.z
    name = str(op.attrs.get("name"))
    base, _, axis = name.partition(".")
    L = e.launch
    if axis in AXES:
        i = AXES.index(axis)
        if base == "tid":
            return th.tid[i]
        if base == "ntid":
            return L.ntid[i]
        if base == "ctaid":
            return L.ctaid[i]
        if base == "nctaid":
            return L.nctaid[i]
    if name == "laneid":
        return e.lane_of(th)
    del z
    return None


def _bitcast(e: Encoder, op: Op, r: Value, xs: list, th: Thread) -> Any:
    z = e.z
    x = xs[0]
    if _is_bool(r.type):
        return x if z.is_bool(x) else x != 0
    w = _width(r.type)
    if z.is_bool(x):
        return z.If(x, z.BitVecVal(1, w), z.BitVecVal(0, w))
    if x.size() == w:
        return x
    return None


def _cvt(e: Encoder, op: Op, r: Value, xs: list, th: Thread) -> Any:
    z = e.z
    src = op.operands[0].type
    x = xs[0]
    if _is_bool(r.type):
        return x if z.is_bool(x) else x != 0
    if not _is_int(r.type):
        return None
    if z.is_bool(x):
        return z.If(x, z.BitVecVal(1, _width(r.type)), z.BitVecVal(0, _width(r.type)))
    if not _is_int(src):
        return None
    if op.attrs.get("sat"):
        return None
    return _resize(x, _width(r.type), _signed(src))


def _bin(fn_int, fn_bool=None):  # type: ignore[no-untyped-def]
    def rule(e: Encoder, op: Op, r: Value, xs: list, th: Thread) -> Any:
        z = e.z
        if len(xs) != 2:
            return None
        a, b = xs
        if z.is_bool(a) and z.is_bool(b):
            return fn_bool(a, b) if fn_bool is not None else None
        if not _is_int(r.type) or z.is_bool(a) or z.is_bool(b):
            return None
        w = _width(r.type)
        a, b = _resize(a, w, _signed(op.operands[0].type)), _resize(b, w, _signed(op.operands[1].type))
        return fn_int(a, b, _signed(r.type), z)

    return rule


def _minmax(lt: bool):  # type: ignore[no-untyped-def]
    def f(a, b, s, z):  # type: ignore[no-untyped-def]
        less = (a < b) if s else z.ULT(a, b)
        return z.If(less, a, b) if lt else z.If(less, b, a)

    return f


def _shift(left: bool):  # type: ignore[no-untyped-def]
    def rule(e: Encoder, op: Op, r: Value, xs: list, th: Thread) -> Any:
        z = e.z
        if len(xs) != 2 or not _is_int(r.type) or z.is_bool(xs[0]) or z.is_bool(xs[1]):
            return None
        w = _width(r.type)
        a = _resize(xs[0], w, _signed(op.operands[0].type))
        n = xs[1]
        if n.size() < w:
            n = z.ZeroExt(w - n.size(), n)
        elif n.size() > w:
            # a shift amount wider than the value: anything at or past the width shifts everything out
            big = z.UGE(n, z.BitVecVal(w, n.size()))
            n = z.If(big, z.BitVecVal(w, w), z.Extract(w - 1, 0, n))
        if left:
            return a << n
        return a >> n if _signed(r.type) else z.LShR(a, n)

    return rule


def _cmp(e: Encoder, op: Op, r: Value, xs: list, th: Thread) -> Any:
    z = e.z
    if len(xs) != 2:
        return None
    a, b = xs
    pred = str(op.attrs.get("pred"))
    ot = op.operands[0].type
    if z.is_bool(a) and z.is_bool(b):
        if pred == "eq":
            return a == b
        if pred == "ne":
            return a != b
        return None
    if not _is_int(ot) or z.is_bool(a) or z.is_bool(b) or a.size() != b.size():
        return None
    s = _signed(ot)
    if pred in ("lo", "ls", "hi", "hs"):
        s = False
        pred = {"lo": "lt", "ls": "le", "hi": "gt", "hs": "ge"}[pred]
    table = {
        "eq": lambda: a == b,
        "ne": lambda: a != b,
        "lt": lambda: (a < b) if s else z.ULT(a, b),
        "le": lambda: (a <= b) if s else z.ULE(a, b),
        "gt": lambda: (a > b) if s else z.UGT(a, b),
        "ge": lambda: (a >= b) if s else z.UGE(a, b),
    }
    f = table.get(pred)
    return f() if f is not None else None


def _select(e: Encoder, op: Op, r: Value, xs: list, th: Thread) -> Any:
    z = e.z
    if len(xs) != 3:
        return None
    c, a, b = xs
    if not z.is_bool(c):
        c = c != 0
    if z.is_bool(a) != z.is_bool(b) or (not z.is_bool(a) and a.size() != b.size()):
        return None
    return z.If(c, a, b)


def _unary(fn):  # type: ignore[no-untyped-def]
    def rule(e: Encoder, op: Op, r: Value, xs: list, th: Thread) -> Any:
        z = e.z
        if len(xs) != 1:
            return None
        a = xs[0]
        if z.is_bool(a):
            return z.Not(a) if op.name == "not" else None
        if not _is_int(r.type):
            return None
        return fn(_resize(a, _width(r.type), _signed(op.operands[0].type)), _signed(r.type), z)

    return rule


def _mulwide(e: Encoder, op: Op, r: Value, xs: list, th: Thread) -> Any:
    z = e.z
    if len(xs) != 2 or z.is_bool(xs[0]) or z.is_bool(xs[1]) or not _is_int(r.type):
        return None
    w = _width(r.type)
    s = _signed(op.operands[0].type)
    return _resize(xs[0], w, s) * _resize(xs[1], w, s)


def _mulhi(e: Encoder, op: Op, r: Value, xs: list, th: Thread) -> Any:
    z = e.z
    if len(xs) != 2 or z.is_bool(xs[0]) or z.is_bool(xs[1]) or not _is_int(r.type):
        return None
    w = _width(r.type)
    s = _signed(r.type)
    p = _resize(xs[0], 2 * w, s) * _resize(xs[1], 2 * w, s)
    return z.Extract(2 * w - 1, w, p)


def _divrem(rem: bool):  # type: ignore[no-untyped-def]
    def f(a, b, s, z):  # type: ignore[no-untyped-def]
        if rem:
            return z.SRem(a, b) if s else z.URem(a, b)
        return a / b if s else z.UDiv(a, b)

    return f


def _elect(e: Encoder, op: Op, r: Value, xs: list, th: Thread) -> Any:
    """`elect.sync`: true in exactly one lane of the warp, the same lane for every thread of the warp in
    one iteration (which lane is the model's choice: a function of the warp and the iterations)."""
    z = e.z
    if not _is_bool(r.type):
        return None
    loops = e.loops_of(r.defining_block)
    args = [e.iteration(lp, th) for lp in loops] + [e.warp_of(th)]
    key = (id(r), "leader")
    f = e._ufs.get(key)
    if f is None:
        e._fresh += 1
        f = e._ufs[key] = z.Function(
            f"elect#L{e._fresh}", *([z.BitVecSort(32)] * len(args)), z.BitVecSort(32)
        )
    return e.lane_of(th) == f(*args)


def _shared_addr(e: Encoder, op: Op, r: Value, xs: list, th: Thread) -> Any:
    base = e.shared_bases().get(str(op.attrs.get("sym")))
    if base is None:
        return e.z.BitVec(f"&{op.attrs.get('sym')}", _width(r.type))
    return e.z.BitVecVal(base, _width(r.type))


_RULES = {
    "const": _const,
    "sreg": _sreg,
    "bitcast": _bitcast,
    "copy": lambda e, op, r, xs, th: xs[0] if len(xs) == 1 else None,
    "cvt": _cvt,
    "add": _bin(lambda a, b, s, z: a + b),
    "ptradd": _bin(lambda a, b, s, z: a + b),
    "sub": _bin(lambda a, b, s, z: a - b),
    "mul": _bin(lambda a, b, s, z: a * b),
    "and": _bin(lambda a, b, s, z: a & b, lambda a, b: _z3().And(a, b)),
    "or": _bin(lambda a, b, s, z: a | b, lambda a, b: _z3().Or(a, b)),
    "xor": _bin(lambda a, b, s, z: a ^ b, lambda a, b: _z3().Xor(a, b)),
    "min": _bin(_minmax(True)),
    "max": _bin(_minmax(False)),
    "div": _bin(_divrem(False)),
    "rem": _bin(_divrem(True)),
    "shl": _shift(True),
    "shr": _shift(False),
    "shlw": _shift(True),
    "shrw": _shift(False),
    "mulwide": _mulwide,
    "mulhi": _mulhi,
    "neg": _unary(lambda a, s, z: -a),
    "not": _unary(lambda a, s, z: ~a),
    "abs": _unary(lambda a, s, z: z.If(a < 0, -a, a) if s else a),
    "cmp": _cmp,
    "select": _select,
    "shared_addr": _shared_addr,
    "elect": _elect,
}
_MULTI: frozenset[str] = frozenset()
