"""SSA register allocation (Hack, Grund, Goos, CC 2006) per register class.

The interference graph of a strict SSA program is chordal and the definitions visited in dominance order
form a perfect elimination order, so greedy colouring in that order needs exactly MaxLive colours, where
MaxLive is the largest number of simultaneously live values of a class at any program point. No
interference graph is built: a forward walk over each block (blocks in dominator-tree preorder) keeps the
colours of the live values occupied, frees an operand's colour at its last use and gives each result a
free colour. The palette per class is exactly MaxLive (computed first, by a backward pressure walk), so the
register count *is* MaxLive by construction; the colouring only picks *which* free colour:
  * a block argument prefers the colour of a value flowing into it (so the edge copy disappears:
    coalescing when the live ranges do not interfere),
  * the result of a `copy` prefers its source's colour.
Pressure at a point is |live-after ∪ defined-here| (a dead definition still needs a register for an
instant); at a block start it is |live-in ∪ arguments|.
"""

from __future__ import annotations

import heapq

from irc.backends.ptx.liveness import CLASS_PREFIX, CLASSES, Liveness, reg_class
from irc.diagnostics import InternalCompilerError
from irc.ir.core import Block, Function, Op, Value
from irc.ir.order import dominator_preorder
from irc.records import field, record


@record
class Allocation:
    """Result of allocation: `colour[v]` is the register number of `v` within `cls[v]`."""

    fn: Function
    liveness: Liveness
    colour: dict[Value, int] = field(default_factory=dict)
    cls: dict[Value, str] = field(default_factory=dict)
    max_live: dict[str, int] = field(default_factory=dict)
    dom_order: list[Block] = field(default_factory=list)

    def reg(self, v: Value) -> str:
        """The physical register name of `v`, e.g. `%r3`."""
        try:
            return f"{CLASS_PREFIX[self.cls[v]]}{self.colour[v]}"
        except KeyError:
            raise InternalCompilerError(f"value {v!r} has no register") from None

    def registers(self) -> dict[str, int]:
        """Registers used per class (the highest colour + 1)."""
        out = {c: 0 for c in CLASSES}
        for v, c in self.colour.items():
            k = self.cls[v]
            out[k] = max(out[k], c + 1)
        return out


def _op_dying(live_after: set[int], op: Op, lv: Liveness) -> list[Value]:
    """Operands (needing registers) whose last use is `op`, each once, in operand order."""
    out: list[Value] = []
    seen: set[int] = set()
    for v in op.all_operands():
        if lv.reg[v]:
            i = lv.ids[v]
            if i not in live_after and i not in seen:
                seen.add(i)
                out.append(v)
    return out


class _Palette:
    """Free colours of one class, lowest first (a heap with lazy deletion)."""

    __slots__ = ("free", "heap", "size")

    def __init__(self, size: int):
        self.size = size
        self.free = set(range(size))
        self.heap = list(range(size))

    def take(self, c: int) -> None:
        self.free.discard(c)

    def give(self, c: int) -> None:
        if c not in self.free:
            self.free.add(c)
            heapq.heappush(self.heap, c)

    def lowest(self) -> int:
        h = self.heap
        while h:
            c = h[0]
            if c in self.free:
                return c
            heapq.heappop(h)
        raise InternalCompilerError("register colouring ran out of colours (MaxLive miscomputed)")


