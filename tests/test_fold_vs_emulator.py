"""Every op with semantics agrees with the emulator running the PTX the op is spelled as, on edge values.

Why: constant folding, the TMA evaluator and the race evaluator all read the op table's one semantics
(`irc.ir.semantics`); the emulator executes the printed PTX. If the two disagree (a sign lost in `mul.hi`,
`-0.0` in `min`, a shift by 40, a `prmt` mode), a folded kernel computes something else than the unfolded
one. The cases are generated from the table: each op with a `sem`, each type its constraints and the
semantics admit (widths 8/16/32/64, f32/f64, bool), each attribute value the semantics lists. A new op
with semantics and a signature this file cannot instantiate fails `test_every_op_with_semantics_is_covered`.

Inputs are edge values: 0, 1, -1, INT_MIN, INT_MAX, shift amounts around the width and past 2**32, for
floats +-0.0, +-inf, NaNs of both signs with payloads, subnormals, the largest finite value. A fold that
declines (division by zero, a NaN result, an undefined combination) is skipped: nothing to agree on.
Floats compare bitwise (`-0.0` is not `+0.0`).
"""

from __future__ import annotations

import itertools
import struct
from functools import cache

import numpy as np
import pytest

from irc.backends.ptx.emit import compile_module
from irc.emu.launch import run_kernel
from irc.frontend.ptx.parser import parse_ptx
from irc.ir.optable import OPS, OpDef
from irc.ir.parser import parse_module
from irc.ir.semantics import Unknown, kind
from irc.ir.types import PtrType, ScalarType, Type

INTS = ["i8", "u8", "i16", "u16", "i32", "u32", "i64", "u64"]
FLOATS = ["f32", "f64"]
NP = {
    "i8": np.int8, "u8": np.uint8, "i16": np.int16, "u16": np.uint16, "i32": np.int32, "u32": np.uint32,
    "i64": np.int64, "u64": np.uint64, "f32": np.float32, "f64": np.float64, "bool": np.uint8,
}  # fmt: skip
GLOBAL_PTR = PtrType("global", ScalarType("u32"))
SHARED_PTR = PtrType("shared", ScalarType("u32"))


# -- edge values ------------------------------------------------------------------------------------
def _int_edges(t: str) -> list[int]:
    w = int(t[1:])
    lo, hi = (-(1 << (w - 1)), (1 << (w - 1)) - 1) if t[0] == "i" else (0, (1 << w) - 1)
    raw = [0, 1, 2, 3, 7, -1, -2, -7, lo, hi, lo + 1, hi - 1, w - 1, w, w + 1, 31, 32, 33, 63, 64, 65,
           1 << 32, (1 << 32) + 1, 0x5A5A5A5A5A5A5A5A, 0x0123456789ABCDEF, 0x80, 0x7F, 0xFF, 0x8000]  # fmt: skip
    out: list[int] = []
    for v in raw:
        v &= (1 << w) - 1
        if t[0] == "i" and v >= 1 << (w - 1):
            v -= 1 << w
        if v not in out:
            out.append(v)
    return out


F32_EDGE_BITS = [0x00000000, 0x80000000, 0x3F800000, 0xBF800000, 0x7F800000, 0xFF800000, 0x7FC00000,
                 0xFFC00000, 0x7FC00123, 0xFFC00456, 0x7F800001, 0xFF800123, 0x00000001, 0x80000001, 0x007FFFFF, 0x00800000,
                 0x7F7FFFFF, 0xFF7FFFFF, 0x3FC00000, 0xC0200000, 0x3DCCCCCD, 0x4B800000, 0x40400000]  # fmt: skip
F64_EDGE_BITS = [0, 1 << 63, 0x3FF0000000000000, 0xBFF0000000000000, 0x7FF0000000000000, 0xFFF0000000000000,
                 0x7FF8000000000000, 0xFFF8000000000000, 0x7FF8000000000123, 0xFFF8000000000456,
                 0x7FF0000000000001, 1,
                 (1 << 63) | 1, 0x000FFFFFFFFFFFFF, 0x7FEFFFFFFFFFFFFF, 0xFFEFFFFFFFFFFFFF,
                 0x3FF8000000000000, 0xC004000000000000, 0x3FB999999999999A, 0x4340000000000001]  # fmt: skip


