"""Benign reads of `undef` in lifted PTX: correlated predication (a must-facts dataflow over the CFG).

Reading a register with no write on some path from the entry reads `undef` (the analyzer reports
`uninitialized` on uses of `undef`). Generators emit *correlated predication* (`@%p1 ld %f1, [..]` ...
`@%p1 st [..], %f1`): `%f1` is undefined on the `!%p1` path but never read there. The rule: a read of a
value into which `undef` flows (through block arguments) is *benign* when every edge through which `undef`
enters is taken only when some condition `c` has a polarity `s` (`c` is the SSA predicate of a `cbr`;
equal `cmp`s of equal operands count as the same `c`, `not` flips `s`) and the read itself is reachable
only when `c` has polarity `!s` (must-facts of a forward dataflow over the CFG). A read directly of `undef`
(no write on any path) is never benign. The lifter replaces an `undef` all of whose reads are benign by
`const 0` (a legal choice for an unspecified value that is never observed).
A half of `mov.b64 d, {lo, hi}` that every unpack of `d` discards (`mov.b64 {lo, _}, d`) is never read.
Known imprecision: an `undef` shared by a benign and a non-benign read is reported for both; a guard
redefined inside a loop between the skipped write and the read is trusted (same SSA value).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from irc.floatbits import value_key
from irc.ir.core import Block, Function, Op, OpResult, Value

__all__ = ["benign_undefs", "guard_facts", "all_reads_benign"]


def benign_undefs(fn: Function, undefs: Iterable[Value]) -> list[Value]:
    """The used `undef` values of `fn` every read of which is benign (see the module docstring)."""
    used = [u for u in undefs if u.uses]
    if not used:
        return []
    facts, edge_facts = guard_facts(fn)
    return [u for u in used if all_reads_benign(u, facts, edge_facts)]


def _pkey(v: Value, depth: int = 0) -> Any:
    """Structural key of a predicate value: equal `cmp`s of equal operands are the same condition."""
    if isinstance(v, OpResult) and depth < 4:
        op = v.op
        if op.name == "cmp":
            return ("cmp", op.attrs.get("pred"), *(_pkey(o, depth + 1) for o in op.operands))
        if op.name == "const":
            return ("const", value_key(op.attrs.get("value")), str(v.type))
        if op.name in ("sreg", "shared_addr"):
            return (op.name, tuple(op.attrs.items()))
        if op.name in ("bitcast", "cvt"):
            return (op.name, str(v.type), _pkey(op.operands[0], depth + 1))
    return id(v)


def _fact(c: Value, pol: bool) -> tuple[Any, bool]:
    while isinstance(c, OpResult) and c.op.name == "not":
        c, pol = c.op.operands[0], not pol
    return (_pkey(c), pol)


def guard_facts(fn: Function) -> tuple[dict[Block, frozenset], dict[tuple[Block, int], frozenset]]:
    """Must-facts (condition key, polarity) that hold on entry to each block / along each edge."""
    blocks = fn.blocks
    edge_add: dict[Block, list[tuple[Any, bool]]] = {}
    for b in blocks:
        t = b.ops[-1] if b.ops else None
        if t is not None and t.name == "cbr":
            c = t.operands[0]
            edge_add[b] = [_fact(c, True), _fact(c, False)]
    preds: dict[Block, list[tuple[Block, int]]] = {b: [] for b in blocks}
    for b in blocks:
        t = b.ops[-1] if b.ops else None
        if t is None:
            continue
        for si, s in enumerate(t.successors):
            preds[s].append((b, si))
    TOP = None
    facts: dict[Block, frozenset | None] = {b: TOP for b in blocks}
    facts[fn.entry] = frozenset()

    def efacts(b: Block, si: int) -> frozenset | None:
        f = facts[b]
        if f is None:
            return None
        ea = edge_add.get(b)
        return f | {ea[si]} if ea is not None else f

    changed = True
    while changed:
        changed = False
        for b in blocks[1:]:
            acc: frozenset | None = None
            for pb, si in preds[b]:
                e = efacts(pb, si)
                if e is None:
                    continue
                acc = e if acc is None else acc & e
            if acc is not None and acc != facts[b]:
                facts[b] = acc
                changed = True
    out = {b: (f or frozenset()) for b, f in facts.items()}
    edges = {}
    for b in blocks:
        for pb, si in preds[b]:
            edges[(pb, si)] = efacts(pb, si) or frozenset()
    return out, edges


def _half_never_read(pack: Op, v: Value) -> bool:
    """`v` is a half of `pack` (`mov.b64 d, {lo, hi}`) that nothing reads back: every use of the packed
    value is an unpack (`mov.b64 {lo, _}, d`) whose result for that half is unused."""
    ks = [k for k, o in enumerate(pack.operands) if o is v]
    users = pack.results[0].users if pack.results else []
    if not ks or not users:
        return False
    return all(
        u.name in ("unpack_b64", "unpack_b32")
        and all(k < len(u.results) and not u.results[k].uses for k in ks)
        for u in users
    )


def all_reads_benign(u: Value, facts: dict, edge_facts: dict) -> bool:
    """True when every read of a value into which `u` flows is guarded by a condition whose negation
    holds on every edge through which `u` enters a block argument (see the module docstring)."""
    direct: set[Value] = {u}  # u and its conversions
    seen: set[Value] = {u}
    entries: list[frozenset] = []
    reads: list[Op] = []
    work = [u]
    while work:
        v = work.pop()
        is_direct = v in direct
        for op in v.users:
            if op.successors:
                for si, (s, args) in enumerate(zip(op.successors, op.succ_args)):
                    for i, x in enumerate(args):
                        if x is v:
                            if is_direct:
                                entries.append(edge_facts.get((op.block, si), frozenset()))
                            a = s.args[i]
                            if a not in seen:
                                seen.add(a)
                                work.append(a)
                if any(o is v for o in op.operands):
                    if is_direct:
                        return False
                    reads.append(op)
            elif op.name in ("pack_b64", "pack_b32") and _half_never_read(op, v):
                continue  # LLVM packs a value with an undefined partner and unpacks only the defined half
            elif op.name in ("bitcast", "cvt") and len(op.operands) == 1:
                r = op.results[0]
                if r not in seen:
                    seen.add(r)
                    if is_direct:
                        direct.add(r)
                    work.append(r)
            else:
                if is_direct:
                    return False
                reads.append(op)
    for op in reads:
        rf = facts.get(op.block)
        if not rf:
            return False
        for ef in entries:
            if not any((k, not pol) in ef for k, pol in rf):
                return False
    return True
