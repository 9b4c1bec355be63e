"""Instruction semantics against numpy references, one small hand-written PTX kernel per case.

Each case loads three 32-bit inputs per thread into %r1..%r3 (and their bits into %f1..%f3), runs a
snippet that leaves its result bits in %r10, and compares with a numpy reference on the same bits.
"""

from __future__ import annotations

import numpy as np
import pytest
from emu_util import ptx_kernel

from irc.emu import run_kernel

N = 256
PRO = """  ld.param.u64 %rd1, [pa];
  ld.param.u64 %rd2, [pout];
  mov.u32 %r0, %tid.x;
  mov.u32 %r4, %ctaid.x;
  mov.u32 %r5, %ntid.x;
  mad.lo.u32 %r0, %r4, %r5, %r0;
  mul.wide.u32 %rd3, %r0, 12;
  add.s64 %rd4, %rd1, %rd3;
  ld.global.u32 %r1, [%rd4];
  ld.global.u32 %r2, [%rd4+4];
  ld.global.u32 %r3, [%rd4+8];
  mov.b32 %f1, %r1;
  mov.b32 %f2, %r2;
  mov.b32 %f3, %r3;
"""
EPI = """
  mul.wide.u32 %rd5, %r0, 4;
  add.s64 %rd6, %rd2, %rd5;
  st.global.u32 [%rd6], %r10;
  ret;"""


def _inputs(kind: str) -> np.ndarray:
    rng = np.random.default_rng(42)
    if kind == "f":
        x = rng.standard_normal((N, 3)).astype(np.float32) * 4
        x[:8] = [
            [0, -0.0, 1],
            [np.inf, -np.inf, np.nan],
            [np.nan, 1, 2],
            [2.5, -2.5, 0.5],
            [1e-40, 3, -1],
            [-7.5, 7.5, 1e30],
            [0.5, 1.5, -0.5],
            [3, 3, 3],
        ]
        return x.view(np.uint32)
    x = rng.integers(0, 2**32, (N, 3), dtype=np.uint64).astype(np.uint32)
    x[:8] = [
        [0, 0, 0],
        [0xFFFFFFFF, 1, 31],
        [0x80000000, 0xFFFFFFFF, 32],
        [7, 3, 5],
        [1, 33, 8],
        [0x12345678, 0x9ABCDEF0, 0x3210],
        [5, 0, 40],
        [0x7FFFFFFF, 2, 0],
    ]
    return x


