"""Facts about async groups: which copies may still be in flight at each hazard (a cp.async's destination
read, a bulk store's source overwritten), and how many back edges of each loop lie between them.

The hardware rule: `cp.async` copies join the current group when `cp.async.commit_group` closes it;
`cp.async.wait_group N` returns once at most the N newest committed groups are pending. A copy that was
never committed is not covered by any `wait_group` (`cp.async.wait_all` commits first). A copy tracked by
an mbarrier (`cp.async.mbarrier.arrive`) is also complete once a wait on that mbarrier returns. Until the
issuing thread has waited for it, no thread may read its destination (other threads also need a barrier
after the wait, which `shared-race` checks).

The dataflow runs along the CFG from the kernel entry. State: the copies that may be in flight, per (copy,
loop counts), with their group status (`UNCOMMITTED` or the number of commits since their own: a wait
with N completes ages N and above), and the copies a wait covered on the path, with the waits that did.
At a merge, a copy waited for on one incoming path and pending on the other is
- done when the branch that split the paths is block-uniform: `cuda::pipeline` selects its
  `wait_group N` through a switch on run-time counters, and the path around every wait is one the
  counters rule out;
- still pending when the branch picks threads by their coordinates (`if (tid == 0) wait_all`: the other
  threads never waited), remembering the waits those threads skipped (the solver's copying thread must
  skip them too); a thread-dependent condition on run-time state (the pipeline's counters) counts as
  uniform.
A copy issued on one path only stays pending; of two ages the younger is kept (the path that committed
less). Loop counts: for each loop around the copy, the back edges taken since it was issued, and for
each loop entered after it, the back edges since that entry (capped: past `CAP` the entry is dropped,
never guessed). The solver (`irc.analysis.symbolic.asyncq.pending_read`) relates the copying and the
reading thread's iterations through them.

Bulk stores (`cp.async.bulk.global.shared`, tensor stores) follow the same rules with their own group
operations (`cp.async.bulk.commit_group`, `cp.async.bulk.wait_group[.read]`): `BULK_STORES` runs the
dataflow on them with shared-memory writes as the hazard. Each family records a wait of the other family
that a pending copy passed (the wrong group operation), and cp.async records a `wait_group` passed while
uncommitted.
"""

from __future__ import annotations

from collections.abc import Callable

from irc.analysis.cfg import CFG, Loop
from irc.ir.core import Block, Op
from irc.records import record

UNCOMMITTED = -1
CAP = 4  # back edges between a copy and a read that are still related exactly
MAX_AGE = 8

Key = tuple[int, tuple[tuple[int, int], ...]]  # (id(copy), sorted (loop index, back edges))
# (copy, status, a wait it passed that does not cover it, tracking mbarrier, waits other threads ran)
Entry = tuple[Op, int, "Op | None", "str | None", frozenset]
Done = frozenset  # of (id(copy), wait op or None): the copies a wait covered on this path, and by what
State = tuple[dict[Key, Entry], Done]


@record(frozen=True)
class Kind:
    """One family of async groups: the ops that issue into a group, commit and wait, the other family's
    group operations (which do not cover these copies), and which ops are hazards for a pending copy."""

    issue: tuple[str, ...]
    commit: str
    wait: str
    foreign: tuple[str, ...]
    hazard: str  # "read" (a shared read) or "write" (a shared write)


CP_ASYNC = Kind(
    ("cp_async",), "cp_async_commit", "cp_async_wait", ("tma_store_commit", "tma_store_wait"), "read"
)
BULK_STORES = Kind(
    ("bulk_store", "tma_store"),
    "tma_store_commit",
    "tma_store_wait",
    ("cp_async_commit", "cp_async_wait"),
    "write",
)
_SHARED_WRITES = ("store", "store_vec", "atomic", "atomic_cas", "cp_async", "bulk_load", "tma_load")


def _is_shared(op: Op) -> bool:
    if not op.operands:
        return False
    return getattr(op.operands[0].type, "space", None) == "shared" or op.attrs.get("space") == "shared"


def is_shared_read(op: Op) -> bool:
    """A read of shared memory a copy in flight can spoil: `ld.shared` (scalar or vector) or one 16-byte
    row of an `ldmatrix .x4`."""
    from irc.analysis.shared_loc import ldmatrix_x4

    return (op.name in ("load", "load_vec") and _is_shared(op)) or ldmatrix_x4(op)


def is_hazard(kind: Kind, op: Op) -> bool:
    n = op.name
    if kind.hazard == "read":
        return is_shared_read(op)
    if n in ("cp_async", "bulk_load", "tma_load"):
        return bool(op.operands)
    return n in _SHARED_WRITES and _is_shared(op)


