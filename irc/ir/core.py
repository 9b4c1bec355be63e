"""SSA IR core: values, ops, blocks with block arguments (instead of phis), functions and modules.

Why block arguments: a branch passes values to its target the way a call passes arguments, which makes
out-of-SSA (parallel copies on edges) and the emulator-facing lowering direct, and keeps SSA construction
(Braun et al.) simple. Every value keeps a use list (the ops using it, once per operand slot) so that
`replace_all_uses_with` and dead-code elimination are O(uses).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from irc.diagnostics import Span
from irc.ir.types import Type


class Value:
    """An SSA value: either an `OpResult` or a `BlockArg`. `name` is an optional hint for printing."""

    __slots__ = ("type", "uses", "name")

    def __init__(self, type: Type, name: str | None = None):
        self.type = type
        self.uses: list[Op] = []  # one entry per operand slot (an op using a value twice appears twice)
        self.name = name

    @property
    def users(self) -> list[Op]:
        return list(dict.fromkeys(self.uses))  # ops hash by identity: each user once, in use order

    def replace_all_uses_with(self, other: Value) -> None:
        """Every operand slot holding this value holds `other` instead. The use lists end up exactly as
        `replace_operand` on each user in turn leaves them, in one sweep: removing each slot's entry
        with `list.remove` was quadratic in the uses of a value (a constant used by hundreds of ops)."""
        if other is self:
            return
        uses = self.uses
        if not uses:
            return
        add = other.uses.append
        if len(uses) == 1:  # (the common case: one user, one slot)
            n = self._swap_slots(uses[0], other, add)
            if n > 1:
                raise ValueError("use list out of step with the operands")
            if n:
                uses.clear()
            return
        replaced: dict[int, int] = {}
        for op in dict.fromkeys(uses):
            n = self._swap_slots(op, other, add)
            if n:
                replaced[id(op)] = n
        keep: list[Op] = []  # each user's first n entries go, as n calls of `uses.remove(op)` would
        for u in uses:
            k = replaced.get(id(u), 0)
            if k:
                replaced[id(u)] = k - 1
            else:
                keep.append(u)
        if replaced and any(replaced.values()):
            raise ValueError("use list out of step with the operands")
        uses[:] = keep

    def _swap_slots(self, op: Op, other: Value, add) -> int:  # type: ignore[no-untyped-def]
        """Put `other` in every operand and successor-argument slot of `op` that holds this value,
        recording one use of `other` per slot with `add`; the number of slots changed."""
        n = 0
        ops = op.operands
        for i, v in enumerate(ops):
            if v is self:
                ops[i] = other
                add(op)
                n += 1
        for args in op.succ_args:
            for i, v in enumerate(args):
                if v is self:
                    args[i] = other
                    add(op)
                    n += 1
        return n

    @property
    def defining_block(self) -> Block | None:
        raise NotImplementedError


class OpResult(Value):
    __slots__ = ("op", "index")

    def __init__(self, op: Op, index: int, type: Type, name: str | None = None):
        self.type = type  # (Value.__init__ inline: every op result is made here)
        self.uses: list[Op] = []
        self.name = name
        self.op = op
        self.index = index

    @property
    def defining_block(self) -> Block | None:
        return self.op.block

    def __repr__(self) -> str:
        return f"<OpResult {self.op.name}#{self.index}: {self.type}>"


class BlockArg(Value):
    __slots__ = ("block", "index")

    def __init__(self, block: Block, index: int, type: Type, name: str | None = None):
        super().__init__(type, name)
        self.block = block
        self.index = index

    @property
    def defining_block(self) -> Block | None:
        return self.block

    def incoming(self) -> list[Value]:
        """The values passed to this argument, one per incoming edge (a terminator with two edges here gives
        two)."""
        return [v for _, v in self.incoming_edges()]

    def incoming_edges(self) -> list[tuple[Block | None, Value]]:
        """(predecessor block, value) for each incoming edge, in `incoming()`'s order."""
        out: list[tuple[Block | None, Value]] = []
        for t in self.block.predecessor_terminators():
            for s, args in zip(t.successors, t.succ_args):
                if s is self.block and self.index < len(args):
                    out.append((t.block, args[self.index]))
        return out

    def __repr__(self) -> str:
        return f"<BlockArg {self.index}: {self.type}>"


