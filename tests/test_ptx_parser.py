"""PTX front end: every reference form and nvcc fixture parses; exact structure of chosen instructions;
syntax errors are diagnostics at file:line:col; mutated PTX never produces a traceback."""

from __future__ import annotations

import glob
import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from irc.diagnostics import CompileError
from irc.frontend.ptx.parser import parse_ptx
from irc.ptxisa import facts
from irc.ptxisa.model import Addr, Imm, Loc, Neg, Pair, Reg, RegDecl, Scope, Sink, Sym, VarDecl, Vec

HERE = os.path.dirname(os.path.abspath(__file__))
FORMS = sorted(glob.glob("/work/shared/ptx-reference/forms/*.ptx"))
FIXTURES = os.path.join(HERE, "data", "ptx_parser")
CORPUS = sorted(glob.glob(os.path.join(HERE, "data", "ptx", "**", "*.ptx"), recursive=True))


def fixture(name: str) -> str:
    with open(os.path.join(FIXTURES, name)) as fh:
        return fh.read()


def instr_at(module, line: int):
    for f in module.functions:
        for i in f.instructions():
            if i.line == line:
                return i
    raise AssertionError(f"no instruction on line {line}")


def parse_error(text: str):
    with pytest.raises(CompileError) as ei:
        parse_ptx(text, "t.ptx")
    (d,) = ei.value.diagnostics
    assert d.check == "parse-error"
    return d


# ------------------------------------------------------------------ whole files


@pytest.mark.skipif(not FORMS, reason="reference forms not present")
@pytest.mark.parametrize("path", FORMS, ids=os.path.basename)
def test_reference_forms_parse(path):
    with open(path) as fh:
        m = parse_ptx(fh.read(), path)
    assert m.entries(), "every form has a kernel"
    assert "diagnostics" not in m.meta
    for f in m.functions:
        for i in f.instructions():
            assert facts.info(i).known, i.opcode


@pytest.mark.skipif(not CORPUS, reason="tests/data/ptx corpus not present")
@pytest.mark.parametrize("path", CORPUS, ids=lambda p: os.path.relpath(p, HERE))
def test_corpus_parses_without_unknown_instructions(path):
    with open(path) as fh:
        m = parse_ptx(fh.read(), path)
    assert m.entries()
    unknown = {i.opcode for f in m.functions for i in f.instructions() if not facts.info(i).known}
    assert unknown == set()


# ------------------------------------------------------------------ golden structure (nvcc fixtures)


def test_tma_reference_structure():
    with open("/work/shared/ptx-reference/forms/nvcc_reference_tma_sm90a.ptx") as fh:
        m = parse_ptx(fh.read())
    assert (m.version, m.target, m.address_size) == ("9.0", "sm_90a", 64)
    k = m.entries()[0]
    p0 = k.params[0]
    assert (p0.align, p0.type, p0.dims) == (128, ".b8", [128])
    tma = instr_at(m, 67)
    assert tma.opcode == "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
    assert tma.operands[1] == Addr(Reg("%rd10"), 0, Vec((Reg("%r5"), Reg("%r6"))))
    guard = instr_at(m, 39)
    assert (guard.opcode, guard.pred, guard.pred_neg, guard.operands) == (
        "bra",
        Reg("%p1"),
        False,
        [Sym("$L__BB0_2")],
    )
    # inline-asm scope with its own `.reg .pred p;`: `p` is a register inside, not a symbol
    scopes = [s for s in k.body if isinstance(s, Scope)]
    assert scopes and isinstance(scopes[0].body[0], RegDecl)
    tw = instr_at(m, 82)
    assert tw.operands[0] == Reg("p")
    assert instr_at(m, 58).operands == [Reg("%rd24"), Addr(Reg("%r9")), Reg("%r10")]


