"""The emulator runs nvcc -O3 PTX (tests/data/emu/kernels.ptx, from kernels.cu) and matches numpy."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from irc.emu import run_kernel

DATA = Path(__file__).parent / "data" / "emu"


@pytest.fixture(scope="module")
def mod():
    from irc.frontend.ptx.parser import parse_ptx

    return parse_ptx((DATA / "kernels.ptx").read_text(), str(DATA / "kernels.ptx"))


def test_vadd_bounds(mod):
    n = 1000
    rng = np.random.default_rng(0)
    a, b = rng.random(n, dtype=np.float32), rng.random(n, dtype=np.float32)
    c = np.zeros(n, np.float32)
    st = run_kernel(mod, "vadd", grid=(n + 127) // 128, block=128, args=[a, b, c, n])
    np.testing.assert_array_equal(c, a + b)
    assert st.thread_instructions > 0 and st.wall_time > 0


def test_reduce_sum(mod):
    n = 5000
    x = np.random.default_rng(1).random(n, dtype=np.float32)
    blocks = (n + 511) // 512
    out = np.zeros(blocks, np.float32)
    run_kernel(mod, "reduce_sum", grid=blocks, block=256, args=[x, out, n])
    ref = np.add.reduceat(x, np.arange(0, n, 512))
    np.testing.assert_allclose(out, ref, rtol=1e-5)


def test_softmax_row(mod):
    rows, cols = 6, 300
    x = np.random.default_rng(2).standard_normal((rows, cols)).astype(np.float32)
    y = np.zeros_like(x)
    run_kernel(mod, "softmax_row", grid=rows, block=128, args=[x, y, cols])
    e = np.exp(x - x.max(axis=1, keepdims=True))
    np.testing.assert_allclose(y, e / e.sum(axis=1, keepdims=True), rtol=1e-5, atol=1e-7)


def test_matmul_tiled(mod):
    M, N, K = 37, 29, 45
    rng = np.random.default_rng(3)
    A, B = rng.random((M, K), dtype=np.float32), rng.random((K, N), dtype=np.float32)
    C = np.zeros((M, N), np.float32)
    run_kernel(
        mod, "matmul_tiled", grid=((N + 15) // 16, (M + 15) // 16), block=(16, 16), args=[A, B, C, M, N, K]
    )
    np.testing.assert_allclose(C, A @ B, rtol=1e-5)


def test_histogram_atomics(mod):
    n = 20000
    data = np.random.default_rng(4).integers(0, 256, n).astype(np.uint8)
    data[:3000] = 7  # heavy conflicts
    hist = np.zeros(256, np.uint32)
    run_kernel(mod, "histogram", grid=8, block=128, args=[data, hist, n])
    np.testing.assert_array_equal(hist, np.bincount(data, minlength=256))


def test_saxpy_gridstride(mod):
    n = 10007
    rng = np.random.default_rng(5)
    x, y = rng.random(n, dtype=np.float32), rng.random(n, dtype=np.float32)
    ref = np.float32(2.5) * x + y
    run_kernel(mod, "saxpy_gridstride", grid=4, block=96, args=[2.5, x, y, n])
    np.testing.assert_allclose(y, ref, rtol=1e-6)


def test_collatz_divergence(mod):
    n = 300
    start = np.arange(1, n + 1, dtype=np.uint32)
    steps = np.zeros(n, np.uint32)
    kind = np.zeros(n, np.int32)
    run_kernel(mod, "collatz", grid=3, block=128, args=[start, steps, kind, n])
    ref_s, ref_k = [], []
    for x in start.tolist():
        s = 0
        while x != 1 and s < 1000:
            x = 3 * x + 1 if x & 1 else x >> 1
            s += 1
        ref_s.append(s)
        if s % 3 == 0:
            ref_k.append(-(s // 3))
        elif s % 3 == 1:
            ref_k.append((s * s) % 7)
        else:
            ref_k.append(bin(s).count("1") + (32 - s.bit_length()))
    np.testing.assert_array_equal(steps, ref_s)
    np.testing.assert_array_equal(kind, ref_k)


def _c_div(x: int, y: int) -> int:
    q = abs(x) // abs(y)
    return q if (x >= 0) == (y >= 0) else -q


def _wrap32(v: int) -> int:
    v &= 0xFFFFFFFF
    return v - (1 << 32) if v >> 31 else v


def _brev(v: int) -> int:
    return int(f"{v & 0xFFFFFFFF:032b}"[::-1], 2)


def _byte_perm(x: int, y: int, s: int) -> int:
    b = ((y & 0xFFFFFFFF) << 32) | (x & 0xFFFFFFFF)
    return sum(((b >> (8 * ((s >> (4 * k)) & 7))) & 0xFF) << (8 * k) for k in range(4))


def test_intops(mod):
    rng = np.random.default_rng(6)
    n = 200
    a = rng.integers(-(2**31), 2**31, n).astype(np.int32)
    b = rng.integers(-(2**31), 2**31, n).astype(np.int32)
    a[:4] = [-(2**31), 7, -7, 0]
    b[:4] = [-1, -2, 2, 0]
    out = np.zeros(8 * n, np.int32)
    out64 = np.zeros(n, np.int64)
    run_kernel(mod, "intops", grid=2, block=128, args=[a, b, out, out64, n])
    for i in range(n):
        x, y = int(a[i]), int(b[i])
        ffs = 0 if y == 0 else ((y & -y).bit_length())
        exp = [
            _wrap32(_c_div(x, y)) if y else 0,
            (x - _c_div(x, y) * y) if y else 0,
            _wrap32((x * y) >> 32),
            _wrap32(((x & 0xFFFFFFFF) * (y & 0xFFFFFFFF)) >> 32),
            _wrap32(_brev(x) ^ ffs),
            _wrap32((x >> (y & 31)) + ((x & 0xFFFFFFFF) >> (y & 15))),
            _wrap32(min(x, y) * 3 - max(x, y) + abs(x)),
            _wrap32(_byte_perm(x, y, 0x5140) + bin((x & y) & 0xFFFFFFFF).count("1")),
        ]
        assert out[8 * i : 8 * i + 8].tolist() == exp, (i, x, y)
        yy = y | 1
        v = x * y + _c_div(x << 20, yy)
        assert int(out64[i]) == v, (i, x, y)


def test_warp_votes_and_cas(mod):
    n = 200
    x = np.random.default_rng(7).random(n, dtype=np.float32)
    nwarps = (n + 31) // 32 + 1
    ballots = np.zeros(8, np.uint32)
    counts = np.zeros(8, np.int32)
    mx = np.zeros(1, np.float32)
    run_kernel(mod, "warp_votes", grid=2, block=128, args=[x, ballots, counts, mx, n])
    xs = np.zeros(256, np.float32)
    xs[:n] = x
    for w in range(8):
        seg = xs[32 * w : 32 * w + 32]
        bits = sum(1 << j for j in range(32) if seg[j] > 0.5)
        assert ballots[w] == bits
        assert counts[w] == bin(bits).count("1") + 100 * int((seg > 0).all()) + 1000 * int((seg > 0.99).any())
    assert mx[0] == x.max()
    assert nwarps


def test_mixed_precision(mod):
    n = 100
    rng = np.random.default_rng(8)
    d = rng.standard_normal(n) * 10
    h = rng.standard_normal(n).astype(np.float16)
    out = np.zeros(3 * n, np.float32)
    run_kernel(mod, "mixed_precision", grid=1, block=128, args=[d, h, out, n])
    hf = h.astype(np.float32)
    np.testing.assert_allclose(out[0::3], (np.sqrt(np.abs(d)) * 2 + d / 3).astype(np.float32), rtol=1e-6)
    np.testing.assert_allclose(out[1::3], hf * 2 + np.trunc(d).astype(np.float32), rtol=1e-6)
    np.testing.assert_array_equal(out[2::3], (hf * 3).astype(np.float16).astype(np.float32))
