"""Tensor cores, async copies, TMA + mbarrier and warp collectives on nvcc output (tensor.cu, tma.cu)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from irc.emu import encode_tensormap, run_kernel
from irc.emu.dtypes import bf16_to_f32, f32_to_bf16

DATA = Path(__file__).parent / "data" / "emu"


def _parse(name: str):
    from irc.frontend.ptx.parser import parse_ptx

    return parse_ptx((DATA / name).read_text(), str(DATA / name))


@pytest.fixture(scope="module")
def tmod():
    return _parse("tensor.ptx")


@pytest.mark.parametrize("trans_b", [0, 1])
def test_ldmatrix_mma_f16(tmod, trans_b):
    rng = np.random.default_rng(0)
    tiles = 3
    A = rng.standard_normal((tiles, 16, 16)).astype(np.float16)
    B = rng.standard_normal((tiles, 16, 8)).astype(np.float16)
    C0 = rng.standard_normal((tiles, 16, 8)).astype(np.float32)
    Bmem = B if trans_b else np.ascontiguousarray(B.transpose(0, 2, 1))
    C = C0.copy()
    run_kernel(tmod, "mma_f16", grid=tiles, block=32, args=[A, Bmem, C, trans_b])
    ref = A.astype(np.float64) @ B.astype(np.float64) + C0
    np.testing.assert_allclose(C, ref, rtol=1e-5, atol=1e-5)


def test_ldmatrix_mma_bf16(tmod):
    rng = np.random.default_rng(1)
    Af = rng.standard_normal((1, 16, 16)).astype(np.float32)
    Bf = rng.standard_normal((1, 16, 8)).astype(np.float32)
    A, B = f32_to_bf16(Af), f32_to_bf16(Bf)
    C = np.zeros((1, 16, 8), np.float32)
    run_kernel(tmod, "mma_bf16", grid=1, block=32, args=[A, np.ascontiguousarray(B.transpose(0, 2, 1)), C, 0])
    ref = bf16_to_f32(A).astype(np.float64) @ bf16_to_f32(B).astype(np.float64)
    np.testing.assert_allclose(C, ref, rtol=1e-5, atol=1e-5)


def test_wmma_gemm(tmod):
    rng = np.random.default_rng(2)
    M, N, K = 32, 48, 64
    A = rng.standard_normal((M, K)).astype(np.float16)
    Bt = rng.standard_normal((N, K)).astype(np.float16)
    C = np.zeros((M, N), np.float32)
    run_kernel(tmod, "wmma_gemm", grid=(N // 16, M // 16), block=32, args=[A, Bt, C, M, N, K])
    np.testing.assert_allclose(C, A.astype(np.float64) @ Bt.astype(np.float64).T, rtol=1e-4, atol=1e-4)


def test_warp_misc(tmod):
    x = np.random.default_rng(3).integers(0, 1000, 64).astype(np.uint32)
    out = np.zeros(64 * 6, np.uint32)
    run_kernel(tmod, "warp_misc", grid=1, block=64, args=[x, out])
    o = out.reshape(64, 6)
    for w in range(2):
        seg = x[32 * w : 32 * w + 32]
        for lane in range(32):
            r = o[32 * w + lane]
            assert r[0] == seg.sum() and r[1] == seg.min()
            assert r[2] == sum(1 << j for j in range(32) if seg[j] & 3 == seg[lane] & 3)
            if lane < 20:
                assert r[3] == 0xFFFFF and r[4] == seg[(lane + 3) % 20]
            seg_base = lane // 16 * 16
            assert r[5] == (seg[lane - 3] if lane - 3 >= seg_base else seg[lane])


def test_tma_tile_roundtrip():
    mod = _parse("tma.ptx")
    rows, cols = 70, 40  # not multiples of the 32x16 box: exercises OOB fill and clipped stores
    x = np.random.default_rng(4).standard_normal((rows, cols)).astype(np.float32)
    y = np.full((rows, cols), -5.0, np.float32)
    tin = encode_tensormap(x, shape=(cols, rows), strides_bytes=(cols * 4,), box=(16, 32), dtype=np.float32)
    tout = encode_tensormap(y, shape=(cols, rows), strides_bytes=(cols * 4,), box=(16, 32), dtype=np.float32)
    st = run_kernel(mod, "tma_tile", grid=((cols + 15) // 16, (rows + 31) // 32), block=128, args=[tin, tout])
    np.testing.assert_array_equal(y, x + 1)
    assert st.thread_instructions > 0


def test_tensormap_layout():
    from irc.emu.tensormap import decode_tensormap

    b = encode_tensormap(0x10000, shape=(8, 4, 2), strides_bytes=(32, 128), box=(8, 2, 1), dtype=np.float32)
    assert len(b) == 128
    d = decode_tensormap(b)
    assert d.dims == [8, 4, 2] and d.strides == [4, 32, 128] and d.box == [8, 2, 1] and d.address == 0x10000


# --- the same kernels on a GPU, where one is present: what the emulator assumes (mma/ldmatrix/wmma fragment
# layouts, the tensor-map tile copy with its out-of-bounds fill) checked against the hardware --------------


from irc.runtime.cuda import driver_available  # noqa: E402 - beside the tests that need it

_GPU_OK, _GPU_WHY = driver_available()
needs_gpu = pytest.mark.skipif(not _GPU_OK, reason=f"no CUDA GPU: {_GPU_WHY}")


def _both(ptx: str, kernel: str, grid, block, args: list) -> list[tuple[np.ndarray, np.ndarray]]:
    """Run `kernel` on the GPU and in the emulator on copies of `args`; the (gpu, emu) pairs of arrays."""
    import irc

    mod = irc.load_ptx_file(DATA / ptx)
    emu = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    mod[kernel].launch(grid, block, args, device="cuda")
    mod[kernel].launch(grid, block, emu)
    return [(g, e) for g, e in zip(args, emu) if isinstance(g, np.ndarray)]


@pytest.mark.gpu
@needs_gpu
@pytest.mark.parametrize("kernel", ["mma_f16", "mma_bf16", "wmma_gemm", "warp_misc"])
def test_tensor_kernels_on_gpu_match_the_emulator(kernel: str) -> None:
    rng = np.random.default_rng(7)
    if kernel in ("mma_f16", "mma_bf16"):
        t = 3
        mk = (
            (lambda *s: rng.standard_normal(s).astype(np.float16))
            if kernel == "mma_f16"
            else (lambda *s: f32_to_bf16(rng.standard_normal(s).astype(np.float32)))
        )
        args, grid, block = (
            [mk(t, 16, 16), mk(t, 8, 16), rng.standard_normal((t, 16, 8)).astype(np.float32), 0],
            t,
            32,
        )
    elif kernel == "wmma_gemm":
        m, n, k = 32, 48, 64
        a = rng.standard_normal((m, k)).astype(np.float16)
        bt = rng.standard_normal((n, k)).astype(np.float16)
        args, grid, block = [a, bt, np.zeros((m, n), np.float32), m, n, k], (n // 16, m // 16), 32
    else:
        x = rng.integers(0, 1000, 64).astype(np.uint32)
        args, grid, block = [x, np.zeros(64 * 6, np.uint32)], 1, 64
    for g, e in _both("tensor.ptx", kernel, grid, block, args):
        if g.dtype.kind == "f":  # the tensor cores' f32 accumulation order is theirs: a few ulps
            np.testing.assert_allclose(g, e, rtol=1e-5, atol=1e-5)
        else:
            np.testing.assert_array_equal(g, e)


@pytest.mark.gpu
@needs_gpu
def test_tma_tile_on_gpu_matches_the_emulator() -> None:
    """nvcc's TMA load/store (sm_90) with a box that does not divide the array: the out-of-bounds fill and
    the clipped store, on the hardware and in the emulator (the emulator's descriptor is re-encoded by the
    driver for the GPU)."""
    from irc.runtime.cuda import CudaError

    rows, cols = 70, 40
    x = np.random.default_rng(4).standard_normal((rows, cols)).astype(np.float32)
    y = np.full((rows, cols), -5.0, np.float32)
    tin = encode_tensormap(x, shape=(cols, rows), strides_bytes=(cols * 4,), box=(16, 32), dtype=np.float32)
    tout = encode_tensormap(y, shape=(cols, rows), strides_bytes=(cols * 4,), box=(16, 32), dtype=np.float32)
    import irc

    try:
        irc.load_ptx_file(DATA / "tma.ptx")["tma_tile"].launch(
            ((cols + 15) // 16, (rows + 31) // 32), 128, [tin, tout], device="cuda"
        )
    except CudaError as e:
        if "an older one" in str(e):
            pytest.skip(str(e))
        raise
    np.testing.assert_array_equal(y, x + 1)
