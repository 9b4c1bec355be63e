"""The `widemul` pass: a widened 32-bit index scaled by a constant (or by another widened index) becomes
`mul.wide`, and the kernel computes the same 64-bit values in the emulator as numpy does with exact
integers, for unsigned and signed sources, edge values and random shifts / factors (hypothesis)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from irc.backends.ptx.emit import compile_module
from irc.emu.launch import run_kernel
from irc.frontend.ptx.parser import parse_ptx
from irc.ir.parser import parse_module
from irc.passes.manager import PassManager
from irc.passes.pipeline import optimization_passes
from irc.ptxas import find_ptxas, run_ptxas

N = 32
NP = {"u32": np.uint32, "i32": np.int32}
WIDE = {"u32": "u64", "i32": "i64"}


def _kernel(t: str, k: int, c: int) -> str:
    """out[3i..3i+2] = (x << k, x * c, x * y) computed on the 64-bit widening of 32-bit x, y."""
    w = WIDE[t]
    return f"""module "w.kdsl" {{
kernel @k(%out: *global {w}, %xs: *global {t}, %ys: *global {t}) {{
^bb0:
  %i = sreg {{name = "tid.x"}} : u32
  %i64 = cvt %i : u64
  %four = const {{value = 4}} : u64
  %ioff = mul %i64, %four : u64
  %px = ptradd %xs, %ioff : *global {t}
  %py = ptradd %ys, %ioff : *global {t}
  %x = load %px : {t}
  %y = load %py : {t}
  %xw = cvt %x : {w}
  %yw = cvt %y : {w}
  %k = const {{value = {k}}} : {w}
  %c = const {{value = {c}}} : {w}
  %r0 = shl %xw, %k : {w}
  %r1 = mul %c, %xw : {w}
  %r2 = mul %xw, %yw : {w}
  %three = const {{value = 24}} : u64
  %ooff = mul %i64, %three : u64
  %p0 = ptradd %out, %ooff : *global {w}
  store %p0, %r0
  store %p0, %r1 {{offset = 8}}
  store %p0, %r2 {{offset = 16}}
  ret
}}
}}
"""


def _run(t: str, k: int, c: int, xs: np.ndarray, ys: np.ndarray) -> tuple[np.ndarray, str]:
    m = parse_module(_kernel(t, k, c), "w.kdsl")
    PassManager(optimization_passes(), verify_each=True).run(m)
    text = compile_module(m, "sm_80").text
    out = np.zeros(3 * N, np.int64 if t == "i32" else np.uint64)
    run_kernel(parse_ptx(text), "k", 1, N, (out, xs, ys))
    return out, text


def _expect(t: str, k: int, c: int, xs: np.ndarray, ys: np.ndarray) -> list[int]:
    mask = (1 << 64) - 1
    want = []
    for x, y in zip(xs.tolist(), ys.tolist(), strict=True):
        want += [(x << k) & mask, (x * c) & mask, (x * y) & mask]
    return want


def _got(out: np.ndarray) -> list[int]:
    return [int(v) & ((1 << 64) - 1) for v in out.tolist()]


def _values(t: str):  # type: ignore[no-untyped-def]
    info = np.iinfo(NP[t])
    return st.lists(st.integers(int(info.min), int(info.max)), min_size=N, max_size=N)


@settings(max_examples=12, deadline=None)
@given(data=st.data(), t=st.sampled_from(["u32", "i32"]))
def test_widemul_matches_numpy(data, t: str) -> None:  # type: ignore[no-untyped-def]
    info = np.iinfo(NP[t])
    k = data.draw(st.integers(0, 30))
    c = data.draw(st.integers(0, int(info.max)))
    xs = np.array(data.draw(_values(t)), NP[t])
    ys = np.array(data.draw(_values(t)), NP[t])
    xs[:4] = [0, info.max, info.min, 1]  # the edges every run
    out, text = _run(t, k, c, xs, ys)
    assert _got(out) == _expect(t, k, c, xs, ys)
    suffix = "u32" if t == "u32" else "s32"
    # every non-trivial product was rewritten (shl by 0 and mul by 0 / 1 fold away first)
    assert text.count(f"mul.wide.{suffix}") >= 1 + (k != 0) + (c not in (0, 1))


def test_widemul_keeps_what_it_cannot_widen() -> None:
    """A shift of 31 on a signed source (2^31 is not an s32) and a factor above the source's range stay
    64-bit operations, and still compute the exact wrapped values."""
    xs = np.array([-1, -(2**31), 2**31 - 1, 5] * (N // 4), np.int32)
    ys = np.array([3] * N, np.int32)
    out, text = _run("i32", 31, 2**33 + 1, xs, ys)
    assert _got(out) == _expect("i32", 31, 2**33 + 1, xs, ys)
    assert "shl.b64" in text


@pytest.mark.skipif(find_ptxas() is None, reason="ptxas not installed")
@pytest.mark.parametrize("t", ["u32", "i32"])
def test_widemul_ptxas_accepts(t: str) -> None:
    m = parse_module(_kernel(t, 2, 12), "w.kdsl")
    PassManager(optimization_passes()).run(m)
    res = run_ptxas(compile_module(m, "sm_80").text, "sm_80")
    assert res.ok, res.errors
