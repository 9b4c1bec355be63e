"""Leaving SSA (Boissinot et al., CGO 2009): block arguments become parallel copies on CFG edges.

Each edge `P -> S(args)` carries the parallel copy `reg(arg_i) <- reg(value_i)` (or `<- immediate`).
Copies whose source and destination registers coincide vanish (the allocator coalesced them). The rest is
placed at the end of `P` when `P` has a single successor, otherwise on a new block that splits the edge
(critical edges and every edge out of a conditional branch: copies before a `cbr` would also execute on
the other edge -- the lost-copy problem). A parallel copy is sequentialized by the standard algorithm:
emit a copy whose destination no pending copy still reads, repeat; what remains are disjoint cycles
(the swap problem), each broken with one temporary register -- a colour of that class free at the edge --
or, when the class has no free colour there (pressure == MaxLive), with XOR swaps, which need none. So the
register count stays exactly MaxLive. Immediate sources are copied last (they read no register).
"""

from __future__ import annotations

from irc.backends.ptx.liveness import CLASS_PREFIX, is_immediate
from irc.backends.ptx.regalloc import Allocation
from irc.ir.core import Block, Value
from irc.records import field, record


@record
class Move:
    """One sequential copy. kind "mov": dst <- src (src a register, or an immediate when `imm` is set);
    kind "swap": exchange dst and src (three XORs). `vid` is the SSA value id the source must hold."""

    kind: str
    dst: str
    src: str
    cls: str
    vid: int | None = None
    imm: Value | None = None


@record
class EdgeCopies:
    """The copies of one CFG edge and where they go. `split` means: on a new block between pred and succ.
    `binds` lists (register, block-argument id, incoming value id) that hold once the copies are done."""

    pred: Block
    succ_index: int
    succ: Block
    moves: list[Move] = field(default_factory=list)
    binds: list[tuple[str, int, int]] = field(default_factory=list)
    split: bool = False


def sequentialize(copies: list[tuple[str, str, int]], cls: str, temp: str | None) -> list[Move]:
    """Order the register-to-register parallel copy `copies` = [(dst, src, vid)] (distinct dsts).

    `temp` is a free register of class `cls` or None (then cycles are broken with swaps)."""
    pending: dict[str, tuple[str, int]] = {d: (s, vid) for d, s, vid in copies if d != s}
    out: list[Move] = []
    while pending:
        readers: dict[str, int] = {}
        for s, _ in pending.values():
            readers[s] = readers.get(s, 0) + 1
        ready = [d for d in pending if d not in readers]
        if ready:
            for d in ready:
                s, vid = pending.pop(d)
                out.append(Move("mov", d, s, cls, vid))
            continue
        # only cycles remain: break the first one (in insertion order, deterministic)
        d0 = next(iter(pending))
        if temp is not None:
            # save d0's current content in temp; whoever reads d0 reads temp instead
            holder_vid = next(vid for (s, vid) in pending.values() if s == d0)
            out.append(Move("mov", temp, d0, cls, holder_vid))
            for d, (s, vid) in list(pending.items()):
                if s == d0:
                    pending[d] = (temp, vid)
        else:
            s0, vid0 = pending.pop(d0)
            out.append(Move("swap", d0, s0, cls, vid0))
            # d0's old content now lives in s0
            for d, (s, vid) in list(pending.items()):
                if s == d0:
                    if d == s0:
                        pending.pop(d)  # s0 already received d0's old value by the swap
                    else:
                        pending[d] = (s0, vid)
    return out


class OutOfSSA:
    """Computes the sequential copies of every edge.

    Needs: an `Allocation` of the function. Establishes: for each edge with block arguments, an
    `EdgeCopies` whose moves, executed in order, leave every argument's register holding the incoming
    value, without clobbering any value live into the successor."""

    def __init__(self, alloc: Allocation, *, split_critical_edges: bool = True):
        self.alloc = alloc
        self.split_critical_edges = split_critical_edges

    def run(self) -> list[EdgeCopies]:
        alloc = self.alloc
        lv = alloc.liveness
        out: list[EdgeCopies] = []
        for b in lv.rpo:
            t = b.terminator
            if t is None:
                continue
            nsucc = len(t.successors)
            for si, (s, args) in enumerate(zip(t.successors, t.succ_args)):
                if not s.args:
                    continue
                e = EdgeCopies(b, si, s)
                by_cls: dict[str, list[tuple[str, str, int]]] = {}
                imms: list[Move] = []
                for a, v in zip(s.args, args):
                    if not lv.reg[a]:
                        continue
                    dst = alloc.reg(a)
                    e.binds.append((dst, lv.ids[a], lv.ids[v]))
                    if is_immediate(v):
                        imms.append(Move("mov", dst, "", alloc.cls[a], lv.ids[v], imm=v))
                    else:
                        by_cls.setdefault(alloc.cls[a], []).append((dst, alloc.reg(v), lv.ids[v]))
                for c, copies in by_cls.items():
                    e.moves.extend(sequentialize(copies, c, self._free_temp(b, s, args, c)))
                e.moves.extend(imms)
                twice = sum(1 for x in t.successors if x is s) > 1
                e.split = (bool(e.moves) or twice) and nsucc > 1 and self.split_critical_edges
                out.append(e)
        return out

    def _free_temp(self, pred: Block, succ: Block, args: list[Value], cls: str) -> str | None:
        """A register of class `cls` that holds nothing needed on this edge, or None."""
        alloc = self.alloc
        lv = alloc.liveness
        busy: set[int] = set()
        for i in lv.live_in[succ]:
            v = lv.values[i]
            if alloc.cls.get(v) == cls:
                busy.add(alloc.colour[v])
        for a, v in zip(succ.args, args):
            for x in (a, v):
                if lv.reg[x] and alloc.cls.get(x) == cls:
                    busy.add(alloc.colour[x])
        for c in range(alloc.max_live.get(cls, 0)):
            if c not in busy:
                return f"{CLASS_PREFIX[cls]}{c}"
        return None
