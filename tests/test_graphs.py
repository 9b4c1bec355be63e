"""`irc.ir.graphs` against networkx, the reference, on random directed graphs."""

from __future__ import annotations

import networkx as nx
from hypothesis import given, settings
from hypothesis import strategies as st

from irc.ir.graphs import (
    immediate_dominators,
    reverse_postorder,
    sink_components,
    strongly_connected_components,
)

graphs = st.integers(1, 14).flatmap(
    lambda n: st.tuples(
        st.just(n), st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=40)
    )
)


def _build(n: int, edges: list[tuple[int, int]]) -> tuple[nx.DiGraph, dict[int, list[int]]]:
    g = nx.DiGraph()
    g.add_nodes_from(range(n))
    succ: dict[int, list[int]] = {i: [] for i in range(n)}
    for u, v in edges:
        if v not in succ[u]:
            succ[u].append(v)
        g.add_edge(u, v)
    return g, succ


@settings(max_examples=300, deadline=None)
@given(graphs)
def test_dominators_match_networkx(case: tuple[int, list[tuple[int, int]]]) -> None:
    n, edges = case
    g, succ = _build(n, edges)
    ours = immediate_dominators(0, succ.__getitem__)
    ref = dict(nx.immediate_dominators(g, 0))
    ref[0] = None  # networkx maps the start to itself (older) or leaves it out (newer)
    assert ours == ref
    assert set(reverse_postorder(0, succ.__getitem__)) == set(nx.descendants(g, 0)) | {0}


@settings(max_examples=300, deadline=None)
@given(graphs)
def test_components_match_networkx(case: tuple[int, list[tuple[int, int]]]) -> None:
    n, edges = case
    g, succ = _build(n, edges)
    ours = strongly_connected_components(range(n), succ.__getitem__)
    ref = list(nx.strongly_connected_components(g))
    assert sorted(map(sorted, ours)) == sorted(map(sorted, ref))
    cond = nx.condensation(g)
    sinks = [set(cond.nodes[c]["members"]) for c in cond.nodes if cond.out_degree(c) == 0]
    assert sorted(map(sorted, sink_components(range(n), succ.__getitem__))) == sorted(map(sorted, sinks))


def test_components_ignore_edges_leaving_the_node_set() -> None:
    succ = {0: [1], 1: [0, 2], 2: [2]}
    assert strongly_connected_components([0, 1], succ.__getitem__) == [{0, 1}]
    assert sink_components([0, 1], succ.__getitem__) == [{0, 1}]


def test_deep_chain_needs_no_recursion() -> None:
    n = 20_000
    succ = {i: [i + 1] for i in range(n - 1)} | {n - 1: [0]}
    assert immediate_dominators(0, succ.__getitem__)[n - 1] == n - 2
    assert len(strongly_connected_components(range(n), succ.__getitem__)) == 1