class RegisterAllocator:
    """Colours every register-needing value of one function.

    Needs: a legalized SSA function whose uses are dominated by their definitions. Establishes: an
    `Allocation` in which simultaneously live values of a class have distinct colours, using exactly
    MaxLive colours per class."""

    def __init__(self, fn: Function):
        self.fn = fn
        self.lv = Liveness(fn)
        self.order, _ = dominator_preorder(fn, self.lv.rpo)

    def max_live(self) -> dict[str, int]:
        """MaxLive per class by a backward walk of every reachable block. (Classes by index; at each op
        only the classes whose count grew since the last point, or that a dead result adds to, can set
        a new maximum, so only those are compared.)"""
        lv = self.lv
        ids, reg = lv.ids, lv.reg
        cidx = {c: k for k, c in enumerate(CLASSES)}
        ncls = len(CLASSES)
        every = range(ncls)
        cls_k = [cidx[reg_class(v.type)] if reg[v] else -1 for v in lv.values]
        best = [0] * ncls
        for b in lv.rpo:
            live = set(lv.live_out[b])
            cnt = [0] * ncls
            for i in live:
                cnt[cls_k[i]] += 1
            grown: set[int] | range = every
            for op in reversed(b.ops):
                dead: dict[int, int] | None = None
                for r in op.results:
                    if reg[r]:
                        i = ids[r]
                        if i not in live:
                            if dead is None:
                                dead = {}
                            k = cls_k[i]
                            dead[k] = dead.get(k, 0) + 1
                for k in grown:
                    n = cnt[k] + (dead.get(k, 0) if dead else 0)
                    if n > best[k]:
                        best[k] = n
                if dead:
                    for k, d in dead.items():
                        if cnt[k] + d > best[k]:
                            best[k] = cnt[k] + d
                grown = set()
                for r in op.results:
                    i = ids[r]
                    if i in live:
                        live.discard(i)
                        cnt[cls_k[i]] -= 1
                for v in op.all_operands():
                    if reg[v]:
                        i = ids[v]
                        if i not in live:
                            live.add(i)
                            k = cls_k[i]
                            cnt[k] += 1
                            grown.add(k)
            extra = [0] * ncls
            for a in b.args:
                i = ids[a]
                if reg[a] and i not in live:
                    extra[cls_k[i]] += 1
            for k in every:
                best[k] = max(best[k], cnt[k] + extra[k])
        return {c: best[cidx[c]] for c in CLASSES}

    def run(self) -> Allocation:
        lv = self.lv
        alloc = Allocation(self.fn, lv, dom_order=self.order)
        alloc.max_live = self.max_live()
        for v in lv.values:
            if lv.reg[v]:
                alloc.cls[v] = reg_class(v.type)
        incoming = self._incoming_hints()
        for b in self.order:
            self._colour_block(b, alloc, incoming)
        return alloc

    def _incoming_hints(self) -> dict[Value, list[Value]]:
        """For each block argument, the values passed to it on its incoming edges (in block order)."""
        hints: dict[Value, list[Value]] = {}
        for b in self.lv.rpo:
            t = b.terminator
            if t is None:
                continue
            for s, args in zip(t.successors, t.succ_args):
                for a, v in zip(s.args, args):
                    hints.setdefault(a, []).append(v)
        return hints

    def _colour_block(self, b: Block, alloc: Allocation, incoming: dict[Value, list[Value]]) -> None:
        lv = self.lv
        ids = lv.ids
        pal = {c: _Palette(alloc.max_live[c]) for c in CLASSES}
        values = lv.values
        cls_of, colour_of = alloc.cls, alloc.colour
        taken: dict[str, list[int]] = {}
        for i in lv.live_in[b]:  # the live-in values' colours are occupied (a set difference per class)
            v = values[i]
            c = cls_of[v]
            got = taken.get(c)
            if got is None:
                taken[c] = [colour_of[v]]
            else:
                got.append(colour_of[v])
        for c, cs in taken.items():
            pal[c].free.difference_update(cs)

        def assign(v: Value, hints: list[Value]) -> None:
            p = pal[alloc.cls[v]]
            for h in hints:
                c = alloc.colour.get(h)
                if c is not None and alloc.cls.get(h) == alloc.cls[v] and c in p.free:
                    alloc.colour[v] = c
                    p.take(c)
                    return
            c = p.lowest()
            alloc.colour[v] = c
            p.take(c)

        # what dies at each op (operands at their last use, results never used), from the live-after set
        # of a backward walk; copying that set per op was quadratic in the pressure
        reg = lv.reg
        live = set(lv.live_out[b])
        after: list[tuple[list[Value], list[Value]]] = []
        for op in reversed(b.ops):
            unused = [r for r in op.results if reg[r] and ids[r] not in live]
            after.append((_op_dying(live, op, lv), unused))
            for r in op.results:
                live.discard(ids[r])
            for v in op.all_operands():
                if reg[v]:
                    live.add(ids[v])
        after.reverse()
        live_at_start = live
        for a in b.args:
            if lv.reg[a]:
                assign(a, incoming.get(a, []))
        for a in b.args:
            if lv.reg[a] and ids[a] not in live_at_start:
                pal[alloc.cls[a]].give(alloc.colour[a])
        for op, (dying, unused) in zip(b.ops, after):
            for v in dying:
                pal[alloc.cls[v]].give(alloc.colour[v])
            hints = [op.operands[0]] if op.name == "copy" else []
            for r in op.results:
                if reg[r]:
                    assign(r, hints)
            for r in unused:
                pal[alloc.cls[r]].give(alloc.colour[r])


def allocate(fn: Function) -> Allocation:
    """Allocate registers for one (legalized) function."""
    return RegisterAllocator(fn).run()
