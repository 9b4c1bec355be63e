"""Values made uniform by a warp collective: the full xor-butterfly all-reduce.

Why: `for d in [16, 8, 4, 2, 1] { m = max(m, shfl_xor(m, d)); }` leaves *every* lane with a bitwise
identical value. Each step combines `a op b` in one lane with `b op a` in its partner (lane ^ d); for a
commutative `op` these are the same bits, so after the step the lanes of each xor-closed group of size
2^k agree, and once all five offsets 1, 2, 4, 8, 16 are used the whole warp agrees. Masked softmax then
branches on the all-reduced row max (`if m == -inf`) and shuffles inside, which is correct.

The rule is structural (computed once before the fixpoint): a chain `r = op(x, shfl.bfly(x, d))` with
`op` commutative (add, mul, max, min, and, or, xor), a constant power-of-two offset d < 32 used once, a
full mask and the whole warp as segment (`c` = 31 or absent). Only a chain covering all five offsets
makes the result WARP, and only while every shuffle of the chain runs under warp-uniform control (the
solver re-evaluates the combining op when the control of a shuffle's block gets less uniform). A
half-warp butterfly (offsets 8, 4, 2, 1) or one missing a step is not uniform.
"""

from __future__ import annotations

import weakref
from typing import TYPE_CHECKING

from irc.analysis.uniformity_base import Level, Reason, const_value
from irc.ir.core import Op, OpResult, Value

if TYPE_CHECKING:
    from irc.analysis.uniformity import Solver

COMMUTATIVE = frozenset({"add", "mul", "max", "min", "and", "or", "xor"})
_FULL = (0xFFFFFFFF, -1)
ALL_OFFSETS = 0b11111
_SHFL_OR_COPY = frozenset({"shfl", "copy", "bitcast"})


def strip_copies(v: Value) -> Value:
    """`v` through copies and bitcasts (the same bits under another name or type)."""
    for _ in range(16):
        if isinstance(v, OpResult) and v.op.name in ("copy", "bitcast") and v.op.operands:
            v = v.op.operands[0]
        else:
            break
    return v


def strip_moves(v: Value) -> Value:
    """`v` through copies, bitcasts and a half taken back out of a 64-bit pack (`mov.b64 {lo, hi}, d`
    of `mov.b64 d, {a, b}` is a or b: how sm_100 code moves `f32x2` pairs between packed and scalar ops)."""
    for _ in range(16):
        v = strip_copies(v)
        if isinstance(v, OpResult) and v.op.name == "unpack_b64" and v.op.operands:
            src = strip_copies(v.op.operands[0])
            if isinstance(src, OpResult) and src.op.name == "pack_b64" and len(src.op.operands) == 2:
                v = src.op.operands[v.index]
                continue
        break
    return v


def bfly_step(x: Value, y: Value) -> tuple[int, Op] | None:
    """(offset, shfl op) when y is `shfl.bfly(x, offset)` over the full warp, else None."""
    y = strip_moves(y)
    if not (isinstance(y, OpResult) and y.op.name == "shfl" and y.op.attrs.get("mode") == "bfly"):
        return None
    sh = y.op
    if len(sh.operands) < 2 or strip_moves(sh.operands[0]) is not strip_moves(x):
        return None
    d = const_value(sh.operands[1])
    if isinstance(d, bool) or not isinstance(d, int) or d <= 0 or d >= 32 or d & (d - 1):
        return None
    if len(sh.operands) > 2:
        m = const_value(sh.operands[2])
        if isinstance(m, bool) or m not in _FULL:
            return None
    c = sh.attrs.get("c")
    if c is not None and c != 31:
        return None
    return d, sh


