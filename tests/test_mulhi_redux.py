"""`mul.hi` and `redux.sync`, end to end: every kind and type (signed and unsigned) is spelled by the op
table's template, accepted by ptxas, computed by the emulator exactly like numpy, folded by constant
folding, and lifted back from PTX with its signedness (`redux.sync.min.s32` is a signed min)."""

from __future__ import annotations

import numpy as np
import pytest

import irc
from irc.frontend.ptx.lift import lift_ptx
from irc.ir.parser import parse_module
from irc.passes.constfold import ConstFold
from irc.passes.manager import PassManager
from irc.ptxas import find_ptxas, run_ptxas

needs_ptxas = pytest.mark.skipif(find_ptxas() is None, reason="ptxas not available")
KINDS = ("add", "min", "max", "and", "or", "xor")
NP_TYPES = {"i32": np.int32, "u32": np.uint32, "i64": np.int64, "u64": np.uint64}


def _redux_ref(kind: str, v: np.ndarray) -> int:
    """What every lane of a full warp gets: the reduction of the 32 values (add wraps)."""
    if kind == "add":
        return int(v.astype(np.int64).sum())
    if kind == "min":
        return int(v.min())
    if kind == "max":
        return int(v.max())
    op = {"and": np.bitwise_and, "or": np.bitwise_or, "xor": np.bitwise_xor}[kind]
    return int(op.reduce(v))


def _redux_kernel(kind: str, t: str) -> str:
    return f"""
@launch(block = 64)
kernel k(out: *global {t}, x: *global {t}) {{
    let i = tid.x;
    out[i] = redux_{kind}(x[i]);
}}
"""


@pytest.mark.parametrize("t", ["i32", "u32"])
@pytest.mark.parametrize("kind", KINDS)
def test_redux_ptxas_and_emulator(kind: str, t: str) -> None:
    mod = irc.compile(_redux_kernel(kind, t), arch="sm_80")
    want_suffix = "b32" if kind in ("and", "or", "xor") else ("s32" if t == "i32" else "u32")
    assert f"redux.sync.{kind}.{want_suffix} " in mod.ptx_text
    if find_ptxas() is not None:
        r = run_ptxas(mod.ptx_text, "sm_80")
        assert r.ok, r.stderr
    T = NP_TYPES[t]
    info = np.iinfo(T)
    x = np.random.default_rng(7).integers(info.min, info.max, 64, dtype=np.int64).astype(T)
    out = np.zeros(64, T)
    mod["k"].launch(1, 64, [out, x])
    for w in range(2):
        ref = np.array(_redux_ref(kind, x[32 * w : 32 * w + 32]) & 0xFFFFFFFF, np.uint32).view(T)
        np.testing.assert_array_equal(out[32 * w : 32 * w + 32], np.full(32, ref, T))


def test_signed_and_unsigned_min_differ() -> None:
    """The old lifter turned `redux.sync.min.s32` into an unsigned min: -1 is the signed minimum."""
    x = np.arange(64, dtype=np.int32)
    x[5] = -1
    for t, want in (("i32", -1), ("u32", 0)):
        mod = irc.compile(_redux_kernel("min", t), arch="sm_80")
        T = NP_TYPES[t]
        out = np.zeros(64, T)
        mod["k"].launch(1, 64, [out, x.view(T)])
        assert int(out[0]) == want


@pytest.mark.parametrize("t", ["i32", "u32", "i64", "u64"])
def test_mulhi_ptxas_and_emulator(t: str) -> None:
    src = f"""
@launch(block = 32)
kernel k(out: *global {t}, a: *global {t}, b: *global {t}) {{
    let i = tid.x;
    out[i] = mulhi(a[i], b[i]);
}}
"""
    mod = irc.compile(src, arch="sm_80")
    suffix = ("s" if t[0] == "i" else "u") + t[1:]
    assert f"mul.hi.{suffix} " in mod.ptx_text
    if find_ptxas() is not None:
        r = run_ptxas(mod.ptx_text, "sm_80")
        assert r.ok, r.stderr
    T = NP_TYPES[t]
    info = np.iinfo(T)
    rng = np.random.default_rng(3)
    a = rng.integers(info.min, info.max, 32, dtype=np.int64 if t != "u64" else np.uint64).astype(T)
    b = rng.integers(info.min, info.max, 32, dtype=np.int64 if t != "u64" else np.uint64).astype(T)
    a[0], b[0] = info.min, info.max
    out = np.zeros(32, T)
    mod["k"].launch(1, 32, [out, a, b])
    bits = np.dtype(T).itemsize * 8
    want = [((int(x) * int(y)) >> bits) for x, y in zip(a, b)]
    assert [int(v) for v in out] == want


