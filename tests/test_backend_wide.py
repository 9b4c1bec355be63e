"""Backend legalization of values PTX handles only in a narrower form, end to end (.kdsl -> PTX -> ptxas ->
emulator -> numpy):

  * 64-bit warp shuffles (`shfl.sync` is .b32 only: two 32-bit shuffles of the halves);
  * `popc` / `clz` of 64-bit values (`popc.b64` / `clz.b64` have a 32-bit result);
  * bf16 conversions before sm_90 (only `cvt.rn.bf16.f32` exists there: bf16 -> T goes through f32 by
    bit placement, T -> bf16 through f32 with round-to-odd so that rounding happens once).
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

import irc
from irc.ptxas import find_ptxas, run_ptxas

HAVE_PTXAS = find_ptxas() is not None
ARCHS = ("sm_80", "sm_90")


def build(src: str, arch: str):
    mod = irc.compile(src, arch=arch, cache=False)
    if HAVE_PTXAS:
        res = run_ptxas(mod.ptx_text, arch)
        assert res.ok, f"{arch}: {[(e.line, e.message) for e in res.errors]}\n{mod.ptx_text}"
    return mod


_NP = {"i32": "int32", "u32": "uint32", "i64": "int64", "u64": "uint64", "f64": "float64"}


def bf16_bits_to_f32(bits: np.ndarray) -> np.ndarray:
    return (bits.astype(np.uint32) << np.uint32(16)).view(np.float32)


# -- 1. 64-bit shuffles ---------------------------------------------------------------------------------
@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("ty", ["f64", "u64", "i64"])
def test_warp_butterfly_sum_64(arch: str, ty: str) -> None:
    src = f"""
kernel k(out: *global {ty}, x: *global {ty}) {{
    var v = x[tid.x];
    v = v + shfl_xor(v, 16u32);
    v = v + shfl_xor(v, 8u32);
    v = v + shfl_xor(v, 4u32);
    v = v + shfl_xor(v, 2u32);
    v = v + shfl_xor(v, 1u32);
    out[tid.x] = v;
}}
"""
    mod = build(src, arch)
    rng = np.random.default_rng(1)
    if ty == "f64":
        x = rng.standard_normal(32) * 1e10
        x[3] = 1e-300  # bits in both halves
        expect = None
    elif ty == "u64":
        x = rng.integers(0, 2**62, 32, dtype=np.uint64) | np.uint64(1 << 40)
        expect = np.full(32, x.sum(dtype=np.uint64), np.uint64)
    else:
        x = rng.integers(-(2**58), 2**58, 32, dtype=np.int64)
        expect = np.full(32, x.sum(dtype=np.int64), np.int64)
    out = np.zeros_like(x)
    mod["k"].launch(1, 32, [out, x])
    if ty == "f64":
        # every lane sums the same values in a lane-dependent order: compare with a tolerance, and exactly
        # against a butterfly model
        v = x.copy()
        for d in (16, 8, 4, 2, 1):
            v = v + v[np.arange(32) ^ d]
        np.testing.assert_array_equal(out, v)
        np.testing.assert_allclose(out, np.full(32, x.sum()), rtol=1e-12)
    else:
        np.testing.assert_array_equal(out, expect)


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("ty", ["f64", "u64", "i64"])
@pytest.mark.parametrize("fn", ["shfl_down", "shfl_up", "shfl_idx"])
def test_shuffle_modes_64(arch: str, ty: str, fn: str) -> None:
    arg = "5u32" if fn != "shfl_idx" else "(tid.x * 7u32) % 32u32"
    src = f"""
kernel k(out: *global {ty}, x: *global {ty}) {{
    out[tid.x] = {fn}(x[tid.x], {arg});
}}
"""
    mod = build(src, arch)
    lane = np.arange(32)
    bits = (np.uint64(0x9E3779B97F4A7C15) * (lane.astype(np.uint64) + np.uint64(1))).astype(np.uint64)
    x = bits.view(np.float64 if ty == "f64" else np.dtype(_NP[ty]))
    x = np.ascontiguousarray(x)
    if ty == "f64":
        x = np.where(np.isnan(x), 1.5, x)  # keep every value distinct and comparable
    src_lane = {
        "shfl_down": np.where(lane + 5 < 32, lane + 5, lane),
        "shfl_up": np.where(lane - 5 >= 0, lane - 5, lane),
        "shfl_idx": (lane * 7) % 32,
    }[fn]
    out = np.zeros_like(x)
    mod["k"].launch(1, 32, [out, x])
    np.testing.assert_array_equal(out.view(np.uint64), x[src_lane].view(np.uint64))


# -- 2. popc / clz of 64-bit values ---------------------------------------------------------------------
def _u64_samples() -> np.ndarray:
    rng = np.random.default_rng(2)
    special = [0, 1, 2**32 - 1, 2**32, 2**63, 2**64 - 1, 0x8000_0000, 0x1_0000_0001, 0x00F0_0000_0000_0000]
    pows = [1 << i for i in range(64)]
    rand = rng.integers(
        0, 2**64 - 1, 64 - (len(special) + len(pows)) % 32 + 32, dtype=np.uint64, endpoint=True
    )
    x = np.concatenate(
        [np.array(special + pows, np.uint64), rand >> rng.integers(0, 64, len(rand)).astype(np.uint64)]
    )
    return x[: len(x) // 32 * 32]


@pytest.mark.parametrize("arch", ARCHS)
def test_popc_clz_u64(arch: str) -> None:
    src = """
