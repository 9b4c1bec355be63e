"""`passes.util.dom_preorder` shares one dominator computation between passes that change no edges; it
must never answer for a control-flow shape it was not computed on."""

from __future__ import annotations

from irc.ir.builder import Builder
from irc.ir.core import Block, Function
from irc.ir.order import dominator_preorder, reverse_postorder
from irc.ir.types import BOOL
from irc.passes.util import dom_preorder


def _fresh(fn: Function):
    return dominator_preorder(fn, reverse_postorder(fn))


def test_edges_changed_after_a_query_are_seen() -> None:
    fn = Function("k", [BOOL])
    a, b, c = (fn.add_block(Block()) for _ in range(3))
    Builder(fn.entry).cbr(fn.params[0], a, [], b, [])
    Builder(a).br(c)
    Builder(b).br(c)
    Builder(c).ret()
    first = dom_preorder(fn)
    assert first == _fresh(fn) and first[1][c] is fn.entry
    first[0].clear()  # the caller's copy: the shared answer is not touched
    assert dom_preorder(fn) == _fresh(fn)
    t = a.ops[-1]  # a now branches to b: every path to c goes through b
    t.erase()
    Builder(a).br(b)
    again = dom_preorder(fn)
    assert again == _fresh(fn) and again[1][b] is fn.entry and again[1][c] is b
