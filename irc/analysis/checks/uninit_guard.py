"""When a maybe-unwritten PTX register read is not an `uninitialized` finding (precision over recall).

Why: nvcc and cub keep per-thread arrays in registers and fill them under guards
(`if (i < valid) items[i] = in[i];`), then use each element under the same guard, or store the whole
array to shared memory where only the valid part is read back. The value is unwritten on some path, but
no computation depends on it. We cannot see the consumer of a value parked in memory, and the guard of a
later read is usually a recomputed copy of the write's condition, so:

- `silent(v, op)` when `op` only moves `v` (the value operand of a store, directly or through copies,
  conversions and shuffles whose results are only moved or dead): copying an unwritten register to memory
  or across lanes (struct padding) is not a use we can judge, nor is packing it into a register pair of
  which only the other half is unpacked and used. This also applies to values never written;
- or when `op`'s block is control dependent on a branch whose condition is the same as the condition of a
  branch that lets `v` arrive unwritten ("written and read under the same guard"). Conditions are the
  same when they are one SSA value, or the same pure expression (comparisons, integer arithmetic,
  special registers, constants: `tid + blockDim.x < n` recomputed), or a negation of either.

Known gaps (documented): a read under the *opposite* polarity of the same guard (read exactly when not
written) is silenced too; a guard that re-reads a shared scalar at the same address counts as the same
guard even if the scalar was rewritten in between.
"""

from __future__ import annotations

from irc.analysis.checks.common import FunctionContext, condition_value
from irc.floatbits import value_key
from irc.ir.core import Block, BlockArg, Op, OpResult, Value

_STORES = {"store": 1, "store_vec": 1}
_PASS = frozenset({"copy", "bitcast", "cvt", "ptx_pure"})


def _strip(v: Value) -> Value:
    for _ in range(16):
        if isinstance(v, OpResult) and v.op.name in ("copy", "bitcast") and v.op.operands:
            v = v.op.operands[0]
        elif isinstance(v, OpResult) and v.op.name == "not" and v.op.operands:
            v = v.op.operands[0]  # polarity is not tracked (documented gap)
        else:
            return v
    return v


_STRUCTURAL = frozenset(
    {"cmp", "add", "sub", "mul", "shl", "shr", "and", "or", "xor", "cvt", "sreg", "const"}
)


_INVERSE = {"ge": "lt", "gt": "le", "ne": "eq"}


def _expr_key(v: Value, depth: int = 0) -> object:
    """A structural key: equal keys mean equal values in one thread (pure integer expressions of the same
    special registers, constants and SSA values; nvcc recomputes `tid + blockDim.x` for a second guard)."""
    v = _strip(v)
    if not isinstance(v, OpResult) or depth > 4:
        return ("v", id(v))
    op = v.op
    n = op.name
    if n == "const":
        return ("c", value_key(op.attrs.get("value")), str(v.type))
    if n == "sreg":
        return ("s", op.attrs.get("name"))
    if n == "load" and op.operands:  # a shared scalar re-read for the second guard (`num_threads_active`)
        from irc.analysis.shared_loc import location

        loc = location(op)
        if loc is not None and loc[1] is not None:
            return ("ld", loc)
    if n not in _STRUCTURAL or len(op.operands) > 2:
        return ("v", id(v))
    pred = op.attrs.get("pred")
    pred = _INVERSE.get(str(pred), pred)  # `x < n` and `x >= n` test one guard (polarity not tracked)
    return (n, pred, tuple(_expr_key(o, depth + 1) for o in op.operands))


def _cond_key(v: Value) -> object:
    return _expr_key(v)


def _is_pack_mov(op: Op) -> bool:
    return op.name == "ptx_pure" and str(op.attrs.get("text", "")).startswith("mov.b")


def _dropped_half(v: Value, op: Op) -> bool:
    """`mov.b64 %rd, {%lo, %hi}` with `v` one half, where every user of `%rd` unpacks it again
    (`mov.b64 {_, %x}, %rd`) and never uses that half: nvcc packs a register pair to move one half."""
    if not _is_pack_mov(op) or len(op.results) != 1 or len(op.operands) < 2:
        return False
    idx = [i for i, o in enumerate(op.operands) if o is v]
    if not idx:
        return False
    users = op.results[0].users
    if not users:
        return True
    for u in users:
        if not (_is_pack_mov(u) and len(u.operands) == 1 and len(u.results) == len(op.operands)):
            return False
        if any(u.results[i].users for i in idx):
            return False
    return True


