"""The PTX lifter's exact-modifier rule (`irc.frontend.ptx.lift_map`): an instruction lifts as an op only
when its modifiers are exactly a template's, and then with the op's exact meaning.

Two kinds of evidence:
* exact meaning: `add.sat.s32`, `sub.sat.s32`, `prmt.b32` (every mode), `min.relu.s32` / `max.relu.s32`
  are lifted, and the lifted op evaluated by the op table's semantics (`OpDef.fold`) equals the emulator
  running the original instruction, on edge values;
* no plainer op: hypothesis builds each lifted form with random extra modifiers from the PTX ISA's
  modifier vocabulary; whatever the result, it is either an op that instruction selection spells back
  with exactly the instruction's modifiers, or an opaque op (`ptx_pure` / `opaque`) that keeps the text.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from irc.backends.ptx.isel import fill_opcode, select_variant
from irc.emu.launch import run_kernel
from irc.frontend.ptx.lift import lift_ptx
from irc.frontend.ptx.lift_map import ARITH, Variant
from irc.frontend.ptx.lift_types import ALL_TYPES, CMPS, ROUND
from irc.frontend.ptx.parser import parse_ptx
from irc.ir.optable import OPS
from irc.ir.types import ScalarType
from irc.ptxisa.facts import PRMT_MODES
from irc.ptxisa.template import parse

#: Modifiers of PTX's arithmetic, float, comparison, conversion and data-movement instructions (PTX ISA
#: 9.x, chapter 9): rounding, saturation, flush, NaN handling, widths and halves, modes, scopes.
VOCAB = sorted(
    {*ROUND, "ftz", "sat", "satfinite", "relu", "NaN", "xorsign", "abs", "approx", "full", "lo", "hi", "wide",
     "cc", "sync", "aligned", "volatile", "relaxed", "acquire", "release", "cta", "gpu", "sys", "cluster",
     "shared", "global", "local", "f4e", "b4e", "rc8", "ecl", "ecr", "rc16", "clamp", "wrap", "and", "or",
     "xor", "popc", "uni", "oob", "shiftamt", "noftz", "rn_satfinite", "x4", "v2", "nc", "L1", "L2"}
)  # fmt: skip

_REG = {8: "%rs", 16: "%rs", 32: "%r", 64: "%rd"}


def _reg(t: str, k: int) -> str:
    if t == "pred":
        return f"%p{k}"
    if t == "f32":
        return f"%f{k}"
    if t == "f64":
        return f"%fd{k}"
    w = int("".join(c for c in t if c.isdigit()) or 32)
    return f"{_REG[w]}{k}"


def _kernel(instr: str, target: str = "sm_90") -> str:
    return (
        f".version 8.0\n.target {target}\n.address_size 64\n.visible .entry k()\n{{\n"
        "  .reg .pred %p<8>;\n  .reg .b16 %rs<8>;\n  .reg .b32 %r<8>;\n  .reg .b64 %rd<8>;\n"
        "  .reg .f32 %f<8>;\n  .reg .f64 %fd<8>;\n"
        f"  {instr};\n  ret;\n}}\n"
    )


def _lifted_ops(instr: str) -> list:
    m, _ = lift_ptx(_kernel(instr), "t.ptx")
    return [op for op in m.functions[0].ops() if op.name not in ("ret", "const", "undef", "sreg")]


def _types_for(v: Variant) -> list[str]:
    if "float" in v.kinds:
        return ["f32", "f64"] if "int" not in v.kinds else ["s32", "u64", "f32"]
    return ["s32", "u32", "s64", "u16", "b32"]


def _forms() -> list[tuple[str, Variant]]:
    return [(base, v) for base, vs in ARITH.items() for v in vs]


def _instruction(base: str, v: Variant, t: str, extra: list[str], order: int) -> tuple[str, list[str]]:
    mods = list(v.fixed) + [sorted(vals)[0] for _, vals in v.captures] + extra
    if v.types:
        mods.append(t)
    if order:  # PTX spells modifiers in a fixed order; the lifter must not depend on it either way
        mods = mods[order % len(mods) :] + mods[: order % len(mods)] if mods else mods
    rt = next((m for m in mods if m in ALL_TYPES), t)
    n = len(OPS[v.op].operands)
    regs = ", ".join(_reg(rt, k) for k in range(n + 1))
    return f"{'.'.join([base, *mods])} {regs}", mods


def _respelled(op) -> list[str]:  # type: ignore[no-untyped-def]
    """The non-type modifiers instruction selection spells for `op` (what the op means, in PTX)."""
    tpl = select_variant(OPS[op.name].ptx, op)
    assert tpl is not None, op
    return sorted(m for m in fill_opcode(parse(tpl).opcode, op).split(".")[1:] if m not in ALL_TYPES)


@settings(max_examples=400, deadline=None)
@given(
    form=st.sampled_from(_forms()),
    t=st.integers(0, 4),
    extra=st.lists(st.sampled_from(VOCAB), min_size=0, max_size=3),
    order=st.integers(0, 3),
)
def test_extra_modifiers_never_lift_as_a_plainer_op(
    form: tuple[str, Variant], t: int, extra: list[str], order: int
) -> None:
    base, v = form
    types = _types_for(v)
    instr, mods = _instruction(base, v, types[t % len(types)], extra, order)
    ops = _lifted_ops(instr)
    assert ops, instr
    op = ops[-1]
    if op.name in ("ptx_pure", "opaque", "ptx_collective"):
        assert op.attrs["text"] == instr.split()[0]  # kept whole: nothing dropped
        return
    want = sorted(m for m in mods if m not in ALL_TYPES)
    assert _respelled(op) == want, (instr, op.name, op.attrs)
    if not extra:
        assert op.name == v.op, (instr, op.name)  # the exact form lifts as its op


#: Handlers that are not template inversions, and every non-type modifier each accepts.
HANDLED = {"setp": CMPS | {"and", "or", "xor"}, "cvt": ROUND | {"sat"}, "selp": set(),
           "mad": {"lo", "wide", "rn"}, "fma": {"rn"}}  # fmt: skip
HANDLED_FORMS = ["setp.lt.s32 %p1, %r1, %r2", "setp.ne.and.f32 %p1, %f1, %f2, %p2", "cvt.rzi.s32.f32 %r1, %f1",
                 "cvt.sat.u8.s32 %rs1, %r1", "selp.b32 %r1, %r2, %r3, %p1", "mad.lo.s32 %r1, %r2, %r3, %r4",
                 "mad.wide.u32 %rd1, %r2, %r3, %rd4", "fma.rn.f32 %f1, %f2, %f3, %f4"]  # fmt: skip


@settings(max_examples=200, deadline=None)
@given(form=st.sampled_from(HANDLED_FORMS), extra=st.sampled_from(VOCAB))
def test_hand_lifted_forms_take_no_extra_modifier(form: str, extra: str) -> None:
    opcode, regs = form.split(" ", 1)
    base, *mods = opcode.split(".")
    if extra in HANDLED[base] or extra in mods:
        return  # (a modifier of the form itself: another valid spelling, not an extra one)
    bad = ".".join([base, mods[0], extra, *mods[1:]])
    ops = _lifted_ops(f"{bad} {regs}")
    names = {op.name for op in ops}
    assert names <= {"ptx_pure", "opaque", "ptx_collective"}, (bad, names)  # the generic ops (facts)


# -- exact meaning: lifted op (table semantics) == emulator (the PTX instruction) ---------------------
def _exact_kernel(instr: str, nin: int) -> str:
    params = ", ".join(f".param .u64 p{k}" for k in range(nin + 1))
    loads = "\n".join(
        f"  ld.param.u64 %rd{k}, [p{k}];\n  cvta.to.global.u64 %rd{k}, %rd{k};\n"
        f"  add.u64 %rd{k}, %rd{k}, %rd7;\n  ld.global.u32 %r{k}, [%rd{k}];"
        for k in range(1, nin + 1)
    )
    return (
        ".version 8.0\n.target sm_90\n.address_size 64\n"
        f".visible .entry k({params})\n{{\n"
        "  .reg .pred %p<8>;\n  .reg .b32 %r<8>;\n  .reg .b64 %rd<8>;\n"
        "  mov.u32 %r0, %tid.x;\n  mul.wide.u32 %rd7, %r0, 4;\n"
        f"{loads}\n  {instr};\n"
        "  ld.param.u64 %rd0, [p0];\n  cvta.to.global.u64 %rd0, %rd0;\n  add.u64 %rd0, %rd0, %rd7;\n"
        "  st.global.u32 [%rd0], %r5;\n  ret;\n}\n"
    )


EDGES = [0, 1, 2, 0x7F, 0x80, 0xFF, 0x7FFFFFFF, 0x80000000, 0x80000001, 0xFFFFFFFF, 0xFFFFFFFE, 0x12345678,
         0x89ABCDEF, 0x3210, 0x7654, 0x5410, 0x8888, 3]  # fmt: skip

EXACT = [
    ("add.sat.s32 %r5, %r1, %r2", "addsat", {}, 2),
    ("sub.sat.s32 %r5, %r1, %r2", "subsat", {}, 2),
    ("min.relu.s32 %r5, %r1, %r2", "minrelu", {}, 2),
    ("max.relu.s32 %r5, %r1, %r2", "maxrelu", {}, 2),
    ("prmt.b32 %r5, %r1, %r2, %r3", "prmt", {}, 3),
    *[(f"prmt.b32.{m} %r5, %r1, %r2, %r3", "prmt", {"mode": m}, 3) for m in PRMT_MODES],
]


@pytest.mark.parametrize(("instr", "name", "attrs", "nin"), EXACT, ids=[e[0].split()[0] for e in EXACT])
def test_lifted_forms_have_their_exact_meaning(instr: str, name: str, attrs: dict, nin: int) -> None:
    text = _exact_kernel(instr, nin)
    mod, _ = lift_ptx(text, "t.ptx")
    ops = [op for op in mod.functions[0].ops() if op.name == name]
    assert len(ops) == 1 and dict(ops[0].attrs) == attrs, [
        (op.name, op.attrs) for op in mod.functions[0].ops()
    ]
    op = ops[0]
    tuples = list(itertools.product(EDGES, repeat=nin)) if nin == 2 else [
        (a, b, c) for a in EDGES[::3] for b in EDGES[1::4] for c in EDGES
    ]  # fmt: skip
    n = len(tuples)
    out = np.zeros(n, np.uint32)
    ins = [np.array([tp[j] for tp in tuples], np.uint32) for j in range(nin)]
    assert n <= 1024  # one block
    run_kernel(parse_ptx(text, "t.ptx"), "k", 1, n, (out, *ins))
    rt = op.results[0].type
    ots = [o.type for o in op.operands]
    for i, tp in enumerate(tuples):
        vals = [int(np.uint32(x).view(np.int32)) if isinstance(t, ScalarType) and t.is_signed else x
                for x, t in zip(tp, ots)]  # fmt: skip
        want = OPS[name].fold(vals, rt, op.attrs, ots)
        assert want is not None, (instr, tp)
        assert int(want) & 0xFFFFFFFF == int(out[i]), (
            instr,
            [hex(x) for x in tp],
            hex(int(want) & 0xFFFFFFFF),
            hex(int(out[i])),
        )


def test_plainer_readings_are_gone() -> None:
    """The forms the old inclusion rule read as plainer ops now keep their meaning or stay opaque."""
    assert _lifted_ops("add.sat.s32 %r1, %r2, %r3")[-1].name == "addsat"
    assert _lifted_ops("min.relu.s32 %r1, %r2, %r3")[-1].name == "minrelu"
    for instr in ("min.NaN.f32 %f1, %f2, %f3", "add.sat.f32 %f1, %f2, %f3", "sqrt.approx.f32 %f1, %f2",
                  "add.rz.f32 %f1, %f2, %f3", "setp.eq.ftz.f32 %p1, %f1, %f2", "mad.hi.s32 %r1, %r2, %r3, %r4",
                  "cvt.rn.relu.f16.f32 %rs1, %f1", "min.xorsign.abs.f32 %f1, %f2, %f3"):  # fmt: skip
        assert {op.name for op in _lifted_ops(instr)} == {"ptx_pure"}, instr


def test_float_compares_keep_their_ordering() -> None:
    """PTX `setp.ne.f32` is ordered (false on NaN) and `setp.neu.f32` unordered; the IR's `ne` is
    unordered (.kdsl's `!=`), so they lift as `one` and `ne`."""
    assert _lifted_ops("setp.ne.f32 %p1, %f1, %f2")[-1].attrs["pred"] == "one"
    assert _lifted_ops("setp.neu.f32 %p1, %f1, %f2")[-1].attrs["pred"] == "ne"
    assert _lifted_ops("setp.ne.s32 %p1, %r1, %r2")[-1].attrs["pred"] == "ne"
