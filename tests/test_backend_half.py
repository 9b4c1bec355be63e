"""f16 / bf16 arithmetic, math and compares end to end (.kdsl -> PTX -> ptxas -> emulator -> numpy).

Legalization widens every f16 / bf16 op without a valid native PTX form on the target to f32 (exact operand
conversion, the op in f32, `cvt.rn` back); the rest (f16 add/sub/mul/fma/neg/abs/min/max/compare/rounding)
stays native. Every op must assemble with ptxas on sm_80, sm_90 and sm_100a, and compute what numpy computes
in float32 rounded to the type: exactly for the exact ops, within 1 ulp of the type for the approximate ones.
"""

from __future__ import annotations

import numpy as np
import pytest

import irc
from irc.ptxas import find_ptxas, run_ptxas

HAVE_PTXAS = find_ptxas() is not None
ARCHS = ("sm_80", "sm_90", "sm_100a")
N = 512

# op -> (kdsl expression of a, b, c; float32 reference; exact?; positive inputs only?)
OPS: dict[str, tuple[str, object, bool, bool]] = {
    "add": ("a + b", lambda a, b, c: a + b, True, False),
    "sub": ("a - b", lambda a, b, c: a - b, True, False),
    "mul": ("a * b", lambda a, b, c: a * b, True, False),
    "div": ("a / b", lambda a, b, c: a / b, False, False),
    "min": ("min(a, b)", lambda a, b, c: np.minimum(a, b), True, False),
    "max": ("max(a, b)", lambda a, b, c: np.maximum(a, b), True, False),
    "abs": ("abs(a)", lambda a, b, c: np.abs(a), True, False),
    "neg": ("-a", lambda a, b, c: -a, True, False),
    "sqrt": ("sqrt(a)", lambda a, b, c: np.sqrt(a), False, True),
    "rsqrt": ("rsqrt(a)", lambda a, b, c: np.float32(1) / np.sqrt(a), False, True),
    "rcp": ("rcp(a)", lambda a, b, c: np.float32(1) / a, False, False),
    "exp2": ("exp2(a)", lambda a, b, c: np.exp2(a), False, False),
    "log2": ("log2(a)", lambda a, b, c: np.log2(a), False, True),
    "floor": ("floor(a)", lambda a, b, c: np.floor(a), True, False),
    "ceil": ("ceil(a)", lambda a, b, c: np.ceil(a), True, False),
    "trunc": ("trunc(a)", lambda a, b, c: np.trunc(a), True, False),
    "round": ("round(a)", lambda a, b, c: np.rint(a), True, False),
    "fma": ("fma(a, b, c)", lambda a, b, c: (a.astype(np.float64) * b + c).astype(np.float32), False, False),
    "eq": ("select(a == b, a, c)", lambda a, b, c: np.where(a == b, a, c), True, False),
    "lt": ("select(a < b, a, c)", lambda a, b, c: np.where(a < b, a, c), True, False),
    "select": ("a < b ? b : c", lambda a, b, c: np.where(a < b, b, c), True, False),
}


def f32_to_bf16_bits(f: np.ndarray) -> np.ndarray:
    """Round-to-nearest-even float32 -> bf16 bit patterns (NaN stays a quiet NaN)."""
    u = np.asarray(f, np.float32).view(np.uint32).astype(np.uint64)
    r = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)
    nan = np.isnan(f)
    r[nan] = ((u[nan] >> 16) | 0x40).astype(np.uint16)
    return r


def bf16_bits_to_f32(bits: np.ndarray) -> np.ndarray:
    return (bits.astype(np.uint32) << np.uint32(16)).view(np.float32)


def to_f32(ty: str, x: np.ndarray) -> np.ndarray:
    return bf16_bits_to_f32(x) if ty == "bf16" else x.astype(np.float32)


def from_f32(ty: str, f: np.ndarray) -> np.ndarray:
    with np.errstate(over="ignore"):
        return f32_to_bf16_bits(f) if ty == "bf16" else f.astype(np.float16)


