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

Blocks may also have *explicit* arguments (the value of `c ? a : b`, `a && b`, an inlined function's
result). They are created with the block, before any on-demand argument, and every edge passes them when
it is created; on-demand arguments follow them, so edge operand lists stay aligned with `Block.args`.
"""

from __future__ import annotations

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

    # ------------------------------------------------------------------------------------ variables
    def declare(self, key: Key, type: Type, name: str | None) -> None:
        self.key_info[key] = (type, name)

    def resolve(self, v: Value) -> Value:
        while v in self.replaced:
            v = self.replaced[v]
        return v

    def write(self, key: Key, block: Block, value: Value) -> None:
        self.defs.setdefault(key, {})[block] = value

    def read(self, key: Key, block: Block) -> Value:
        d = self.defs.get(key)
        if d is not None and block in d:
            v = self.resolve(d[block])
            d[block] = v
            return v
        # Walk single-predecessor chains iteratively (long unrolled code would otherwise recurse deeply).
        chain: list[Block] = []
        b = block
        while b in self.sealed and len(self.preds.get(b, ())) == 1:
            chain.append(b)
            b = self.preds[b][0][0].block
            if d is not None and b in d:
                v = self.resolve(d[b])
                for c in chain:
                    self.write(key, c, v)
                return v
            if b is block:  # a single-predecessor cycle (unreachable code)
                break
        v = self._read_recursive(key, b)
        for c in chain:
            self.write(key, c, v)
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
            self.write(key, block, arg)
            val = self._add_operands(key, arg)
        self.write(key, block, val)
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
