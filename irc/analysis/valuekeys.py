"""Value keys: whether two threads hold the same value of an IR value, decided by congruence.

Why: `shared-race` must not call two stores of one value a race, and GPU code stores one value from
many threads all the time: after an xor butterfly every lane of a group holds the group's total (Triton's
partial-warp reductions); a layout conversion writes a value that several warps hold because they loaded
it from one address (Triton's replicated layouts). The lattice cannot see either.

`key(v, t, ctx)` is a hashable description of `v`'s value in thread `t` (a linear thread id of the block
the evaluation runs, in the loop-iteration context `ctx`) such that equal keys mean equal values:
- an integer the per-thread evaluation decides: its number;
- a constant: itself;
- a load (not volatile; of a vector load, one element) at an address: the load, the element and the
  address's key (one address, one value, in one
  barrier interval: a write between the two reads would itself be the race reported);
- `shfl.bfly(x, d)` over the whole warp: x's key in lane `t ^ d`;
- a pure op: the op, its attributes and its operands' keys (sorted for a commutative op); a bitcast or
  copy of the same width: its operand's key (the same bits);
- a parameter (an argument of the entry block): itself, in every thread;
- a block argument `c ? x : y` at the two-way join of a `cbr c` (a masked load `mov 0; @p ld`): the
  keys of c, x and y;
- another block argument: per lane group (`irc.analysis.lanegroups`) and loop iteration: lanes that agree in
  the bits its mask keeps share it; any value of a lane group is keyed as its group's first lane (an
  argmax's symmetric step holds one pair per group though its terms name the lanes in either order);
- anything else (an atomic, another shuffle, a call): unique to the thread.
Unequal keys say nothing: the check then keeps the finding (precision, never a guess that hides a bug).
"""

from __future__ import annotations

from typing import Any

from irc.analysis.collectives import COMMUTATIVE
from irc.ir.core import BlockArg, OpResult, Value

MAX_DEPTH = 200