def structural(s: Solver, op: Op) -> None:
    """Record the butterfly offsets covered by `op`'s result (s.bfly) and the shuffles of its chain."""
    if op.name not in COMMUTATIVE or len(op.operands) != 2 or not op.results:
        return
    a, b = op.operands
    for x, y in ((a, b), (b, a)):
        if not (isinstance(y, OpResult) and y.op.name in _SHFL_OR_COPY):
            continue
        step = bfly_step(x, y)
        if step is None:
            continue
        d, sh = step
        xs = strip_copies(x)
        prev = s.bfly.get(xs, 0)
        if prev & d:
            continue
        r = op.results[0]
        s.bfly[r] = prev | d
        s.bfly_chain[r] = s.bfly_chain.get(xs, ()) + (sh,)
        return


def all_reduced(s: Solver, op: Op) -> bool:
    """`op` completes a full butterfly whose shuffles all run under warp-uniform control."""
    r = op.results[0] if op.results else None
    if r is None or s.bfly.get(r) != ALL_OFFSETS:
        return False
    return all(s.blk.get(sh.block, Level.GRID) >= Level.WARP for sh in s.bfly_chain[r])  # type: ignore[arg-type]


def full_activemask_test(op: Op) -> tuple[Level, Reason | None] | None:
    """`activemask() == 0xffffffff` (or `!=`) is uniform across the warp: a lane sees the full mask only
    when all 32 lanes execute that instruction together, and then every lane sees it. nvcc specializes
    coalesced-group code on it (`if (__activemask() == ~0u)` then full-mask ballots)."""
    if op.attrs.get("pred") not in ("eq", "ne") or len(op.operands) != 2:
        return None
    a, b = (strip_copies(o) for o in op.operands)
    for x, y in ((a, b), (b, a)):
        c = const_value(y)
        if isinstance(x, OpResult) and x.op.name == "activemask" and not isinstance(c, bool) and c in _FULL:
            return Level.WARP, Reason("seed", "a test of the full active mask (uniform per warp)")
    return None


_REGIONS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # CFG -> [(test block, full successor)]


def _full_tests(cfg) -> list:  # type: ignore[no-untyped-def]
    """The branches on `activemask() == 0xffffffff` of a function, with the successor where it holds
    (computed once per CFG; empty, and free, for the many kernels without `activemask`)."""
    hit = _REGIONS.get(cfg)
    if hit is not None:
        return hit
    out = []
    if any(op.name == "activemask" for b in cfg.rpo for op in b.ops):
        for x in cfg.rpo:
            t = x.terminator
            if t is None or t.name != "cbr" or not t.operands or len(t.successors) != 2:
                continue
            c = strip_copies(t.operands[0])
            neg = False
            while isinstance(c, OpResult) and c.op.name == "not" and c.op.operands:
                c, neg = strip_copies(c.op.operands[0]), not neg
            if not (
                isinstance(c, OpResult) and c.op.name == "cmp" and c.op.attrs.get("pred") in ("eq", "ne")
            ):
                continue
            a, k = (strip_copies(o) for o in c.op.operands)
            if not (isinstance(a, OpResult) and a.op.name == "activemask"):
                a, k = k, a
            kv = const_value(k)
            if (
                isinstance(a, OpResult)
                and a.op.name == "activemask"
                and not isinstance(kv, bool)
                and kv in _FULL
            ):
                holds_on_true = (c.op.attrs.get("pred") == "eq") != neg
                s_full = t.successors[0 if holds_on_true else 1]
                if s_full is not t.successors[1 if holds_on_true else 0]:
                    out.append((x, s_full))
    _REGIONS[cfg] = out
    return out


def in_full_warp_region(cfg, b, divergent) -> bool:  # type: ignore[no-untyped-def]
    """`b` runs only after this thread saw `activemask() == 0xffffffff` (the branch edge on which the test
    holds dominates `b`): all 32 lanes were executing together there, whatever diverged before, so a
    full-mask collective in `b` has every lane unless one of the `divergent` branches it depends on lies
    inside that region. Used by the warp-sync check for nvcc's specialization of coalesced-group code."""
    for _x, s_full in _full_tests(cfg):
        if cfg.dominates(s_full, b):
            return not any(cfg.dominates(s_full, d) for d in divergent)
    return False
