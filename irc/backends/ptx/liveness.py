"""Register classes, value numbering, CFG order and liveness for the PTX backend.

Register classes (by type, documented once here and used by every backend stage):

    class  PTX decl   prefix  types
    p      .pred      %p      bool
    rs     .b16       %rs     8- and 16-bit ints (PTX has no 8-bit registers), f16, bf16
    r      .b32       %r      32-bit ints, shared pointers (32-bit shared window)
    f      .f32       %f      f32
    rd     .b64       %rd     64-bit ints, global pointers, tensor-map addresses, mbarrier states
    fd     .f64       %fd     f64

Which values need a register: every value except the results of `const` ops (constants are immediates;
legalization materializes a constant with an explicit `copy` where PTX needs a register) and except
kernel parameters that are never used (they are not loaded). Liveness is the classic backward dataflow
over blocks with block arguments: a successor argument is a use at the end of the predecessor, a block
argument is a definition at the start of its block.
"""

from __future__ import annotations

from irc.ir.core import Block, Function, OpResult, Value
from irc.ir.order import reverse_postorder
from irc.ir.types import MBarrierType, PtrType, ScalarType, TensorMapType, Type

#: Classes in declaration order, with their PTX register type and name prefix.
CLASSES: tuple[str, ...] = ("p", "rs", "r", "f", "rd", "fd")
CLASS_DECL: dict[str, str] = {
    "p": ".pred",
    "rs": ".b16",
    "r": ".b32",
    "f": ".f32",
    "rd": ".b64",
    "fd": ".f64",
}
CLASS_PREFIX: dict[str, str] = {c: f"%{c}" for c in CLASSES}


def reg_class(t: Type) -> str:
    """The register class of a value of type `t` (see the module docstring)."""
    if isinstance(t, ScalarType):
        if t.is_bool:
            return "p"
        if t.name == "f32":
            return "f"
        if t.name == "f64":
            return "fd"
        if t.bits <= 16:
            return "rs"
        return "r" if t.bits == 32 else "rd"
    if isinstance(t, PtrType):
        return "r" if t.space == "shared" else "rd"
    if isinstance(t, (TensorMapType, MBarrierType)):
        return "rd"
    raise TypeError(f"type {t} has no register class")


def is_immediate(v: Value) -> bool:
    """Constants never occupy a register: they are printed as immediates."""
    return isinstance(v, OpResult) and v.op.name == "const"


def needs_register(v: Value, fn: Function) -> bool:
    """True when `v` gets a register: not a constant, and not an unused kernel parameter."""
    if is_immediate(v):
        return False
    if not v.uses and v in fn.entry.args:
        return False
    return True


def number_values(fn: Function) -> dict[Value, int]:
    """Deterministic ids: block arguments then op results, blocks in layout order (never id()-based)."""
    ids: dict[Value, int] = {}
    for b in fn.blocks:
        for a in b.args:
            ids[a] = len(ids)
        for op in b.ops:
            for r in op.results:
                ids[r] = len(ids)
    return ids


class Liveness:
    """Live-in / live-out sets (of value ids) per reachable block, for values that need a register.

    Needs: a verified SSA function (uses dominated by definitions). Establishes: `live_in[b]` excludes
    `b`'s own arguments; `live_out[b]` includes the values `b`'s terminator passes to successors."""

    def __init__(self, fn: Function):
        self.fn = fn
        self.ids = number_values(fn)
        self.values: list[Value] = list(self.ids)
        self.rpo = reverse_postorder(fn)
        self.reg = {v: needs_register(v, fn) for v in self.values}
        self.live_in: dict[Block, set[int]] = {}
        self.live_out: dict[Block, set[int]] = {}
        self._solve()

    def vid(self, v: Value) -> int:
        return self.ids[v]

    def block_uses_defs(self, b: Block) -> tuple[set[int], set[int]]:
        """Upward-exposed uses and definitions of `b` (arguments count as definitions)."""
        ids, reg = self.ids, self.reg
        gen: set[int] = set()
        kill: set[int] = {ids[a] for a in b.args}
        for op in b.ops:
            for v in op.all_operands():
                if reg[v]:
                    i = ids[v]
                    if i not in kill:
                        gen.add(i)
            for r in op.results:
                kill.add(ids[r])
        return gen, kill

    def _solve(self) -> None:
        gens: dict[Block, tuple[set[int], set[int]]] = {b: self.block_uses_defs(b) for b in self.rpo}
        for b in self.rpo:
            self.live_in[b] = set(gens[b][0])
            self.live_out[b] = set()
        changed = True
        post = self.rpo[::-1]
        while changed:
            changed = False
            for b in post:
                out: set[int] = set()
                for s in b.successors:
                    out |= self.live_in.get(s, set())
                if out != self.live_out[b]:
                    self.live_out[b] = out
                    gen, kill = gens[b]
                    new_in = gen | (out - kill)
                    if new_in != self.live_in[b]:
                        self.live_in[b] = new_in
                    changed = True