def test_calls_fixture():
    m = parse_ptx(fixture("calls.sm_80.ptx"), "calls.ptx")
    assert m.files == {1: "/work/main/tests/data/ptx_parser/calls.cu"}
    (table,) = m.globals
    assert (table.space, table.type, table.name, table.align, table.dims, table.init) == (
        "global",
        ".u64",
        "table",
        8,
        [1],
        ["_Z6helperPKfi"],
    )
    decl, helper, kern = m.functions
    assert decl.body is None and helper.body is not None
    assert [(p.name, p.type) for p in helper.ret_params] == [("func_retval0", ".b32")]
    assert helper.meta["body_pragmas"] == [["nounroll"]]
    assert kern.directives == {"maxntid": [128, 1, 1], "minnctapersm": [2]}
    call = instr_at(m, 125)
    assert call.opcode == "call.uni"
    assert call.operands == [
        Vec((Sym("retval0"),)),
        Sym("_Z6helperPKfi"),
        Vec((Sym("param0"), Sym("param1"))),
    ]
    assert call.loc == Loc(1, 12, 3)
    icall = instr_at(m, 146)
    assert icall.operands[1] == Reg("%rd9") and icall.operands[3] == Sym("prototype_1")
    assert kern.meta["prototypes"]["prototype_1"].startswith(".callprototype (.param .b32 _) _ (")
    params = [s for sc in kern.body if isinstance(sc, Scope) for s in sc.body if isinstance(s, VarDecl)]
    assert [(v.space, v.name) for v in params[:3]] == [
        ("param", "param0"),
        ("param", "param1"),
        ("param", "retval0"),
    ]
    assert instr_at(m, 121).operands == [Addr(Sym("param0"), 0), Reg("%rd5")]
    assert instr_at(m, 35 + 1).loc == Loc(1, 4, 3)


def test_shared_loop_fixture():
    m = parse_ptx(fixture("shared_loop.sm_80.ptx"))
    (coeffs,) = m.globals
    assert coeffs.space == "const" and coeffs.init[:4] == [0, 0, 128, 63] and len(coeffs.init) == 16
    assert instr_at(m, 66).operands == [Reg("%f15"), Addr(Reg("%rd2"), -4)]
    assert instr_at(m, 69).operands[0] == Addr(Sym("_ZZ9k_stencilPKfPfiE4tile"))
    assert instr_at(m, 73).opcode == "bar.sync"


def test_warp_fixture():
    m = parse_ptx(fixture("warp.sm_80.ptx"))
    shfl = instr_at(m, 41)
    assert shfl.operands[0] == Pair(Reg("%r12"), Reg("%p2"))
    assert facts.dest_count(shfl) == 2
    assert instr_at(m, 61).operands == [Reg("%r25"), Addr(Reg("%rd10")), Imm(1, "1")]


def test_cluster_fixture():
    m = parse_ptx(fixture("cluster.sm_90.ptx"))
    k = m.entries()[0]
    assert k.directives == {"explicitcluster": [], "reqnctapercluster": [2, 1, 1]}
    assert instr_at(m, 36).opcode == "barrier.cluster.arrive"


# ------------------------------------------------------------------ syntax coverage

SNIPPET = """\
.version 8.0
.target sm_90a, debug
.address_size 64
.file 1 "k.cu", 1700000000, 1234
.global .align 4 .f32 g[2] = {0f3F800000, 1.5};
.extern .shared .align 16 .b8 dyn[];
.weak .func (.param .b32 r) f(.param .b32 a)
{
  ret;
}
.visible .entry k(
  .param .u64 .ptr .global .align 16 p,
  .param .align 64 .b8 tmap[128]
)
.reqntid 128, 1, 1
.maxnreg 64
{
  .reg .b32 r<8>, ;
}
"""


def test_snippet_error_in_reg_list():
    d = parse_error(SNIPPET)
    assert (d.span.line, d.span.col) == (18, 17)  # `r<N>` declares a range and must end the list
    assert d.message == "expected `;`, found `,`"


