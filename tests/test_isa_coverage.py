"""PTX ISA 9.x coverage of the lifter and `irc check`: every instruction stem of the ISA either lifts (a
handler or the generic path with facts from `irc.ptxisa.facts`) or is a deliberate opaque op with known
effects; none is "unknown" and none crashes. Plus the crash classes of issue 12 (a float bit pattern in an
integer `mov`, the video instructions)."""

from __future__ import annotations

import numpy as np
import pytest
from emu_util import HEADER, REGS, ptx_kernel

from irc.compiler import check_ptx
from irc.emu import run_kernel
from irc.frontend.ptx.lift import lift_module
from irc.frontend.ptx.parser import parse_ptx
from irc.ptxisa import facts
from irc.ptxisa.isa_list import ALL_STEMS, EXTRA_ROWS, ISA_STEMS


@pytest.mark.parametrize("stem", ALL_STEMS)
def test_every_isa9_stem_has_facts(stem: str) -> None:
    """Each stem (and any modifier spelling of it) resolves to a row of the facts table."""
    assert facts.opcode_info(stem).known
    assert facts.opcode_info(stem + ".b32").known


def test_groups_are_disjoint_and_complete() -> None:
    assert len(ALL_STEMS) == len(set(ALL_STEMS))
    assert set(ISA_STEMS["video"]) <= set(EXTRA_ROWS)
    assert len(ALL_STEMS) >= 190


# One valid spelling per stem that has no dedicated lowering (video, carry, movmatrix, ...) plus stems
# whose operand shapes are unusual; each must lift with no note and no exception.
LINES = [
    "vabsdiff4.u32.u32.u32.add %r3, %r1, %r2, %r4;",
    "vabsdiff2.u32.u32.u32 %r3, %r1, %r2, %r4;",
    "vadd4.u32.u32.u32.sat %r3, %r1, %r2, %r4;",
    "vsub2.s32.s32.s32 %r3, %r1, %r2, %r4;",
    "vavrg4.u32.u32.u32 %r3, %r1, %r2, %r4;",
    "vmin4.s32.s32.s32 %r3, %r1, %r2, %r4;",
    "vmax2.u32.u32.u32 %r3, %r1, %r2, %r4;",
    "vset4.u32.u32.lt %r3, %r1, %r2, %r4;",
    "vset2.u32.u32.ne.add %r3, %r1, %r2, %r4;",
    "vadd.u32.u32.u32.sat %r3, %r1, %r2;",
    "vsub.s32.s32.s32.add %r3, %r1, %r2, %r4;",
    "vabsdiff.u32.u32.u32 %r3, %r1, %r2;",
    "vmin.s32.s32.s32 %r3, %r1, %r2;",
    "vmax.u32.u32.u32.max %r3, %r1, %r2, %r4;",
    "vshl.u32.u32.u32.clamp %r3, %r1, %r2;",
    "vshr.u32.u32.u32.wrap %r3, %r1, %r2;",
    "vmad.u32.u32.u32 %r3, %r1, %r2, %r4;",
    "vset.u32.u32.lt %r3, %r1, %r2;",
    "add.cc.u32 %r3, %r1, %r2;",
    "addc.cc.u32 %r4, %r1, %r2;",
    "sub.cc.u32 %r3, %r1, %r2;",
    "subc.u32 %r4, %r1, %r2;",
    "mad.lo.cc.u32 %r3, %r1, %r2, %r4;",
    "madc.hi.u32 %r5, %r1, %r2, %r4;",
    "movmatrix.sync.aligned.m8n8.trans.b16 %r3, %r1;",
    "mov.b32 %r3, 0fFF800000;",
    "and.b32 %r3, %r1, 0f7FC00000;",  # (ptxas refuses float literals for .u32: `mov.u32` is a parse-error)
    "mov.b64 %rd3, 0dFFF0000000000000;",
    "mov.b16 %rs3, 0x3C00;",  # (ptxas refuses `mov.b16 %rs3, 0f3F800000`: no 16-bit float literal)
]


def _wrap(body: str, target: str = "sm_90") -> str:
    return (
        HEADER.format(target=target)
        + ".visible .entry k(.param .u64 out)\n{\n"
        + REGS
        + "  ld.param.u64 %rd1, [out];\n  mov.u32 %r1, 3;\n  mov.u32 %r2, 5;\n  mov.u32 %r4, 7;\n  mov.u32 %r3, 0;\n"
        + body
        + "\n  st.global.u32 [%rd1], %r3;\n  ret;\n}\n"
    )


@pytest.mark.parametrize("line", LINES)
def test_line_lifts_without_note_or_crash(line: str) -> None:
    diags = check_ptx(_wrap("  " + line), "cov.ptx")
    assert [d.check for d in diags] == []


def test_float_pattern_in_integer_mov_keeps_its_bits() -> None:
    """`mov.b32 %r1, 0fFF800000` (Triton's -inf) is the integer 0xFF800000 in the lifted IR, as the
    emulator (which runs the PTX itself) computes."""
    text = _wrap("  mov.b32 %r3, 0fFF800000;")
    module, _ = lift_module(parse_ptx(text, "t.ptx"), text)
    consts = [op.attrs["value"] for op in module.functions[0].ops() if op.name == "const"]
    assert 0xFF800000 in consts
    out = np.zeros(1, dtype=np.uint32)
    run_kernel(ptx_kernel("  ld.param.u64 %rd1, [out];\n  mov.b32 %r3, 0fFF800000;\n  st.global.u32 [%rd1], %r3;\n  ret;"),
               "k", grid=1, block=1, args=[out])  # fmt: skip
    assert out[0] == 0xFF800000


def test_negative_hex_float_in_integer_mov() -> None:
    from irc.frontend.ptx.immediates import float_imm_bits

    assert float_imm_bits(float("-inf"), "0fFF800000", 32) == 0xFF800000
    assert float_imm_bits(1.0, "0d3FF0000000000000", 64) == 0x3FF0000000000000
    assert float_imm_bits(1.0, "0f3F800000", 16) == 0x0000
    assert float_imm_bits(2.0, "2.0", 32) == 2