class ValueKeys:
    def __init__(self, ev: Any, groups: Any) -> None:
        self.ev = ev
        self.groups = groups
        self.memo: dict[tuple, object] = {}
        self._depth = 0
        # keys are hash-consed to small integers: a butterfly's key tree doubles per step and an argmax's
        # select chain refers to each operand several times, so nested tuples would grow exponentially
        self._intern: dict[tuple, int] = {}
        self._sel: dict[int, tuple[Value, Value, Value] | None] = {}

    def _id(self, k: tuple) -> int:
        i = self._intern.get(k)
        if i is None:
            i = self._intern[k] = len(self._intern)
        return i

    def key(self, v: Value, t: int, ctx: dict) -> object:
        blk = v.block if isinstance(v, BlockArg) else (v.op.block if isinstance(v, OpResult) else None)
        mk = (id(v), t, self.ev._key(blk, ctx) if blk is not None else ())  # noqa: SLF001 - the evaluator's own context key
        hit = self.memo.get(mk)
        if hit is not None:
            return hit
        if self._depth >= MAX_DEPTH:
            return ("deep", id(v), t)
        self._depth += 1
        try:
            out = self._key(v, t, ctx)
        finally:
            self._depth -= 1
        if isinstance(out, tuple):
            out = self._id(out)
        self.memo[mk] = out
        return out

    def _key(self, v: Value, t: int, ctx: dict) -> object:
        num = self.ev.value(v, ctx)
        if num is not None:
            return ("i", int(num[t]))
        m = self.groups.mask(v)
        rep = (t // 32) * 32 + ((t % 32) & m)
        if isinstance(v, BlockArg):
            if v.block is self.ev.cfg.entry and not self.ev.cfg.preds.get(v.block):  # a parameter: one value
                return ("param", id(v))
            sel = self._diamond(v)
            if sel is not None:  # `c ? x : y` at a two-way join: computed at the group's first lane
                c, x, y = sel
                return ("sel", self.key(c, rep, ctx), self.key(x, rep, ctx), self.key(y, rep, ctx))
            # one loop-carried value per iteration: the context is part of the key
            return ("arg", id(v), rep, self.ev._key(v.block, ctx))  # noqa: SLF001
        if not isinstance(v, OpResult):
            return ("u", id(v), t)
        if rep != t:
            return self.key(v, rep, ctx)  # lanes of one group hold one value: the group's first lane's
        op = v.op
        n = op.name
        if n == "const":
            return ("c", repr(op.attrs.get("value")), str(v.type))
        if n in ("bitcast", "copy") and len(op.operands) == 1 and _width(op.operands[0]) == _width(v):
            return self.key(op.operands[0], t, ctx)  # the same bits under another type
        if n == "shfl" and op.attrs.get("mode") == "bfly" and op.attrs.get("c", 31) in (31, None):
            d = self.ev.value(op.operands[1], ctx) if len(op.operands) > 1 else None
            if d is not None:
                src = (t // 32) * 32 + ((t % 32) ^ (int(d[t]) & 31))
                if 0 <= src < self.ev.n:
                    return self.key(op.operands[0], src, ctx)
            return ("u", id(v), t)
        if n in ("load", "load_vec") and not op.attrs.get("volatile") and op.operands:
            if self.groups.facts.level(v) < self.groups.facts.level(op.operands[0]):
                return ("u", id(v), t)  # the lattice saw a store that can race this load
            # element k of one load instruction at one address: one value
            return ("ld", id(op), op.results.index(v), self.key(op.operands[0], t, ctx))
        if len(op.results) == 1 and op.has_trait("pure") and n != "sreg":
            ks = [self.key(o, t, ctx) for o in op.operands]
            if n in COMMUTATIVE and len(ks) == 2:
                ks.sort(key=repr)
            attrs = tuple(sorted((k, repr(x)) for k, x in op.attrs.items()))
            return (n, attrs, str(v.type), tuple(ks))
        return ("u", id(v), t)

    def _diamond(self, v: BlockArg) -> tuple[Value, Value, Value] | None:
        """(c, x, y) when block argument `v` is `c ? x : y`: its block joins exactly the two arms of the
        `cbr c` that immediately dominates it (a predicated `@p ld` after `mov 0`, lifted as a split, is
        the usual one), each incoming edge coming from one arm only. None for loop headers and other
        merges."""
        hit = self._sel.get(id(v), False)
        if hit is not False:
            return hit  # type: ignore[return-value]
        self._sel[id(v)] = out = _diamond(self.ev.cfg, v)
        return out


def _diamond(cfg: Any, v: BlockArg) -> tuple[Value, Value, Value] | None:
    j = v.block
    preds = cfg.preds.get(j, [])
    d = cfg.idom.get(j)
    t = d.terminator if d is not None else None
    if len(preds) != 2 or t is None or t.name != "cbr" or not t.operands or len(t.successors) != 2:
        return None
    if t.successors[0] is t.successors[1]:
        return None
    idx = j.args.index(v)
    side: list[Value | None] = [None, None]
    for p in preds:
        pt = p.terminator
        if pt is None:
            return None
        if p is d:
            arms = [i for i, s in enumerate(t.successors) if s is j]
        else:
            arms = [
                i for i, s in enumerate(t.successors) if cfg.preds.get(s, []) == [d] and cfg.dominates(s, p)
            ]
        incoming = [a for s, a in zip(pt.successors, pt.succ_args) if s is j]
        if len(arms) != 1 or len(incoming) != 1 or side[arms[0]] is not None or idx >= len(incoming[0]):
            return None
        side[arms[0]] = incoming[0][idx]
    if side[0] is None or side[1] is None:
        return None
    return t.operands[0], side[0], side[1]


def _width(v: Value) -> int:
    from irc.ir.types import bit_width

    try:
        return bit_width(v.type)
    except Exception:  # noqa: BLE001 - no register width
        return -1


def same_stored_values(ctx: Any, ev: Any, a: Any, ea: Any, c: Any, ec: Any) -> bool:
    """Every byte the two stores' entries collide on is written with values of equal keys (one store
    instruction, so one element per byte offset): the writes are of one value. Entries are
    `irc.analysis.races.entries` results (threads, addresses, context index, contexts)."""
    from irc.analysis.lanegroups import lane_groups
    from irc.analysis.shared_loc import access_bytes
    from irc.ir.types import size_of

    if a.op is not c.op or a.op.name not in ("store", "store_vec") or a.atomic:
        return False
    vals = a.op.operands[1:]
    try:
        sizes = [size_of(x.type) for x in vals]
    except Exception:  # noqa: BLE001 - an aggregate: not judged
        return False
    if not vals or len(set(sizes)) != 1:
        return False
    es = sizes[0]
    moved = access_bytes(a.op)  # `st.b8` of a 32-bit register writes its low byte: one byte per value
    if moved is not None and moved < es * len(vals):
        if moved % len(vals):
            return False
        es = moved // len(vals)
    vk = ctx.cache.get("valuekeys")
    if vk is None or vk.ev is not ev:
        vk = ctx.cache["valuekeys"] = ValueKeys(ev, lane_groups(ctx))
    owner: dict[int, object] = {}
    for e in (ea, ec):
        threads, addrs, cis, cts = e
        for i in range(len(threads)):
            t, base, cx = int(threads[i]), int(addrs[i]), cts[int(cis[i])]
            for k, x in enumerate(vals):
                kk = (k, vk.key(x, t, cx))
                for byte in range(base + k * es, base + (k + 1) * es):
                    if owner.setdefault(byte, kk) != kk:
                        return False
    return True