class Op:
    """An operation. `operands` are the normal operands; terminators also carry `successors` (blocks) and
    `succ_args` (the values passed to each successor's block arguments). Both kinds of operand are in the
    use lists. `attrs` keep insertion order so the printed form is stable."""

    __slots__ = ("name", "operands", "results", "attrs", "successors", "succ_args", "block", "span")

    def __init__(
        self,
        name: str,
        operands: list[Value] | None = None,
        result_types: list[Type] | None = None,
        attrs: dict[str, Any] | None = None,
        successors: list[Block] | None = None,
        succ_args: list[list[Value]] | None = None,
        span: Span | None = None,
        result_names: list[str | None] | None = None,
    ):
        # Hot path (the PTX lifter creates hundreds of thousands of ops): plain loops, no comprehensions
        # over empty lists, and no copies of lists the caller hands over fresh.
        self.name = name
        ops = list(operands) if operands else []
        self.operands: list[Value] = ops
        for v in ops:
            v.uses.append(self)
        self.attrs: dict[str, Any] = dict(attrs) if attrs else {}
        self.block: Block | None = None
        self.span = span
        if successors:
            self.successors: list[Block] = list(successors)
            self.succ_args: list[list[Value]] = (
                [list(a) for a in succ_args] if succ_args else [[] for _ in self.successors]
            )
            for args in self.succ_args:
                for v in args:
                    v.uses.append(self)
        else:
            self.successors = []
            self.succ_args = []
        if result_types:
            if result_names:
                self.results = [OpResult(self, i, t, result_names[i]) for i, t in enumerate(result_types)]
            elif len(result_types) == 1:
                self.results = [OpResult(self, 0, result_types[0])]
            else:
                self.results = [OpResult(self, i, t) for i, t in enumerate(result_types)]
        else:
            self.results = []

    # -- convenience -------------------------------------------------------------------------------
    @property
    def result(self) -> OpResult:
        if len(self.results) != 1:
            raise ValueError(f"op {self.name} has {len(self.results)} results")
        return self.results[0]

    def all_operands(self) -> list[Value]:
        """The operands, then the successor arguments. Without successor arguments (most ops) this is
        `operands` itself, not a copy: do not modify it."""
        if not self.succ_args:
            return self.operands
        out = list(self.operands)
        for args in self.succ_args:
            out.extend(args)
        return out

    def set_operand(self, i: int, v: Value) -> None:
        old = self.operands[i]
        old.uses.remove(self)
        self.operands[i] = v
        v.uses.append(self)

    def set_succ_arg(self, s: int, i: int, v: Value) -> None:
        old = self.succ_args[s][i]
        old.uses.remove(self)
        self.succ_args[s][i] = v
        v.uses.append(self)

    def replace_operand(self, old: Value, new: Value) -> None:
        for i, v in enumerate(self.operands):
            if v is old:
                self.set_operand(i, new)
        for s, args in enumerate(self.succ_args):
            for i, v in enumerate(args):
                if v is old:
                    self.set_succ_arg(s, i, new)

    def set_successor(self, s: int, block: Block, args: list[Value]) -> None:
        for v in self.succ_args[s]:
            v.uses.remove(self)
        self.successors[s] = block
        self.succ_args[s] = list(args)
        for v in args:
            v.uses.append(self)

    def drop_operands(self) -> None:
        """Remove this op from its operands' use lists (before deleting it). The op is remembered in its
        function's `dropped` list so that `Function.release_dropped` can break its reference cycles."""
        b = self.block
        if b is not None:
            f = b.function
            if f is not None:
                f.dropped.append(self)
        for v in self.operands:
            v.uses.remove(self)
        if self.succ_args:
            for args in self.succ_args:
                for v in args:
                    v.uses.remove(self)
        self.operands = []
        self.succ_args = [[] for _ in self.successors]

    def erase(self) -> None:
        """Delete the op; its results must be unused."""
        for r in self.results:
            if r.uses:
                raise ValueError(f"erasing {self.name} whose result is still used")
        self.drop_operands()
        if self.block is not None:
            self.block.ops.remove(self)
            self.block = None

    @property
    def opdef(self):  # -> OpDef (import cycle avoided)
        from irc.ir.optable import OPS

        return OPS[self.name]

    def has_trait(self, trait: str) -> bool:
        t = _TRAITS.get(self.name)
        if t is None:
            t = traits_of(self.name)
        return trait in t

    def __repr__(self) -> str:
        return f"<Op {self.name}>"


