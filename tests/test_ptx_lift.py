"""Structure of the PTX -> SSA IR lifter (`irc.frontend.ptx.lift`): every corpus file lifts to a verified
module, copies fold into renaming (the old_max aliasing bug becomes `sub x, x`), predicated instructions
get their own block, correlated predication is not `undef`, and spans point at the PTX instruction."""

from __future__ import annotations

from pathlib import Path

import pytest

from irc.frontend.ptx.lift import lift_module, lift_ptx
from irc.frontend.ptx.parser import parse_ptx
from irc.ir.core import Function, Op
from irc.ir.verifier import verify

DATA = Path(__file__).parent / "data" / "ptx"
CORPUS = sorted(DATA.glob("*/*.ptx"))

HDR = ".version 8.0\n.target sm_80\n.address_size 64\n"


def _lift(
    body: str, params: str = ".param .u64 k_param_0, .param .u32 k_param_1", head: str = ""
) -> Function:
    text = HDR + f".visible .entry k({params})\n{head}{{\n" + body + "\n}\n"
    m, notes = lift_ptx(text, "t.ptx")
    assert verify(m) == [], [d.message for d in verify(m)]
    return m.functions[0]


def _ops(fn: Function, name: str) -> list[Op]:
    return [op for op in fn.ops() if op.name == name]


REGS = "    .reg .pred %p<8>;\n    .reg .b32 %r<32>;\n    .reg .f32 %f<32>;\n    .reg .b64 %rd<16>;\n"