@record(eq=False)
class Pending:
    """A copy that may still be in flight at a hazard."""

    copy: Op
    counts: dict[Loop, int]  # loop -> back edges between the copy and the hazard
    status: int  # UNCOMMITTED or the group's age
    passed: Op | None  # a wait the copy passed that does not cover it (uncommitted, or the other family's)
    skipped: frozenset  # waits that covered the copy for other threads (ops), which this thread skipped


def _merge_all(ins: list[tuple[Block, State]], must, current=None, foreign=None, merge=None) -> State:  # type: ignore[no-untyped-def]
    """The state where the incoming edges `ins` (predecessor, state) meet. `must(p, d)` says whether the
    branch that split the paths from `p` and `d` was decided alike by every thread or by run-time state
    (then a copy waited for on the path from `d` is done on the path from `p` too). `current(w)` says
    whether wait `w` can have run in this iteration before the merge: a wait later in the loop body ran in
    an earlier iteration, for an earlier instance of the copy (`if (k + 1 < n) cp.async(..)`: the path
    around the copy still holds the wait of iteration k - 1, which says nothing of the copy of k).
    `foreign(p, q, copy, merge)` says that the threads arriving from `p` at block `merge` never issue `copy` (the branch that split
    them from those arriving from `q` tests the value that guards the copy, the other way): their entry
    for it is dropped, so `if (tid == 0) { store; commit }` ages thread 0's store, which the threads that
    skip the commit never hold."""
    if foreign is not None:
        have: dict[int, dict[int, Block]] = {}  # copy -> the preds whose state holds it
        copies: dict[int, Op] = {}
        for p, st in ins:
            for e in st[0].values():
                have.setdefault(id(e[0]), {})[id(p)] = p
                copies[id(e[0])] = e[0]
        drop: set[tuple[int, int]] = set()  # (pred, copy)
        for c, preds in have.items():
            if len(preds) < 2:
                continue
            for p in preds.values():
                if any(foreign(p, q, copies[c], merge) for q in preds.values() if q is not p):
                    drop.add((id(p), c))
        if drop:
            ins = [
                (p, ({k: e for k, e in st[0].items() if (id(p), id(e[0])) not in drop}, st[1]))
                for p, st in ins
            ]
    done: set = set()
    for _p, st in ins:
        done |= st[1]
    waited: dict[int, list] = {}  # copy -> [(pred, wait op)]
    for p, st in ins:
        for c, w in st[1]:
            if w is None or current is None or current(w):
                waited.setdefault(c, []).append((p, w))
    out: dict[Key, Entry] = {}
    keep_pending: set[int] = set()
    verdict: dict[int, bool] = {}  # copy -> pending wins over the waits of other paths
    for p, st in ins:
        for k, (op, sta, w, t, sk) in st[0].items():
            ws = waited.get(id(op))
            if ws is not None:
                key = id(op)
                if key not in verdict:
                    verdict[key] = not any(must(p, d) for d, _w in ws)
                if not verdict[key]:
                    continue
                sk = sk | frozenset(x for _d, x in ws if x is not None)
                keep_pending.add(id(op))
            cur = out.get(k)
            out[k] = (
                (op, sta, w, t, sk)
                if cur is None
                else (op, min(cur[1], sta), cur[2] or w, cur[3] if cur[3] == t else None, cur[4] | sk)
            )
    still = {id(e[0]) for e in out.values()}
    return out, frozenset((c, w) for c, w in done if c not in still or c not in keep_pending)


_COORDS = ("tid.", "laneid")


def _by_coordinates(v: object, depth: int = 0, seen: set | None = None) -> bool:
    """Whether condition `v` picks threads by their coordinates only (`tid.x == 0`, `t4x < 16`): pure ops
    over thread and launch registers and constants. A condition on run-time state (a pipeline's head and
    tail counters in a loop, a loaded value) splits the paths by what the program did, not by who runs
    it, and counts as a must-merge like a uniform one."""
    from irc.ir.core import BlockArg, OpResult

    seen = set() if seen is None else seen
    found = [False]

    def walk(x: object, d: int) -> bool:
        if id(x) in seen:
            return True
        seen.add(id(x))
        if d > 40 or isinstance(x, BlockArg) or not isinstance(x, OpResult):
            return False
        op = x.op
        if op.name == "sreg":
            name = str(op.attrs.get("name", ""))
            if name.startswith(_COORDS):
                found[0] = True
            return True
        if op.name == "const":
            return True
        if not op.has_trait("pure"):
            return False
        return all(walk(o, d + 1) for o in op.operands)

    return walk(v, depth) and found[0]