class Block:
    """A basic block: arguments, ops, and exactly one terminator as the last op (checked by the verifier)."""

    __slots__ = ("args", "ops", "function", "label")

    def __init__(self, arg_types: list[Type] | None = None, label: str | None = None):
        self.args: list[BlockArg] = [BlockArg(self, i, t) for i, t in enumerate(arg_types or [])]
        self.ops: list[Op] = []
        self.function: Function | None = None
        self.label = label

    def add_arg(self, type: Type, name: str | None = None) -> BlockArg:
        a = BlockArg(self, len(self.args), type, name)
        self.args.append(a)
        return a

    def remove_arg(self, index: int, preds: list[Op] | None = None) -> None:
        """Remove argument `index` (must be unused) and the matching value from every predecessor edge.
        `preds` (the block's predecessor terminators, when the caller already has them) saves a scan of
        the whole function: passes that remove many arguments would otherwise be quadratic."""
        arg = self.args[index]
        if arg.uses:
            raise ValueError("removing a used block argument")
        for pred_op in self.predecessor_terminators() if preds is None else preds:
            for s, succ in enumerate(pred_op.successors):
                if succ is self:
                    v = pred_op.succ_args[s].pop(index)
                    v.uses.remove(pred_op)
        del self.args[index]
        for i, a in enumerate(self.args):
            a.index = i

    def append(self, op: Op) -> Op:
        op.block = self
        self.ops.append(op)
        return op

    def insert(self, index: int, op: Op) -> Op:
        op.block = self
        self.ops.insert(index, op)
        return op

    def insert_before_terminator(self, op: Op) -> Op:
        t = self.terminator
        return self.insert(len(self.ops) - 1 if t is not None else len(self.ops), op)

    @property
    def terminator(self) -> Op | None:
        ops = self.ops
        if ops:
            last = ops[-1]
            t = _TRAITS.get(last.name)
            if t is None:
                t = traits_of(last.name)
            if "terminator" in t:
                return last
        return None

    @property
    def successors(self) -> list[Block]:
        t = self.terminator
        return list(t.successors) if t is not None else []

    def predecessor_terminators(self) -> list[Op]:
        """Terminators (in other blocks) that branch here; a terminator with two edges here appears once."""
        out = []
        if self.function is None:
            return out
        for b in self.function.blocks:
            t = b.terminator
            if t is not None and any(s is self for s in t.successors):
                out.append(t)
        return out

    @property
    def predecessors(self) -> list[Block]:
        return [t.block for t in self.predecessor_terminators()]

    def __repr__(self) -> str:
        return f"<Block {self.label or id(self)}>"


class Function:
    """A kernel (`is_kernel`) or device function. Parameters are the entry block's arguments.
    `attrs` holds kernel attributes: launch=[x,y,z], max_registers, min_blocks_per_sm, cluster=[x,y,z],
    allow=[checks]. `shared` lists the block's shared allocations."""

    def __init__(
        self,
        name: str,
        param_types: list[Type] | None = None,
        is_kernel: bool = True,
        param_names: list[str] | None = None,
        span: Span | None = None,
    ):
        self.name = name
        self.is_kernel = is_kernel
        self.blocks: list[Block] = []
        self.attrs: dict[str, Any] = {}
        self.shared: list[SharedDecl] = []
        self.span = span
        self.module: Module | None = None
        self.dropped: list[Op] = []  # ops deleted so far (see `release_dropped`)
        entry = Block(param_types or [])
        for a, n in zip(entry.args, param_names or []):
            a.name = n
        self.add_block(entry)

    @property
    def entry(self) -> Block:
        return self.blocks[0]

    @property
    def params(self) -> list[BlockArg]:
        return self.entry.args

    def add_block(self, block: Block | None = None, index: int | None = None) -> Block:
        block = block or Block()
        block.function = self
        if index is None:
            self.blocks.append(block)
        else:
            self.blocks.insert(index, block)
        return block

    def remove_block(self, block: Block) -> None:
        for op in list(block.ops):
            op.drop_operands()
        self.blocks.remove(block)
        block.function = None

    def ops(self) -> Iterator[Op]:
        for b in self.blocks:
            yield from b.ops

    def predecessor_map(self) -> dict[int, list[Op]]:
        """`id(block)` -> the terminators that branch to it (each once), for every block, in one pass.
        Passes that visit every block use this instead of `Block.predecessor_terminators` (a scan of the
        whole function per block, quadratic on deeply nested input). Moving a terminator into another
        block (merging blocks) keeps the map valid: it holds the ops, not their blocks."""
        out: dict[int, list[Op]] = {id(b): [] for b in self.blocks}
        for b in self.blocks:
            t = b.terminator
            if t is None:
                continue
            seen: set[int] = set()
            for s in t.successors:
                if id(s) not in seen:
                    seen.add(id(s))
                    out.setdefault(id(s), []).append(t)
        return out

    def release_dropped(self) -> None:
        """Break the reference cycles (op <-> results, op <-> block) of the ops deleted from this function,
        once nothing will look at them again (the driver calls it when the PTX is made).

        Why: a compile deletes thousands of ops (GVN alone about 60% of what lowering makes) and each
        stays in a cycle with its results, so they were freed only by the cyclic garbage collector, whose
        first run after a compile then traversed them all: 2.5 ms of a 50 ms compile of
        `flash_attention_tc.kdsl`, 10 ms of `fmha_sm100.kdsl`. Released, they go by reference counting.
        An op that is back in a block of a function is left alone."""
        for op in self.dropped:
            b = op.block
            if b is not None and b.function is not None:
                continue
            for r in op.results:  # (their use lists are empty: deleting an op drops its operands)
                r.op = None  # type: ignore[assignment]
            op.results = []
            op.block = None
        self.dropped = []

    def shared_decl(self, name: str) -> SharedDecl:
        for s in self.shared:
            if s.name == name:
                return s
        raise KeyError(name)