@pytest.mark.parametrize("path", CORPUS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_corpus_lifts_and_verifies(path: Path) -> None:
    text = path.read_text()
    m, notes = lift_module(parse_ptx(text, str(path)), text)
    assert verify(m) == []
    assert [n for n in notes if n.check == "unknown-instruction"] == []
    assert m.kernels, "every corpus file has a kernel"
    # correct generators never read an uninitialized register
    assert not [op for f in m.functions for op in f.ops() if op.name == "undef"]


def test_old_max_bug_is_a_self_subtraction_of_the_in_place_max() -> None:
    path = DATA / "builder" / "attn_decode_old_max_bug.ptx"
    m, _ = lift_ptx(path.read_text(), str(path))
    subs = [op for op in m.functions[0].ops() if op.name == "sub" and op.span.line == 51]
    assert len(subs) == 1
    a, b = subs[0].operands
    assert a is b
    assert a.op.name == "max" and a.op.span.line == 50 and a.name == "f8"
    assert subs[0].span.col == 5 and subs[0].span.end_col == len("    sub.f32 %f27, %f8, %f8;") + 1


def test_fixed_old_max_kernel_subtracts_the_copy() -> None:
    path = DATA / "builder" / "attn_decode_fixed.ptx"
    m, _ = lift_ptx(path.read_text(), str(path))
    text = path.read_text().splitlines()
    line = next(i + 1 for i, s in enumerate(text) if "sub.f32 %f27, %f10, %f8" in s)
    (sub,) = [op for op in m.functions[0].ops() if op.name == "sub" and op.span.line == line]
    assert sub.operands[0] is not sub.operands[1]


def test_mov_folds_into_renaming() -> None:
    fn = _lift(
        REGS + "    mov.f32 %f1, 0f3F800000;\n    mov.f32 %f2, %f1;\n    sub.f32 %f3, %f2, %f1;\n    ret;"
    )
    (sub,) = _ops(fn, "sub")
    assert sub.operands[0] is sub.operands[1]
    assert not _ops(fn, "copy")


def test_params_and_special_registers() -> None:
    fn = _lift(
        REGS + "    ld.param.u32 %r1, [k_param_1];\n    mov.u32 %r2, %tid.x;\n"
        "    add.s32 %r3, %r1, %r2;\n    ret;",
        head=".reqntid 128, 1, 1\n.maxnreg 64\n",
    )
    assert fn.attrs["launch"] == [128, 1, 1] and fn.attrs["max_registers"] == 64
    (add,) = _ops(fn, "add")
    srcs = [o.op.operands[0] if o.op.name == "bitcast" else o for o in add.operands]
    assert srcs[0] is fn.params[1]
    assert srcs[1].op.name == "sreg" and srcs[1].op.attrs["name"] == "tid.x"


def test_maxntid_is_only_an_upper_bound() -> None:
    fn = _lift(REGS + "    ret;", head=".maxntid 96, 1, 1\n")
    assert "launch" not in fn.attrs and fn.attrs["max_threads"] == [96, 1, 1]


def test_predicated_barrier_gets_its_own_block() -> None:
    fn = _lift(
        REGS + "    mov.u32 %r1, %tid.x;\n    setp.lt.u32 %p1, %r1, 7;\n    @%p1 bar.sync 0;\n"
        "    @!%p1 st.global.u32 [%rd1], %r1;\n    ret;"
    )
    (bar,) = _ops(fn, "barrier")
    assert bar.attrs["id"] == 0 and bar.attrs["kind"] == "sync"
    preds = bar.block.predecessors
    assert len(preds) == 1 and preds[0].terminator.name == "cbr"
    cbr = preds[0].terminator
    assert cbr.operands[0].op.name == "cmp" and cbr.successors[0] is bar.block
    (st,) = _ops(fn, "store")
    cbr2 = st.block.predecessors[0].terminator
    assert cbr2.successors[1] is st.block  # `@!%p` takes the else edge


def test_branches_loops_and_named_barriers() -> None:
    fn = _lift(
        REGS + "    mov.u32 %r1, 0;\n$L_loop:\n    bar.sync 1, 64;\n    add.s32 %r1, %r1, 1;\n"
        "    setp.lt.s32 %p1, %r1, 10;\n    @%p1 bra $L_loop;\n    barrier.sync.aligned %r1;\n    ret;"
    )
    bars = _ops(fn, "barrier")
    assert bars[0].attrs == {"id": 1, "count": 64, "kind": "sync", "aligned": True}
    assert len(bars[1].operands) == 1 and "id" not in bars[1].attrs
    # the loop header carries %r1 as a block argument
    assert any(a.name == "r1" for b in fn.blocks for a in b.args)


def test_uninitialized_register_on_one_branch_stays_undef() -> None:
    fn = _lift(
        REGS + "    ld.param.u64 %rd1, [k_param_0];\n    mov.u32 %r1, %tid.x;\n"
        "    setp.lt.u32 %p1, %r1, 7;\n    @%p1 bra $L1;\n"
        "    mov.f32 %f1, 0f3F800000;\n$L1:\n    add.f32 %f2, %f1, %f1;\n"
        "    st.global.f32 [%rd1], %f2;\n    ret;"
    )
    assert [op.attrs["reg"] for op in _ops(fn, "undef")] == ["%f1"]


def test_correlated_predication_is_not_undef() -> None:
    fn = _lift(
        REGS + "    mov.u32 %r1, %tid.x;\n    setp.lt.u32 %p1, %r1, 7;\n"
        "    ld.param.u64 %rd1, [k_param_0];\n    @%p1 ld.global.f32 %f1, [%rd1];\n"
        "    add.s32 %r2, %r1, 1;\n    @%p1 st.global.f32 [%rd1+4], %f1;\n"
        "    @!%p1 bra $L1;\n    st.global.f32 [%rd1+8], %f1;\n$L1:\n    ret;"
    )
    assert _ops(fn, "undef") == []


def test_warp_collectives() -> None:
    fn = _lift(
        REGS + "    mov.u32 %r1, %laneid;\n    shfl.sync.down.b32 %r2|%p1, %r1, 16, 31, -1;\n"
        "    vote.sync.ballot.b32 %r3, %p1, -1;\n    bar.warp.sync -1;\n"
        "    elect.sync %r4|%p2, -1;\n    activemask.b32 %r5;\n    ret;"
    )
    (sh,) = _ops(fn, "shfl")
    assert sh.attrs["mode"] == "down" and sh.operands[2].op.attrs["value"] == 0xFFFFFFFF
    assert _ops(fn, "vote")[0].attrs["mode"] == "ballot"
    assert len(_ops(fn, "syncwarp")) == 1 and len(_ops(fn, "elect")) == 1 and len(_ops(fn, "activemask")) == 1


def test_collective_and_opaque_forms() -> None:
    fn = _lift(
        REGS + "    ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r1, %r2, %r3, %r4}, [%r5];\n"
        "    discard.global.L2 [%rd1], 128;\n    lop3.b32 %r6, %r1, %r2, %r3, 0x96;\n    ret;"
    )
    assert _ops(fn, "ptx_collective")[0].attrs["text"].startswith("ldmatrix")
    assert len(_ops(fn, "ptx_collective")[0].results) == 4
    assert _ops(fn, "opaque")[0].attrs["text"] == "discard.global.L2"
    assert _ops(fn, "ptx_pure")[0].attrs["text"] == "lop3.b32"


def test_unknown_instruction_gives_one_warning_per_opcode() -> None:
    text = (
        HDR + ".visible .entry k()\n{\n" + REGS + "    frobnicate.b32 %r1, %r2;\n"
        "    frobnicate.b32 %r3, %r1;\n    ret;\n}\n"
    )
    m, notes = lift_ptx(text, "t.ptx")
    assert verify(m) == []
    assert [n.check for n in notes] == ["unknown-instruction"]
    assert notes[0].span.line == 10 and notes[0].severity.value == "warning"  # so --werror catches it


def test_branch_to_first_label_gets_fresh_entry_and_brx() -> None:
    fn = _lift(
        REGS + "$L0:\n    mov.u32 %r1, %tid.x;\n    and.b32 %r2, %r1, 1;\n    brx.idx %r2, JT;\n"
        "$L1:\n    bra.uni $L0;\n$L2:\n    ret;",
        head="",
    )
    # brx.idx needs a branchtargets table in the function; without one it ends the thread: still verified
    assert fn.entry.terminator is not None


def test_predicated_ret_and_scoped_labels() -> None:
    body = REGS + (
        "    mov.u32 %r1, %tid.x;\n    setp.eq.u32 %p1, %r1, 0;\n    @%p1 ret;\n"
        "    {\n    .reg .pred c;\n    w:\n    setp.ne.u32 c, %r1, 3;\n    @c bra w;\n    }\n"
        "    {\n    .reg .pred c;\n    w:\n    setp.ne.u32 c, %r1, 5;\n    @c bra w;\n    }\n"
        "    bar.sync 0;\n    ret;"
    )
    fn = _lift(body)
    assert len(_ops(fn, "ret")) == 2 and len(_ops(fn, "barrier")) == 1
