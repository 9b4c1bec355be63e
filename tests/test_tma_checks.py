"""TMA checks (`tma-misaligned`, `mbarrier-tx-mismatch`): data-driven wrong/right kernels plus unit tests.

The kernels live in tests/data/tma_checks/*.ir. An op line carrying `// expect: CHECK` must produce exactly
one finding of that check at the line of its `loc(...)`; no other finding may appear (the *_right files
carry no expectations, so they assert the absence of false positives).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from irc.analysis.checks.tma import check_tma
from irc.analysis.tma_facts import CHECK_ALIGN, CHECK_TX, box_problems, int_divisors
from irc.diagnostics import Span
from irc.ir.builder import Builder
from irc.ir.core import Function, SharedDecl
from irc.ir.parser import parse_module
from irc.ir.types import F16, I32, I64, MBARRIER, U32, ArrayType, PtrType, TensorMapType
from irc.ir.verifier import verify

DATA = Path(__file__).parent / "data" / "tma_checks"
FILES = sorted(DATA.glob("*.ir"))

_KERNEL = re.compile(r"^kernel @(\w+)")
_EXPECT = re.compile(r"loc\((\d+):\d+:\d+:\d+\)\s*//\s*expect:\s*([a-z-]+)")


def _expected(text: str) -> set[tuple[str, str, int]]:
    out: set[tuple[str, str, int]] = set()
    kernel = ""
    for line in text.splitlines():
        k = _KERNEL.match(line)
        if k:
            kernel = k.group(1)
        e = _EXPECT.search(line)
        if e:
            out.add((kernel, e.group(2), int(e.group(1))))
    return out


def _run(path: Path) -> tuple[set[tuple[str, str, int]], list]:
    m = parse_module(path.read_text(), path.name)
    assert verify(m) == [], [d.message for d in verify(m)]
    found: set[tuple[str, str, int]] = set()
    diags = []
    for fn in m.kernels:
        for d in check_tma(fn, "sm_90a"):
            assert d.span is not None, d.message
            key = (fn.name, d.check, d.span.line)
            assert key not in found, f"duplicate finding {key}"
            found.add(key)
            diags.append(d)
    return found, diags


def test_corpus_present() -> None:
    names = {p.name for p in FILES}
    for kind in ("misaligned", "box", "tx"):
        assert {f"{kind}_wrong.ir", f"{kind}_right.ir"} <= names


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_findings_match_expectations(path: Path) -> None:
    found, _ = _run(path)
    expected = _expected(path.read_text())
    assert found == expected
    if path.name.endswith("_wrong.ir"):
        assert len(expected) >= 3
    else:
        assert expected == set()


def _diag(path: str, kernel: str, check: str):
    _, diags = _run(DATA / path)
    m = parse_module((DATA / path).read_text(), path)
    lines = {d.span.line for d in check_tma(m.function(kernel), "sm_90a")}
    hits = [d for d in diags if d.check == check and d.span.line in lines]
    assert len(hits) == 1
    return hits[0]


# --- messages -------------------------------------------------------------------------------------------


def test_tx_message_names_bytes_barrier_and_boxes() -> None:
    d = _diag("tx_wrong.ir", "straight_line", CHECK_TX)
    assert d.message == (
        "expect_tx announces 8192 bytes but the TMA loads completing on `bar` move 16384 bytes "
        "(2 × tensormap<f16; 64, 64>)"
    )
    assert [lb.span.line for lb in d.labels] == [11, 12]
    assert d.help == "announce the sum of the box sizes of every copy that signals this barrier in the phase"
    assert d.is_error


def test_tx_message_array_barrier_and_mixed_boxes() -> None:
    d = _diag("tx_wrong.ir", "two_stage", CHECK_TX)
    assert "`bars[1]`" in d.message and "16384 bytes" in d.message
    d = _diag("tx_wrong.ir", "mixed_boxes", CHECK_TX)
    assert "12288 bytes (1 × tensormap<f16; 64, 64> + 1 × tensormap<f32; 32, 32>)" in d.message


def test_misaligned_messages() -> None:
    d = _diag("misaligned_wrong.ir", "offset64", CHECK_ALIGN)
    assert "`buf`" in d.message and "byte offset 64" in d.message and "64-byte aligned" in d.message
    d = _diag("misaligned_wrong.ir", "underaligned_decl", CHECK_ALIGN)
    assert "`buf`" in d.message and "align 16" in d.message
    assert d.help == "declare it with `align 128`"
    d = _diag("misaligned_wrong.ir", "stage_stride_64", CHECK_ALIGN)
    assert "multiple of 64" in d.message


def test_box_message_and_once_per_param() -> None:
    d = _diag("box_wrong.ir", "extent_300", CHECK_ALIGN)
    assert "300" in d.message and "`m`" in d.message
    assert d.span.line == 5  # the first of the two loads using the map
    d = _diag("box_wrong.ir", "inner_8_bytes", CHECK_ALIGN)
    assert "8 bytes" in d.message


# --- spans from the front end (declarations and parameters) ---------------------------------------------


def _builder_kernel(align: int, offset: int, box: tuple[int, ...]) -> Function:
    decl_span = Span("k.kdsl", 3, 5, 3, 40)
    fn = Function("k", [TensorMapType(F16, box)], param_names=["m"], span=Span("k.kdsl", 1, 1, 1, 10))
    fn.param_spans = [Span("k.kdsl", 1, 10, 1, 35)]  # type: ignore[attr-defined]
    fn.shared.append(SharedDecl("buf", ArrayType(F16, (64, 64)), align, decl_span))
    fn.shared.append(SharedDecl("bar", MBARRIER, 8, None))
    b = Builder(fn.entry)
    b.span = Span("k.kdsl", 7, 5, 7, 50)
    base = b.value("shared_addr", [], PtrType("shared", F16), {"sym": "buf"})
    dst = b.value("ptradd", [base, b.const(offset, I64)], PtrType("shared", F16))
    bar = b.value("shared_addr", [], PtrType("shared", MBARRIER), {"sym": "bar"})
    zero = b.const(0, I32)
    b.create("tma_load", [dst, fn.params[0], *([zero] * len(box)), bar])
    b.ret()
    return fn


def test_label_on_shared_declaration() -> None:
    fn = _builder_kernel(16, 0, (64, 64))
    (d,) = check_tma(fn, "sm_90")
    assert d.check == CHECK_ALIGN and d.span.line == 7
    assert [lb.span.line for lb in d.labels] == [3]


def test_label_on_parameter_for_box() -> None:
    fn = _builder_kernel(128, 0, (64, 300))
    (d,) = check_tma(fn, "sm_90")
    assert d.span.line == 7 and [lb.span.line for lb in d.labels] == [1]


def test_builder_kernel_clean() -> None:
    assert check_tma(_builder_kernel(128, 256, (64, 64)), "sm_90") == []


def test_no_tma_no_work() -> None:
    fn = Function("plain", [U32])
    Builder(fn.entry).ret()
    assert check_tma(fn, "sm_80") == []


# --- box limits -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("box", "bad"),
    [
        ((64, 64), False),
        ((256, 8), False),
        ((64, 300), True),
        ((8, 4), True),
        ((0, 64), True),
        ((1, 1, 1, 1, 1, 8), True),
        ((), True),
    ],
)
def test_box_problems(box: tuple[int, ...], bad: bool) -> None:
    assert bool(box_problems(TensorMapType(F16, box))) == bad


# --- the divisor analysis is sound: its divisor always divides the actual value ---------------------------

_STEPS = st.lists(
    st.tuples(st.sampled_from(["add", "sub", "mul", "shl", "and", "or"]), st.integers(0, 4096)),
    min_size=1,
    max_size=6,
)


@settings(max_examples=150, deadline=None)
@given(x=st.integers(0, 1 << 20), steps=_STEPS)
def test_divisor_sound(x: int, steps: list[tuple[str, int]]) -> None:
    fn = Function("d", [U32])
    b = Builder(fn.entry)
    v = b.value("cvt", [fn.params[0]], I64)
    actual = x
    mask = (1 << 64) - 1
    for name, c in steps:
        if name == "shl":
            c %= 8
        v = b.value(name, [v, b.const(c, I64)])
        actual = {
            "add": actual + c,
            "sub": actual - c,
            "mul": actual * c,
            "shl": actual << c,
            "and": actual & c,
            "or": actual | c,
        }[name] & mask
    b.ret()
    d = int_divisors(fn)[v]
    if d.provable and actual != 0:
        assert actual % min(d.div, 1 << 63) == 0
