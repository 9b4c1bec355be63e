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
- a pure op: the op, its attributes, which of its results, and its operands' keys (sorted for a
  commutative op); a bitcast or copy of the same width: its operand's key (the same bits), and a half of a
  64-bit pack taken back out (`collectives.strip_moves`): that half's key;
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

from irc.analysis.collectives import COMMUTATIVE, strip_moves
from irc.analysis.ivec import IVec
from irc.ir.core import BlockArg, OpResult, Value

MAX_DEPTH = 200


class _Scalar(Exception):
    """The all-threads walk cannot promise the per-thread walk's keys (a chain near `MAX_DEPTH`, an operand
    defined in a loop its user is not in): the per-thread walk takes over."""


#: the all-threads walk's nesting bound: a value within it has a chain of at most VEC_DEPTH operands, so
#: the per-thread walk (two levels per value: its own and its lane group's) never reaches MAX_DEPTH
VEC_DEPTH = (MAX_DEPTH - 2) // 2


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
        # The all-threads walk (`keys`): one list of key ids per (value, loop context) for every thread of
        # the block at once, instead of one recursion per thread. Its ids are its own, but two threads get
        # equal ids exactly when the per-thread walk gives them equal keys, so `same_stored_values` answers
        # the same. Used while every warp is full (a butterfly partner then always exists, so the values a
        # walk visits do not depend on the thread); the calls it answered are kept (`_calls`) so that the
        # per-thread walk, when it takes over, first replays them and so holds the memo it would have had.
        self.vec = ev.n % 32 == 0
        self.vmemo: dict[tuple, tuple[list, int, frozenset]] = {}
        self._vintern: dict[tuple, int] = {}
        self._vnext = 0
        self._ublock: dict[int, int] = {}
        self._reps: dict[int, list] = {}
        self._calls: list[tuple] = []
        self._loopsets: dict[int, frozenset] = {}

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
        if n == "unpack_b64" and strip_moves(v) is not v:
            return self.key(strip_moves(v), t, ctx)  # a half of a pack made here: that half
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
        if op.has_trait("pure") and n != "sreg":
            ks = [self.key(o, t, ctx) for o in op.operands]
            if n in COMMUTATIVE and len(ks) == 2:
                ks.sort(key=repr)
            attrs = tuple(sorted((k, repr(x)) for k, x in op.attrs.items()))
            return (n, attrs, str(v.type), v.index, tuple(ks))  # index: which result (an unpack's half)
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

    # ---------------------------------------------------------------- every thread at once
    def same(self, vals: list, es: int, ea: Any, ec: Any) -> bool:
        """`same_stored_values`'s walk over the two stores' entries: by the all-threads walk while it can
        promise the per-thread walk's answer, else by the per-thread walk."""
        if self.vec:
            try:
                same, count = _walk(vals, es, ea, ec, self._root_keys())
            except _Scalar:
                self._to_scalar()
            else:
                self._calls.append((vals, es, ea, ec, count))
                return same
        return _walk(vals, es, ea, ec, self.key)[0]

    def _to_scalar(self) -> None:
        """Hand over to the per-thread walk for good: replay the keys it would have computed for the calls
        the all-threads walk answered, in their order, so its memo is the one it would hold."""
        self.vec = False
        calls, self._calls = self._calls, []
        self.vmemo.clear()
        for vals, es, ea, ec, count in calls:
            _walk(vals, es, ea, ec, self.key, limit=count)

    def _root_keys(self):  # type: ignore[no-untyped-def]
        """key(x, t, cx) for `_walk`, answered from the all-threads walk's list of x in cx."""
        rows: dict[tuple[int, int], list] = {}

        def at(x: Value, t: int, cx: dict) -> object:
            row = rows.get((id(x), id(cx)))
            if row is None:
                keys, height = self.keys(x, cx)
                if height > VEC_DEPTH:
                    raise _Scalar
                row = rows[(id(x), id(cx))] = keys
            return row[t]

        return at

    def keys(self, v: Value, ctx: dict, depth: int = 0) -> tuple[list, int]:
        """The key ids of `v` in `ctx` for every thread, and the length of its longest operand chain."""
        blk = v.block if isinstance(v, BlockArg) else (v.op.block if isinstance(v, OpResult) else None)
        ck = self.ev._key(blk, ctx) if blk is not None else ()  # noqa: SLF001 - the evaluator's own context key
        mk = (id(v), ck)
        hit = self.vmemo.get(mk)
        if hit is None:
            if depth > VEC_DEPTH:
                raise _Scalar
            hit = self.vmemo[mk] = self._keys(v, ctx, ck, blk, depth)
        keys, height, outside = hit
        # loops the operand chain enters that v's own block is not in: the context must not name them, or
        # two contexts that agree on v's loops could disagree below it (the per-thread memo would then give
        # the threads it has not yet seen the other context's keys)
        if outside and not outside.isdisjoint(ctx):
            raise _Scalar
        return keys, height

    def _keys(self, v: Value, ctx: dict, ck: tuple, blk: Any, depth: int) -> tuple[list, int, frozenset]:
        ev = self.ev
        n = ev.n
        num = ev.value(v, ctx)
        if num is not None:
            xs = num.v if isinstance(num, IVec) else num.tolist()
            ids = {x: self._vid(("i", int(x))) for x in set(xs)}
            return [ids[x] for x in xs], 0, _NONE
        rep = self._rep(self.groups.mask(v))
        if isinstance(v, BlockArg):
            if v.block is ev.cfg.entry and not ev.cfg.preds.get(v.block):  # a parameter: one value
                return [self._vid(("param", id(v)))] * n, 0, _NONE
            sel = self._diamond(v)
            if sel is not None:  # `c ? x : y` at a two-way join, each thread as its group's first lane
                cols, height, outside = self._operands(list(sel), blk, ctx, depth)
                base = [self._vid(("sel", a, b, c)) for a, b, c in zip(*cols)]
                return ([base[r] for r in rep] if rep is not None else base), height, outside
            tag = ("arg", id(v), ck)
            return [self._vid((tag, r)) for r in (rep or range(n))], 0, _NONE
        if not isinstance(v, OpResult):
            return self._unique(v), 0, _NONE
        op = v.op
        name = op.name
        height = 0
        outside: frozenset = _NONE
        if name == "const":
            base = [self._vid(("c", repr(op.attrs.get("value")), str(v.type)))] * n
        elif name in ("bitcast", "copy") and len(op.operands) == 1 and _width(op.operands[0]) == _width(v):
            base, height, outside = self._operands(op.operands, blk, ctx, depth)
            base = base[0]
        elif name == "unpack_b64" and strip_moves(v) is not v:
            (base,), height, outside = self._operands([strip_moves(v)], blk, ctx, depth)
        elif name == "shfl" and op.attrs.get("mode") == "bfly" and op.attrs.get("c", 31) in (31, None):
            d = ev.value(op.operands[1], ctx) if len(op.operands) > 1 else None
            if d is None:
                base = self._unique(v)
                outside = frozenset(self._loops(_block(op.operands[1])) - self._loops(blk)) or _NONE
            else:
                ds = d.v if isinstance(d, IVec) else d.tolist()
                (src,), height, outside = self._operands(op.operands[:1], blk, ctx, depth, op.operands[1:2])
                base = [src[(t & ~31) | ((t & 31) ^ (int(ds[t]) & 31))] for t in range(n)]
        elif name in ("load", "load_vec") and not op.attrs.get("volatile") and op.operands:
            if self.groups.facts.level(v) < self.groups.facts.level(op.operands[0]):
                base = self._unique(v)
            else:
                (addr,), height, outside = self._operands(op.operands[:1], blk, ctx, depth)
                tag = ("ld", id(op), op.results.index(v))
                base = [self._vid((tag, x)) for x in addr]
        elif op.has_trait("pure") and name != "sreg":
            cols, height, outside = self._operands(op.operands, blk, ctx, depth)
            attrs = tuple(sorted((k, repr(x)) for k, x in op.attrs.items()))
            sig = self._vid(("op", name, attrs, str(v.type), v.index))
            if not cols:
                rows: Any = [()] * n
            elif name in COMMUTATIVE and len(cols) == 2:
                rows = [(x, y) if x <= y else (y, x) for x, y in zip(cols[0], cols[1])]  # either order
            else:
                rows = list(zip(*cols))
            memo = self._vintern
            base = []
            for r in rows:
                i = memo.get((sig, r))
                if i is None:
                    i = memo[(sig, r)] = self._vnext
                    self._vnext += 1
                base.append(i)
        else:
            base = self._unique(v)
        if rep is not None:
            base = [base[r] for r in rep]  # lanes of one group hold one value: the group's first lane's
        return base, height, outside

    def _operands(self, operands, blk, ctx, depth, evaluated=()):  # type: ignore[no-untyped-def]
        """The operands' key lists (walked in order), 1 + their longest chain, and the loops they or the
        values below them are in that `blk` is not (`evaluated`: operands only evaluated, not keyed)."""
        cols = []
        height = 0
        outside: set = set()
        own = self._loops(blk)
        for o in operands:
            keys, h = self.keys(o, ctx, depth + 1)
            cols.append(keys)
            height = max(height, h + 1)
            outside |= self.vmemo_outside(o, ctx)
        for o in (*operands, *evaluated):
            outside |= self._loops(_block(o)) - own
        return cols, height, frozenset(outside) if outside else _NONE

    def vmemo_outside(self, v: Value, ctx: dict) -> frozenset:
        blk = _block(v)
        ck = self.ev._key(blk, ctx) if blk is not None else ()  # noqa: SLF001
        return self.vmemo[(id(v), ck)][2]

    def _loops(self, blk: Any) -> frozenset:
        if blk is None:
            return _NONE
        hit = self._loopsets.get(id(blk))
        if hit is None:
            hit = self._loopsets[id(blk)] = frozenset(self.ev.loops_of(blk))
        return hit

    def _vid(self, k: tuple) -> int:
        i = self._vintern.get(k)
        if i is None:
            i = self._vintern[k] = self._vnext
            self._vnext += 1
        return i

    def _unique(self, v: Value) -> list:
        """("u", v, t) for every thread t: ids of v's own, one per thread."""
        base = self._ublock.get(id(v))
        if base is None:
            base = self._ublock[id(v)] = self._vnext
            self._vnext += self.ev.n
        return list(range(base, base + self.ev.n))

    def _rep(self, m: int) -> list | None:
        """Each thread's lane-group representative for the mask `m` (None: every thread its own)."""
        if m & 31 == 31:
            return None
        hit = self._reps.get(m)
        if hit is None:
            hit = self._reps[m] = [(t & ~31) | ((t & 31) & m) for t in range(self.ev.n)]
        return hit


_NONE: frozenset = frozenset()


def _block(v: Value) -> Any:
    return v.block if isinstance(v, BlockArg) else (v.op.block if isinstance(v, OpResult) else None)


def _walk(vals: list, es: int, ea: Any, ec: Any, key: Any, limit: int = -1) -> tuple[bool, int]:
    """Whether every byte the entries collide on is written with one key, and how many keys were asked
    (the first `limit` keys only, without comparing, when `limit` is not negative)."""
    owner: dict[int, object] = {}
    count = 0
    for e in (ea, ec):
        threads, addrs, cis, cts = e
        for i in range(len(threads)):
            t, base, cx = int(threads[i]), int(addrs[i]), cts[int(cis[i])]
            for k, x in enumerate(vals):
                if count == limit:
                    return True, count
                count += 1
                kk = (k, key(x, t, cx))
                if limit >= 0:
                    continue
                for byte in range(base + k * es, base + (k + 1) * es):
                    if owner.setdefault(byte, kk) != kk:
                        return False, count
    return True, count


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
        vk = ctx.cache["valuekeys"] = ValueKeys(ev, lane_groups(ctx, ev if ev.ntid_known else None))
    return vk.same(vals, es, ea, ec)