def test_snippet_headers_and_params():
    m = parse_ptx(SNIPPET.replace("r<8>, ;", "r<8>;\n  .reg .pred a, b;\n  @!a bra L1;\nL1:\n  ret;"))
    assert m.meta["target_extras"] == ["debug"]
    assert m.files == {1: "k.cu"}
    g, dyn = m.globals
    assert g.init == [1.0, 1.5] and dyn.dims == [0] and dyn.extern
    f, k = m.functions
    assert f.meta["linkage"] == "weak" and f.ret_params[0].name == "r"
    p, tmap = k.params
    assert (p.type, p.ptr_space, p.ptr_align) == (".u64", "global", 16)
    assert (tmap.align, tmap.type, tmap.dims) == (64, ".b8", [128])
    assert k.directives == {"reqntid": [128, 1, 1], "maxnreg": [64]}
    bra = k.instructions()[0]
    assert (bra.pred, bra.pred_neg, bra.operands) == (Reg("a"), True, [Sym("L1")])


BODY = ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k()\n{{\n{}\n}}\n"


def body_instrs(text: str):
    return parse_ptx(BODY.format(text)).functions[0].instructions()


def test_operand_forms():
    (i,) = body_instrs("  .reg .b32 %r<4>;\n  .reg .pred %p<2>;\n  selp.b32 %r1, 0xFF, -2, !%p1;")
    assert i.operands == [Reg("%r1"), Imm(255, "0xFF"), Imm(-2, "-2"), Neg(Reg("%p1"))]
    (i,) = body_instrs("  .reg .f64 %fd<2>;\n  mov.f64 %fd1, 0d3FF0000000000000;")
    assert i.operands[1] == Imm(1.0, "0d3FF0000000000000")
    (i,) = body_instrs("  .reg .b32 r<4>;\n  elect.sync _|p1, 0xffffffff;")
    assert i.operands[0] == Pair(Sink(), Sym("p1"))
    (i,) = body_instrs("  .reg .b64 %rd<4>;\n  ld.global.u32 %r1, [%rd1+-4];  // trailing comment")
    assert i.operands[1] == Addr(Reg("%rd1"), -4)
    (i,) = body_instrs("  ld.global.b32 { %r1 }, [ %rd1 + 8 ];")  # Triton inline-asm spacing
    assert i.operands == [Vec((Reg("%r1"),)), Addr(Reg("%rd1"), 8)]
    (i,) = body_instrs("  ld.shared.u32 %r1, [smem+4];")
    assert i.operands[1] == Addr(Sym("smem"), 4)
    (i,) = body_instrs("  ld.shared.u32 %r1, [16];")
    assert i.operands[1] == Addr(None, 16)


def test_fast_and_general_paths_agree():
    lines = [
        "mov.b64 %rd1, {%r1, %r2};",
        "@%p1 st.global.v4.b32 [ %rd9 + 0 ], { %r17, %r18, %r19, %r20 };",
        "shfl.sync.bfly.b32 %r1|%p2, %r3, 1, 31, -1;",
        "add.s32 %r1, %r2, -1;",
        "cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%rd45, {%r81, %r82}], [%r83];",
    ]
    decl = ".reg .b32 %r<90>; .reg .b64 %rd<50>; .reg .pred %p<4>;\n"
    fast = body_instrs(decl + "\n".join(lines))
    # a trailing block comment forces every line through the general token path
    slow = body_instrs(decl + "\n".join(ln + " /* x */" for ln in lines))
    assert [(i.opcode, i.operands, i.pred) for i in fast] == [(i.opcode, i.operands, i.pred) for i in slow]


def test_loc_forms_and_sections():
    text = (
        ".version 8.0\n.target sm_90\n.address_size 64\n"
        ".visible .entry k()\n{\n"
        "\t.loc\t1 10 5\n\tret;\n"
        "\t.loc\t1 20 3, function_name $L__info_string0, inlined_at 1 10 5\n\texit;\n"
        "}\n"
        '\t.file\t1 "k.py"\n'
        "\t.section\t.debug_abbrev\n\t{\n.b8 1 // DW_TAG\n.b8 17\n$L__info_string0:\n.b8 107,0\n\t}\n"
        "\t.section\t.debug_str\n\t{\n\t}\n"
    )
    m = parse_ptx(text)
    ret, ex = m.functions[0].instructions()
    assert ret.loc == Loc(1, 10, 5) and ex.loc == Loc(1, 20, 3, Loc(1, 10, 5))  # inlined_at: the call site
    assert (ret.line, ex.line) == (7, 9)
    assert m.files == {1: "k.py"}