class Groups:
    """The dataflow of one function: `pending_at(hazard)` after `run()`."""

    def __init__(
        self,
        cfg: CFG,
        kind: Kind = CP_ASYNC,
        facts: object = None,
        live: Callable[[Block, Block], bool] | None = None,
    ):
        self.cfg = cfg
        self.kind = kind
        self.facts = facts
        self.live = live
        self._dead: set[tuple[int, int]] = set()
        self._foreign_memo: dict[tuple[int, int, int, int], bool] = {}
        self.exits: list[tuple[Op, list[Pending]]] = []  # (ret, copies still pending there)
        self.index = {lp: i for i, lp in enumerate(cfg.loops)}
        self.by_index = {i: lp for lp, i in self.index.items()}
        self.reads: dict[int, list[Pending]] = {}
        self._around: dict[int, frozenset[int]] = {}
        self._inner = {
            self.index[lp]: frozenset(
                self.index[x] for x in cfg.loops if x is not lp and x.blocks < lp.blocks
            )
            for lp in cfg.loops
        }
        self._uniform: dict[Block, bool] = {}

    def _loops_in(self, op: Op) -> frozenset[int]:
        got = self._around.get(id(op))
        if got is None:
            assert op.block is not None
            got = self._around[id(op)] = frozenset(
                self.index[lp] for lp in self.cfg.loops_containing(op.block)
            )
        return got

    def _split_uniform_at(self, d: Block) -> bool:
        """Whether the branch ending `d` is block-uniform or decided by run-time state (not by the thread's
        coordinates). Without uniformity facts every split counts as uniform (must-merge)."""
        hit = self._uniform.get(d)
        if hit is None:
            hit = True
            t = d.terminator
            if self.facts is not None and t is not None and t.name == "cbr" and t.operands:
                from irc.analysis.uniformity import Level

                try:
                    uniform = self.facts.level(t.operands[0]) >= Level.BLOCK  # type: ignore[attr-defined]
                except Exception:  # noqa: BLE001 - a condition the facts did not see: thread-dependent
                    uniform = False
                hit = uniform or not _by_coordinates(t.operands[0])
            self._uniform[d] = hit
        return hit

    def transfer(self, b: Block, state: State, record_reads: bool) -> State:
        from irc.analysis.mbarrier import WAIT_OPS, shared_root

        st, done = dict(state[0]), set(state[1])
        kind = self.kind
        for op in b.ops:
            n = op.name
            if record_reads and is_hazard(kind, op):
                got = self._pending(st)
                if got:
                    self.reads[id(op)] = got
            if n in kind.issue:
                counts = tuple(sorted((i, 0) for i in self._loops_in(op)))
                st[(id(op), counts)] = (op, UNCOMMITTED, None, None, frozenset())
                done = {x for x in done if x[0] != id(op)}
            elif n == kind.commit:
                st = {
                    k: (c, 0 if s == UNCOMMITTED else min(s + 1, MAX_AGE), w, t, sk)
                    for k, (c, s, w, t, sk) in st.items()
                }
            elif n == kind.wait:
                keep = int(op.attrs.get("n", 0) or 0)
                st = self._complete(st, done, lambda s, t, keep=keep: s >= keep, op, op)
            elif n == "cp_async_mbarrier_arrive" and kind is CP_ASYNC and op.operands:
                # the mbarrier tracks this thread's prior cp.async: a wait on it completes them
                sym = shared_root(op.operands[0]) or "?"
                st = {k: (c, s, w, sym, sk) for k, (c, s, w, _t, sk) in st.items()}
            elif n in WAIT_OPS and kind is CP_ASYNC and op.operands:
                sym = shared_root(op.operands[0])
                st = self._complete(
                    st, done, lambda s, t, sym=sym: t is not None and (t == sym or t == "?"), None, op
                )
            elif n in kind.foreign:
                if n.endswith("wait"):  # waits for the other family's groups only: remember it
                    st = {k: (c, s, w or op, t, sk) for k, (c, s, w, t, sk) in st.items()}
            elif n in ("call", "opaque"):
                done |= {(id(e[0]), None) for e in st.values()}  # may wait: silent
                st = {}
            elif record_reads and op.name == "ret":
                got = self._pending(st)
                if got:
                    self.exits.append((op, got))
        return st, frozenset(done)

    @staticmethod
    def _complete(st: dict[Key, Entry], done: set, finished, passed: Op | None, by: Op) -> dict[Key, Entry]:  # type: ignore[no-untyped-def]
        nxt: dict[Key, Entry] = {}
        for k, (c, s, w, t, sk) in st.items():
            if finished(s, t):
                done.add((id(c), by))
            else:
                nxt[k] = (c, s, w or (passed if s == UNCOMMITTED else None), t, sk)
        still = {id(e[0]) for e in nxt.values()}  # a newer instance is still in flight
        done -= {x for x in done if x[0] in still}
        return nxt

    def _pending(self, st: dict[Key, Entry]) -> list[Pending]:
        return [
            Pending(c, {self.by_index[i]: m for i, m in k[1]}, s, w, sk)
            for k, (c, s, w, _t, sk) in st.items()
        ]

    def edge(self, b: Block, s: Block, state: State) -> State:
        """The state along the edge b -> s: back edges count, entries into loops start a count."""
        st = state[0]
        for lp in self.cfg.loops_containing(s):
            if s not in lp.headers:
                continue
            li = self.index[lp]
            back = b in lp.blocks
            inner = self._inner[li]
            nxt: dict[Key, Entry] = {}
            for (cid, counts), e in st.items():
                d = dict(counts)
                around = self._loops_in(e[0])
                if back:
                    if li not in d:
                        continue  # cannot happen: a loop entered after the copy has a count
                    d[li] += 1
                    if d[li] > CAP:
                        continue
                else:
                    if li in d and li in around:
                        continue  # a new instance of a loop around the copy: relation lost
                    d[li] = 0
                # the loops nested in `lp` start over in this iteration (or instance)
                if any(i in around for i in inner if i in d):
                    continue
                for i in inner:
                    d.pop(i, None)
                nxt[(cid, tuple(sorted(d.items())))] = e
            st = nxt
        return st, state[1]

    def run(self) -> None:
        cfg = self.cfg
        outs: dict[tuple[int, int], State] = {}  # (pred, succ) -> the state along that edge
        state_in: dict[Block, State] = {cfg.entry: ({}, frozenset())}
        # the state each block's out-edges were last computed from: a block whose state is still that
        # object (a state is replaced only by an unequal one) would compute the same edges, and every
        # merge they feed was already made from them when they were computed. Why: the fixpoint takes a
        # few rounds over every block while only the loops' blocks change after the first.
        done_from: dict[int, State] = {}
        changed = True
        rounds = 0
        while changed and rounds < 60:
            changed = False
            rounds += 1
            for b in cfg.rpo:
                if b not in state_in or done_from.get(id(b)) is state_in[b]:
                    continue
                done_from[id(b)] = state_in[b]
                out = self.transfer(b, state_in[b], False)
                for s in cfg.succs.get(b, []):
                    outs[(id(b), id(s))] = self.edge(b, s, out)
                    ins = [(p, outs[(id(p), id(s))]) for p in cfg.preds.get(s, []) if (id(p), id(s)) in outs]
                    ins = self._live_only(ins, s)
                    merged = (
                        ins[0][1]
                        if len(ins) == 1
                        else _merge_all(ins, self._must, self._before(s), self._foreign, s)
                    )
                    if state_in.get(s) != merged:
                        state_in[s] = merged
                        changed = True
        for b in cfg.rpo:
            if b in state_in:
                self.transfer(b, state_in[b], True)

    def _split(self, p: Block, q: Block) -> Block | None:
        """The nearest common dominator of `p` and `q`: the block whose branch split their paths."""
        idom = self.cfg.idom
        up: set[int] = set()
        x: Block | None = p
        while x is not None and id(x) not in up:
            up.add(id(x))
            x = idom.get(x)
        y: Block | None = q
        seen: set[int] = set()
        while y is not None and id(y) not in up and id(y) not in seen:
            seen.add(id(y))
            y = idom.get(y)
        return y

    def _foreign(self, p: Block, q: Block, copy: Op, merge: Block) -> bool:
        key = (id(p), id(q), id(copy), id(merge))
        hit = self._foreign_memo.get(key)
        if hit is None:
            hit = self._foreign_memo[key] = self._foreign_at(p, q, copy, merge)
        return hit

    def _foreign_at(self, p: Block, q: Block, copy: Op, merge: Block) -> bool:
        """Whether the threads arriving from `p` at `merge` never issue `copy`: the branch that split them
        from those arriving from `q` tests a loop-invariant value v, `p` (or the edge to `merge`, when `p`
        is the branch) lies behind one side of it, and the copy lies behind the other side of a branch on
        the same v (a thread's v is the same at both)."""
        d = self._split(p, q)
        t = d.terminator if d is not None else None
        if t is None or t.name != "cbr" or not t.operands or copy.block is None:
            return False
        v = t.operands[0]
        dom = self.cfg.dominates
        if p is d:
            side_p = [i for i, s in enumerate(t.successors[:2]) if s is merge]
        else:
            side_p = [i for i, s in enumerate(t.successors[:2]) if dom(s, p)]
        if len(side_p) != 1 or t.successors[0] is t.successors[1]:
            return False
        loops = {id(lp) for lp in self.cfg.loops_containing(d)} | {
            id(lp) for lp in self.cfg.loops_containing(copy.block)
        }
        vb = getattr(v, "defining_block", None)
        if vb is None:
            return False
        if any(id(lp) in loops for lp in self.cfg.loops_containing(vb)) and not _by_coordinates(v):
            return False  # v may differ between the two branches' iterations (a function of the thread's
            # coordinates alone, recomputed in each iteration, is the same in all of them)
        g: Block | None = copy.block
        while g is not None:
            up = self.cfg.idom.get(g)
            if up is None:
                return False
            tg = up.terminator
            if tg is not None and tg.name == "cbr" and tg.operands and tg.operands[0] is v:
                side_c = [i for i, s in enumerate(tg.successors[:2]) if dom(s, copy.block)]
                return (
                    len(side_c) == 1 and side_c[0] != side_p[0] and tg.successors[0] is not tg.successors[1]
                )
            g = up
        return False

    def _before(self, s: Block) -> Callable[[Op], bool]:
        """Whether a wait can reach merge `s` without a back edge (it precedes `s` in reverse postorder)."""
        at = self.cfg.rpo_index.get(s, 0)
        return lambda w: w.block is None or self.cfg.rpo_index.get(w.block, 0) < at

    def _live_only(self, ins: list[tuple[Block, State]], s: Block) -> list[tuple[Block, State]]:
        """The incoming edges of a merge whose paths waited differently, less those `live` proves no thread
        takes: of the cases of `cuda::pipeline`'s `wait_group (head - tail)` switch only the one the counters
        select runs, so a copy it leaves pending stays pending (the must-merge would take the deepest
        case's wait for all of them)."""
        if self.live is None or len(ins) < 2 or len({st[1] for _, st in ins}) < 2:
            return ins
        kept = []
        for p, st in ins:
            key = (id(p), id(s))
            if key not in self._dead and not self.live(p, s):
                self._dead.add(key)
            if key not in self._dead:
                kept.append((p, st))
        return kept or ins

    def _must(self, p: Block, d: Block) -> bool:
        """Whether the branch that split the paths through `p` and `d` (their nearest common dominator's)
        is one every thread decides alike, or one on run-time state rather than on the thread's
        coordinates: then a wait on one path stands for the other."""
        y = self._split(p, d)
        return True if y is None else self._split_uniform_at(y)

    def pending_at(self, read: Op) -> list[Pending]:
        return self.reads.get(id(read), [])

    def is_pending(self, copy: Op, read: Op) -> bool:
        """Whether `copy` may be in flight at `read` (then the pair is `async-unwaited`'s question)."""
        return any(p.copy is copy for p in self.reads.get(id(read), []))


