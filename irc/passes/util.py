"""Small helpers shared by the optimization passes (constants, integer wrap-around, dominators, block
rewrites)."""

from __future__ import annotations

import weakref
from collections.abc import Callable

from irc.ir.core import Block, Function, Op, OpResult, Value
from irc.ir.order import dominator_preorder, reverse_postorder
from irc.ir.types import ScalarType


def const_value(v: Value) -> object | None:
    """The constant held by `v` (a `const` result), else None."""
    if isinstance(v, OpResult) and v.op.name == "const":
        return v.op.attrs.get("value")
    return None


def is_const(v: Value) -> bool:
    return isinstance(v, OpResult) and v.op.name == "const"


def int_type(t) -> bool:
    return isinstance(t, ScalarType) and t.is_int


def wrap(n: int, t: ScalarType) -> int:
    """`n` reduced to the range of integer type `t` (two's complement for signed types)."""
    bits = t.bits
    n &= (1 << bits) - 1
    if t.is_signed and n >= 1 << (bits - 1):
        n -= 1 << bits
    return n


def reachable(fn: Function) -> list[Block]:
    """Blocks reachable from the entry, in reverse post-order."""
    return reverse_postorder(fn)


# function -> (its control-flow shape, dominator-tree preorder, idom map) from the last `dom_preorder`
_DOMS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _cfg_shape(fn: Function) -> tuple:
    """What the dominator tree depends on: the blocks and each one's successors, in order (identities:
    the cached answer holds the blocks, so they cannot be reused while it lives)."""
    return tuple([(id(b), tuple([id(s) for s in b.successors])) for b in fn.blocks])


def dom_preorder(fn: Function) -> tuple[list[Block], dict[Block, Block | None]]:
    """Dominator-tree preorder of the reachable blocks and the immediate-dominator map. Hoist and GVN
    change no edges and run back to back (twice): they share one computation while the shape holds."""
    shape = _cfg_shape(fn)
    hit = _DOMS.get(fn)
    if hit is not None and hit[0] == shape:
        return list(hit[1]), dict(hit[2])
    order, idom = dominator_preorder(fn, reachable(fn))
    _DOMS[fn] = (shape, order, idom)
    return list(order), dict(idom)


def rewrite_ops(fn: Function, want: Callable[[Op], bool], rewrite: Callable[[Op, Block], bool]) -> None:
    """Rewrite the ops `want` selects, one sweep per block: `rewrite(op, scratch)` builds any new ops at
    the end of `scratch` (they go in front of `op`) and returns True when `op` goes away (its uses already
    redirected). Why: inserting before and erasing each op in place cost a list search apiece, quadratic
    on the blocks of thousands of ops the fuzz campaign builds."""
    scratch = Block()
    for blk in fn.blocks:
        if not any(want(op) for op in blk.ops):
            continue
        new_ops: list[Op] = []
        for op in blk.ops:
            gone = want(op) and rewrite(op, scratch)
            if scratch.ops:
                for n in scratch.ops:
                    n.block = blk
                new_ops.extend(scratch.ops)
                scratch.ops = []
            if gone:
                op.drop_operands()
                op.block = None
            else:
                new_ops.append(op)
        blk.ops = new_ops