kernel k(pc: *global u32, lz: *global u32, w: *global u64, x: *global u64) {
    let i = ctaid.x * ntid.x + tid.x;
    let v = x[i];
    pc[i] = popc(v);
    lz[i] = clz(v);
    w[i] = (popc(v) as u64) + (clz(v) as u64) * 1000u64;
}
"""
    mod = build(src, arch)
    x = _u64_samples()
    n = len(x)
    pc, lz, w = np.zeros(n, np.uint32), np.zeros(n, np.uint32), np.zeros(n, np.uint64)
    mod["k"].launch(n // 32, 32, [pc, lz, w, x])
    ref_pc = np.array([bin(int(v)).count("1") for v in x], np.uint32)
    ref_lz = np.array([64 - int(v).bit_length() for v in x], np.uint32)
    np.testing.assert_array_equal(pc, ref_pc)
    np.testing.assert_array_equal(lz, ref_lz)
    np.testing.assert_array_equal(w, ref_pc.astype(np.uint64) + ref_lz.astype(np.uint64) * 1000)


# -- 3. bf16 conversions ----------------------------------------------------------------------------------
def _all_bf16() -> np.ndarray:
    return np.arange(65536, dtype=np.uint32).astype(np.uint16)


@pytest.mark.parametrize("arch", ARCHS)
def test_bf16_to_f32_all_patterns(arch: str) -> None:
    mod = build(
        "kernel k(o: *global f32, a: *global bf16) { let i = ctaid.x * ntid.x + tid.x; o[i] = a[i] as f32; }",
        arch,
    )
    a = _all_bf16()
    out = np.zeros(65536, np.float32)
    mod["k"].launch(256, 256, [out, a])
    ref = bf16_bits_to_f32(a)
    nan = np.isnan(ref)
    assert np.array_equal(np.isnan(out), nan)
    np.testing.assert_array_equal(out[~nan].view(np.uint32), ref[~nan].view(np.uint32))


def _ref_from_bf16(ty: str, a: np.ndarray) -> np.ndarray:
    f = bf16_bits_to_f32(a)
    if ty == "f64":
        return f.astype(np.float64)
    if ty == "f16":
        with np.errstate(over="ignore", invalid="ignore"):
            return f.astype(np.float16)
    info = np.iinfo(np.dtype(_NP[ty]))
    with np.errstate(invalid="ignore"):
        t = np.trunc(np.nan_to_num(f.astype(np.float64), nan=0.0))
        t = np.clip(t, float(info.min), float(info.max))
    return np.array([max(info.min, min(info.max, int(v))) for v in t], info.dtype)


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("ty", ["f64", "f16", "i32", "u32", "i64", "u64"])
def test_bf16_to_other_all_patterns(arch: str, ty: str) -> None:
    src = f"kernel k(o: *global {ty}, a: *global bf16) {{ let i = ctaid.x * ntid.x + tid.x; o[i] = a[i] as {ty}; }}"
    mod = build(src, arch)
    a = _all_bf16()
    ref = _ref_from_bf16(ty, a)
    out = np.zeros(65536, ref.dtype)
    mod["k"].launch(256, 256, [out, a])
    if ref.dtype.kind == "f":
        nan = np.isnan(ref.astype(np.float64))
        assert np.array_equal(np.isnan(out.astype(np.float64)), nan)
        w = np.uint16 if ref.dtype == np.float16 else np.uint64
        np.testing.assert_array_equal(out[~nan].view(w), ref[~nan].view(w))
    else:
        keep = np.ones(len(a), bool)
        np.testing.assert_array_equal(out[keep], ref[keep])


def _bf16_value(code: int) -> Fraction:
    """Exact value of the non-negative bf16 pattern `code` (0x7F80, +inf, counts as 2**128 for rounding)."""
    if code >= 0x7F80:
        return Fraction(2) ** 128
    e, m = code >> 7, code & 0x7F
    if e == 0:
        return Fraction(m, 1 << 7) * Fraction(2) ** -126
    return (1 + Fraction(m, 1 << 7)) * Fraction(2) ** (e - 127)


def ref_to_bf16(x) -> int:
    """Round the exact value of x (a Python int or float) to bf16, nearest even; returns the bits."""
    if isinstance(x, float) and x != x:
        return 0x7FC0
    if isinstance(x, float) and x in (float("inf"), float("-inf")):
        return 0x7F80 | (0x8000 if x < 0 else 0)
    sign = 0x8000 if (x < 0 or (isinstance(x, float) and str(x).startswith("-"))) else 0
    v = abs(Fraction(x))
    lo, hi = 0, 0x7F80  # largest code with value <= v, by bisection
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if _bf16_value(mid) <= v:
            lo = mid
        else:
            hi = mid - 1
    if lo == 0x7F80 or _bf16_value(lo) == v:
        return sign | lo
    dl, dh = v - _bf16_value(lo), _bf16_value(lo + 1) - v
    code = lo if dl < dh or (dl == dh and lo % 2 == 0) else lo + 1
    return sign | code


def _to_bf16_samples(ty: str) -> np.ndarray:
    rng = np.random.default_rng(3)
    if ty == "f64":
        base = bf16_bits_to_f32(rng.integers(0, 0x7F80, 256).astype(np.uint16)).astype(np.float64)
        half = base * 2.0**-9  # half a bf16 ulp (normal range)
        xs = [
            base,
            base + half,
            base - half * 0.5,
            base + half * (1 + 2.0**-30),
            base + half * (1 - 2.0**-30),
        ]
        xs.append(
            np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e300, -1e300, 3.4e38, 3.3961775292304957e38])
        )
        xs.append(np.array([1 + 2.0**-8 + 2.0**-30, 1e-40, 1e-45, 5e-324, -(1 + 2.0**-8 + 2.0**-40)]))
        xs.append(rng.standard_normal(200) * 10.0 ** rng.integers(-40, 39, 200))
        x = np.concatenate(xs)
        x = np.concatenate([x, -x[: len(x) // 2]])
        return x
    dt = np.dtype(_NP[ty])
    info = np.iinfo(dt)
    vals = [0, 1, info.max, info.min, (1 << 24) + (1 << 16) + 1, (1 << 24) + (1 << 16), (1 << 24) + (3 << 16)]
    vals += [(1 << 30) + (1 << 22) + 1, (1 << 31) - 1]
    if info.bits == 64:
        vals += [
            (1 << 62) + (1 << 54) + 1,
            (1 << 62) + (1 << 54),
            (1 << 63) - 1,
            (1 << 60) + (1 << 52) + (1 << 30),
        ]
    if info.min < 0:
        vals += [-v for v in vals if -v >= info.min]
    vals = [v for v in vals if info.min <= v <= info.max]
    r = rng.integers(info.min, info.max, 300, dtype=dt, endpoint=True)
    r = r >> rng.integers(0, info.bits - 1, 300).astype(dt)
    return np.concatenate([np.array(vals, dt), r])


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("ty", ["f64", "f16", "i32", "u32", "i64", "u64"])
def test_to_bf16(arch: str, ty: str) -> None:
    src = f"kernel k(o: *global bf16, a: *global {ty}, n: u32) {{ let i = ctaid.x * ntid.x + tid.x; if i < n {{ o[i] = a[i] as bf16; }} }}"
    mod = build(src, arch)
    if ty == "f16":
        x = np.arange(65536, dtype=np.uint32).astype(np.uint16).view(np.float16)
    else:
        x = _to_bf16_samples(ty)
    n = len(x)
    out = np.zeros(n, np.uint16)
    mod["k"].launch((n + 127) // 128, 128, [out, x, n])
    py = [float(v) for v in x] if x.dtype.kind == "f" else [int(v) for v in x]
    ref = np.array(
        [ref_to_bf16(v) if not (isinstance(v, float) and np.signbit(v) and v == 0) else 0x8000 for v in py],
        np.uint16,
    )
    nan = (ref & 0x7FFF) > 0x7F80
    assert np.array_equal((out & 0x7FFF) > 0x7F80, nan)
    bad = np.nonzero(out[~nan] != ref[~nan])[0]
    assert len(bad) == 0, [(x[~nan][i], hex(out[~nan][i]), hex(ref[~nan][i])) for i in bad[:8]]


@pytest.mark.parametrize("arch", ("sm_80", "sm_86", "sm_89"))
def test_bf16_legalized_before_sm90(arch: str) -> None:
    """Before sm_90 no cvt names .bf16 except cvt.rn.bf16.f32; on sm_90 the direct forms stay."""
    src = """
kernel k(o: *global f64, p: *global bf16, a: *global bf16, b: *global i64) {
    o[0] = a[0] as f64;
    p[0] = b[0] as bf16;
    p[1] = o[1] as bf16;
}
"""
    text = build(src, arch).ptx_text
    cvts = [ln.split()[0] for ln in text.splitlines() if ln.strip().startswith("cvt") and "bf16" in ln]
    assert cvts and all(c.endswith(".bf16.f32") for c in cvts), cvts
    direct = build(src, "sm_90").ptx_text
    assert "cvt.f64.bf16" in direct