class GuardedReads:
    def __init__(self, ctx: FunctionContext, undef: dict[Value, bool]):
        self.ctx = ctx
        self.undef = undef
        self._guards: dict[int, set[object]] = {}
        self._only_stored: dict[int, bool] = {}

    def _undef_guards(self, v: Value, depth: int = 0) -> set[object]:
        """Condition keys of the branches from which `v` (a block argument) may arrive unwritten."""
        hit = self._guards.get(id(v))
        if hit is not None:
            return hit
        self._guards[id(v)] = set()
        out: set[object] = set()
        if isinstance(v, BlockArg) and depth < 8:
            cfg = self.ctx.cfg
            for p in cfg.preds.get(v.block, []):
                t = p.terminator
                if t is None:
                    continue
                for s, args in zip(t.successors, t.succ_args):
                    if s is v.block and v.index < len(args) and args[v.index] in self.undef:
                        for d in cfg.cd_closure(p) | ({p} if len(t.successors) > 1 else set()):
                            c = condition_value(d)
                            if c is not None:
                                out.add(_cond_key(c))
                        inner = args[v.index]
                        if isinstance(inner, BlockArg):
                            out |= self._undef_guards(inner, depth + 1)
        self._guards[id(v)] = out
        return out

    def _stored_only(self, v: Value, op: Op, depth: int = 0) -> bool:
        """`op` only moves `v` somewhere nobody computes with it: the value of a store, or a copy /
        conversion / shuffled value (cub shuffles whole structs, padding words included) whose results are
        themselves only moved or dead."""
        i = _STORES.get(op.name)
        if i is not None:
            return all(o is not v for o in op.operands[:i])  # not the address
        moves = op.name in _PASS or (op.name == "shfl" and op.operands and op.operands[0] is v and
                                     all(o is not v for o in op.operands[1:]))  # fmt: skip
        if moves and depth < 6:
            return all(self._stored_only(r, u, depth + 1) for r in op.results for u in r.users)
        return False

    def moved_only(self, v: Value, op: Op) -> bool:
        return self._stored_only(v, op) or _dropped_half(v, op)

    def silent(self, v: Value, op: Op) -> bool:
        """`op` reads `v` under the same guard as the branch that lets `v` arrive unwritten, or under a
        conjunction that includes that guard (`if (gtid < n && !converged)` after `if (gtid < n)`)."""
        b = op.block
        if b is None:
            return False
        guards = self._undef_guards(v)
        if not guards:
            return False
        for d in self.ctx.cfg.cd_closure(b):
            c = condition_value(d)
            if c is not None and _cond_key(c) in guards:
                return True
        return any(_cond_key(c) in guards for c in self._conjuncts_held(b))

    def _conjuncts_held(self, b: Block) -> list[Value]:
        """Operands of the conjunctions known to hold in `b`: `x && y` on the side of a branch where it is
        true, `!(x || y)` (as `x`, `y`: polarity is not tracked, see the module docstring) where it is
        false. The side is the successor of the branch that `b`, or a branch block `b` depends on
        through it, post-dominates; a branch both of whose sides lead to `b` proves nothing."""
        cfg = self.ctx.cfg
        out: list[Value] = []
        region = [b, *cfg.cd_closure(b)]
        for d in cfg.cd_closure(b):
            t = d.terminator
            c = condition_value(d)
            if t is None or c is None or len(t.successors) != 2 or t.successors[0] is t.successors[1]:
                continue
            sides = {
                i
                for x in region
                if d in cfg.cd.get(x, ())
                for i, s in enumerate(t.successors)
                if cfg.post_dominates(x, s)
            }
            if len(sides) != 1:
                continue
            holds = 0 in sides  # the condition is true in `b`
            while isinstance(c, OpResult) and c.op.name == "not" and c.op.operands:
                c, holds = c.op.operands[0], not holds
            if isinstance(c, OpResult) and c.op.name == ("and" if holds else "or"):
                out.extend(c.op.operands)
        return out
