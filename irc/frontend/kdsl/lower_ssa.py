"""SSA construction for the .kdsl lowering (Braun, Buchwald, Hack, Leissa, Mallon, Zwinkau, CC 2013).

Why this algorithm: it builds SSA directly while the AST is walked, without dominance frontiers or a
separate renaming pass. A source variable (a `Symbol`, or `(Symbol, index)` for one element of a scalarized
register array) is only a *name* for its current SSA value in each block; value semantics (`let old = m;
m = max(m, s);`) fall out because rebinding a name never changes the value another name holds.

Block arguments play the role of phis. A block is *sealed* once all its predecessors are known (loop
headers only after the back edges); reading a variable in an unsealed block creates an incomplete argument
that gets its incoming values when the block is sealed. Arguments whose incoming values are all the same
value (or the argument itself) are trivial and are removed on the fly, recursively for the arguments that
used them.

Structured joins skip the trivial arguments. The join of an `if`, `c ? a : b`, `a && b` or an inlined call
is reached only through blocks lowered after its branching block `head` (`close_region`); a variable no
statement wrote in between has at the join the value it had at the end of `head`, which is what the
join's argument would reduce to. Reading it there goes straight to `head`, instead of making an argument
whose operands walk back through every earlier join and removing it again: on straight-line unrolled code
(64 `key < n && ...` in a row) that was quadratic, most of the lowering of `fmha_sm100.kdsl` (issue 15).

Blocks may also have *explicit* arguments (the value of `c ? a : b`, `a && b`, an inlined function's
result). They are created with the block, before any on-demand argument, and every edge passes them when
it is created; on-demand arguments follow them, so edge operand lists stay aligned with `Block.args`.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Hashable

from irc.diagnostics import Span
from irc.ir.core import Block, BlockArg, Function, Op, Value
from irc.ir.types import Type

Key = Hashable


class SSABuilder:
    """Per-function SSA state: current definitions, sealed blocks, predecessor edges, on-demand args.

    Predecessor edges are tracked here (`preds[block]` = list of `(terminator, successor index)`) instead of
    being recomputed from the function, which would cost a scan of every block per query."""

    def __init__(self, fn: Function):
        self.fn = fn
        self.defs: dict[Key, dict[Block, Value]] = {}
        self.key_info: dict[Key, tuple[Type, str | None]] = {}
        self.sealed: set[Block] = set()
        self.incomplete: dict[Block, list[tuple[Key, BlockArg]]] = {}
        self.pending: set[BlockArg] = set()  # incomplete args whose operands are not filled in yet
        self.phis: dict[BlockArg, Key] = {}  # on-demand args (explicit args are never removed here)
        self.replaced: dict[Value, Value] = {}  # removed trivial args -> the value that replaced them
        self.preds: dict[Block, list[tuple[Op, int]]] = {}
        self.undef_span: Span | None = None
        self.tick = 0  # counts the program's writes (`write`) and the unreachable blocks (`dead`)
        self.write_ticks: dict[Key, list[int]] = {}  # the ticks of each variable's writes, ascending
        self.dead_tick = 0  # the tick of the last unreachable block started
        self.regions: dict[Block, tuple[Block, int, int]] = {}  # join -> (head, first tick, last tick)

    # ------------------------------------------------------------------------------------ variables
    def declare(self, key: Key, type: Type, name: str | None) -> None:
        self.key_info[key] = (type, name)

    def resolve(self, v: Value) -> Value:
        while v in self.replaced:
            v = self.replaced[v]
        return v

    def write(self, key: Key, block: Block, value: Value) -> None:
        """The program assigns `value` to `key` in `block`."""
        self.tick += 1
        ticks = self.write_ticks.get(key)
        if ticks is None:
            self.write_ticks[key] = [self.tick]
        else:
            ticks.append(self.tick)
        self.defs.setdefault(key, {})[block] = value

    def _cache(self, key: Key, block: Block, value: Value) -> None:
        """Remember what `key` reads as in `block` (no write by the program)."""
        self.defs.setdefault(key, {})[block] = value

    # ------------------------------------------------------------------------------------ regions
    def mark(self) -> int:
        """The current tick, taken when a structured construct branches away from its head block."""
        return self.tick

    def dead(self) -> None:
        """An unreachable block starts: a region holding one is not skipped (its edge into the join would
        pass `undef`, not the head's value)."""
        self.tick += 1
        self.dead_tick = self.tick

    def close_region(self, join: Block, head: Block, start: int) -> None:
        """`join` is reached only through blocks lowered since `mark()` returned `start`, and `head`
        (where that happened) dominates them all."""
        if self.dead_tick <= start:
            self.regions[join] = (head, start, self.tick)

    def read(self, key: Key, block: Block) -> Value:
        d = self.defs.get(key)
        if d is not None and block in d:
            v = self.resolve(d[block])
            d[block] = v
            return v
        # Walk single-predecessor chains and skippable regions iteratively (long unrolled code would
        # otherwise recurse deeply).
        chain: list[Block] = []
        b = block
        sealed, preds_of, regions = self.sealed, self.preds, self.regions
        ticks = self.write_ticks.get(key)
        last = ticks[-1] if ticks else -1
        while b in sealed:
            preds = preds_of.get(b, ())
            if len(preds) == 1:
                nxt = preds[0][0].block
            else:
                # a region whose head dominates it and inside which the program never wrote `key`:
                # the value at its head
                r = regions.get(b)
                if r is None:
                    break
                if last > r[1]:  # written since the region began: inside it?
                    i = bisect_right(ticks, r[2])  # type: ignore[arg-type]
                    if i and ticks[i - 1] > r[1]:  # type: ignore[index]
                        break
                nxt = r[0]
            chain.append(b)
            b = nxt
            if d is not None and b in d:
                v = self.resolve(d[b])
                for c in chain:
                    d[c] = v
                return v
            if b is block:  # a single-predecessor cycle (unreachable code)
                break
        v = self._read_recursive(key, b)
        for c in chain:
            self._cache(key, c, v)
        return v

    def _read_recursive(self, key: Key, block: Block) -> Value:
        type, name = self.key_info[key]
        if block not in self.sealed:
            arg = block.add_arg(type, name)
            self.phis[arg] = key
            self.pending.add(arg)
            self.incomplete.setdefault(block, []).append((key, arg))
            val: Value = arg
        elif not self.preds.get(block):
            val = self.undef(type)
        elif len(self.preds[block]) == 1:
            val = self.read(key, self.preds[block][0][0].block)
        else:
            arg = block.add_arg(type, name)
            self.phis[arg] = key
            self._cache(key, block, arg)
            val = self._add_operands(key, arg)
        self._cache(key, block, val)
        return val

    def undef(self, type: Type) -> Value:
        """An unspecified value, defined at the top of the entry block so that it dominates every use."""
        op = Op("undef", [], [type], span=self.undef_span)
        self.fn.entry.insert(0, op)
        return op.result

    # ------------------------------------------------------------------------------------ blocks
    def add_edge(self, term: Op, index: int) -> None:
        self.preds.setdefault(term.successors[index], []).append((term, index))

    def seal(self, block: Block) -> None:
        if block in self.sealed:
            return
        self.sealed.add(block)
        for key, arg in self.incomplete.pop(block, []):
            self.pending.discard(arg)
            self._add_operands(key, arg)

    def _add_operands(self, key: Key, arg: BlockArg) -> Value:
        for term, s in self.preds.get(arg.block, []):
            v = self.read(key, term.block)
            args = term.succ_args[s]
            assert len(args) == arg.index, "edge operands out of step with block arguments"
            args.append(v)
            v.uses.append(term)
        return self._try_remove_trivial(arg)

    def _try_remove_trivial(self, arg: BlockArg) -> Value:
        block = arg.block
        same: Value | None = None
        for term, s in self.preds.get(block, []):
            v = term.succ_args[s][arg.index]
            if v is same or v is arg:
                continue
            if same is not None:
                return arg
            same = v
        if same is None:
            same = self.undef(arg.type)
        users: list[BlockArg] = []
        for op in arg.users:
            for s, args in enumerate(op.succ_args):
                for i, v in enumerate(args):
                    if v is arg:
                        tgt = op.successors[s].args[i]
                        if tgt is not arg and tgt in self.phis:
                            users.append(tgt)
        arg.replace_all_uses_with(same)
        self._remove_arg(arg)
        self.replaced[arg] = same
        for u in users:
            if u in self.phis and u not in self.pending and u.block in self.sealed:
                self._try_remove_trivial(u)
        return same

    def _remove_arg(self, arg: BlockArg) -> None:
        block, idx = arg.block, arg.index
        for term, s in self.preds.get(block, []):
            v = term.succ_args[s].pop(idx)
            v.uses.remove(term)
        del block.args[idx]
        for i, a in enumerate(block.args):
            a.index = i
        del self.phis[arg]
