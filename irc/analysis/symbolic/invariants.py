"""Difference invariants between the loop-carried values the encoding leaves unknown.

The encoder (`irc.analysis.symbolic.encode`) gives a loop-header argument that is not an induction
variable a fresh symbol: its value in the iteration a query is about. That loses what the program keeps
in step. libcu++'s `cuda::pipeline` keeps a head and a tail counter: `producer_commit` steps the head,
`consumer_wait` steps the tail (under a test that the counters never meet), and the wait selects
`cp.async.wait_group (head - tail)` through a switch of nine cases. Which case runs is fixed by
`head - tail`, which the program never changes, but to the encoding the tail is any value, so every case
looks possible.

`relations(sym, th)` states, for each such symbol of thread `th`, the proven facts `a == b + c` with `b`
another argument of the same loop header and `c` a constant. Each fact is proven by induction with the
solver, once per pair of arguments:
- base: both arguments enter the loop with constants, and `c` is their difference (mod 2^width);
- step: from a scratch thread in any iteration where `a - b == c` holds at the header, no back edge
  passes values whose difference is not `c` (UNSAT). The encoding over-approximates the body, so UNSAT
  proves the step.

Only queries that ask for them include these facts (`irc.analysis.symbolic.asyncq.edge_live`); the
definitional constraints every query shares are unchanged.
"""

from __future__ import annotations

from typing import Any

from irc.analysis.cfg import Loop
from irc.analysis.uniformity_base import const_value
from irc.ir.core import BlockArg
from irc.ir.types import ScalarType, bit_width

MAX_PARTNERS = 8  # other header arguments tried per argument
SCRATCH = "inv"  # the thread the induction steps are asked of


def _width(a: BlockArg) -> int:
    t = a.type
    if not isinstance(t, ScalarType) or not t.is_int:
        return 0
    try:
        return bit_width(t)
    except Exception:  # noqa: BLE001 - no register width: not related
        return 0


def _incoming(enc: Any, a: BlockArg, lp: Loop) -> tuple[list, list] | None:
    """(edges entering the loop, back edges) into `a`'s header, each (pred, successor index, value)."""
    edges = enc.arg_edges(a)
    if edges is None:
        return None
    return [e for e in edges if e[0] not in lp.blocks], [e for e in edges if e[0] in lp.blocks]


def _init(enc: Any, a: BlockArg, lp: Loop) -> int | None:
    got = _incoming(enc, a, lp)
    if got is None or not got[0] or not got[1]:
        return None
    vals = {const_value(v) for _, _, v in got[0]}
    if len(vals) != 1:
        return None
    c = next(iter(vals))
    return c if isinstance(c, int) and not isinstance(c, bool) else None


def partners(sym: Any, a: BlockArg, lp: Loop) -> list[tuple[BlockArg, int]]:
    """The proven facts `a == b + c` for header argument `a` of loop `lp`, as (b, c)."""
    memo = sym.partners
    hit = memo.get(id(a))
    if hit is not None:
        return hit
    memo[id(a)] = out = []
    enc = sym.enc
    w = _width(a)
    ia = _init(enc, a, lp) if w else None
    if ia is None:
        return out
    tried = 0
    for b in a.block.args:
        if b is a or _width(b) != w:
            continue
        ib = _init(enc, b, lp)
        if ib is None:
            continue
        tried += 1
        if tried > MAX_PARTNERS:
            break
        c = (ia - ib) % (1 << w)
        if _step_holds(sym, a, b, c, lp):
            out.append((b, c))
    return out


def _step_holds(sym: Any, a: BlockArg, b: BlockArg, c: int, lp: Loop) -> bool:
    enc = sym.enc
    z = enc.z
    s = enc.thread(SCRATCH)
    ga, gb = _incoming(enc, a, lp), _incoming(enc, b, lp)
    if ga is None or gb is None:
        return False
    cv = z.BitVecVal(c, _width(a))
    ta, tb = enc.value(a, s), enc.value(b, s)
    if z.is_bool(ta) or z.is_bool(tb) or ta.size() != tb.size():
        return False
    broken = []
    for (p, i, va), (_p, _i, vb) in zip(ga[1], gb[1]):
        xa, xb = enc.value(va, s), enc.value(vb, s)
        if z.is_bool(xa) or z.is_bool(xb) or xa.size() != xb.size() or xa.size() != ta.size():
            return False
        broken.append(z.And(enc.edge(p, i, s), xa - xb != cv))
    if not broken:
        return False
    out = sym.solve([ta - tb == cv, z.Or(*broken)], threads=(SCRATCH,), prefer=False)
    return out.unsat


def relations(sym: Any, th: Any) -> list:
    """The proven difference facts of every carried symbol `th`'s terms hold so far (see the module)."""
    enc = sym.enc
    z = enc.z
    out: list = []
    done: set[str] = set()
    suffix = f"@{th.name}"
    while True:
        todo = [n for n in enc.carried if n.endswith(suffix) and n not in done]
        if not todo:
            return out
        for name in todo:
            done.add(name)
            a, lp, x = enc.carried[name]
            if z.is_bool(x):
                continue
            for b, c in partners(sym, a, lp):
                tb = enc.value(b, th)
                if not z.is_bool(tb) and tb.size() == x.size():
                    out.append(x == tb + z.BitVecVal(c, x.size()))
