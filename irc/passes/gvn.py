"""Global value numbering (dominator-scoped CSE): a pure op equal to one that dominates it -- same name,
attributes, result types and operands (sorted for commutative ops) -- reuses the dominating result.

Walks the dominator tree in preorder with a scoped table, so only dominating definitions are reused and
SSA dominance is preserved. Warp-collective ops are excluded (their result depends on which lanes
execute them together, which differs between program points).
"""

from __future__ import annotations

from irc.floatbits import value_key
from irc.ir.core import Block, Function, Module, Op, Value, traits_of
from irc.passes.manager import Pass, PassContext
from irc.passes.util import dom_preorder


def _freeze(v: object) -> object:
    """A hashable attribute value; floats by their bits (`-0.0` / `0.0`, `-nan` / `nan`, NaN payloads:
    distinct keys, `irc.floatbits.value_key`)."""
    return value_key(v)


class GVN(Pass):
    """Needs: verified SSA IR. Establishes: no pure, non-collective op is equal to a dominating one."""

    name = "gvn"

    def run(self, module: Module, ctx: PassContext) -> None:
        for fn in module.functions:
            self.run_function(fn)

    def run_function(self, fn: Function) -> None:
        order, idom = dom_preorder(fn)
        num: dict[Value, int] = {}
        for b in fn.blocks:
            for a in b.args:
                num[a] = len(num)
            for op in b.ops:
                for r in op.results:
                    num[r] = len(num)
        # One scoped table with an undo log per dominator-tree node (entering a block adds its keys,
        # leaving it removes them): copying the table per block is quadratic on deep dominator trees.
        kids: dict[Block, list[Block]] = {}
        roots = []
        for b in order:
            parent = idom[b]
            if parent is None:
                roots.append(b)
            else:
                kids.setdefault(parent, []).append(b)
        table: dict = {}
        for root in roots:
            stack: list[tuple[Block, list | None]] = [(root, None)]
            while stack:
                b, added = stack.pop()
                if added is not None:  # leaving b
                    for key in added:
                        del table[key]
                    continue
                added = []
                dead: set[int] = set()
                for op in b.ops:
                    key = _key(op, num)
                    if key is None:
                        continue
                    prev = table.get(key)
                    if prev is not None:
                        for r, pr in zip(op.results, prev.results):
                            r.replace_all_uses_with(pr)
                        op.drop_operands()  # erased below in one sweep: one list search per op was
                        op.block = None  # quadratic on blocks of thousands of ops
                        dead.add(id(op))
                    else:
                        table[key] = op
                        added.append(key)
                if dead:
                    b.ops = [op for op in b.ops if id(op) not in dead]
                stack.append((b, added))
                for k in reversed(kids.get(b, [])):
                    stack.append((k, None))

    @staticmethod
    def key(op: Op, num: dict[Value, int]) -> tuple | None:
        return _key(op, num)


# op name -> 0: never shared (impure, collective, a terminator), 1: shared, 2: shared and commutative
_KIND: dict[str, int] = {}


def _key(op: Op, num: dict[Value, int]) -> tuple | None:
    """What makes two ops equal, or None for an op never shared (impure, collective, a terminator)."""
    kind = _KIND.get(op.name)
    if kind is None:
        tr = traits_of(op.name)
        shareable = "pure" in tr and "warp_collective" not in tr and "terminator" not in tr
        kind = _KIND[op.name] = 0 if not shareable else 2 if "commutative" in tr else 1
    if not kind:
        return None
    try:
        ids = list(map(num.__getitem__, op.operands))
    except KeyError:  # a value defined outside the function (invalid IR): equal to nothing numbered
        ids = [num.get(v, -1) for v in op.operands]
    if kind == 2:
        ids.sort()
    attrs = op.attrs
    if not attrs:
        frozen: tuple = ()
    elif len(attrs) == 1:
        ((k, v),) = attrs.items()
        frozen = ((k, _freeze(v) if isinstance(v, (list, float)) else v),)
    else:
        frozen = tuple(sorted([(k, _freeze(v)) for k, v in attrs.items()]))
    res = op.results
    types = (str(res[0].type),) if len(res) == 1 else tuple([str(r.type) for r in res])
    return (op.name, tuple(ids), frozen, types)
