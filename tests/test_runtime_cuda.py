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
