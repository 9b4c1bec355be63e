"""Async copies, mbarriers, TMA and tensor cores end to end: textual IR (tests/data/async_ir/*.ir) ->
compile_module -> PTX text -> ptxas accepts it for the target -> parse_ptx -> emulator -> equals numpy.

Plus a table-driven gate test: every intrinsic op family (tests/data/async_ir/families/*.ir) compiles and
assembles on exactly the targets its op-table gate admits, and is refused with `unsupported-target`
elsewhere."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from irc.backends.ptx.emit import compile_module
from irc.diagnostics import CompileError
from irc.emu import EmuError, encode_tensormap, run_kernel
from irc.emu.dtypes import bf16_to_f32, f32_to_bf16
from irc.frontend.ptx.parser import parse_ptx
from irc.ir.optable import OPS
from irc.ir.parser import parse_module
from irc.ptxas import find_ptxas, run_ptxas
from irc.target import ARCHES, GATE_FAMILIES

DATA = Path(__file__).parent / "data" / "async_ir"
FAMILIES = DATA / "families"
TARGETS = tuple(ARCHES)
HAVE_PTXAS = find_ptxas() is not None


def _text(name: str, replace: dict[str, str] | None = None) -> str:
    text = (DATA / f"{name}.ir").read_text()
    for old, new in (replace or {}).items():
        assert old in text, old
        text = text.replace(old, new)
    return text


def build(name: str, arch: str, replace: dict[str, str] | None = None, path: Path | None = None) -> str:
    """Compile a fresh parse (compile_module consumes the IR) and, when ptxas is present, assemble it."""
    text = path.read_text() if path is not None else _text(name, replace)
    res = compile_module(parse_module(text, f"{name}.kdsl"), arch)
    if HAVE_PTXAS:
        asm = run_ptxas(res.text, arch)
        assert asm.ok, f"{name} {arch}: {[(e.line, e.message) for e in asm.errors]}\n{res.text}"
    return res.text


def run(name: str, kernel: str, arch: str, block: int, args, replace=None, grid=1):
    text = build(name, arch, replace)
    return run_kernel(parse_ptx(text, f"{name}.ptx"), kernel, grid, block, args)


# -- 1. TMA + mbarrier pipeline ---------------------------------------------------------------------------
@pytest.mark.parametrize("arch", ["sm_90a", "sm_100a"])
@pytest.mark.parametrize("rows", [64, 96])
def test_tma_pipeline_two_stages(arch: str, rows: int) -> None:
    x = np.random.default_rng(rows).standard_normal((rows, 64)).astype(np.float32)
    out = np.full_like(x, np.nan)
    tm = encode_tensormap(x, shape=(64, rows), strides_bytes=(64 * 4,), box=(16, 16), dtype=np.float32)
    ntiles = 4 * rows // 16  # 16 or 24 tiles: each barrier goes through 8 or 12 phases
    run("tma_pipeline", "tma_pipe", arch, 256, (tm, out, np.uint32(ntiles)))
    np.testing.assert_array_equal(out, 2 * x)


def test_tma_pipeline_wrong_parity_is_caught() -> None:
    # Waiting on the opposite parity waits for a phase that never completes: the emulator must notice.
    x = np.ones((64, 64), np.float32)
    tm = encode_tensormap(x, shape=(64, 64), strides_bytes=(256,), box=(16, 16), dtype=np.float32)
    bad = {"mbarrier_wait %bar, %par": "%npar = xor %par, %c1 : u32\n  mbarrier_wait %bar, %npar"}
    with pytest.raises(EmuError, match="deadlock|never complete|async-race"):  # a race under some schedules
        run("tma_pipeline", "tma_pipe", "sm_90a", 256, (tm, np.zeros_like(x), np.uint32(16)), replace=bad)


@pytest.mark.parametrize("arch", ["sm_90", "sm_100a", "sm_120a"])
def test_tma_load_modify_store_multi_cta(arch: str) -> None:
    rows, cols = 40, 80  # not multiples of the 16 x 32 box: zero fill on load, clipping on store
    x = np.random.default_rng(7).standard_normal((rows, cols)).astype(np.float32)
    y = np.full_like(x, -7.0)
    src = encode_tensormap(x, shape=(cols, rows), strides_bytes=(cols * 4,), box=(32, 16), dtype=np.float32)
    dst = encode_tensormap(y, shape=(cols, rows), strides_bytes=(cols * 4,), box=(32, 16), dtype=np.float32)
    run("tma_store", "tma_rt", arch, 128, (src, dst), grid=((cols + 31) // 32, (rows + 15) // 16))
    np.testing.assert_array_equal(y, x + 1)


@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
def test_mbarrier_ring_phase_flipping(arch: str) -> None:
    nr = 6
    x = (np.arange(32 * nr, dtype=np.uint32) * 7 + 1).astype(np.uint32)
    out = np.zeros_like(x)
    run("mbar_pipeline", "mbar_pipe", arch, 64, (x, out, np.uint32(nr)))
    np.testing.assert_array_equal(out, 3 * x)
    text = build("mbar_pipeline", arch)
    assert ("mbarrier.test_wait.parity" in text) == (arch == "sm_80")
    assert ("mbarrier.try_wait.parity" in text) == (arch != "sm_80")


def test_mbarrier_ring_fixed_parity_is_caught() -> None:
    x = np.arange(32 * 4, dtype=np.uint32)
    with pytest.raises(EmuError):
        run(
            "mbar_pipeline",
            "mbar_pipe",
            "sm_80",
            64,
            (x, np.zeros_like(x), np.uint32(4)),
            replace={"mbarrier_wait %full, %fp": "mbarrier_wait %full, %z"},
        )


# -- 2. mma.sync + ldmatrix GEMM with cp.async double buffering -------------------------------------------
@pytest.mark.parametrize("ab", ["f16", "bf16"])
@pytest.mark.parametrize("nk", [1, 4])
def test_mma_ldmatrix_cp_async_gemm(ab: str, nk: int) -> None:
    K = 16 * nk
    rng = np.random.default_rng(nk)
    Af = rng.standard_normal((16, K)).astype(np.float32)
    Bf = rng.standard_normal((K, 16)).astype(np.float32)
    if ab == "f16":
        A, B = Af.astype(np.float16), Bf.astype(np.float16)
        ref = A.astype(np.float64) @ B.astype(np.float64)
    else:
        A, B = f32_to_bf16(Af), f32_to_bf16(Bf)
        ref = bf16_to_f32(A).astype(np.float64) @ bf16_to_f32(B).astype(np.float64)
    C = np.full((16, 16), np.nan, np.float32)
    run("mma_gemm", "mma_gemm", "sm_80", 32, (A, B, C, np.uint32(nk)), replace={'ab = "f16"': f'ab = "{ab}"'})
    np.testing.assert_allclose(C, ref, rtol=1e-5, atol=1e-4)


def test_mma_gemm_ptx_forms() -> None:
    text = build("mma_gemm", "sm_80", replace={'ab = "f16"': 'ab = "bf16"'})
    assert "ldmatrix.sync.aligned.m8n8.x4.shared.b16" in text
    assert "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16" in text
    assert "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32" in text
    assert "cp.async.ca.shared.global" in text and "cp.async.wait_group 1;" in text


# -- 3. wmma ---------------------------------------------------------------------------------------------
def test_wmma_tile() -> None:
    rng = np.random.default_rng(3)
    A = rng.standard_normal((16, 32)).astype(np.float16)
    B = rng.standard_normal((32, 16)).astype(np.float16)
    C = rng.standard_normal((16, 16)).astype(np.float32)
    out = np.full((16, 16), np.nan, np.float32)
    run("wmma_tile", "wmma_tile", "sm_80", 32, (A, np.ascontiguousarray(B.T), C, out))
    np.testing.assert_allclose(out, A.astype(np.float64) @ B.astype(np.float64) + C, rtol=1e-5, atol=1e-4)


# -- 4. tcgen05 ------------------------------------------------------------------------------------------
def _idesc(ab: int, n: int = 64, m: int = 128) -> int:
    """kind::f16 instruction descriptor (PTX ISA): D f32 (bits 4-5 = 1), A/B format (bits 7-9, 10-12:
    0 f16, 1 bf16), K-major A and B (bits 15, 16 = 0), N >> 3 in bits 17-22, M >> 4 in bits 24-28."""
    return (1 << 4) | (ab << 7) | (ab << 10) | ((n >> 3) << 17) | ((m >> 4) << 24)


def _umma_operands(ab: str, seed: int = 5):
    rng = np.random.default_rng(seed)
    Af = rng.standard_normal((128, 32)).astype(np.float32)
    Bf = rng.standard_normal((64, 32)).astype(np.float32)
    if ab == "f16":
        A, B = Af.astype(np.float16), Bf.astype(np.float16)
        ref = A.astype(np.float64) @ B.astype(np.float64).T
        return A.view(np.uint16), B.view(np.uint16), ref
    A, B = f32_to_bf16(Af), f32_to_bf16(Bf)
    return A, B, bf16_to_f32(A).astype(np.float64) @ bf16_to_f32(B).astype(np.float64).T


@pytest.mark.parametrize("arch,ab", [("sm_100a", "f16"), ("sm_100a", "bf16"), ("sm_103a", "f16")])
def test_tcgen05_gemm_tile(arch: str, ab: str) -> None:
    A, B, ref = _umma_operands(ab)
    out = np.full((128, 64), np.nan, np.float32)
    run("tcgen05_gemm", "umma_gemm", arch, 128, (A, B, out, np.uint32(_idesc(int(ab == "bf16")))))
    np.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-4)


def test_tcgen05_gemm_lbo_sbo_matter() -> None:
    # Swapping LBO and SBO in the descriptors (layout unchanged) must give a different product: the
    # emulator really reads A/B through the descriptor's K-direction (LBO) / M,N-direction (SBO) strides.
    A, B, ref = _umma_operands("f16")
    out = np.zeros((128, 64), np.float32)
    swap = {
        "%lbo = const {value = 128}": "%lbo = const {value = 512}",
        "%sbo = const {value = 512}": "%sbo = const {value = 128}",
    }
    run("tcgen05_gemm", "umma_gemm", "sm_100a", 128, (A, B, out, np.uint32(_idesc(0))), replace=swap)
    assert not np.allclose(out, ref, rtol=1e-3, atol=1e-2)


@pytest.mark.parametrize("arch", ["sm_80", "sm_100a"])
def test_smem_desc_lowering_matches_ptx_isa(arch: str) -> None:
    # PTX ISA "Shared memory descriptor": start >> 4 in bits 0-13, LBO >> 4 in 16-29, SBO >> 4 in 32-45,
    # fixed 0b001 in 46-48, base offset 0 in 49-51, LBO mode 0 in 52, swizzle mode in 61-63.
    out = np.zeros(1, np.uint64)
    text = build("smem_desc", arch, path=FAMILIES / "smem_desc.ir")
    run_kernel(parse_ptx(text), "fam", 1, 32, (out,))
    d = int(out[0])
    assert d >> 14 == ((128 >> 4) << 2) | ((256 >> 4) << 18) | (1 << 32)
    start = (d & 0x3FFF) << 4
    assert start % 1024 == 0  # `t` is declared align 1024


# -- 5. op families x targets ----------------------------------------------------------------------------
# The targets each family must compile for (its weakest member's gate); the rest must be refused.
SM90 = GATE_FAMILIES["sm_90"]
SM100A = GATE_FAMILIES["sm_100a"]
FAMILY_TARGETS: dict[str, tuple[str, ...]] = {
    "cp_async": TARGETS,
    "mbarrier": TARGETS,
    "mbarrier_tx": SM90,
    "tma": SM90,
    "ldmatrix": TARGETS,
    "mma": TARGETS,
    "wmma": TARGETS,
    "smem_desc": TARGETS,
    "tmem": SM100A,
    "tcgen05": SM100A,
}


def _family_ops(name: str) -> set[str]:
    m = parse_module((FAMILIES / f"{name}.ir").read_text(), f"{name}.kdsl")
    return {op.name for f in m.functions for b in f.blocks for op in b.ops}


def test_family_files_match_table() -> None:
    assert {p.stem for p in FAMILIES.glob("*.ir")} == set(FAMILY_TARGETS)


@pytest.mark.parametrize("name", sorted(FAMILY_TARGETS))
def test_family_gate_per_target(name: str) -> None:
    ops = _family_ops(name)
    for arch in TARGETS:
        admitted = all(OPS[o].admits(arch) for o in ops)
        assert admitted == (arch in FAMILY_TARGETS[name]), (name, arch, "op table gate disagrees")
        if admitted:
            build(name, arch, path=FAMILIES / f"{name}.ir")  # asserts ptxas accepts it
        else:
            with pytest.raises(CompileError) as ei:
                compile_module(parse_module((FAMILIES / f"{name}.ir").read_text(), f"{name}.kdsl"), arch)
            diags = ei.value.diagnostics
            assert diags and {d.check for d in diags} == {"unsupported-target"}, (name, arch)
            refused = {o for o in ops if not OPS[o].admits(arch)}
            assert all(any(f"`{o}`" in d.message for d in diags) for o in refused), (name, arch, refused)
            assert all(arch in d.message for d in diags), (name, arch)


KERNEL_TARGETS = {
    "tma_pipeline": SM90,
    "tma_store": SM90,
    "mbar_pipeline": TARGETS,
    "mma_gemm": TARGETS,
    "wmma_tile": TARGETS,
    "tcgen05_gemm": SM100A,
}


def test_kernel_files_match_table() -> None:
    assert {p.stem for p in DATA.glob("*.ir")} == set(KERNEL_TARGETS)


@pytest.mark.parametrize("name", sorted(KERNEL_TARGETS))
def test_kernels_on_every_target(name: str) -> None:
    for arch in TARGETS:
        if arch in KERNEL_TARGETS[name]:
            build(name, arch)
        else:
            with pytest.raises(CompileError) as ei:
                compile_module(parse_module(_text(name), f"{name}.kdsl"), arch)
            assert {d.check for d in ei.value.diagnostics} == {"unsupported-target"}, (name, arch)