def _edges(t: str) -> list:
    if t in INTS:
        return _int_edges(t)
    if t == "f32":  # bit patterns (a signaling NaN does not survive a Python float)
        return list(F32_EDGE_BITS)
    if t == "f64":
        return list(F64_EDGE_BITS)
    if t == "bool":
        return [False, True]
    raise AssertionError(t)


def _operand_edges(ts: list[str], op: str) -> list[tuple]:
    """Operand tuples: the cross product of the edges (ternary ops: a smaller set for the first two)."""
    if op == "prmt":
        ab = [0x03020100, 0x87654321, 0xF0E1D2C3, 0xFFFFFFFF, 0]
        sel = [0, 1, 2, 3, 0x3210, 0x7654, 0x5410, 0x1032, 0x8888, 0xFFFF, 0xBA98, 0x4567, 0xC0DE]
        return list(itertools.product(ab, ab[:3], sel))
    if op == "redux":  # one warp per value: redux reduces a value that every lane of the mask holds
        return [(v, 0xFFFFFFFF) for v in _edges(ts[0]) for _ in range(32)]
    lists = [_edges(t) for t in ts]
    if len(ts) == 3:
        lists[1] = lists[1][:6]
    return list(itertools.product(*lists))


# -- instantiating the table's signatures -----------------------------------------------------------
def _kinds_types(kinds: frozenset[str]) -> list[str]:
    out = []
    if "int" in kinds:
        out += INTS
    if "float" in kinds:
        out += FLOATS
    if "bool" in kinds:
        out.append("bool")
    return out


def signatures(d: OpDef) -> list[tuple[list[str], str]]:
    """(operand types, result type) instances of an op's constraints that its semantics defines."""
    ops, res = list(d.operands), list(d.results)
    ts = _kinds_types(d.sem.kinds)  # type: ignore[union-attr]
    if d.name == "mulwide":
        return [([t, t], t[0] + str(2 * int(t[1:]))) for t in ("i16", "u16", "i32", "u32")]
    if d.name == "cvt":
        return [([s], t) for s in [*INTS, "bool"] for t in INTS]
    if d.name == "bitcast":
        same = [(a, b) for a in INTS + FLOATS for b in INTS + FLOATS if a != b and _bits(a) == _bits(b)]
        return [([a], b) for a, b in same]
    if d.name == "ptradd":
        return [(["gptr", t], "gptr") for t in INTS] + [(["sptr", t], "sptr") for t in ("i32", "u32", "i16")]
    if d.name == "redux":
        return [([t, "u32"], t) for t in ("u32", "i32")]
    if d.name in ("shlw", "shrw"):
        return [([t, "u32"], t) for t in INTS]
    if d.name == "prmt":
        return [(["u32"] * 3, "u32")]
    if ops == ["bool", "T", "T"] and res == ["T"]:
        return [(["bool", t, t], t) for t in ts]
    if all(c == "T" for c in ops) and res == ["T"]:
        return [([t] * len(ops), t) for t in ts]
    if all(c == "T" for c in ops) and res == ["bool"]:
        return [([t] * len(ops), "bool") for t in ts]
    if all(c in ("i32", "u32") for c in ops + res):
        return [(ops, res[0])]
    return []


def _bits(t: str) -> int:
    return 1 if t == "bool" else int("".join(c for c in t if c.isdigit()))


def _ir_type(t: str) -> Type:
    return {"gptr": GLOBAL_PTR, "sptr": SHARED_PTR}.get(t) or ScalarType(t)


def attr_variants(d: OpDef) -> list[dict]:
    """Every combination of the attribute values the semantics lists (an optional one also absent)."""
    axes = []
    for name, values in d.sem.attrs.items():  # type: ignore[union-attr]
        vals: list = list(values)
        if name not in d.attrs:
            vals = [None] + [v for v in vals if v is not False]
        axes.append([(name, v) for v in vals])
    out = []
    for combo in itertools.product(*axes):
        out.append({k: v for k, v in combo if v is not None})
    return out or [{}]


def _sample(t: str):  # type: ignore[no-untyped-def]
    return {"bool": True, "f32": 1.5, "f64": 1.5, "gptr": 4096, "sptr": 64}.get(t, 3)  # (probe values)


