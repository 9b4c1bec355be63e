"""The kernel suite in examples/: every kernel compiles for sm_80 (where its features allow) and sm_100a,
ptxas accepts the PTX, `irc check` reports nothing, and the emulator matches a numpy reference, including
the boundary cases that hid PARITY-114 (lengths that are not a multiple of the tile, heads beyond the
grid, empty chunks, sequences of length 0 and 1)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import irc
from irc.compiler import check_kdsl
from irc.ptxas import find_ptxas, run_ptxas
from irc.runtime.cuda import CudaError, driver_available
from irc.target import ARCHES, GATE_FAMILIES

EX = Path(__file__).resolve().parent.parent / "examples"
LOG2E = 1.4426950408889634

# example file -> targets it must compile for (sm_80 unless a feature needs more)
TARGETS = {
    "vector_add": ["sm_80", "sm_100a"],
    "softmax": ["sm_80", "sm_100a"],
    "layernorm": ["sm_80", "sm_100a"],
    "persistent_rmsnorm": ["sm_80", "sm_100a"],
    "incremental_attention": ["sm_80", "sm_100a"],
    "flash_decoding": ["sm_80", "sm_100a"],
    "flash_attention_tc": ["sm_80", "sm_100a"],
    "mma_gemm_sm80": ["sm_80", "sm_100a"],
    "tma_gemm_sm100": ["sm_100a"],
    "fmha_sm100": ["sm_100a"],  # emulator tests: tests/test_fmha_sm100.py
}


def test_every_example_is_listed() -> None:
    assert sorted(p.stem for p in EX.glob("*.kdsl")) == sorted(TARGETS)


@pytest.mark.parametrize("name,arch", [(n, a) for n, archs in TARGETS.items() for a in archs])
def test_compiles_and_ptxas_accepts(name: str, arch: str) -> None:
    src = (EX / f"{name}.kdsl").read_text()
    mod = irc.compile(src, arch=arch, path=f"examples/{name}.kdsl", cache=False)
    assert mod.kernels
    if find_ptxas() is None:
        pytest.skip("ptxas not found (pip install -e '.[ptxas]')")
    r = run_ptxas(mod.ptx_text, arch)
    assert r.ok, r.stderr


ALL_ARCHES = list(ARCHES)
TCGEN05 = set(GATE_FAMILIES["sm_100a"])


@pytest.mark.parametrize("name", sorted(TARGETS))
def test_every_target_its_features_allow(name: str) -> None:
    """Compiles (and ptxas accepts) for every target that has its instructions; `unsupported-target` on
    the others; the allocator used exactly MaxLive registers per class."""
    src = (EX / f"{name}.kdsl").read_text()
    for arch in ALL_ARCHES:
        if TARGETS[name] == ["sm_100a"] and arch not in TCGEN05:
            with pytest.raises(irc.CompileError) as e:
                irc.compile(src, arch=arch, path=f"{name}.kdsl", cache=False)
            assert {d.check for d in e.value.diagnostics} == {"unsupported-target"}
            continue
        mod = irc.compile(src, arch=arch, path=f"{name}.kdsl", cache=False)
        for k in mod.kernels:
            st = mod[k].stats
            assert st["registers"] == st["max_live"], (arch, k, st)
        if find_ptxas() is not None and arch in ("sm_86", "sm_90a", "sm_103a", "sm_120a"):
            r = run_ptxas(mod.ptx_text, arch)
            assert r.ok, (arch, r.stderr)


@pytest.mark.parametrize("name", sorted(TARGETS))
def test_check_reports_nothing(name: str) -> None:
    arch = TARGETS[name][0]
    src = (EX / f"{name}.kdsl").read_text()
    diags = check_kdsl(src, f"examples/{name}.kdsl", arch=arch)
    assert [f"{d.check}@{d.span.line if d.span else '?'}: {d.message}" for d in diags] == []


def _mod(name: str, arch: str = "sm_80", **defines) -> irc.CompiledModule:
    return irc.compile(
        (EX / f"{name}.kdsl").read_text(),
        arch=arch,
        defines=defines or None,
        path=f"examples/{name}.kdsl",
        cache=False,
    )


RNG = np.random.default_rng(1234)
_GPU_OK, _GPU_WHY = driver_available()
#: every numeric test runs in the emulator and, where a GPU is present (`-m gpu`), on it too: then the GPU's
#: results must match numpy and the emulator's (run on copies of the same inputs)
DEVICES = [
    "emu",
    pytest.param(
        "cuda", marks=[pytest.mark.gpu, pytest.mark.skipif(not _GPU_OK, reason=f"no CUDA GPU: {_GPU_WHY}")]
    ),
]
GPU_VS_EMU = {"rtol": 1e-4, "atol": 1e-5}  # .approx instructions are exact in the emulator (docs/emulator.md)


def _copy(a):
    if isinstance(a, np.ndarray):
        return a.copy()
    if isinstance(a, list):
        return [_copy(x) for x in a]
    if isinstance(a, irc.TensorMap):
        return irc.TensorMap(a.array.copy(), a.box, swizzle=a.swizzle, oob_fill=a.oob_fill)
    return a


def _arrays(args: list) -> list[np.ndarray]:
    out: list[np.ndarray] = []
    for a in args:
        if isinstance(a, np.ndarray):
            out.append(a)
        elif isinstance(a, list):
            out += _arrays(a)
        elif isinstance(a, irc.TensorMap):
            out.append(a.array)
    return out


def _launch(device: str, kernel, grid, block, args: list, tol: dict | None = None) -> None:
    """`kernel.launch` on `device`; on "cuda" the emulator runs too, on copies of the inputs, and every array
    must end the same on both."""
    if device == "emu":
        kernel.launch(grid=grid, block=block, args=args)
        return
    emu_args = _copy(args)
    try:
        kernel.launch(grid=grid, block=block, args=args, device="cuda")
    except CudaError as e:
        if "cannot run it" in str(e) or "an older one" in str(e):
            pytest.skip(str(e))
        raise
    kernel.launch(grid=grid, block=block, args=emu_args)
    for g, e in zip(_arrays(args), _arrays(emu_args)):
        if g.dtype.kind == "f":
            np.testing.assert_allclose(g, e, **(tol or GPU_VS_EMU))
        else:
            np.testing.assert_array_equal(g, e)


# --- on-ramp kernels ------------------------------------------------------------------------------------


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("n", [1, 127, 1000])
def test_vector_add(n: int, device: str) -> None:
    x, y = RNG.random(n, dtype=np.float32), RNG.random(n, dtype=np.float32)
    out = np.full(n, -1.0, np.float32)
    _launch(device, _mod("vector_add")["vector_add"], grid=(n + 127) // 128, block=128, args=[out, x, y, n])
    np.testing.assert_array_equal(out, x + y)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("n", [1, 37, 128, 300])
def test_softmax(n: int, device: str) -> None:
    rows = 3
    x = RNG.standard_normal((rows, n)).astype(np.float32) * 3
    out = np.zeros_like(x)
    _launch(device, _mod("softmax")["softmax"], grid=rows, block=128, args=[out, x, n])
    e = np.exp(x - x.max(axis=1, keepdims=True))
    np.testing.assert_allclose(out, e / e.sum(axis=1, keepdims=True), rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("n", [1, 50, 129])
def test_layernorm(n: int, device: str) -> None:
    rows = 2
    x = RNG.standard_normal((rows, n)).astype(np.float32)
    g, b = RNG.standard_normal(n).astype(np.float32), RNG.standard_normal(n).astype(np.float32)
    y = np.zeros_like(x)
    _launch(device, _mod("layernorm")["layernorm"], grid=rows, block=128, args=[y, x, g, b, n])
    mu = x.mean(axis=1, keepdims=True)
    var = ((x - mu) ** 2).mean(axis=1, keepdims=True)
    np.testing.assert_allclose(y, (x - mu) / np.sqrt(var + 1e-5) * g + b, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("tokens,grid", [(1, 3), (7, 3), (5, 8), (0, 2)])
def test_persistent_rmsnorm(tokens: int, grid: int, device: str) -> None:
    dim = 100
    x = RNG.standard_normal((max(tokens, 1), dim)).astype(np.float32)
    w = RNG.standard_normal(dim).astype(np.float32)
    y = np.full_like(x, 7.0)
    _launch(
        device,
        _mod("persistent_rmsnorm")["persistent_rmsnorm"],
        grid=grid,
        block=128,
        args=[y, x, w, tokens, dim, 1e-6],
    )
    ref = x * (1.0 / np.sqrt((x * x).mean(axis=1, keepdims=True) + 1e-6)) * w
    np.testing.assert_allclose(y[:tokens], ref[:tokens], rtol=1e-4, atol=1e-5)
    assert np.all(y[tokens:] == 7.0)  # rows past num_tokens are untouched


# --- decoding ------------------------------------------------------------------------------------------


def _attend(q: np.ndarray, k: np.ndarray, v: np.ndarray, scale: float) -> np.ndarray:
    """One query against keys/values [L, D]; zeros for L == 0."""
    if k.shape[0] == 0:
        return np.zeros(q.shape[-1], np.float64)
    s = k.astype(np.float64) @ (q.astype(np.float64) * scale)
    p = np.exp(s - s.max())
    return (p / p.sum()) @ v.astype(np.float64)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("seq_len", [0, 1, 17])
def test_incremental_attention(seq_len: int, device: str) -> None:
    heads, max_len, d, scale = 5, 32, 64, 0.125
    q = RNG.standard_normal((heads, d)).astype(np.float32)
    kc = RNG.standard_normal((heads, max_len, d)).astype(np.float32)
    vc = RNG.standard_normal((heads, max_len, d)).astype(np.float32)
    out = np.full((heads, d), 3.0, np.float32)
    # 2 blocks of 4 warps = 8 warps for 5 heads: warps 5..7 have no head
    _launch(
        device,
        _mod("incremental_attention")["incremental_attention"],
        grid=2,
        block=128,
        args=[out, q, kc, vc, seq_len, max_len, heads, scale],
    )
    ref = np.stack([_attend(q[h], kc[h, :seq_len], vc[h, :seq_len], scale) for h in range(heads)])
    np.testing.assert_allclose(out, ref, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("device", DEVICES)
def test_kv_cache_scatter(device: str) -> None:
    heads, max_len, d, pos = 3, 8, 64, 5
    kc = np.zeros((heads, max_len, d), np.float32)
    vc = np.zeros((heads, max_len, d), np.float32)
    kn = RNG.standard_normal((heads, d)).astype(np.float32)
    vn = RNG.standard_normal((heads, d)).astype(np.float32)
    grid = (heads * d + 127) // 128 + 1  # one block more than needed: its threads must do nothing
    _launch(
        device,
        _mod("incremental_attention")["kv_cache_scatter"],
        grid=grid,
        block=128,
        args=[kc, vc, kn, vn, pos, max_len, heads],
    )
    ref_k, ref_v = np.zeros_like(kc), np.zeros_like(vc)
    ref_k[:, pos], ref_v[:, pos] = kn, vn
    np.testing.assert_array_equal(kc, ref_k)
    np.testing.assert_array_equal(vc, ref_v)


@pytest.mark.parametrize("device", DEVICES)
def test_flash_decoding_split_k_gqa(device: str) -> None:
    lens = [0, 1, 37, 16]  # empty sequence, single token, tail chunk, exact multiple of the chunk
    m, heads, kv_heads, max_len, d, chunk, scale = len(lens), 4, 2, 40, 64, 16, 0.125
    nchunks = (max_len + chunk - 1) // chunk
    q = RNG.standard_normal((m, heads, d)).astype(np.float32)
    ks = [RNG.standard_normal((kv_heads, max_len, d)).astype(np.float32) for _ in range(m)]
    vs = [RNG.standard_normal((kv_heads, max_len, d)).astype(np.float32) for _ in range(m)]
    seq_lens = np.array(lens, np.uint32)
    partial = np.full((m, heads, nchunks, d + 2), 9.0, np.float32)
    mod = _mod("flash_decoding")
    _launch(
        device,
        mod["flash_decoding_chunk"],
        grid=(nchunks, heads, m),
        block=32,
        args=[partial, q, ks, vs, seq_lens, heads, kv_heads, max_len, chunk, scale],
    )
    for b in range(m):  # empty chunks carry the sentinel (zeros, -inf, 0)
        for c in range(nchunks):
            if c * chunk >= lens[b]:
                assert np.all(partial[b, :, c, :d] == 0) and np.all(partial[b, :, c, d] == -np.inf)
                assert np.all(partial[b, :, c, d + 1] == 0)
    out = np.full((m, heads, d), 5.0, np.float32)
    _launch(
        device, mod["flash_decoding_reduce"], grid=(heads, m), block=32, args=[out, partial, heads, nchunks]
    )
    for b in range(m):
        for h in range(heads):
            kvh = h * kv_heads // heads
            ref = _attend(q[b, h], ks[b][kvh, : lens[b]], vs[b][kvh, : lens[b]], scale)
            np.testing.assert_allclose(out[b, h], ref, rtol=1e-4, atol=1e-5)


# --- tensor cores -------------------------------------------------------------------------------------


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("seq_len", [1, 16, 20, 33])
def test_flash_attention_tc(seq_len: int, causal: bool, device: str) -> None:
    heads, d, scale = 2, 16, 0.25
    q = (RNG.standard_normal((heads, seq_len, d)) * 0.5).astype(np.float16)
    k = (RNG.standard_normal((heads, seq_len, d)) * 0.5).astype(np.float16)
    v = (RNG.standard_normal((heads, seq_len, d)) * 0.5).astype(np.float16)
    o = np.full((heads, seq_len, d), 4.0, np.float32)
    mod = _mod("flash_attention_tc", CAUSAL=causal)
    # one more head in the grid than num_heads: that block returns before any barrier, uniformly
    _launch(
        device,
        mod["flash_attention_tc"],
        grid=((seq_len + 15) // 16, heads + 1),
        block=32,
        args=[o, q, k, v, seq_len, heads, scale],
        # P = ex2.approx(...) is rounded to f16 for P·V: the GPU's approximation and the emulator's exact
        # exp2 round a few P elements to neighbouring f16 values (measured on an H100: 2.8e-5 at most)
        tol={"rtol": 2e-3, "atol": 1e-4},
    )
    qf, kf, vf = q.astype(np.float64), k.astype(np.float64), v.astype(np.float64)
    s = np.einsum("hqd,hkd->hqk", qf, kf) * scale
    if causal:
        s = np.where(np.tril(np.ones((seq_len, seq_len), bool)), s, -np.inf)
    p = np.exp(s - s.max(axis=-1, keepdims=True))
    ref = np.einsum("hqk,hkd->hqd", p / p.sum(axis=-1, keepdims=True), vf)
    np.testing.assert_allclose(o, ref, rtol=2e-2, atol=2e-3)  # P is rounded to f16 for P·V


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("m,n,k", [(16, 16, 16), (32, 48, 64)])
def test_mma_gemm_sm80(m: int, n: int, k: int, device: str) -> None:
    a = RNG.standard_normal((m, k)).astype(np.float16)
    b = RNG.standard_normal((k, n)).astype(np.float16)
    bt = np.ascontiguousarray(b.T)
    c = np.zeros((m, n), np.float32)
    _launch(
        device,
        _mod("mma_gemm_sm80")["mma_gemm_sm80"],
        grid=(n // 16, m // 16),
        block=32,
        args=[c, a, bt, m, n, k],
    )
    np.testing.assert_allclose(c, a.astype(np.float32) @ b.astype(np.float32), rtol=1e-3, atol=1e-3)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("k", [16, 48])
def test_tma_gemm_sm100(k: int, device: str) -> None:
    m, n = 128, 128
    a = RNG.standard_normal((m, k)).astype(np.float16)
    b = RNG.standard_normal((n, k)).astype(np.float16)
    c = np.zeros((m, n), np.uint32)
    mod = _mod("tma_gemm_sm100", arch="sm_100a")
    _launch(
        device,
        mod["tma_gemm_sm100"],
        grid=(n // 64, m // 128),
        block=128,
        args=[c, irc.TensorMap(a, (128, 8)), irc.TensorMap(b, (64, 8)), n, k],
    )
    ref = a.astype(np.float32) @ b.astype(np.float32).T
    np.testing.assert_allclose(c.view(np.float32), ref, rtol=1e-3, atol=1e-3)
