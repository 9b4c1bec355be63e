"""examples/fmha_sm100.kdsl (TMA + mbarrier + tcgen05 flash attention) in the emulator against numpy, the
old_max mistake injected into it, and the language pieces it added (tcgen05_st_32x32b,
tcgen05_ld_32x32b_f32, MN-major tcgen05.mma operands).

The reference is f32 math on the rounded inputs. The kernel rounds P to the input type before O += P·V
(as every FMHA does), hence the tolerances: f16 3e-3, bf16 2e-2 absolute on outputs of size ~1; the
old_max mistake gives errors of order 0.1-1.

The default suite runs a few small cases; the full sweep (head dims 64/128 x causal x f16/bf16 x sequence
lengths 1, 127, 128, 129, 1000 x several (batch, head) counts) runs with `pytest -m slow
tests/test_fmha_sm100.py`.
"""

from __future__ import annotations

import functools
from pathlib import Path

import numpy as np
import pytest

import irc
from irc.compiler import check_kdsl
from irc.emu.dtypes import bf16_to_f32, f32_to_bf16
from irc.ptxas import find_ptxas, run_ptxas

EX = Path(__file__).resolve().parent.parent / "examples" / "fmha_sm100.kdsl"
SRC = EX.read_text()
OLD_MAX_RIGHT = """            let m_old = m; // the running max from BEFORE the update: the rescale needs it
            m = max(m, mx);
            let alpha = exp2(m_old - m);"""


def _old_max_wrong(allow: bool) -> str:
    tail = " // irc: allow(self-cancel)" if allow else ""
    wrong = f"""            m = max(m, mx);
            let m_old = m; // the mistake: copied AFTER the update
            let alpha = exp2(m_old - m);{tail}"""
    assert OLD_MAX_RIGHT in SRC
    return SRC.replace(OLD_MAX_RIGHT, wrong)


@functools.cache
def _module(head_dim: int, causal: bool, bf16: bool, src: str = SRC) -> irc.CompiledModule:
    defines = {"HEAD_DIM": head_dim, "CAUSAL": causal, "BF16": bf16}
    return irc.compile(src, arch="sm_100a", defines=defines, path="examples/fmha_sm100.kdsl", cache=False)