@cache
def cases() -> dict[str, list[tuple[list[str], str, list[dict]]]]:
    """op -> [(operand types, result type, attribute variants the semantics defines there)]."""
    out: dict[str, list[tuple[list[str], str, list[dict]]]] = {}
    for name, d in OPS.items():
        if d.sem is None:
            continue
        for ots, rt in signatures(d):
            if kind(_ir_type(rt)) not in d.sem.kinds:
                continue
            ok = []
            for attrs in attr_variants(d):
                try:  # a combination the semantics does not define is not a case (no value on a sample)
                    d.sem.fn(
                        _Probe(), [_sample(t) for t in ots], _ir_type(rt), attrs, [_ir_type(t) for t in ots]
                    )
                except Unknown:
                    continue
                ok.append(attrs)
            if ok:
                out.setdefault(name, []).append((ots, rt, ok))
    return out


class _Probe:
    """A domain that computes nothing: it only finds out whether a semantics is defined for a type and
    attribute combination (`Unknown` from the semantics itself), whatever the operand values."""

    def __getattr__(self, name: str):  # type: ignore[no-untyped-def]
        if name == "defined":
            return lambda c: None
        return lambda *a: 0


# -- the kernel ------------------------------------------------------------------------------------
def _fmt_attr(v: object) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    return f'"{v}"' if isinstance(v, str) else str(v)


def _kernel(name: str, ots: list[str], rt: str, variants: list[dict]) -> tuple[str, list[str]]:
    """One kernel: thread i loads operand j from array j at i, applies every variant, stores each."""
    mem = {"gptr": "u64", "sptr": "u32"}
    params = [f"%out{k}: *global {mem.get(rt, rt)}" for k in range(len(variants))]
    params += [f"%in{j}: *global {mem.get(t, t)}" for j, t in enumerate(ots)]
    lines = ['  %i = sreg {name = "tid.x"} : u32', '  %c = sreg {name = "ctaid.x"} : u32',
             '  %n = sreg {name = "ntid.x"} : u32', "  %cn = mul %c, %n : u32", "  %g = add %cn, %i : u32",
             "  %g64 = cvt %g : u64"]  # fmt: skip
    for j, t in enumerate(ots):
        mt = mem.get(t, t)
        lines += [f"  %sz{j} = const {{value = {max(_bits(mt) // 8, 1)}}} : u64", f"  %o{j} = mul %g64, %sz{j} : u64",
                  f"  %p{j} = ptradd %in{j}, %o{j} : *global {mt}", f"  %l{j} = load %p{j} : {mt}"]  # fmt: skip
        if t in mem:
            lines.append(f"  %v{j} = bitcast %l{j} : {_ir_type(t)}")
        else:
            lines.append(f"  %v{j} = copy %l{j} : {t}")
    args = ", ".join(f"%v{j}" for j in range(len(ots)))
    for k, attrs in enumerate(variants):
        at = " {" + ", ".join(f"{a} = {_fmt_attr(v)}" for a, v in attrs.items()) + "}" if attrs else ""
        lines.append(f"  %r{k} = {name} {args}{at} : {_ir_type(rt)}")
        val = f"%r{k}"
        if rt in mem:
            lines.append(f"  %rb{k} = bitcast %r{k} : {mem[rt]}")
            val = f"%rb{k}"
        mt = mem.get(rt, rt)
        lines += [f"  %rs{k} = const {{value = {max(_bits(mt) // 8, 1)}}} : u64", f"  %ro{k} = mul %g64, %rs{k} : u64",
                  f"  %rp{k} = ptradd %out{k}, %ro{k} : *global {mt}", f"  store %rp{k}, {val}"]  # fmt: skip
    body = "\n".join(lines)
    return f'module "f.kdsl" {{\nkernel @k({", ".join(params)}) {{\n^bb0:\n{body}\n  ret\n}}\n}}\n', [
        mem.get(t, t) for t in ots
    ]


def _array(vals: list, t: str) -> np.ndarray:
    if t == "bool":
        return np.array([int(v) for v in vals], np.uint8)
    if t in FLOATS:
        return np.array(vals, np.uint32 if t == "f32" else np.uint64).view(NP[t])
    return np.array([v & ((1 << _bits(t)) - 1) for v in vals], dtype=np.uint64).astype(NP[t])


