"""`device="cuda"`: launches on a real GPU through cuda-python, compared to numpy. The `gpu` tests skip with
the reason from `irc.runtime.cuda.driver_available()` where there is no driver or device; the error a
launch gives without one is tested everywhere."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import irc
from irc.runtime.cuda import CudaError, driver_available

ROOT = Path(__file__).resolve().parent.parent
_OK, _WHY = driver_available()
needs_gpu = pytest.mark.skipif(not _OK, reason=f"no CUDA GPU: {_WHY}")


@pytest.fixture(scope="module")
def vadd() -> irc.CompiledModule:
    return irc.compile_file(ROOT / "examples" / "vector_add.kdsl")


@pytest.mark.gpu
@needs_gpu
def test_vector_add_on_gpu(vadd: irc.CompiledModule) -> None:
    n = 1000
    rng = np.random.default_rng(0)
    x, y = rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)
    out = np.zeros(n, np.float32)
    vadd["vector_add"].launch(8, 128, [out, x, y, n], device="cuda")
    np.testing.assert_array_equal(out, x + y)


@pytest.mark.gpu
@needs_gpu
def test_softmax_on_gpu_matches_numpy_and_emulator() -> None:
    m = irc.compile_file(ROOT / "examples" / "softmax.kdsl")
    rows, n = 6, 300
    x = np.random.default_rng(1).standard_normal((rows, n)).astype(np.float32) * 4
    out = np.zeros_like(x)
    m["softmax"].launch(rows, 128, [out, x, n], device="cuda")
    e = np.exp(x - x.max(axis=1, keepdims=True))
    np.testing.assert_allclose(out, e / e.sum(axis=1, keepdims=True), rtol=2e-5, atol=1e-7)
    emu = np.zeros_like(x)
    m["softmax"].launch(rows, 128, [emu, x, n], device="emu")
    np.testing.assert_allclose(out, emu, rtol=1e-6, atol=1e-8)


def test_driver_available_reports_why() -> None:
    ok, why = driver_available()
    assert isinstance(ok, bool) and isinstance(why, str)
    assert ok == (why == "")


@pytest.mark.skipif(_OK, reason="a CUDA driver is present: the no-driver error cannot be observed")
def test_cuda_launch_without_driver_is_a_clear_error(vadd: irc.CompiledModule) -> None:
    out, x = np.zeros(128, np.float32), np.ones(128, np.float32)
    with pytest.raises(CudaError) as e:
        vadd["vector_add"].launch(1, 128, [out, x, x, 128], device="cuda")
    msg = str(e.value)
    assert 'device="cuda" is not available here' in msg and _WHY in msg
    assert not out.any()


def test_cuda_launch_checks_arguments_first(vadd: irc.CompiledModule) -> None:
    """Argument mistakes are LaunchErrors on every device, before any driver is touched."""
    with pytest.raises(irc.LaunchError, match="takes 4 arguments"):
        vadd["vector_add"].launch(1, 128, [np.zeros(4, np.float32)], device="cuda")


# --- PTX from anywhere on the GPU, and the target a cubin is assembled for ----------------------------------

RUN_PTX = ROOT / "tests" / "data" / "ptx" / "run" / "kernels.sm_80.ptx"
_FAULT_PTX = """.version 8.0
.target sm_80
.address_size 64
.visible .entry boom(.param .u64 p)
{
\ttrap;
\tret;
}
"""


def test_cubin_arch_portable_ptx_is_assembled_for_the_gpu() -> None:
    from irc.runtime.cuda import cubin_arch

    assert cubin_arch("sm_80", "sm_90") == "sm_90"  # an sm_80 cubin does not load on sm_90: its PTX does
    assert cubin_arch("sm_90a", "sm_90") == "sm_90a"
    for ptx, dev in [("sm_100a", "sm_90"), ("sm_90a", "sm_100"), ("sm_100", "sm_90")]:
        with pytest.raises(CudaError, match=f"the PTX targets {ptx}; this GPU is {dev}"):
            cubin_arch(ptx, dev)


def test_scalar_parameters_are_packed_at_their_width() -> None:
    from irc.runtime.args import ParamSpec
    from irc.runtime.cuda import _scalar

    assert _scalar(ParamSpec("n", ".u32", "int", bits=32, either_sign=True), -1).value == 0xFFFFFFFF
    assert _scalar(ParamSpec("h", "f16", "float", bits=16), 1.5).value == 0x3E00
    assert _scalar(ParamSpec("b", "bf16", "float", bits=16), 1.0).value == 0x3F80
    assert _scalar(ParamSpec("d", ".f64", "float", bits=64), 0.1).value == 0.1


@pytest.mark.gpu
@needs_gpu
def test_nvcc_ptx_runs_on_gpu_like_the_emulator() -> None:
    """Foreign PTX (`.target sm_80`) on whatever GPU is present: assembled for the GPU's own target."""
    mod = irc.load_ptx_file(RUN_PTX)
    n = 1000
    rng = np.random.default_rng(2)
    x, y = rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)
    out = {}
    for dev in ("cuda", "emu"):
        yy = y.copy()
        mod["saxpy"].launch(8, 128, [np.float32(2.5), x, yy, n], device=dev)
        out[dev] = yy
    np.testing.assert_array_equal(out["cuda"], out["emu"])
    w, h = 37, 21
    a = rng.standard_normal((h, w)).astype(np.float32)
    t = np.zeros((w, h), np.float32)
    mod["transpose"].launch((3, 2), (16, 16), [a, t, w, h], device="cuda")
    np.testing.assert_array_equal(t, a.T)


@pytest.mark.gpu
@needs_gpu
def test_cli_run_ptx_on_gpu_and_its_errors(tmp_path: Path) -> None:
    """`irc run x.ptx --device cuda`: the result in the .npy file; a trap is the kernel's fault (exit 1);
    PTX for another chip is exit 2 with the reason."""
    import subprocess
    import sys

    x = np.arange(64, dtype=np.float32)
    np.save(tmp_path / "y.npy", np.ones(64, np.float32))
    np.save(tmp_path / "x.npy", x)

    def run(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, "-m", "irc.cli", "run", *args],
            capture_output=True,
            text=True,
            cwd=tmp_path,
            timeout=300,
        )

    r = run(
        str(RUN_PTX),
        "--kernel",
        "saxpy",
        "--grid",
        "1",
        "--block",
        "64",
        "--device",
        "cuda",
        "--arg",
        "param_0=2",
        "--arg",
        "param_1=x.npy",
        "--arg",
        "param_2=y.npy",
        "--arg",
        "param_3=64",
    )
    assert r.returncode == 0, r.stderr
    np.testing.assert_array_equal(np.load(tmp_path / "y.npy"), 2 * x + 1)
    (tmp_path / "boom.ptx").write_text(_FAULT_PTX)
    r = run("boom.ptx", "--grid", "1", "--block", "1", "--device", "cuda", "--arg", "p=0")
    assert r.returncode == 1 and "kernel `boom` failed on the GPU" in r.stderr, r.stderr
    other = "sm_100a" if driver_arch() != "sm_100" else "sm_90a"
    (tmp_path / "other.ptx").write_text(_FAULT_PTX.replace("sm_80", other).replace("8.0", "8.7"))
    r = run("other.ptx", "--grid", "1", "--block", "1", "--device", "cuda", "--arg", "p=0")
    assert r.returncode == 2 and f"the PTX targets {other}" in r.stderr, r.stderr


def driver_arch() -> str:
    from irc.runtime.cuda import device_arch

    return device_arch()
