"""`irc.records.record` against `dataclasses.dataclass`: the same class body under both decorators
behaves the same for everything irc uses (construction, defaults, equality, hashing, freezing, repr,
inheritance, `fields`/`replace`), and the errors a wrong class body gives are the same kind."""

from __future__ import annotations

import dataclasses
from typing import ClassVar

import pytest
from hypothesis import given
from hypothesis import strategies as st

from irc import records


def _pair(frozen: bool = False, eq: bool = True):  # type: ignore[no-untyped-def]
    """The same class body decorated by dataclasses and by records."""
    out = []
    for deco, fld in ((dataclasses.dataclass, dataclasses.field), (records.record, records.field)):

        class Base:
            a: int
            b: str = "x"
            kind: ClassVar[str] = "base"

        Base = deco(frozen=frozen, eq=eq)(Base)  # type: ignore[misc]

        class Point(Base):  # type: ignore[valid-type,misc]
            c: list = fld(default_factory=list)
            d: float = 1.5

        out.append(deco(frozen=frozen, eq=eq)(Point))
    return out


@pytest.mark.parametrize("frozen", [False, True])
@pytest.mark.parametrize("eq", [False, True])
def test_construction_and_fields_match_dataclasses(frozen: bool, eq: bool) -> None:
    dc, rc = _pair(frozen, eq)
    for cls in (dc, rc):
        p = cls(1)
        assert (p.a, p.b, p.c, p.d) == (1, "x", [], 1.5)
        q = cls(2, "y", [3], d=4.0)
        assert (q.a, q.b, q.c, q.d) == (2, "y", [3], 4.0)
        assert cls(1).c is not cls(1).c  # a fresh default per instance
        assert cls.kind == "base"  # a ClassVar is not a field
        assert cls.b == "x" and cls.d == 1.5  # plain defaults stay class attributes
        assert not hasattr(cls, "c")  # a factory field's class attribute goes
        with pytest.raises(TypeError):
            cls()  # `a` is required
    assert (
        [f.name for f in dataclasses.fields(dc)]
        == [f.name for f in records.fields(rc)]
        == ["a", "b", "c", "d"]
    )
    assert rc.__match_args__ == dc.__match_args__
    assert repr(rc(1, "y")).split("(", 1)[1] == repr(dc(1, "y")).split("(", 1)[1]


@given(st.integers(), st.integers(), st.text(max_size=3), st.text(max_size=3))
def test_equality_and_hash_match_dataclasses(a1: int, a2: int, b1: str, b2: str) -> None:
    for frozen in (False, True):
        for eq in (False, True):
            dc, rc = _pair(frozen, eq)
            d1, d2 = dc(a1, b1, ()), dc(a2, b2, ())
            r1, r2 = rc(a1, b1, ()), rc(a2, b2, ())
            assert (d1 == d2) == (r1 == r2)
            assert (d1 == d1) == (r1 == r1)
            hashable_d = dc.__hash__ is not None
            assert (rc.__hash__ is not None) == hashable_d
            if hashable_d and eq and r1 == r2:
                assert hash(r1) == hash(r2)
    _, rc = _pair(True, True)
    assert rc(1) != _pair(True, True)[1](1)  # different classes never compare equal


def test_frozen_assignment_raises() -> None:
    dc, rc = _pair(frozen=True)
    for cls, exc in ((dc, dataclasses.FrozenInstanceError), (rc, records.FrozenInstanceError)):
        p = cls(1)
        with pytest.raises(exc):
            p.a = 2
        with pytest.raises(exc):
            del p.b
        with pytest.raises(AttributeError):  # both are AttributeErrors
            p.zzz = 1
    _, rm = _pair(frozen=False)
    m = rm(1)
    m.a = 5
    assert m.a == 5


def test_replace_and_post_init() -> None:
    seen = []

    @records.record(frozen=True)
    class P:
        x: int
        y: int = 0

        def __post_init__(self) -> None:
            seen.append((self.x, self.y))

    p = P(1, 2)
    q = records.replace(p, y=7)
    assert (q.x, q.y) == (1, 7) and (p.x, p.y) == (1, 2)
    assert seen == [(1, 2), (1, 7)]  # replace goes through __init__, as dataclasses.replace does
    with pytest.raises(TypeError):
        records.replace(p, z=1)
    with pytest.raises(TypeError):
        records.fields(3)


def test_methods_in_the_body_are_kept() -> None:
    @records.record(frozen=True)
    class K:
        x: int

        def __eq__(self, other: object) -> bool:
            return True

        def __hash__(self) -> int:
            return 42

        def __repr__(self) -> str:
            return "K!"

    assert K(1) == K(2) and hash(K(1)) == 42 and repr(K(1)) == "K!"

    @records.record
    class E:
        x: int

        def __hash__(self) -> int:
            return 7

    assert hash(E(1)) == 7  # an explicit hash survives eq=True, frozen=False


def test_bad_bodies_are_rejected_like_dataclasses() -> None:
    for deco in (dataclasses.dataclass, records.record):
        with pytest.raises(TypeError):

            @deco
            class A:
                x: int = 0
                y: int

        with pytest.raises(ValueError):

            @deco
            class B:
                x: list = []  # noqa: RUF012

    with pytest.raises(ValueError):
        records.field(default=1, default_factory=int)


def test_irc_uses_records_not_dataclasses() -> None:
    """Every class of irc/ is a record: one `@dataclass` on the import path costs ~0.4 ms of every
    `irc compile` / `irc check` process (docs/performance.md)."""
    import ast
    from pathlib import Path

    root = Path(records.__file__).resolve().parent
    bad = []
    for p in root.rglob("*.py"):
        for node in ast.walk(ast.parse(p.read_text(encoding="utf-8"))):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = [node.module or ""]
            if "dataclasses" in names:
                bad.append(f"{p.relative_to(root.parent)}:{node.lineno}")
    assert bad == []