def _bits_of(v: object, t: str) -> int:
    if t == "f32":
        return struct.unpack("<I", struct.pack("<f", v))[0]
    if t == "f64":
        return struct.unpack("<Q", struct.pack("<d", v))[0]
    return int(v) & ((1 << _bits(t)) - 1)  # type: ignore[call-overload]


def _emulated_bits(x: np.generic, t: str) -> int:
    if t in FLOATS:
        return int(np.asarray(x).view(np.uint32 if t == "f32" else np.uint64))
    return int(x) & ((1 << _bits(t)) - 1)


def _inputs(ots: list[str], name: str) -> list[tuple]:
    """Operand tuples; pointers get plausible addresses (the fold adds bits, the address is not used)."""
    mapped = ["u64" if t == "gptr" else "u32" if t == "sptr" else t for t in ots]
    return _operand_edges(mapped, name)


def run_case(name: str, ots: list[str], rt: str, variants: list[dict]) -> tuple[int, list[str]]:
    d = OPS[name]
    tuples = _inputs(ots, name)
    n = len(tuples)
    text, mts = _kernel(name, ots, rt, variants)
    arch = "sm_90" if d.gate == "sm_90" else "sm_80"
    ptx = compile_module(parse_module(text, "f.kdsl"), arch).text
    mrt = {"gptr": "u64", "sptr": "u32"}.get(rt, rt)
    outs = [np.zeros(n, NP[mrt]) for _ in variants]
    ins = [_array([tp[j] for tp in tuples], mts[j]) for j in range(len(ots))]
    block = 32 if name == "redux" else min(n, 128)
    grid = (n + block - 1) // block
    pad = grid * block - n
    if pad:  # (redux inputs come in whole warps)
        ins = [np.concatenate([a, a[:1].repeat(pad)]) for a in ins]
        outs = [np.zeros(n + pad, o.dtype) for o in outs]
    run_kernel(parse_ptx(ptx, "<fold>"), "k", grid, block, (*outs, *ins))
    ir_ots = [_ir_type(t) for t in ots]
    checked, bad = 0, []
    for k, attrs in enumerate(variants):
        for i, tp in enumerate(tuples):
            vals = [_const_value(ins[j][i], ots[j]) for j in range(len(ots))]
            if any(
                _bits_of(v, t) != _emulated_bits(x[i], t) for v, t, x in zip(vals, mts, ins) if t in FLOATS
            ):
                continue  # a signaling NaN: no `const` can hold it (a Python float quiets it), nothing to fold
            want = d.fold(vals, _ir_type(rt), attrs, ir_ots)
            if want is None:
                continue
            got = _emulated_bits(outs[k][i], mrt)
            if _bits_of(want, mrt) != got:
                bad.append(f"{name}{attrs} {ots}->{rt} {tp}: fold {want!r} emulator {got:#x}")
            checked += 1
    return checked, bad


def _const_value(x: np.generic, t: str):  # type: ignore[no-untyped-def]
    """An input as a `const` op holds it (signed ints negative, floats as Python floats, bools)."""
    if t == "bool":
        return bool(x)
    if t in FLOATS:
        return float(x)
    return int(x)


ALL = [(n, ots, rt, vs) for n, cs in cases().items() for ots, rt, vs in cs]


@pytest.mark.parametrize(
    ("name", "ots", "rt", "variants"), ALL, ids=[f"{n}-{'-'.join(o)}-{r}" for n, o, r, _ in ALL]
)
def test_fold_matches_emulator(name: str, ots: list[str], rt: str, variants: list[dict]) -> None:
    checked, bad = run_case(name, ots, rt, variants)
    assert not bad, f"{len(bad)} mismatches:\n" + "\n".join(bad[:20])
    assert checked, "no input was folded: nothing compared"


def test_every_op_with_semantics_is_covered() -> None:
    """The cases come from the table: every op with semantics has at least one (a new signature this file
    cannot instantiate fails here, not silently)."""
    with_sem = {n for n, d in OPS.items() if d.sem is not None}
    assert with_sem == set(cases()), with_sem ^ set(cases())