def test_multiline_statements_and_block_comments():
    text = BODY.format("  /* a\n  block */ add.s32\n    %r1,\n    %r2, 1; ret;")
    add, ret = parse_ptx(text).functions[0].instructions()
    assert (add.line, add.operands[2], ret.line) == (7, Imm(1, "1"), 9)


def test_label_then_instruction_on_one_line():
    m = parse_ptx(BODY.format("L1: bra L1;"))
    body = m.functions[0].body
    assert body[0].name == "L1" and body[1].operands == [Sym("L1")]


def test_unknown_top_level_directive_is_a_note():
    m = parse_ptx(".version 8.0\n.target sm_80\n.address_size 64\n.blah 1, 2;\n.global .texref t;\n")
    notes = m.meta["diagnostics"]
    assert [(n.severity.value, n.span.line) for n in notes] == [("note", 4), ("note", 5)]


def test_alias_and_branchtargets():
    text = BODY.format("  .reg .b32 %r<2>;\nJT: .branchtargets L1, L2;\n  brx.idx %r1, JT;\nL1:\nL2:\n  ret;")
    text += ".alias a, k;\n"
    m = parse_ptx(text)
    assert m.meta["aliases"] == [("a", "k")]
    assert m.functions[0].meta["branchtargets"] == {"JT": ["L1", "L2"]}


# ------------------------------------------------------------------ errors: exact positions


@pytest.mark.parametrize(
    "text, line, col, expect",
    [
        (".version 8.0\n.target\n", 3, 1, "target"),
        (".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k(\n  .param p\n)", 5, 10, "type"),
        (BODY.format("  add.s32 %r1, , %r2;"), 6, 16, "operand"),
        (BODY.format("  ld.u32 %r1, [%rd1+];"), 6, 21, "address offset"),
        (BODY.format("  add.s32 %r1, %r2, 1"), 7, 1, "`;`"),
        (".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\n  ret;\n", 7, 1, "`}`"),
        ("add.s32 %r1;", 1, 1, "directive"),
        (BODY.format("  @%p1 @%p2 ret;"), 6, 8, "opcode"),
        (BODY.format("  mov.u32 %r1, #;"), 6, 16, "operand"),
    ],
)
def test_error_positions(text, line, col, expect):
    d = parse_error(text)
    assert (d.span.file, d.span.line, d.span.col) == ("t.ptx", line, col), d.message
    assert expect in d.message


def test_deep_nesting_is_a_diagnostic():
    d = parse_error(BODY.format("{" * 500 + "}" * 500))
    assert "nested" in d.message


# ------------------------------------------------------------------ fuzz: never a traceback

_SEEDS = [fixture("warp.sm_80.ptx"), fixture("calls.sm_80.ptx")]
if FORMS:
    with open(FORMS[0]) as _fh:
        _SEEDS.append(_fh.read())
_ALPHABET = '{}()[];,.:@!%|_-+ \n\t0123456789abcdefxp/*"<>=$'


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.sampled_from(range(len(_SEEDS))),
    edits=st.lists(
        st.tuples(st.floats(0, 1), st.integers(0, 12), st.text(alphabet=_ALPHABET, max_size=6)),
        min_size=1,
        max_size=6,
    ),
)
def test_fuzz_mutations_never_traceback(seed, edits):
    text = _SEEDS[seed]
    for frac, dele, ins in edits:
        pos = int(frac * len(text))
        text = text[:pos] + ins + text[pos + dele :]
    try:
        m = parse_ptx(text, "fuzz.ptx")
    except CompileError as e:
        assert e.diagnostics and e.diagnostics[0].span is not None
        assert e.diagnostics[0].span.line >= 1
    else:
        for f in m.functions:
            for i in f.instructions():
                facts.info(i), facts.def_regs(i), facts.use_regs(i)