def _fold(text: str):
    m = parse_module(text, "t.kdsl")
    PassManager([ConstFold()], verify_each=True).run(m)
    return m.functions[0]


@pytest.mark.parametrize(
    ("t", "a", "b", "want"),
    [
        ("i32", -7, 3, -1),
        ("u32", 0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFE),
        ("i64", -(2**62), 8, -2),
        ("u64", 2**63, 4, 2),
    ],
)
def test_constfold_mulhi(t: str, a: int, b: int, want: int) -> None:
    fn = _fold(
        f'module "t.kdsl" {{\nkernel @k(%o: *global {t}) {{\n^bb0:\n  %a = const {{value = {a}}} : {t}\n'
        f"  %b = const {{value = {b}}} : {t}\n  %r = mulhi %a, %b : {t}\n  store %o, %r\n  ret\n}}\n}}\n"
    )
    assert [op.name for op in fn.ops()].count("mulhi") == 0
    store = next(op for op in fn.ops() if op.name == "store")
    assert store.operands[1].op.attrs["value"] == want


@pytest.mark.parametrize(
    ("kind", "t", "v", "mask", "want"),
    [
        ("add", "u32", 3, 0xFFFFFFFF, 96),
        ("add", "i32", -2, 0x0000000F, -8),
        ("min", "i32", -5, 0xFFFFFFFF, -5),
        ("max", "u32", 9, 0xFF, 9),
        ("xor", "u32", 6, 0xFFFFFFFF, 0),
        ("xor", "u32", 6, 0x7, 6),
        ("and", "i32", -3, 0xFFFFFFFF, -3),
    ],
)
def test_constfold_redux(kind: str, t: str, v: int, mask: int, want: int) -> None:
    fn = _fold(
        f'module "t.kdsl" {{\nkernel @k(%o: *global {t}) {{\n^bb0:\n  %v = const {{value = {v}}} : {t}\n'
        f'  %m = const {{value = {mask}}} : u32\n  %r = redux %v, %m {{kind = "{kind}"}} : {t}\n'
        "  store %o, %r\n  ret\n}\n}\n"
    )
    store = next(op for op in fn.ops() if op.name == "store")
    assert store.operands[1].op.name == "const" and store.operands[1].op.attrs["value"] == want
    # the collective itself stays (the analyzer still checks where it runs); only its users fold
    assert [op.name for op in fn.ops()].count("redux") == 1


@needs_ptxas
@pytest.mark.parametrize("t", ["s32", "u32"])
def test_lifted_redux_keeps_its_sign(t: str) -> None:
    text = (
        ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k(.param .u32 p)\n{\n"
        "  .reg .b32 %r<4>;\n  ld.param.u32 %r1, [p];\n"
        f"  redux.sync.min.{t} %r2, %r1, -1;\n  redux.sync.xor.b32 %r3, %r2, -1;\n  ret;\n}}\n"
    )
    assert run_ptxas(text, "sm_80").ok
    m, _ = lift_ptx(text, "t.ptx")
    reds = [op for op in m.functions[0].ops() if op.name == "redux"]
    assert [(op.attrs["kind"], str(op.results[0].type)) for op in reds] == [
        ("min", "i32" if t == "s32" else "u32"),
        ("xor", "u32"),
    ]


@needs_ptxas
def test_lifted_mulhi_all_widths() -> None:
    """`mul.hi` of every width lifts to `mulhi` of the suffix type (it crashed the lifter before: the op
    table left the result type unbound)."""
    text = (
        ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k(.param .u64 p)\n{\n"
        "  .reg .b16 %h<4>;\n  .reg .b32 %r<4>;\n  .reg .b64 %rd<4>;\n  ld.param.u64 %rd1, [p];\n"
        "  cvt.u32.u64 %r1, %rd1;\n  cvt.u16.u64 %h1, %rd1;\n"
        "  mul.hi.s16 %h2, %h1, %h1;\n  mul.hi.u32 %r2, %r1, %r1;\n  mul.hi.s64 %rd2, %rd1, %rd1;\n"
        "  mul.hi.u64 %rd3, %rd1, 7;\n  ret;\n}\n"
    )
    assert run_ptxas(text, "sm_80").ok
    m, _ = lift_ptx(text, "t.ptx")
    got = [str(op.results[0].type) for op in m.functions[0].ops() if op.name == "mulhi"]
    assert got == ["i16", "u32", "i64", "u64"]
