"""The list backend of the shared-race evaluation (`irc.analysis.ivec`) against numpy, its reference:
element-wise int64 arithmetic bit for bit (overflow included), the witness join, and whole `shared-race`
runs on every kernel in the repo with shared memory, once per backend."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from irc.analysis import races
from irc.analysis.ivec import IVec, lib

ROOT = Path(__file__).resolve().parent.parent
I64 = st.integers(-(1 << 63), (1 << 63) - 1)
SMALL = st.integers(-70, 70)


def _both(xs: list[int]) -> tuple[IVec, np.ndarray]:
    return IVec(list(xs)), np.asarray(xs, dtype=np.int64)


def _same(iv, nv) -> None:  # type: ignore[no-untyped-def]
    assert [int(x) for x in iv.v] == [int(x) for x in nv.tolist()]


@given(st.lists(st.tuples(st.one_of(I64, SMALL), st.one_of(I64, SMALL)), min_size=1, max_size=12))
def test_elementwise_int64_matches_numpy(pairs: list[tuple[int, int]]) -> None:
    a, an = _both([p[0] for p in pairs])
    b, bn = _both([p[1] for p in pairs])
    with np.errstate(all="ignore"):
        for f in (
            lambda x, y: x + y,
            lambda x, y: x - y,
            lambda x, y: x * y,
            lambda x, y: x & y,
            lambda x, y: x | y,
            lambda x, y: x ^ y,
            lambda x, y: -x,
            lambda x, y: ~x,
            lambda x, y: x + 7,
            lambda x, y: 1 - x,
            lambda x, y: x * 3,
            lambda x, y: x & 0xFFFF,
        ):
            _same(f(a, b), f(an, bn))
        for f, g in (
            (lambda x: lib.abs(x), np.abs),
            (lambda x: lib.clip(x, 0, 62), lambda x: np.clip(x, 0, 62)),
        ):
            _same(f(a), g(an))
        _same(lib.minimum(a, b), np.minimum(an, bn))
        _same(lib.maximum(a, b), np.maximum(an, bn))
        s, sn = lib.clip(b, 0, 62), np.clip(bn, 0, 62)
        _same(lib.where(b < 63, a << s, 0), np.where(bn < 63, an << sn, 0))
        _same(a >> lib.clip(b, 0, 63), an >> np.clip(bn, 0, 63))
        for cmp in ("__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__"):
            _same(getattr(a, cmp)(b).astype(lib.int64), getattr(an, cmp)(bn).astype(np.int64))
        pos, posn = lib.abs(a) & 0xFFFFFF, np.abs(an) & 0xFFFFFF
        div, divn = (lib.abs(b) & 0xFF) + 1, (np.abs(bn) & 0xFF) + 1
        _same(pos // div, posn // divn)
        _same(pos % div, posn % divn)
        _same(lib.flatnonzero(a > b), np.flatnonzero(an > bn))
        _same(a[lib.flatnonzero(a > b)], an[np.flatnonzero(an > bn)])
        assert lib.array_equal(a, b) == np.array_equal(an, bn)
        assert (a != b).any() == bool((an != bn).any())


ENTRY = st.tuples(st.integers(0, 95), st.integers(0, 40))  # (thread, byte address)


def _entries(xs: list[tuple[int, int]]):  # type: ignore[no-untyped-def]
    ts, ads = [t for t, _ in xs], [a for _, a in xs]
    z = [0] * len(xs)
    return (IVec(ts), IVec(ads), IVec(z), [{}]), (
        np.asarray(ts, np.int64),
        np.asarray(ads, np.int64),
        np.asarray(z, np.int64),
        [{}],
    )


@settings(max_examples=300)
@given(
    st.lists(ENTRY, min_size=1, max_size=24),
    st.lists(ENTRY, min_size=1, max_size=24),
    st.sampled_from([1, 2, 4, 8]),
    st.sampled_from([1, 2, 4, 8]),
    st.booleans(),
    st.sampled_from([None, [(0, 16)], [(4, 12), (20, 60)]]),
)
def test_witness_join_matches_numpy(a, b, sa: int, sb: int, same_warp: bool, ranges) -> None:  # type: ignore[no-untyped-def]
    (al, an), (bl, bn) = _entries(a), _entries(b)
    got = races._witness_lists(al, bl, sa, sb, same_warp, ranges)
    want = races._witness_numpy(an, bn, sa, sb, same_warp, ranges)
    assert got == (None if want is None else tuple(int(x) for x in want))


def _kernels() -> list[Path]:
    out = []
    for p in sorted(
        [*ROOT.glob("examples/*.kdsl"), *ROOT.glob("tests/data/**/*.kdsl"), *ROOT.glob("tests/data/**/*.ptx")]
    ):
        if "triton_suite" in p.parts:  # 145 files with their own tests (tests/test_triton_suite.py)
            continue
        text = p.read_text(encoding="utf-8", errors="replace")
        if "shared" in text and len(text) < 400_000:
            out.append(p)
    return out


def _race_findings(path: Path) -> list[str]:
    from irc.compiler import check_kdsl

    text = path.read_text(encoding="utf-8", errors="replace")
    if path.suffix == ".ptx":
        # only shared-race runs (the other checks do not read per-thread vectors): lift, then that check
        from irc.analysis import check_module
        from irc.frontend.ptx.lift import lift_ptx

        try:
            m, _ = lift_ptx(text, str(path))
        except Exception:  # noqa: BLE001 - a file the lifter rejects has no race findings to compare
            return []
        t = re.search(r"^\s*\.target\s+(\w+)", text, re.M)
        diags = check_module(m, arch=t.group(1) if t else "sm_80", checks=["shared-race"])
    else:
        arch = "sm_100a" if "sm100" in path.name or "tcgen05" in text or "tma" in path.name else "sm_80"
        diags = check_kdsl(text, str(path), arch=arch)
    return [f"{d.span}: {d.message} {d.notes}" for d in diags if d.check == "shared-race"]


@pytest.mark.parametrize(
    "every", [pytest.param(1, marks=pytest.mark.fuzz, id="all"), pytest.param(4, id="sample")]
)
def test_shared_race_same_findings_with_either_backend(monkeypatch: pytest.MonkeyPatch, every: int) -> None:
    """Kernels in the repo with shared memory: the same `shared-race` findings with lists (the default
    for blocks up to LIST_THREADS) and with numpy (LIST_THREADS = 0), and with every witness join forced
    through numpy (LIST_JOIN_KEYS = 0). The default run takes every kernel with a finding and every
    fourth of the others (three passes over all 370 files take two minutes); `-m fuzz` takes all."""
    paths = _kernels()
    assert len(paths) > 100
    monkeypatch.setattr(races, "LIST_WORK_BUDGET", 1 << 62)  # lists for every file, not only the first ones
    lists = {p: _race_findings(p) for p in paths}
    assert sum(1 for f in lists.values() if f) >= 8  # the racy kernels of tests/data/races and more
    lists = {p: f for i, (p, f) in enumerate(lists.items()) if f or i % every == 0}
    monkeypatch.setattr(races, "LIST_JOIN_KEYS", 0)
    assert {p: _race_findings(p) for p in lists} == lists
    monkeypatch.setattr(races, "LIST_THREADS", 0)
    assert {p: _race_findings(p) for p in lists} == lists
