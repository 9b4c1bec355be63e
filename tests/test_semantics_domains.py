"""The op table's one semantics gives the same values in every domain: the per-thread domains of the race
evaluator (`irc.analysis.lanes`, lists and numpy) agree lane by lane with the concrete domain of constant
folding (`irc.ir.fold`), for every op with semantics, on random and edge values (hypothesis).

Why: the race evaluator used to carry its own arithmetic table (`races._arith`); now it runs each op's
`sem` on vectors. If a vector primitive differed from the scalar one (a 64-bit wrap, an arithmetic shift
of a negative lane, a signed division), the race check would see other addresses than the ones the
program computes.
"""

from __future__ import annotations

import numpy as np
from hypothesis import example, given, settings
from hypothesis import strategies as st

from irc.analysis.ivec import IVec
from irc.analysis.lanes import ListLanes, NumpyLanes
from irc.ir.fold import CONCRETE
from irc.ir.optable import OPS
from irc.ir.semantics import Unknown, kind
from irc.ir.types import PtrType, ScalarType

INT_TYPES = ["i8", "u8", "i16", "u16", "i32", "u32", "i64", "u64", "bool"]
N = 6  # lanes


def _int_ops() -> list[str]:
    return sorted(n for n, d in OPS.items() if d.sem is not None and d.has("pure") and "int" in d.sem.kinds)


def _sig(name: str, t: str):  # type: ignore[no-untyped-def]
    """(operand types, result type) of `name` at type `t`, or None."""
    d = OPS[name]
    T = ScalarType(t)
    if name == "mulwide":
        return None if t not in ("i16", "u16", "i32", "u32") else ([T, T], ScalarType(t[0] + str(2 * T.bits)))
    if name == "cvt":
        return [T], ScalarType("i16" if T.bits > 16 else "u64")
    if name == "bitcast":
        return None
    if name == "ptradd":
        return [PtrType("global", ScalarType("u32")), T], PtrType("global", ScalarType("u32"))
    if name in ("shlw", "shrw"):
        return [T, ScalarType("u32")], T
    if list(d.operands) == ["bool", "T", "T"]:
        return [ScalarType("bool"), T, T], T
    if all(c == "T" for c in d.operands):
        return [T] * len(d.operands), (ScalarType("bool") if d.results == ("bool",) else T)
    if all(c in ("i32", "u32") for c in d.operands):
        return None if t not in ("i32", "u32") else ([T] * len(d.operands), T)
    return None


def _values(t, draw_ints: list[int]) -> list[int]:  # type: ignore[no-untyped-def]
    w = t.bits
    return [v & ((1 << w) - 1) for v in draw_ints]


EDGE = [0, 1, 2, 7, 31, 32, 33, 63, 64, 65, 127, 128, 255, 2**15, 2**31 - 1, 2**31, 2**32 - 1, 2**32, 2**63 - 1,
        2**63, 2**64 - 1, -1, -2, -(2**31), -(2**63)]  # fmt: skip
ints = st.one_of(st.sampled_from(EDGE), st.integers(-(2**64), 2**64))


#: operands of the widest integer op (`bfi`: field, base, position, length)
MAX_OPERANDS = max(len(OPS[n].operands) for n in _int_ops())