def _run(snippet: str, kind: str) -> tuple[np.ndarray, np.ndarray]:
    k = ptx_kernel(PRO + snippet + EPI, params=".param .u64 pa, .param .u64 pout")
    x = _inputs(kind)
    out = np.zeros(N, np.uint32)
    run_kernel(k, "k", grid=2, block=N // 2, args=[x, out])
    return x, out


def s32(x):
    return x.view(np.int32)


def f32(x):
    return x.view(np.float32)


def bits(v, dt=np.uint32):
    return np.asarray(v).astype(dt).view(np.uint32) if np.dtype(dt).itemsize == 4 else np.asarray(v)


INT_CASES = {
    "add.s32 %r10, %r1, %r2;": lambda a, b, c: a + b,
    "sub.u32 %r10, %r1, %r2;": lambda a, b, c: a - b,
    "mul.lo.u32 %r10, %r1, %r2;": lambda a, b, c: a * b,
    "mul.hi.u32 %r10, %r1, %r2;": lambda a, b, c: ((a.astype(np.uint64) * b) >> np.uint64(32)).astype(
        np.uint32
    ),
    "mul.hi.s32 %r10, %r1, %r2;": lambda a, b, c: ((s32(a).astype(np.int64) * s32(b)) >> 32).astype(
        np.uint32
    ),
    "mad.lo.s32 %r10, %r1, %r2, %r3;": lambda a, b, c: a * b + c,
    "and.b32 %r10, %r1, %r2;": lambda a, b, c: a & b,
    "or.b32 %r10, %r1, %r2;": lambda a, b, c: a | b,
    "not.b32 %r10, %r1;": lambda a, b, c: ~a,
    "cnot.b32 %r10, %r1;": lambda a, b, c: (a == 0).astype(np.uint32),
    "shl.b32 %r10, %r1, %r3;": lambda a, b, c: np.where(c >= 32, 0, a << np.minimum(c, 31)),
    "shr.u32 %r10, %r1, %r3;": lambda a, b, c: np.where(c >= 32, 0, a >> np.minimum(c, 31)),
    "shr.s32 %r10, %r1, %r3;": lambda a, b, c: (s32(a) >> np.minimum(c, 31).astype(np.int32)).view(np.uint32),
    "min.s32 %r10, %r1, %r2;": lambda a, b, c: np.minimum(s32(a), s32(b)).view(np.uint32),
    "max.u32 %r10, %r1, %r2;": lambda a, b, c: np.maximum(a, b),
    "abs.s32 %r10, %r1;": lambda a, b, c: np.abs(s32(a)).view(np.uint32),
    "neg.s32 %r10, %r1;": lambda a, b, c: (-s32(a)).view(np.uint32),
    "popc.b32 %r10, %r1;": lambda a, b, c: np.bitwise_count(a).astype(np.uint32),
    "clz.b32 %r10, %r1;": lambda a, b, c: np.array([32 - int(v).bit_length() for v in a], np.uint32),
    "brev.b32 %r10, %r1;": lambda a, b, c: np.array([int(f"{int(v):032b}"[::-1], 2) for v in a], np.uint32),
    "bfind.u32 %r10, %r1;": lambda a, b, c: np.array(
        [int(v).bit_length() - 1 if v else 0xFFFFFFFF for v in a], np.uint32
    ),
    "bfe.u32 %r10, %r1, 4, 8;": lambda a, b, c: (a >> 4) & 0xFF,
    "bfe.s32 %r10, %r1, 4, 8;": lambda a, b, c: ((s32(a) << 20) >> 24).view(np.uint32),
    "bfi.b32 %r10, %r1, %r2, 8, 12;": lambda a, b, c: (b & ~np.uint32(0xFFF00)) | ((a << 8) & 0xFFF00),
    "prmt.b32 %r10, %r1, %r2, 0x7531;": lambda a, b, c: np.array(
        [
            sum((((int(y) << 32 | int(x)) >> (8 * s)) & 0xFF) << (8 * k) for k, s in enumerate([1, 3, 5, 7]))
            for x, y in zip(a, b)
        ],
        np.uint32,
    ),
    "prmt.b32 %r10, %r1, %r2, 0x8880;": lambda a, b, c: np.array(
        [(int(x) & 0xFF) | (0xFFFFFF00 if int(x) & 0x80 else 0) for x in a], np.uint32
    ),
    "lop3.b32 %r10, %r1, %r2, %r3, 0x96;": lambda a, b, c: a ^ b ^ c,
    "lop3.b32 %r10, %r1, %r2, %r3, 0xE8;": lambda a, b, c: (a & b) | (a & c) | (b & c),
    "shf.l.wrap.b32 %r10, %r1, %r2, %r3;": lambda a, b, c: (
        (((b.astype(np.uint64) << 32) | a) << (c & 31).astype(np.uint64)) >> np.uint64(32)
    ).astype(np.uint32),
    "shf.r.clamp.b32 %r10, %r1, %r2, %r3;": lambda a, b, c: (
        ((b.astype(np.uint64) << 32) | a) >> np.minimum(c, 32).astype(np.uint64)
    ).astype(np.uint32),
    "div.u32 %r10, %r1, %r2;": lambda a, b, c: np.where(b == 0, 0xFFFFFFFF, a // np.maximum(b, 1)),
    "rem.s32 %r10, %r1, %r2;": lambda a, b, c: (
        np.where(b == 0, s32(a), np.fmod(s32(a).astype(np.int64), np.where(b == 0, 1, s32(b))))
        .astype(np.int32)
        .view(np.uint32)
    ),
    "setp.lt.s32 %p1, %r1, %r2;\n  selp.u32 %r10, 1, 0, %p1;": lambda a, b, c: (s32(a) < s32(b)).astype(
        np.uint32
    ),
    "setp.hi.u32 %p1|%p2, %r1, %r2;\n  selp.u32 %r10, 1, 2, %p2;": lambda a, b, c: np.where(a > b, 2, 1),
    "setp.eq.and.u32 %p1, %r3, 0, %p3;\n  setp.ne.u32 %p3, %r1, 0;\n  setp.ne.or.u32 %p4, %r2, 0, %p3;\n"
    "  selp.u32 %r10, 1, 0, %p4;": lambda a, b, c: ((a != 0) | (b != 0)).astype(np.uint32),
    "set.gt.u32.s32 %r10, %r1, %r2;": lambda a, b, c: np.where(s32(a) > s32(b), 0xFFFFFFFF, 0),
    "slct.u32.s32 %r10, %r1, %r2, %r3;": lambda a, b, c: np.where(s32(c) >= 0, a, b),
    "cvt.u16.u32 %rs1, %r1;\n  cvt.s32.s16 %r10, %rs1;": lambda a, b, c: (
        (a & 0xFFFF).astype(np.uint16).view(np.int16).astype(np.int32).view(np.uint32)
    ),
    "cvt.sat.u8.s32 %rs1, %r1;\n  cvt.u32.u16 %r10, %rs1;": lambda a, b, c: np.clip(s32(a), 0, 255).astype(
        np.uint32
    ),
    "mul.wide.u32 %rd10, %r1, %r2;\n  mov.b64 {%r11, %r10}, %rd10;": lambda a, b, c: (
        (a.astype(np.uint64) * b) >> np.uint64(32)
    ).astype(np.uint32),
    "mul.wide.s32 %rd10, %r1, %r2;\n  shr.s64 %rd11, %rd10, 17;\n  cvt.u32.u64 %r10, %rd11;": lambda a, b, c: (
        ((s32(a).astype(np.int64) * s32(b)) >> 17).astype(np.uint32)
    ),
    "mov.b64 %rd10, {%r1, %r2};\n  mul.hi.u64 %rd11, %rd10, %rd10;\n  cvt.u32.u64 %r10, %rd11;": lambda a, b, c: (
        np.array([((((int(y) << 32) | int(x)) ** 2) >> 64) & 0xFFFFFFFF for x, y in zip(a, b)], np.uint32)
    ),
    "add.cc.u32 %r11, %r1, %r2;\n  addc.u32 %r10, %r3, 0;": lambda a, b, c: (
        c + ((a.astype(np.uint64) + b) >> np.uint64(32)).astype(np.uint32)
    ),
    "mul24.lo.u32 %r10, %r1, %r2;": lambda a, b, c: (
        (a & 0xFFFFFF).astype(np.uint64) * (b & 0xFFFFFF)
    ).astype(np.uint32),
    "dp4a.u32.u32 %r10, %r1, %r2, %r3;": lambda a, b, c: (
        c + sum(((a >> (8 * k)) & 0xFF) * ((b >> (8 * k)) & 0xFF) for k in range(4))
    ),
}


@pytest.mark.parametrize("snippet", list(INT_CASES))
def test_int(snippet):
    x, out = _run(snippet, "i")
    with np.errstate(all="ignore"):
        ref = np.asarray(INT_CASES[snippet](x[:, 0], x[:, 1], x[:, 2])).astype(np.int64).astype(np.uint32)
    np.testing.assert_array_equal(out, ref)


def _fb(v):
    return np.asarray(v, np.float32).view(np.uint32)


FLOAT_CASES = {
    "add.f32 %f10, %f1, %f2;": lambda a, b, c: a + b,
    "sub.rn.f32 %f10, %f1, %f2;": lambda a, b, c: a - b,
    "mul.f32 %f10, %f1, %f2;": lambda a, b, c: a * b,
    "div.rn.f32 %f10, %f1, %f2;": lambda a, b, c: a / b,
    "fma.rn.f32 %f10, %f1, %f2, %f3;": lambda a, b, c: (a.astype(np.float64) * b + c).astype(np.float32),
    "min.f32 %f10, %f1, %f2;": lambda a, b, c: np.fmin(a, b),
    "max.NaN.f32 %f10, %f1, %f2;": lambda a, b, c: np.maximum(a, b),
    "abs.f32 %f10, %f1;": lambda a, b, c: np.abs(a),
    "neg.f32 %f10, %f1;": lambda a, b, c: -a,
    "sqrt.rn.f32 %f10, %f1;": lambda a, b, c: np.sqrt(a),
    "rcp.rn.f32 %f10, %f1;": lambda a, b, c: np.float32(1) / a,
    "ex2.approx.f32 %f10, %f1;": lambda a, b, c: np.exp2(a),
    "copysign.f32 %f10, %f1, %f2;": lambda a, b, c: np.copysign(b, a),
    "cvt.rzi.f32.f32 %f10, %f1;": lambda a, b, c: np.trunc(a),
    "cvt.rni.f32.f32 %f10, %f1;": lambda a, b, c: np.rint(a),
    "cvt.sat.f32.f32 %f10, %f1;": lambda a, b, c: np.where(np.isnan(a), 0, np.clip(a, 0, 1)),
    "cvt.rn.f16.f32 %rs1, %f1;\n  cvt.f32.f16 %f10, %rs1;": lambda a, b, c: a.astype(np.float16).astype(
        np.float32
    ),
    "cvt.rn.bf16.f32 %rs1, %f1;\n  cvt.f32.bf16 %f10, %rs1;": lambda a, b, c: _bf16_round(a),
    "cvt.rn.f64.f32 %fd1, %f1;\n  mul.f64 %fd2, %fd1, %fd1;\n  cvt.rn.f32.f64 %f10, %fd2;": lambda a, b, c: (
        a.astype(np.float64) ** 2
    ).astype(np.float32),
    "cvt.rn.f16x2.f32 %r11, %f1, %f2;\n  add.rn.f16x2 %r12, %r11, %r11;\n  mov.b32 {%rs1, %rs2}, %r12;\n"
    "  cvt.f32.f16 %f10, %rs2;": lambda a, b, c: (a.astype(np.float16) * np.float16(2)).astype(np.float32),
    "fma.rn.f16x2 %r10, %r1, %r2, %r3;": None,
}


def _bf16_round(a):
    from irc.emu.dtypes import bf16_to_f32, f32_to_bf16

    return bf16_to_f32(f32_to_bf16(a))


@pytest.mark.parametrize("snippet", [k for k, v in FLOAT_CASES.items() if v is not None])
def test_float(snippet):
    x, out = _run(snippet.replace("%r10", "%r10").rstrip() + "\n  mov.b32 %r10, %f10;", "f")
    with np.errstate(all="ignore"):
        ref = np.asarray(FLOAT_CASES[snippet](f32(x[:, 0]), f32(x[:, 1]), f32(x[:, 2])), np.float32)
    got = f32(out)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(ref))
    np.testing.assert_allclose(got[~np.isnan(ref)], ref[~np.isnan(ref)], rtol=1e-6, atol=0)


def test_fma_f16x2():
    x, out = _run("fma.rn.f16x2 %r10, %r1, %r2, %r3;", "f")
    h = x.view(np.uint32).copy().view(np.float16).reshape(N, 3, 2).astype(np.float32)
    with np.errstate(all="ignore"):
        ref = (h[:, 0] * h[:, 1] + h[:, 2]).astype(np.float16)
    got = out.view(np.float16).reshape(N, 2)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(ref))
    ok = ~np.isnan(ref)
    np.testing.assert_allclose(got[ok].astype(np.float32), ref[ok].astype(np.float32), rtol=2e-3)