def pending_reads(
    cfg: CFG,
    cache: dict | None = None,
    kind: Kind = CP_ASYNC,
    facts: Callable[[], object] | None = None,
    live: Callable[[Block, Block], bool] | None = None,
) -> Groups | None:
    """The group facts of a function for `kind`, or None when it issues no such copy (kept in `cache`, the
    check context's, when given: `async-unwaited` and `shared-race` both ask). `facts` gives the uniformity
    facts, which tell which merges are of block-uniform branches; it is called only for a function that
    issues such copies (the facts are the costly part, and most kernels copy nothing). `live(p, s)` says
    whether the edge p -> s can be taken (`irc.analysis.symbolic.asyncq.edge_live`): asked only at merges
    whose incoming paths waited differently."""
    key = f"groups:{kind.issue[0]}"
    if cache is not None and key in cache:
        return cache[key]  # type: ignore[return-value]
    g: Groups | None = None
    if any(op.name in kind.issue for b in cfg.rpo for op in b.ops):
        g = Groups(cfg, kind, facts() if facts is not None else None, live)
        g.run()
    if cache is not None:
        cache[key] = g
    return g


__all__ = [
    "BULK_STORES",
    "CAP",
    "CP_ASYNC",
    "UNCOMMITTED",
    "Groups",
    "Kind",
    "Pending",
    "is_hazard",
    "is_shared_read",
    "pending_reads",
]
