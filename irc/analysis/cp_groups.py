"""Facts about async groups: which copies may still be in flight at each hazard (a cp.async's destination
read, a bulk store's source overwritten), and how many back edges of each loop lie between them.

The hardware rule: `cp.async` copies join the current group when `cp.async.commit_group` closes it;
`cp.async.wait_group N` returns once at most the N newest committed groups are pending. A copy that was
never committed is not covered by any `wait_group` (`cp.async.wait_all` commits first). Until the issuing
thread has waited for it, no thread may read its destination (other threads also need a barrier after the
wait, which `shared-race` checks).

The dataflow runs along the CFG from the kernel entry. State: per (copy, loop counts) the group status:
`UNCOMMITTED`, the number of commits since the copy's own (its age; a wait with N keeps ages below N), or
`DONE`. Merges are must-pending: a copy waited for on one incoming path is done (`cuda::pipeline` selects
its `wait_group N` through a switch on run-time counters, and the path around every wait is one the
counters rule out); a copy issued on one path only stays pending. Loop counts: for each loop around the
copy, the back edges taken since it was issued, and for each loop entered after it, the back edges since
that entry (capped: past `CAP` the entry is dropped, never guessed). The solver
(`irc.analysis.symbolic.asyncq.pending_read`) relates the copying and the reading thread's iterations
through them.

Bulk stores (`cp.async.bulk.global.shared`, tensor stores) follow the same rules with their own group
operations (`cp.async.bulk.commit_group`, `cp.async.bulk.wait_group[.read]`): `BULK_STORES` runs the
dataflow on them with shared-memory writes as the hazard, and records a `cp.async.wait_group` /
`wait_all` the store passed while pending (the wrong group operation).
"""

from __future__ import annotations

from irc.analysis.cfg import CFG, Loop
from irc.ir.core import Block, Op
from irc.records import record

UNCOMMITTED = -1
DONE = -2
CAP = 4  # back edges between a copy and a read that are still related exactly
MAX_AGE = 8

Key = tuple[int, tuple[tuple[int, int], ...]]  # (id(copy), sorted (loop index, back edges))
Entry = tuple[
    Op, int, Op | None, str | None
]  # (copy, status, a wait it passed while uncommitted, tracking mbarrier)


@record(frozen=True)
class Kind:
    """One family of async groups: the ops that issue into a group, commit and wait, the other family's
    waits (which do not cover these copies), and which ops are hazards for a pending copy."""

    issue: tuple[str, ...]
    commit: str
    wait: str
    foreign: tuple[str, ...]
    hazard: str  # "read" (a shared read) or "write" (a shared write)


CP_ASYNC = Kind(("cp_async",), "cp_async_commit", "cp_async_wait", (), "read")
BULK_STORES = Kind(
    ("bulk_store", "tma_store"),
    "tma_store_commit",
    "tma_store_wait",
    ("cp_async_wait", "cp_async_commit"),
    "write",
)
_SHARED_WRITES = ("store", "store_vec", "atomic", "atomic_cas", "cp_async", "bulk_load", "tma_load")


def _is_shared(op: Op) -> bool:
    if not op.operands:
        return False
    return getattr(op.operands[0].type, "space", None) == "shared" or op.attrs.get("space") == "shared"


def is_hazard(kind: Kind, op: Op) -> bool:
    n = op.name
    if kind.hazard == "read":
        return n in ("load", "load_vec") and _is_shared(op)
    if n in ("cp_async", "bulk_load", "tma_load"):
        return bool(op.operands)
    return n in _SHARED_WRITES and _is_shared(op)


@record(eq=False)
class Pending:
    """A copy that may still be in flight at a read."""

    copy: Op
    counts: dict[Loop, int]  # loop -> back edges between the copy and the read
    status: int  # UNCOMMITTED or the group's age
    passed: Op | None  # a wait_group the copy passed before it was committed


State = tuple[dict[Key, Entry], frozenset[int]]  # (pending copies, copies waited on this path)


def _merge(a: State, b: State) -> State:
    """Must-pending: a copy waited for on either path is done; a copy pending on one path only (never
    issued on the other) stays pending; two ages: the older (a wait completes it sooner)."""
    done = a[1] | b[1]
    out: dict[Key, Entry] = {k: e for k, e in a[0].items() if id(e[0]) not in done}
    for k, (op, st, w, t) in b[0].items():
        if id(op) in done:
            continue
        cur = out.get(k)
        out[k] = (
            (op, st, w, t)
            if cur is None
            else (op, max(cur[1], st), cur[2] or w, cur[3] if cur[3] == t else None)
        )
    return out, done