SETP = ["eq", "ne", "lt", "le", "gt", "ge", "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan"]


@pytest.mark.parametrize("cmp", SETP)
def test_setp_float(cmp):
    x, out = _run(f"setp.{cmp}.f32 %p1, %f1, %f2;\n  selp.u32 %r10, 1, 0, %p1;", "f")
    a, b = f32(x[:, 0]), f32(x[:, 1])
    nan = np.isnan(a) | np.isnan(b)
    base = {"eq": a == b, "ne": a != b, "lt": a < b, "le": a <= b, "gt": a > b, "ge": a >= b}
    ref = base[cmp[:2]] & ~nan if cmp[:2] in base and len(cmp) == 2 else None
    if cmp.endswith("u") and cmp[:2] in base:
        ref = base[cmp[:2]] | nan
    if cmp == "num":
        ref = ~nan
    if cmp == "nan":
        ref = nan
    np.testing.assert_array_equal(out, ref.astype(np.uint32))


@pytest.mark.parametrize(
    "mode,ref", [("rzi", np.trunc), ("rni", np.rint), ("rmi", np.floor), ("rpi", np.ceil)]
)
def test_cvt_float_to_int_saturates(mode, ref):
    x, out = _run(f"cvt.{mode}.s32.f32 %r10, %f1;", "f")
    a = f32(x[:, 0]).astype(np.float64)
    r = np.where(np.isnan(a), 0, np.clip(ref(a), -(2**31), 2**31 - 1)).astype(np.int64).astype(np.int32)
    np.testing.assert_array_equal(out.view(np.int32), r)