def ordered(ty: str, x: np.ndarray) -> np.ndarray:
    """Bit patterns mapped to integers that are consecutive across adjacent values of the type."""
    u = (x if ty == "bf16" else x.view(np.uint16)).astype(np.int64)
    return np.where(u & 0x8000, -(u & 0x7FFF), u)


def inputs(ty: str, positive: bool, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    specials = np.array([0.0, -0.0, 0.5, 1.5, 2.5, -2.5, -0.5, 3.0, 1e-3, -7.25, 12.5, 100.0], np.float32)

    def one() -> np.ndarray:
        v = (rng.standard_normal(N) * rng.choice([0.01, 1.0, 8.0], N)).astype(np.float32)
        v[: len(specials)] = specials
        if positive:
            v = np.abs(v) + np.float32(1e-3)
        return from_f32(ty, v)

    a, b, c = one(), one(), one()
    b[::4] = a[::4]  # equal operands for the compares
    b[:16] = b[16:32]
    return a, b, c


def build(src: str, arch: str):
    mod = irc.compile(src, arch=arch, cache=False)
    if HAVE_PTXAS:
        res = run_ptxas(mod.ptx_text, arch)
        assert res.ok, f"{arch}: {[(e.line, e.message) for e in res.errors]}\n{mod.ptx_text}"
    return mod


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("op", list(OPS))
@pytest.mark.parametrize("ty", ["f16", "bf16"])
def test_half_op(ty: str, op: str, arch: str) -> None:
    expr, ref_fn, exact, positive = OPS[op]
    src = f"""
kernel k(o: *global {ty}, x: *global {ty}, y: *global {ty}, z: *global {ty}) {{
    let i = ctaid.x * ntid.x + tid.x;
    let a = x[i];
    let b = y[i];
    let c = z[i];
    o[i] = {expr};
}}
"""
    mod = build(src, arch)
    a, b, c = inputs(ty, positive, seed=len(op))
    out = np.zeros_like(a)
    mod["k"].launch(N // 128, 128, [out, a, b, c])
    with np.errstate(all="ignore"):
        ref = from_f32(ty, np.asarray(ref_fn(to_f32(ty, a), to_f32(ty, b), to_f32(ty, c)), np.float32))
    got_f, ref_f = to_f32(ty, out), to_f32(ty, ref)
    nan = np.isnan(ref_f)
    np.testing.assert_array_equal(np.isnan(got_f), nan)
    if exact:
        np.testing.assert_array_equal(got_f[~nan], ref_f[~nan])
        # signed zeros must match too (neg, abs, min/max of +-0 are not compared here: IEEE leaves it open)
        if op in ("neg", "abs", "floor", "ceil", "trunc", "round", "mul"):
            np.testing.assert_array_equal(np.signbit(got_f[~nan]), np.signbit(ref_f[~nan]))
    else:
        diff = np.abs(ordered(ty, out) - ordered(ty, ref))[~nan]
        bad = np.nonzero(diff > 1)[0]
        assert bad.size == 0, (
            f"{op} off by more than 1 ulp at {bad[:8]}: got {got_f[~nan][bad[:8]]}, want {ref_f[~nan][bad[:8]]}"
        )


def test_half_widening_rounds_to_nearest_even() -> None:
    """The widened result is narrowed with cvt.rn (not truncated): bf16 1 + 2**-8 is a tie -> 1."""
    mod = build(
        "kernel k(o: *global bf16, x: *global bf16, y: *global bf16) { o[tid.x] = x[tid.x] + y[tid.x]; }",
        "sm_80",
    )
    assert "cvt.rn.bf16.f32" in mod.ptx_text
    x = from_f32("bf16", np.array([1.0, 1.0, 1.0], np.float32))
    y = from_f32("bf16", np.array([2.0**-8, 3 * 2.0**-8, 2.0**-7], np.float32))
    out = np.zeros_like(x)
    mod["k"].launch(1, 3, [out, x, y])
    np.testing.assert_array_equal(
        bf16_bits_to_f32(out), np.array([1.0, 1 + 2.0**-6, 1 + 2.0**-7], np.float32)
    )