class Groups:
    """The dataflow of one function: `pending_at(hazard)` after `run()`.

    State per program point: the copies that may be in flight, keyed by (copy, loop counts), with their
    status, and the copies whose latest issue a wait covered on this path (groups complete in order, so
    that covers its older instances too): only these keep a waited copy from being pending after a merge,
    so the waited copies carry no loop counts (a kernel with many loops keeps a small state)."""

    def __init__(self, cfg: CFG, kind: Kind = CP_ASYNC):
        self.cfg = cfg
        self.kind = kind
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

    def _loops_in(self, op: Op) -> frozenset[int]:
        got = self._around.get(id(op))
        if got is None:
            assert op.block is not None
            got = self._around[id(op)] = frozenset(
                self.index[lp] for lp in self.cfg.loops_containing(op.block)
            )
        return got

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
                st[(id(op), counts)] = (op, UNCOMMITTED, None, None)
                done.discard(id(op))
            elif n == kind.commit:
                st = {
                    k: (c, 0 if s == UNCOMMITTED else min(s + 1, MAX_AGE), w, t)
                    for k, (c, s, w, t) in st.items()
                }
            elif n == kind.wait:
                keep = int(op.attrs.get("n", 0) or 0)
                st = self._complete(st, done, lambda s, t, keep=keep: s >= keep, op)
            elif n == "cp_async_mbarrier_arrive" and kind is CP_ASYNC and op.operands:
                # the mbarrier tracks this thread's prior cp.async: a wait on it completes them
                sym = shared_root(op.operands[0]) or "?"
                st = {k: (c, s, w, sym) for k, (c, s, w, _t) in st.items()}
            elif n in WAIT_OPS and kind is CP_ASYNC and op.operands:
                sym = shared_root(op.operands[0])
                st = self._complete(
                    st, done, lambda s, t, sym=sym: t is not None and (t == sym or t == "?"), None
                )
            elif n in kind.foreign:
                if n.endswith("wait"):  # waits for the other family's groups only: remember it
                    st = {k: (c, s, w or op, t) for k, (c, s, w, t) in st.items()}
            elif n in ("call", "opaque"):
                done |= {id(e[0]) for e in st.values()}  # may wait: silent
                st = {}
            elif record_reads and op.name == "ret":
                got = self._pending(st)
                if got:
                    self.exits.append((op, got))
        return st, frozenset(done)

    @staticmethod
    def _complete(st: dict[Key, Entry], done: set[int], finished, op: Op | None) -> dict[Key, Entry]:  # type: ignore[no-untyped-def]
        nxt: dict[Key, Entry] = {}
        for k, (c, s, w, t) in st.items():
            if finished(s, t):
                done.add(id(c))
            else:
                nxt[k] = (c, s, w or (op if s == UNCOMMITTED else None), t)
        done -= {id(e[0]) for e in nxt.values()}  # a newer instance is still in flight
        return nxt

    def _pending(self, st: dict[Key, Entry]) -> list[Pending]:
        return [Pending(c, {self.by_index[i]: m for i, m in k[1]}, s, w) for k, (c, s, w, _t) in st.items()]

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
        state_in: dict[Block, State] = {cfg.entry: ({}, frozenset())}
        changed = True
        rounds = 0
        while changed and rounds < 60:
            changed = False
            rounds += 1
            for b in cfg.rpo:
                if b not in state_in:
                    continue
                out = self.transfer(b, state_in[b], False)
                for s in cfg.succs.get(b, []):
                    new = self.edge(b, s, out)
                    old = state_in.get(s)
                    merged = new if old is None else _merge(old, new)
                    if old is None or merged != old:
                        state_in[s] = merged
                        changed = True
        for b in cfg.rpo:
            if b in state_in:
                self.transfer(b, state_in[b], True)

    def pending_at(self, read: Op) -> list[Pending]:
        return self.reads.get(id(read), [])

    def is_pending(self, copy: Op, read: Op) -> bool:
        """Whether `copy` may be in flight at `read` (then the pair is `async-unwaited`'s question)."""
        return any(p.copy is copy for p in self.reads.get(id(read), []))


def pending_reads(cfg: CFG, cache: dict | None = None, kind: Kind = CP_ASYNC) -> Groups | None:
    """The group facts of a function for `kind`, or None when it issues no such copy (kept in `cache`, the
    check context's, when given: `async-unwaited` and `shared-race` both ask)."""
    key = f"groups:{kind.issue[0]}"
    if cache is not None and key in cache:
        return cache[key]  # type: ignore[return-value]
    g: Groups | None = None
    if any(op.name in kind.issue for b in cfg.rpo for op in b.ops):
        g = Groups(cfg, kind)
        g.run()
    if cache is not None:
        cache[key] = g
    return g


__all__ = [
    "BULK_STORES",
    "CAP",
    "CP_ASYNC",
    "DONE",
    "UNCOMMITTED",
    "Groups",
    "Kind",
    "Pending",
    "is_hazard",
    "pending_reads",
]