@settings(max_examples=300, deadline=None)
@given(
    name=st.sampled_from(_int_ops()),
    t=st.sampled_from(INT_TYPES),
    raw=st.lists(st.lists(ints, min_size=N, max_size=N), min_size=MAX_OPERANDS, max_size=MAX_OPERANDS),
    attr_pick=st.integers(0, 100),
)
@example(
    name="bfi",
    t="u32",
    raw=[
        [5, 2**32 - 1, 3, 0, 7, 1],
        [0, 7, 2**32 - 1, 1, 2, 3],
        [0, 28, 31, 32, 40, 255],
        [4, 8, 1, 40, 0, 32],
    ],
    attr_pick=0,
)
def test_lanes_agree_with_the_concrete_domain(
    name: str, t: str, raw: list[list[int]], attr_pick: int
) -> None:
    sig = _sig(name, t)
    if sig is None:
        return
    ots, rt = sig
    d = OPS[name]
    attrs = {}
    for a, vals in d.sem.attrs.items():  # type: ignore[union-attr]
        if a in d.attrs or attr_pick % 2:
            attrs[a] = vals[attr_pick % len(vals)]
    if kind(rt) not in d.sem.kinds:  # type: ignore[union-attr]
        return
    cols = [_values(o, raw[j]) for j, o in enumerate(ots)]
    want = []
    for lane in range(N):
        try:
            want.append(d.sem(CONCRETE, [c[lane] for c in cols], rt, attrs, ots))  # type: ignore[misc]
        except Unknown:
            want.append(None)
    for dom in (ListLanes(N), NumpyLanes(np, N)):
        xs = [c if isinstance(dom, ListLanes) else np.array(c, dtype=np.uint64) for c in cols]
        try:
            got = d.sem(dom, xs, rt, attrs, ots)  # type: ignore[misc]
        except Unknown:
            # a vector is all or nothing: undefined in some lane (or too wide for numpy) is no value
            assert None in want or isinstance(dom, NumpyLanes), (name, t, attrs, cols)
            continue
        assert None not in want, (name, t, attrs, cols, "the vector domain defined an undefined lane")
        assert [int(x) for x in got] == [int(x) for x in want], (name, t, attrs, type(dom).__name__, cols)


def test_conversions_round_trip_the_race_representation() -> None:
    """`to_lanes` / `from_lanes`: values read at their type (negative for signed) <-> bit patterns."""
    vals = [0, 1, -1, -128, 127, 5]
    for t in (ScalarType("i8"), ScalarType("i32"), ScalarType("i64")):
        lst = ListLanes(len(vals))
        assert lst.from_lanes(lst.to_lanes(IVec(vals), t), t).v == vals
        npd = NumpyLanes(np, len(vals))
        assert list(npd.from_lanes(npd.to_lanes(np.array(vals, np.int64), t), t)) == vals
    u = ScalarType("u8")
    assert ListLanes(2).to_lanes(IVec([-1, 300]), u) == [255, 44]


class Term(tuple):
    """A symbolic value: an expression tree. It has no truth value, so a semantics that decided anything
    in Python on an operand's value (instead of with `ite` / `defined`) fails here: it could not be
    encoded for a solver."""

    def __bool__(self) -> bool:
        raise TypeError(f"a semantics branched on a symbolic value: {self!r}")


class TermDomain:
    """Every primitive builds a term: the shape a z3 domain (issue 26) has, with terms for z3 expressions."""

    def __init__(self) -> None:
        self.assumptions: list[Term] = []

    def defined(self, c: Term) -> None:
        self.assumptions.append(c)

    def __getattr__(self, prim: str):  # type: ignore[no-untyped-def]
        return lambda *args: Term((prim, *args))


def test_every_semantics_encodes_symbolically() -> None:
    """Each op's semantics, on symbolic operands, builds an expression (and its definedness conditions)
    without inspecting a value: the symbolic encoding the analyzer will use derives from the same table."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).parent))
    from test_fold_vs_emulator import _ir_type, cases  # the generated signatures and attribute values

    encoded = set()
    for name, sigs in cases().items():
        d = OPS[name]
        for ots, rt, variants in sigs:
            for attrs in variants:
                dom = TermDomain()
                xs = [Term(("var", f"x{j}", t)) for j, t in enumerate(ots)]
                r = d.sem(dom, xs, _ir_type(rt), attrs, [_ir_type(t) for t in ots])  # type: ignore[misc]
                assert isinstance(r, Term), (name, ots, attrs, r)
                encoded.add(name)
    assert encoded == {n for n, d in OPS.items() if d.sem is not None}
    dom = TermDomain()
    OPS["div"].sem(
        dom, [Term(("var", "a")), Term(("var", "b"))], ScalarType("i32"), {}, [ScalarType("i32")] * 2
    )  # type: ignore[misc]
    assert len(dom.assumptions) == 2  # b != 0 and not (INT_MIN / -1): the partiality is explicit