def _inputs(bh: int, seq: int, d: int, bf16: bool, seed: int):
    """(device array, f32 view of the rounded values) for q, k, v."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(3):
        x = rng.standard_normal((bh, seq, d)).astype(np.float32)
        if bf16:
            bits = f32_to_bf16(x)
            out.append((bits.view(np.float16), bf16_to_f32(bits)))
        else:
            h = x.astype(np.float16)
            out.append((h, h.astype(np.float32)))
    return out


def reference(q: np.ndarray, k: np.ndarray, v: np.ndarray, scale: float, causal: bool) -> np.ndarray:
    """softmax(scale Q Kᵀ [+ causal mask]) V in f32."""
    s = np.einsum("bid,bjd->bij", q, k).astype(np.float32) * np.float32(scale)
    if causal:
        seq = q.shape[1]
        s = np.where(np.tril(np.ones((seq, seq), bool)), s, np.float32(-np.inf))
    p = np.exp(s - s.max(-1, keepdims=True))
    p /= p.sum(-1, keepdims=True)
    return np.einsum("bij,bjd->bid", p, v).astype(np.float32)


def run_fmha(d: int, causal: bool, bf16: bool, seq: int, bh: int, seed: int = 0, src: str = SRC):
    (q, qf), (k, kf), (v, vf) = _inputs(bh, seq, d, bf16, seed)
    o = np.full((bh, seq, d), np.nan, np.float32)
    scale = 1.0 / np.sqrt(d)
    _module(d, causal, bf16, src)["fmha_sm100"].launch(
        grid=((seq + 127) // 128, bh),
        block=192,
        args=[
            o,
            irc.TensorMap(q, (1, 128, 8)),
            irc.TensorMap(k, (1, 64, 8)),
            irc.TensorMap(v, (1, 64, 8)),
            seq,
            scale,
        ],
    )
    return o, reference(qf, kf, vf, scale, causal)


def _assert_matches(d: int, causal: bool, bf16: bool, seq: int, bh: int) -> None:
    o, ref = run_fmha(d, causal, bf16, seq, bh, seed=seq * 7 + bh)
    tol = 2e-2 if bf16 else 3e-3
    err = float(np.max(np.abs(o - ref)))
    assert err <= tol, (
        f"fmha_sm100 HEAD_DIM={d} CAUSAL={causal} BF16={bf16} seq_len={seq} bh={bh}: "
        f"max |o - ref| = {err:.3g} > {tol}"
    )


# -- compile, ptxas, irc check -----------------------------------------------------------------------------
@pytest.mark.parametrize("d", [64, 128])
@pytest.mark.parametrize("causal,bf16", [(False, False), (True, True)])
def test_compiles_ptxas_accepts_check_clean(d: int, causal: bool, bf16: bool) -> None:
    defines = {"HEAD_DIM": d, "CAUSAL": causal, "BF16": bf16}
    diags = check_kdsl(SRC, "examples/fmha_sm100.kdsl", arch="sm_100a", defines=defines)
    assert [f"{x.check}@{x.span.line if x.span else '?'}: {x.message}" for x in diags] == []
    mod = _module(d, causal, bf16)
    if find_ptxas() is None:
        pytest.skip("ptxas not found (pip install -e '.[ptxas]')")
    r = run_ptxas(mod.ptx_text, "sm_100a")
    assert r.ok, r.stderr


# -- numerics (default suite: small) -----------------------------------------------------------------------
@pytest.mark.parametrize(
    "d,causal,bf16,seq,bh",
    [
        (64, False, False, 129, 2),  # 2 query tiles (the second has 1 row), 3 key tiles (stage 0 reused)
        (64, True, False, 1, 3),
        (64, True, True, 128, 1),
        (128, True, False, 129, 2),
        (128, False, True, 127, 1),
    ],
)
def test_matches_numpy(d: int, causal: bool, bf16: bool, seq: int, bh: int) -> None:
    _assert_matches(d, causal, bf16, seq, bh)


@pytest.fixture
def sweep(request: pytest.FixtureRequest) -> None:
    if "slow" not in (request.config.getoption("markexpr") or ""):
        pytest.skip("the full sweep runs with -m slow")


@pytest.mark.slow
@pytest.mark.parametrize("batch,heads", [(1, 1), (2, 3)])  # [batch, heads, seq, d] is bh = batch * heads rows
@pytest.mark.parametrize("seq", [1, 127, 128, 129, 1000])
@pytest.mark.parametrize("bf16", [False, True])
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("d", [64, 128])
def test_sweep(sweep: None, d: int, causal: bool, bf16: bool, seq: int, batch: int, heads: int) -> None:
    _assert_matches(d, causal, bf16, seq, batch * heads)


# -- the old_max mistake -----------------------------------------------------------------------------------
def test_old_max_mistake_is_self_cancel() -> None:
    diags = check_kdsl(_old_max_wrong(allow=False), "examples/fmha_sm100.kdsl", arch="sm_100a")
    assert [d.check for d in diags] == ["self-cancel"]
    line = next(i for i, t in enumerate(_old_max_wrong(False).splitlines(), 1) if "exp2(m_old - m)" in t)
    assert diags[0].span.line == line
    assert "always 0" in diags[0].message


def test_old_max_mistake_gives_wrong_numbers() -> None:
    # Allowed past the analyzer, the mistake never rescales O: rows whose max grows in a later key tile
    # come out wrong by far more than the rounding tolerance.
    o, ref = run_fmha(64, False, False, 200, 1, seed=3, src=_old_max_wrong(allow=True))
    err = float(np.max(np.abs(o - ref)))
    assert err > 0.05, f"the old_max mistake went unnoticed numerically (max err {err:.3g})"


# -- the descriptors and tensor-memory stores the kernel relies on ------------------------------------------
def test_mn_major_v_descriptor_strides_matter() -> None:
    # Swapping LBO and SBO of the MN-major V descriptor must change the result: the emulator reads V
    # through LBO along K (keys) and SBO along N (head dims).
    right = "smem_desc(&v_s[s, 16 * kk, 0], 128, BLOCK_N * 16, 0)"
    assert right in SRC
    swapped = SRC.replace(right, "smem_desc(&v_s[s, 16 * kk, 0], BLOCK_N * 16, 128, 0)")
    o, ref = run_fmha(64, False, False, 64, 1, src=swapped)
    assert not np.allclose(o, ref, atol=3e-3)


def test_transpose_b_bit_matters() -> None:
    right = "(AB << 10) | (1 << 16) | ((HEAD_DIM >> 3) << 17)"
    assert right in SRC
    o, ref = run_fmha(64, False, False, 64, 1, src=SRC.replace(right, "(AB << 10) | ((HEAD_DIM >> 3) << 17)"))
    assert not np.allclose(o, ref, atol=3e-3)


TMEM_ROUNDTRIP = """
@launch(block = 128)
kernel tmem_roundtrip(out: *global f32, bits: *global u32, x: *global f32) {
    shared tslot: [u32; 1];
    let warp = tid.x / 32;
    if warp == 0 {
        tmem_alloc(&tslot[0], 32);
        tmem_relinquish();
    }
    tcgen05_fence_before();
    barrier();
    tcgen05_fence_after();
    let lanes = tslot[0] + ((warp * 32) << 16);
    var v = [0.0; 4];
    unroll for j in 0..4 {
        v[j] = x[tid.x * 4 + j] * 2.0;
    }
    tcgen05_st_32x32b(lanes + 4, v);
    tcgen05_st_32x32b(lanes + 8, [tid.x, tid.x + 1]);
    tcgen05_wait_st();
    let w = tcgen05_ld_32x32b_f32(lanes + 4, 4);
    let u = tcgen05_ld_32x32b(lanes + 8, 2);
    tcgen05_wait_ld();
    unroll for j in 0..4 {
        out[tid.x * 4 + j] = w[j] + 1.0;
    }
    bits[tid.x * 2] = u[0];
    bits[tid.x * 2 + 1] = u[1];
    tcgen05_fence_before();
    barrier();
    if warp == 0 {
        tmem_dealloc(tslot[0], 32);
    }
}
"""


def test_tcgen05_st_and_f32_ld_roundtrip() -> None:
    mod = irc.compile(TMEM_ROUNDTRIP, arch="sm_100a", path="tmem_roundtrip.kdsl", cache=False)
    if find_ptxas() is not None:
        r = run_ptxas(mod.ptx_text, "sm_100a")
        assert r.ok, r.stderr
    x = np.random.default_rng(2).standard_normal(512).astype(np.float32)
    out = np.zeros(512, np.float32)
    bits = np.zeros(256, np.uint32)
    mod["tmem_roundtrip"].launch(grid=1, block=128, args=[out, bits, x])
    np.testing.assert_array_equal(out, x * 2 + 1)
    np.testing.assert_array_equal(bits, np.stack([np.arange(128), np.arange(1, 129)], 1).reshape(-1))


def test_tcgen05_st_type_errors() -> None:
    bad = TMEM_ROUNDTRIP.replace(
        "tcgen05_st_32x32b(lanes + 8, [tid.x, tid.x + 1]);", "tcgen05_st_32x32b(lanes + 8, [1.0f16; 2]);"
    )
    with pytest.raises(irc.CompileError) as e:
        irc.compile(bad, arch="sm_100a", path="bad.kdsl", cache=False)
    assert [d.check for d in e.value.diagnostics] == ["type-error"]
    with pytest.raises(irc.CompileError) as e:
        irc.compile(TMEM_ROUNDTRIP, arch="sm_90a", path="old.kdsl", cache=False)
    assert {d.check for d in e.value.diagnostics} == {"unsupported-target"}


# -- the CUDA twin (tests/data/fmha/fmha_sm100.cu, PTX from nvcc 13 -O3 -lineinfo -arch=sm_100a) -----------
CUDA = Path(__file__).resolve().parent / "data" / "fmha"


@functools.cache
def _cuda_module(name: str):
    from irc.frontend.ptx.parser import parse_ptx

    path = CUDA / f"{name}.ptx"
    return parse_ptx(path.read_text(), str(path))


def _cuda_smem_bytes(d: int) -> int:
    """Layout<D>::bytes in fmha_sm100.cu: Q, two K and two V stages, P, and 1024 bytes of slack to align
    the base (the mbarriers and the TMEM slot are static shared variables)."""
    return 128 * d * 2 + 4 * 64 * d * 2 + 128 * 64 * 2 + 1024


def run_cuda(name: str, d: int, causal: bool, bf16: bool, seq: int, bh: int, seed: int = 0):
    from irc.emu import encode_tensormap, run_kernel

    (q, qf), (k, kf), (v, vf) = _inputs(bh, seq, d, bf16, seed)

    def tmap(x: np.ndarray, rows: int) -> bytes:
        # innermost first: head dims, rows, (batch, head); box = 8 dims x rows x 1
        strides = (d * 2, seq * d * 2)
        return encode_tensormap(
            x, shape=(d, seq, bh), strides_bytes=strides, box=(8, rows, 1), dtype=np.float16
        )

    o = np.full((bh, seq, d), np.nan, np.float32)
    scale = 1.0 / np.sqrt(d)
    args = [o, tmap(q, 128), tmap(k, 64), tmap(v, 64), seq, np.float32(scale), int(causal), int(bf16)]
    run_kernel(
        _cuda_module(name),
        f"fmha_sm100_d{d}",
        ((seq + 127) // 128, bh),
        192,
        args,
        dynamic_shared_bytes=_cuda_smem_bytes(d),
    )
    return o, reference(qf, kf, vf, scale, causal)


def test_cuda_twin_checks_clean_and_ptxas_accepts() -> None:
    from irc.compiler import check_ptx

    path = CUDA / "fmha_sm100.ptx"
    text = path.read_text()
    assert [f"{d.check}: {d.message}" for d in check_ptx(text, str(path))] == []
    if find_ptxas() is None:
        pytest.skip("ptxas not found (pip install -e '.[ptxas]')")
    r = run_ptxas(text, "sm_100a")
    assert r.ok, r.stderr


@pytest.mark.parametrize(
    "d,causal,bf16,seq,bh",
    [
        (64, False, False, 129, 2),
        (64, True, True, 1, 2),
        (128, True, False, 200, 1),
        (128, False, True, 127, 1),
    ],
)
def test_cuda_twin_matches_numpy(d: int, causal: bool, bf16: bool, seq: int, bh: int) -> None:
    o, ref = run_cuda("fmha_sm100", d, causal, bf16, seq, bh, seed=seq + d)
    tol = 2e-2 if bf16 else 3e-3
    err = float(np.max(np.abs(o - ref)))
    assert err <= tol, f"CUDA fmha_sm100_d{d} causal={causal} bf16={bf16} seq={seq}: max err {err:.3g}"


@pytest.mark.slow
@pytest.mark.parametrize("seq", [1, 127, 128, 129, 1000])
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("d", [64, 128])
def test_cuda_twin_sweep(sweep: None, d: int, causal: bool, seq: int) -> None:
    o, ref = run_cuda("fmha_sm100", d, causal, False, seq, 2, seed=seq)
    assert float(np.max(np.abs(o - ref))) <= 3e-3


@pytest.mark.parametrize("bug", ["fmha_sm100_bug_no_expect_tx", "fmha_sm100_bug_parity"])
def test_cuda_twin_protocol_mistakes_hang_in_the_emulator(bug: str) -> None:
    # The injected mistakes (regen.sh): the K/V arrival without expect_tx (the phase completes on the
    # arrival; the copies' bytes then count against the next phase until the pipeline stalls); a fixed
    # kv_full wait parity. With five key tiles both stages are reused twice, and the emulator reports the
    # pipeline stuck at an mbarrier wait.
    from irc.emu import EmuError

    with pytest.raises(EmuError, match="mbarrier"):
        run_cuda(bug, 64, False, False, 320, 1)


@pytest.mark.parametrize(
    "right,wrong",
    [
        ("mbarrier_wait(&kv_full[s], (j / 2) % 2);", "mbarrier_wait(&kv_full[s], 0);"),
        ("mbarrier_wait(&s_full, j % 2);", "mbarrier_wait(&s_full, 0);"),
        ("mbarrier_init(&p_full, 128);", "mbarrier_init(&p_full, 64);"),
    ],
    ids=["kv_full-fixed-parity", "s_full-fixed-parity", "p_full-wrong-count"],
)
def test_protocol_mistakes_in_the_kdsl_kernel_are_caught(right: str, wrong: str) -> None:
    # The positive kernel checks clean and matches; each of these one-line protocol mistakes is reported by
    # `irc check` (the mbarrier protocol checks), or else, run anyway, stalls the pipeline (the emulator
    # names the mbarrier wait) or produces wrong numbers.
    from irc.emu import EmuError

    assert right in SRC
    mutant = SRC.replace(right, wrong)
    diags = check_kdsl(mutant, "examples/fmha_sm100.kdsl", arch="sm_100a")
    if diags:
        assert {d.check for d in diags} <= {"mbarrier-phase", "mbarrier-arrival-mismatch"}, diags
        return
    try:
        o, ref = run_fmha(64, False, False, 320, 1, src=mutant)
    except EmuError as e:
        assert "mbarrier" in str(e)
        return
    assert not np.allclose(o, ref, atol=3e-3), f"`{wrong}` went unnoticed"


def test_tcgen05_st_is_warp_collective() -> None:
    # Near miss of the correct roundtrip kernel: the same store by half a warp is a warp-sync-divergence.
    half = TMEM_ROUNDTRIP.replace(
        "    tcgen05_st_32x32b(lanes + 4, v);",
        "    if laneid < 16 {\n        tcgen05_st_32x32b(lanes + 4, v);\n    }",
    )
    assert half != TMEM_ROUNDTRIP
    assert check_kdsl(TMEM_ROUNDTRIP, "rt.kdsl", arch="sm_100a") == []
    assert [d.check for d in check_kdsl(half, "half.kdsl", arch="sm_100a")] == ["warp-sync-divergence"]


@pytest.mark.parametrize("name", ["fmha_sm100_ok_c_poll", "fmha_sm100_ok_unrolled"])
def test_cuda_twin_variants_match_numpy(name: str) -> None:
    # The same protocol compiled differently (C polling loop; producer loop unrolled 4x by nvcc): five key
    # tiles, so every barrier goes through several phases.
    o, ref = run_cuda(name, 64, True, False, 300, 1, seed=5)
    assert float(np.max(np.abs(o - ref))) <= 3e-3


@pytest.mark.parametrize("name", ["fmha_sm100_bug_parity", "fmha_sm100_bug_parity_c_poll"])
def test_cuda_twin_fixed_parity_is_reported_by_irc_check(name: str) -> None:
    """The injected protocol mistake (the MMA role waits on kv_full[s] with parity 0 in every round) is a
    static finding on nvcc's PTX, in each of the two instantiations (D=64 and D=128), at the wait's source
    line; with the polling loop written in C it is still reported (the near miss of the polling-loop rule)."""
    from irc.compiler import check_ptx

    path = CUDA / f"{name}.ptx"
    diags = check_ptx(path.read_text(), str(path))
    assert [d.check for d in diags] == ["mbarrier-phase", "mbarrier-phase"], [d.message for d in diags]
    # one per instantiation: the barriers are the `bars` arrays of fmha<64> and fmha<128>
    assert sorted("ILi64E" in d.message for d in diags) == [False, True], [d.message for d in diags]
    assert all("wait on parity 0" in d.message for d in diags)


def test_cuda_twin_unrolled_producer_checks_clean() -> None:
    """nvcc unrolls the producer loop 4x: each unrolled iteration waits on every stage twice, with
    parities 1 then 0, so one wait instruction sees the same parity in every iteration while the parities
    awaited on the stage still alternate (and the 4th copy's wait sits after the 3rd copy's polling loop,
    whose exit is not a condition on the iteration). Was a false `mbarrier-phase`."""
    from irc.compiler import check_ptx

    path = CUDA / "fmha_sm100_ok_unrolled.ptx"
    assert [f"{d.check}: {d.message}" for d in check_ptx(path.read_text(), str(path))] == []


def test_cuda_twin_unrolled_producer_with_fixed_parity_is_reported() -> None:
    """The near miss: the same unrolled loop with the producer waiting on parity 1 every time (both uses of
    a stage in one iteration on the same parity) is still an `mbarrier-phase` error, once per kernel."""
    from irc.compiler import check_ptx

    path = CUDA / "fmha_sm100_bug_unrolled_parity.ptx"
    diags = check_ptx(path.read_text(), str(path))
    assert [d.check for d in diags] == ["mbarrier-phase", "mbarrier-phase"]
    assert {d.kernel for d in diags} == {"fmha_sm100_d64", "fmha_sm100_d128"}


def test_cuda_twin_polling_from_c_checks_clean() -> None:
    """`while (!try_wait(bar, parity)) {}` in C is a polling loop of one wait, not a loop of rounds."""
    from irc.compiler import check_ptx

    path = CUDA / "fmha_sm100_ok_c_poll.ptx"
    assert [f"{d.check}: {d.message}" for d in check_ptx(path.read_text(), str(path))] == []
