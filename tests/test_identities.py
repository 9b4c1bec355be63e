"""Identities (irc/passes/identities.py): each integer identity removes its op or folds the constants,
and the kernel computes the same values in the emulator before and after (and through ptxas). Near
misses stay: float `x + 0.0` (-0.0 + 0.0 is +0.0), a shift pair reaching the width, a reassociation whose
inner operand is not a constant."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from irc.backends.ptx.emit import compile_module
from irc.frontend.ptx.parser import parse_ptx
from irc.ir.parser import parse_module
from irc.passes.dce import DCE
from irc.passes.identities import Identities
from irc.passes.manager import PassManager
from irc.ptxas import find_ptxas, run_ptxas

emu = pytest.importorskip("irc.emu.launch")

# name -> (body computing %r : u32 from %x : u32 (and %fx : f32 into %fr), ops left after the pass)
CASES = {
    "add0": ("  %r = add %x, %k0 : u32\n", []),
    "zero_add": ("  %r = add %k0, %x : u32\n", []),
    "sub0": ("  %r = sub %x, %k0 : u32\n", []),
    "or0": ("  %r = or %x, %k0 : u32\n", []),
    "xor0": ("  %r = xor %x, %k0 : u32\n", []),
    "shl0": ("  %r = shl %x, %k0 : u32\n", []),
    "shr0": ("  %r = shr %x, %k0 : u32\n", []),
    "mul1": ("  %r = mul %x, %k1 : u32\n", []),
    "one_mul": ("  %r = mul %k1, %x : u32\n", []),
    "shl_shl": ("  %a = shl %x, %k3 : u32\n  %r = shl %a, %k1 : u32\n", ["shl"]),
    "add_add": ("  %a = add %x, %k3 : u32\n  %r = add %a, %kbig : u32\n", ["add"]),
    # near misses
    "shl_shl_width": ("  %a = shl %x, %k16 : u32\n  %r = shl %a, %k16 : u32\n", ["shl", "shl"]),
    "add_add_var": ("  %a = add %x, %x : u32\n  %r = add %a, %k3 : u32\n", ["add", "add"]),
    "mul0": ("  %r = mul %x, %k0 : u32\n", ["mul"]),  # x * 0 is not x (ConstFold's job if at all)
}


def _text(body: str, fbody: str = "  %fr = add %fx, %fz : f32\n") -> str:
    return f"""module "t.kdsl" {{
kernel @k(%out: *global u32, %fout: *global f32, %xs: *global u32, %fxs: *global f32) attributes {{launch = [64, 1, 1]}} {{
^bb0:
  %tid = sreg {{name = "tid.x"}} : u32
  %t64 = cvt %tid : u64
  %c4 = const {{value = 4}} : u64
  %off = mul %t64, %c4 : u64
  %xp = ptradd %xs, %off : *global u32
  %x = load %xp : u32
  %fxp = ptradd %fxs, %off : *global f32
  %fx = load %fxp : f32
  %k0 = const {{value = 0}} : u32
  %k1 = const {{value = 1}} : u32
  %k3 = const {{value = 3}} : u32
  %k16 = const {{value = 16}} : u32
  %kbig = const {{value = 4294967295}} : u32
  %fz = const {{value = 0.0}} : f32
{body}{fbody}  %p = ptradd %out, %off : *global u32
  store %p, %r
  %fp = ptradd %fout, %off : *global f32
  store %fp, %fr
  ret
}}
}}
"""


def _run(m, xs: np.ndarray, fxs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    out, fout = np.zeros(64, np.uint32), np.zeros(64, np.float32)
    ptx = compile_module(m, "sm_80").text
    emu.run_kernel(parse_ptx(ptx), "k", (1, 1, 1), (64, 1, 1), (out, fout, xs, fxs))
    return out, fout


def _arith(m) -> list[str]:
    """The ops of the body (between the constants of the prologue and the stores), constants excluded."""
    ops = list(m.functions[0].ops())
    start = max(i for i, op in enumerate(ops) if op.name == "load")
    end = min(i for i, op in enumerate(ops) if i > start and op.name == "ptradd")
    return [op.name for op in ops[start + 1 : end] if op.name != "const"]


@pytest.mark.parametrize("name", sorted(CASES))
def test_identity(name: str) -> None:
    body, left = CASES[name]
    before = parse_module(_text(body), "t.kdsl")
    after = parse_module(_text(body), "t.kdsl")
    PassManager([Identities(), DCE()], verify_each=True).run(after)  # DCE: the inner op of a fold
    assert _arith(after)[:-1] == left
    assert _arith(after)[-1] == "add"  # the f32 add, last: float x + 0.0 is not an identity
    rng = np.random.default_rng(7)
    xs = rng.integers(0, 2**32, 64, dtype=np.uint64).astype(np.uint32)
    xs[:4] = [0, 1, 0xFFFFFFFF, 0x80000000]
    fxs = rng.standard_normal(64).astype(np.float32)
    fxs[0] = -0.0
    b, fb = _run(before, xs, fxs)
    a, fa = _run(after, xs, fxs)
    np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(fa.view(np.uint32), fb.view(np.uint32))
    assert fa.view(np.uint32)[0] == 0  # -0.0 + 0.0 = +0.0, kept
    if find_ptxas() is not None:
        assert run_ptxas(compile_module(after, "sm_80").text, "sm_80").ok


@settings(max_examples=40, deadline=None)
@given(a=st.integers(0, 40), b=st.integers(0, 40), x=st.integers(0, 2**32 - 1))
def test_shift_pair_matches_numpy(a: int, b: int, x: int) -> None:
    """`(x << a) << b` folded or not, the value is numpy's (shifts of 32 or more give 0 on PTX)."""
    body = (
        f"  %ka = const {{value = {a}}} : u32\n  %kb = const {{value = {b}}} : u32\n"
        "  %s = shl %x, %ka : u32\n  %r = shl %s, %kb : u32\n"
    )
    m = parse_module(_text(body), "t.kdsl")
    PassManager([Identities()], verify_each=True).run(m)
    xs = np.full(64, x, np.uint32)
    out, _ = _run(m, xs, np.zeros(64, np.float32))
    want = 0 if a >= 32 or b >= 32 else (((x << a) & 0xFFFFFFFF) << b) & 0xFFFFFFFF
    assert int(out[0]) == want
