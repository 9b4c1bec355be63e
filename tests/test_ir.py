"""IR core: textual round trip (corpus and hypothesis-generated modules), verifier rejections, use lists."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from irc.diagnostics import CompileError
from irc.ir.builder import Builder
from irc.ir.core import Block, Function, Module
from irc.ir.parser import parse_module
from irc.ir.printer import print_module
from irc.ir.types import BOOL, F32, I32, U32, PtrType
from irc.ir.verifier import verify

CORPUS = sorted(Path(__file__).parent.joinpath("data", "ir_roundtrip").glob("*.ir"))
IR_DIRS = ["ir_roundtrip", "ir", "analysis"]


def _all_ir_files() -> list[Path]:
    base = Path(__file__).parent / "data"
    return sorted(p for d in IR_DIRS for p in (base / d).glob("*.ir"))


@pytest.mark.parametrize("path", _all_ir_files(), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_round_trip_corpus(path: Path) -> None:
    """print(parse(x)) is a fixed point: printing what we parsed and parsing it again prints identically."""
    m = parse_module(path.read_text(), str(path))
    once = print_module(m, locs=True)
    twice = print_module(parse_module(once, str(path)), locs=True)
    assert once == twice
    assert print_module(parse_module(print_module(m))) == print_module(m)


def test_corpus_is_canonical_and_verifies() -> None:
    assert CORPUS, "the round-trip corpus is missing"
    for p in CORPUS:
        text = p.read_text()
        m = parse_module(text, str(p))
        assert print_module(m, locs=True) == text, f"{p.name} is not in canonical form"
        assert verify(m) == [], f"{p.name}: {[d.message for d in verify(m)]}"


# --- hypothesis: random well-formed modules -----------------------------------------------------------

_BIN = ["add", "sub", "mul", "and", "or", "xor", "min", "max", "div", "rem", "shl", "shr"]
_FBIN = ["add", "sub", "mul", "div", "min", "max"]
_UN = ["neg", "abs", "sqrt", "exp2", "log2", "floor"]


@st.composite
def modules(draw) -> Module:
    m = Module(source=draw(st.sampled_from([None, "gen.kdsl"])))
    nfn = draw(st.integers(1, 2))
    for fi in range(nfn):
        fn = Function(
            f"k{fi}", [PtrType("global", F32), U32], param_names=["p", draw(st.sampled_from(["n", None]))]
        )
        if draw(st.booleans()):
            fn.attrs["launch"] = [draw(st.sampled_from([32, 64, 128])), 1, 1]
        m.add_function(fn)
        nblocks = draw(st.integers(1, 5))
        blocks = [fn.entry] + [fn.add_block(Block()) for _ in range(nblocks - 1)]
        # Block i > 0 takes (u32, f32) arguments; values visible: entry values + own block values.
        for b in blocks[1:]:
            b.add_arg(U32, draw(st.sampled_from([None, "i", "acc"])))
            b.add_arg(F32)
        b0 = Builder(fn.entry)
        ents_u = [fn.params[1], b0.value("sreg", [], U32, {"name": "tid.x"})]
        ents_f = [b0.const(draw(st.floats(-1e6, 1e6, allow_nan=False)), F32)]
        for bi, b in enumerate(blocks):
            bld = Builder(b)
            us = list(ents_u) + ([b.args[0]] if bi else [])
            fs = list(ents_f) + ([b.args[1]] if bi else [])
            if bi == 0:
                bld = b0
            for _ in range(draw(st.integers(0, 6))):
                kind = draw(st.integers(0, 4))
                if kind == 0:
                    us.append(
                        bld.value(
                            draw(st.sampled_from(_BIN)),
                            [draw(st.sampled_from(us)), draw(st.sampled_from(us))],
                        )
                    )
                elif kind == 1:
                    fs.append(
                        bld.value(
                            draw(st.sampled_from(_FBIN)),
                            [draw(st.sampled_from(fs)), draw(st.sampled_from(fs))],
                        )
                    )
                elif kind == 2:
                    fs.append(bld.value(draw(st.sampled_from(_UN)), [draw(st.sampled_from(fs))]))
                elif kind == 3:
                    us.append(bld.const(draw(st.integers(0, 2**32 - 1)), U32))
                else:
                    ptr = bld.value(
                        "ptradd", [fn.params[0], draw(st.sampled_from(us))], PtrType("global", F32)
                    )
                    fs.append(bld.value("load", [ptr], F32, {"offset": draw(st.integers(0, 64))}))
            later = blocks[1:]
            if not later or draw(st.integers(0, 3)) == 0:
                bld.ret()
            elif draw(st.booleans()):
                bld.br(draw(st.sampled_from(later)), [draw(st.sampled_from(us)), draw(st.sampled_from(fs))])
            else:
                c = bld.value(
                    "cmp",
                    [draw(st.sampled_from(us)), draw(st.sampled_from(us))],
                    BOOL,
                    {"pred": draw(st.sampled_from(["lt", "eq", "ge"]))},
                )
                bld.cbr(
                    c,
                    draw(st.sampled_from(later)),
                    [draw(st.sampled_from(us)), draw(st.sampled_from(fs))],
                    draw(st.sampled_from(later)),
                    [draw(st.sampled_from(us)), draw(st.sampled_from(fs))],
                )
    return m


@settings(max_examples=60, deadline=None)
@given(modules())
def test_round_trip_generated(m: Module) -> None:
    assert verify(m) == []
    text = print_module(m)
    again = print_module(parse_module(text))
    assert again == text
    assert verify(parse_module(text)) == []


# --- verifier rejections --------------------------------------------------------------------------------


def _errs(src: str) -> list[str]:
    return [d.message for d in verify(parse_module(src))]


HEAD = "module {\nkernel @k(%0: *global f32, %1: u32) {\n^bb0:\n"


def test_rejects_use_not_dominated() -> None:
    errs = _errs(
        HEAD + '  %2 = sreg {name = "tid.x"} : u32\n  %3 = cmp %2, %1 {pred = "lt"} : bool\n'
        "  cbr %3, ^bb1, ^bb2\n^bb1:\n  %4 = add %2, %2 : u32\n  br ^bb2\n^bb2:\n"
        "  %5 = add %4, %1 : u32\n  ret\n}\n}\n"
    )
    assert any("`add` in @k ^bb2" in e and "does not dominate" in e for e in errs), errs


def test_rejects_use_before_def_in_block() -> None:
    errs = _errs(HEAD + "  %2 = add %3, %1 : u32\n  %3 = add %1, %1 : u32\n  ret\n}\n}\n")
    assert any("`add` in @k ^bb0" in e and "before its definition" in e for e in errs), errs


def test_rejects_type_mismatch() -> None:
    errs = _errs(HEAD + "  %2 = const {value = 1.0} : f32\n  %3 = add %1, %2 : u32\n  ret\n}\n}\n")
    assert any("`add`" in e and "type mismatch" in e and "f32" in e and "u32" in e for e in errs), errs


def test_rejects_block_without_terminator() -> None:
    m = parse_module(HEAD + "  ret\n}\n}\n")
    fn = m.functions[0]
    b = fn.add_block(Block())
    Builder(b).const(1, I32)
    errs = [d.message for d in verify(m)]
    assert any("`const` in @k ^bb1" in e and "no terminator" in e for e in errs), errs


def test_rejects_wrong_block_arg_count() -> None:
    errs = _errs(HEAD + "  br ^bb1(%1, %1)\n^bb1(%2: u32):\n  ret\n}\n}\n")
    assert any("`br` in @k ^bb0" in e and "passes 2 block arguments" in e for e in errs), errs


def test_rejects_branch_to_foreign_block() -> None:
    m = parse_module(HEAD + "  ret\n}\nkernel @other() {\n^bb0:\n  ret\n}\n}\n")
    k, other = m.functions
    k.entry.ops[-1].erase()
    Builder(k.entry).br(other.entry)
    errs = [d.message for d in verify(m)]
    assert any("`br` in @k ^bb0" in e and "outside the function" in e for e in errs), errs


def test_collects_all_errors() -> None:
    errs = _errs(
        HEAD + "  %2 = const {value = 1.0} : f32\n  %3 = add %1, %2 : u32\n  %4 = sub %1, %2 : u32\n"
        "  br ^bb1(%1)\n^bb1:\n  ret\n}\n}\n"
    )
    assert len(errs) >= 3


def test_rejects_bad_constant() -> None:
    errs = _errs(HEAD + "  %2 = const {value = 1.5} : u32\n  ret\n}\n}\n")
    assert any("does not fit" in e for e in errs), errs


def test_parse_errors_are_diagnostics() -> None:
    with pytest.raises(CompileError) as e:
        parse_module("module {\nkernel @k() {\n^bb0:\n  %1 = frobnicate : u32\n  ret\n}\n}\n", "x.ir")
    d = e.value.diagnostics[0]
    assert d.check == "parse-error" and d.span.line == 4 and "frobnicate" in d.message
    with pytest.raises(CompileError) as e:
        parse_module("module {\nkernel @k( {\n", "y.ir")
    assert e.value.diagnostics[0].span.line == 2


def test_use_lists_and_rauw() -> None:
    m = parse_module(HEAD + "  %2 = add %1, %1 : u32\n  %3 = mul %2, %1 : u32\n  ret\n}\n}\n")
    fn = m.functions[0]
    n = fn.params[1]
    add, mul = fn.entry.ops[0], fn.entry.ops[1]
    assert n.uses.count(add) == 2 and mul in n.users
    c = Builder().before(add).const(7, U32)
    n.replace_all_uses_with(c)
    assert not n.uses and add.operands == [c, c] and mul.operands[1] is c
    assert verify(m) == []
    mul.erase()
    assert mul not in add.result.uses and verify(m) == []