class SharedDecl:
    """A shared-memory allocation of a kernel: `shared tile: [f16; 16, 128] align 128`."""

    __slots__ = ("name", "type", "align", "span", "dynamic")

    def __init__(self, name: str, type: Type, align: int, span: Span | None = None, dynamic: bool = False):
        self.name = name
        self.type = type
        self.align = align
        self.span = span
        self.dynamic = dynamic  # `shared x: [T] dynamic;`: sized at launch, after every static allocation


class Module:
    def __init__(self, source: str | None = None):
        self.functions: list[Function] = []
        self.source = source  # the file the module came from (for spans)
        self.attrs: dict[str, Any] = {}
        self.warnings: list = []  # front-end warnings (Diagnostics) for the driver; never printed

    def add_function(self, f: Function) -> Function:
        f.module = self
        self.functions.append(f)
        return f

    def function(self, name: str) -> Function:
        for f in self.functions:
            if f.name == name:
                return f
        raise KeyError(name)

    @property
    def kernels(self) -> list[Function]:
        return [f for f in self.functions if f.is_kernel]

    def dispose(self) -> None:
        """Break the module's reference cycles (ops <-> blocks <-> values) once it is no longer needed.

        Why: `irc check` builds and drops one module per file; without this, every module lingers until
        the cyclic garbage collector traverses it, which measured ~15% of the time on large PTX inputs.
        The module is unusable afterwards."""
        for f in self.functions:
            f.release_dropped()
            for b in f.blocks:
                for op in b.ops:
                    for r in op.results:
                        r.uses = []
                        r.op = None  # type: ignore[assignment]
                    op.operands = []
                    op.succ_args = []
                    op.successors = []
                    op.results = []
                    op.block = None
                for a in b.args:
                    a.uses = []
                    a.block = None  # type: ignore[assignment]
                b.ops = []
                b.args = []
                b.function = None
            f.blocks = []
            f.module = None
        self.functions = []


_OPS: dict | None = None
_TRAITS: dict[str, frozenset[str]] = {}  # op name -> its traits in the op table (filled on first use)
_NO_TRAITS: frozenset[str] = frozenset()


def traits_of(name: str) -> frozenset[str]:
    """The op table's traits of op `name` (none for a name the table lacks). Why a cache of its own:
    trait tests run for every op in every pass (`has_trait`, `Block.terminator`), tens of thousands of
    times per kernel, and one dict lookup is most of what they cost."""
    t = _TRAITS.get(name)
    if t is None:
        d = _optable().get(name)
        if d is None:
            return _NO_TRAITS
        t = _TRAITS[name] = d.traits
    return t


def _optable() -> dict:
    """`irc.ir.optable.OPS`, imported once (the op table imports this module, so not at the top; an
    import statement in `has_trait`, called 200k times on a large kernel, was a measurable cost)."""
    global _OPS
    if _OPS is None:
        from irc.ir.optable import OPS

        _OPS = OPS
    return _OPS
