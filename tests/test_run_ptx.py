"""`irc run FILE.ptx` and `irc.load_ptx`: nvcc's PTX (tests/data/ptx/run/kernels.cu, compiled with nvcc 13
`-O3 -lineinfo -arch=sm_80`) runs in the emulator and matches numpy. Kernel names are mangled: the mangled
name and the demangled name (when one kernel has it) both work; parameters are `param_0`, ... or their
full PTX names; values go through the API's checks (exact integers, 64-bit parameters as arrays or
integers)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import irc

DATA = Path(__file__).parent / "data" / "ptx" / "run"
PTX = DATA / "kernels.sm_80.ptx"


def irc_run(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, NO_COLOR="1", IRC_CACHE_DIR=str(tmp_path / "cache"))
    return subprocess.run(
        [sys.executable, "-m", "irc.cli", "run", str(PTX), *args],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        timeout=120,
    )


def test_cli_runs_nvcc_saxpy_and_matches_numpy(tmp_path: Path) -> None:
    n = 1000
    rng = np.random.default_rng(0)
    x = rng.standard_normal(n).astype(np.float32)
    y = rng.standard_normal(n).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    np.save(tmp_path / "y.npy", y)
    r = irc_run(
        tmp_path,
        *("--kernel", "saxpy", "--grid", "8", "--block", "128"),
        *(
            "--arg",
            "param_0=2.5",
            "--arg",
            "param_1=x.npy",
            "--arg",
            "param_2=y.npy",
            "--arg",
            "param_3=1000",
        ),
    )
    assert r.returncode == 0, r.stderr
    assert "ran _Z5saxpyfPKfPfi in the emulator" in r.stderr
    # nvcc contracts `a * x[i] + y[i]` to fma.rn.f32: one rounding of the exact result (float64 holds the
    # product of two floats exactly, and for these inputs the sum's rounding to float32 is the fma's)
    fma = (2.5 * x.astype(np.float64) + y.astype(np.float64)).astype(np.float32)
    np.testing.assert_array_equal(np.load(tmp_path / "y.npy"), fma)
    np.testing.assert_array_equal(np.load(tmp_path / "x.npy"), x)


def test_api_transpose_on_a_2d_grid() -> None:
    mod = irc.load_ptx_file(PTX)
    assert mod.arch == "sm_80" and "_Z9transposePKfPfii" in mod.kernels
    h, w = 37, 50
    a = np.arange(h * w, dtype=np.float32).reshape(h, w)
    out = np.zeros((w, h), np.float32)
    k = mod["transpose"]
    assert k.param_names == ["param_0", "param_1", "param_2", "param_3"]
    k.launch((4, 3), (16, 16), [a, out, w, h])
    np.testing.assert_array_equal(out, a.T)


def test_template_instances_by_mangled_name() -> None:
    mod = irc.load_ptx_file(PTX)
    with pytest.raises(KeyError) as e:
        mod["scale"]
    assert str(e.value).startswith("`scale` names 2 kernels")  # no KeyError quoting
    p = np.arange(10, dtype=np.float64)
    mod["_Z5scaleIdEvPT_S0_i"].launch(1, 32, [p, 0.5, 10])
    np.testing.assert_array_equal(p, np.arange(10) * 0.5)


def test_u64_parameter_takes_an_integer_or_an_array() -> None:
    mod = irc.load_ptx_file(PTX)
    out = np.full(64, 7, np.uint64)
    mod["iota64"].launch(1, 64, [out, 40])
    np.testing.assert_array_equal(out, np.r_[np.arange(40), np.full(24, 7)].astype(np.uint64))
    with pytest.raises(irc.LaunchError, match=r"argument `param_1` is `.u64`: 4.5 is not an integer"):
        mod["iota64"].launch(1, 64, [out, 4.5])


def test_cli_and_api_give_the_same_message(tmp_path: Path) -> None:
    np.save(tmp_path / "x.npy", np.zeros(8, np.float32))
    r = irc_run(
        tmp_path,
        *("--kernel", "saxpy", "--grid", "1", "--block", "32"),
        *("--arg", "param_0=1", "--arg", "param_1=x.npy", "--arg", "param_2=x.npy", "--arg", "param_3=8.5"),
    )
    assert r.returncode == 2
    with pytest.raises(irc.LaunchError) as e:
        x = np.zeros(8, np.float32)
        irc.load_ptx_file(PTX)["saxpy"].launch(1, 32, [1.0, x, x, 8.5])
    assert r.stderr == f"irc: error: {e.value}\n"
