"""`irc run`: compile a .kdsl file, bind `--arg NAME=VALUE|PATH.npy` by parameter name, run the kernel in
the emulator and write the arrays back. User mistakes exit 2 with one clear line (no traceback); a kernel
that faults in the emulator exits 1 with the emulator's message."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parent.parent
VECTOR_ADD = str(ROOT / "examples" / "vector_add.kdsl")


def irc_run(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "NO_COLOR": "1",
        "IRC_CACHE_DIR": str(tmp_path / "cache"),
        "HOME": str(tmp_path),
    }
    return subprocess.run(
        [sys.executable, "-m", "irc.cli", "run", *args],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        timeout=120,
    )


def _inputs(tmp_path: Path, n: int = 1000) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    x = rng.standard_normal(n).astype(np.float32)
    y = rng.standard_normal(n).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    np.save(tmp_path / "y.npy", y)
    np.save(tmp_path / "out.npy", np.zeros(n, np.float32))
    return x, y


def _usage_error(r: subprocess.CompletedProcess, *needles: str) -> None:
    assert r.returncode == 2, (r.returncode, r.stderr)
    assert "Traceback" not in r.stderr
    assert r.stderr.startswith("irc: error:"), r.stderr
    for n in needles:
        assert n in r.stderr, r.stderr


VA_ARGS = ["--grid", "8", "--block", "128", "--arg", "out=out.npy", "--arg", "x=x.npy", "--arg", "y=y.npy"]


def test_run_vector_add_writes_outputs(tmp_path: Path) -> None:
    x, y = _inputs(tmp_path)
    r = irc_run(tmp_path, VECTOR_ADD, *VA_ARGS, "--arg", "n=1000")
    assert r.returncode == 0, r.stderr
    out = np.load(tmp_path / "out.npy")
    assert out.dtype == np.float32 and out.shape == (1000,)
    np.testing.assert_array_equal(out, x + y)
    # the inputs are written back unchanged
    np.testing.assert_array_equal(np.load(tmp_path / "x.npy"), x)


def test_run_respects_n_and_out_dir(tmp_path: Path) -> None:
    x, y = _inputs(tmp_path)
    (tmp_path / "res").mkdir()
    r = irc_run(tmp_path, VECTOR_ADD, *VA_ARGS, "--arg", "n=0x100", "--out-dir", "res")
    assert r.returncode == 0, r.stderr
    out = np.load(tmp_path / "res" / "out.npy")
    np.testing.assert_array_equal(out[:256], (x + y)[:256])
    assert not out[256:].any()  # threads past n store nothing
    assert not np.load(tmp_path / "out.npy").any()  # the input file itself is untouched


def test_missing_arg(tmp_path: Path) -> None:
    _inputs(tmp_path)
    r = irc_run(tmp_path, VECTOR_ADD, *VA_ARGS)
    _usage_error(r, "missing --arg for n", "out, x, y, n")


def test_unknown_arg(tmp_path: Path) -> None:
    _inputs(tmp_path)
    r = irc_run(tmp_path, VECTOR_ADD, *VA_ARGS, "--arg", "n=1000", "--arg", "m=3")
    _usage_error(r, "unknown --arg m")


def test_malformed_arg(tmp_path: Path) -> None:
    _inputs(tmp_path)
    r = irc_run(tmp_path, VECTOR_ADD, *VA_ARGS, "--arg", "n")
    _usage_error(r, "NAME=VALUE")
    r = irc_run(tmp_path, VECTOR_ADD, *VA_ARGS, "--arg", "n=lots")
    _usage_error(r, "`lots` is not a number")


def test_wrong_dtype_array(tmp_path: Path) -> None:
    _inputs(tmp_path)
    np.save(tmp_path / "x.npy", np.arange(1000, dtype=np.float64))
    r = irc_run(tmp_path, VECTOR_ADD, *VA_ARGS, "--arg", "n=1000")
    _usage_error(r, "`x`", "float32", "float64")


def test_scalar_out_of_range(tmp_path: Path) -> None:
    _inputs(tmp_path)
    r = irc_run(tmp_path, VECTOR_ADD, *VA_ARGS, "--arg", "n=-1")
    _usage_error(r, "`n`", "does not fit")


def test_missing_npy_file(tmp_path: Path) -> None:
    _inputs(tmp_path)
    (tmp_path / "y.npy").unlink()
    r = irc_run(tmp_path, VECTOR_ADD, *VA_ARGS, "--arg", "n=1000")
    _usage_error(r, "no such file y.npy")


def test_missing_source_file(tmp_path: Path) -> None:
    r = irc_run(tmp_path, str(tmp_path / "nope.kdsl"), "--grid", "1", "--block", "32")
    _usage_error(r, "no such file")


TWO = """
kernel fill(out: *global u32, v: u32) { out[tid.x] = v; }
kernel twice(out: *global u32) { out[tid.x] = tid.x * 2u32; }
"""


def test_several_kernels_need_kernel_flag(tmp_path: Path) -> None:
    (tmp_path / "two.kdsl").write_text(TWO)
    np.save(tmp_path / "o.npy", np.zeros(32, np.uint32))
    r = irc_run(tmp_path, "two.kdsl", "--grid", "1", "--block", "32", "--arg", "out=o.npy")
    _usage_error(r, "several kernels", "fill", "twice", "--kernel")
    r = irc_run(
        tmp_path, "two.kdsl", "--kernel", "twice", "--grid", "1", "--block", "32", "--arg", "out=o.npy"
    )
    assert r.returncode == 0, r.stderr
    np.testing.assert_array_equal(np.load(tmp_path / "o.npy"), np.arange(32, dtype=np.uint32) * 2)
    r = irc_run(
        tmp_path, "two.kdsl", "--kernel", "nope", "--grid", "1", "--block", "32", "--arg", "out=o.npy"
    )
    _usage_error(r, "no kernel `nope`", "fill, twice")


OOB = """
kernel oob(out: *global u32) {
    out[tid.x + 1000u32] = 1u32;
}
"""


def test_kernel_fault_exits_1_with_emulator_message(tmp_path: Path) -> None:
    (tmp_path / "oob.kdsl").write_text(OOB)
    np.save(tmp_path / "o.npy", np.zeros(32, np.uint32))
    r = irc_run(tmp_path, "oob.kdsl", "--grid", "1", "--block", "32", "--arg", "out=o.npy")
    assert r.returncode == 1, r.stderr
    assert "Traceback" not in r.stderr
    assert "failed in the emulator" in r.stderr
    assert "out of bounds" in r.stderr.lower() or "out-of-bounds" in r.stderr.lower(), r.stderr
    assert not np.load(tmp_path / "o.npy").any()  # nothing is written back after a fault


def test_compile_error_exits_1(tmp_path: Path) -> None:
    (tmp_path / "bad.kdsl").write_text("kernel k(out: *global u32) { out[0] = nope; }\n")
    np.save(tmp_path / "o.npy", np.zeros(4, np.uint32))
    r = irc_run(tmp_path, "bad.kdsl", "--grid", "1", "--block", "32", "--arg", "out=o.npy")
    assert r.returncode == 1 and "Traceback" not in r.stderr
    assert "bad.kdsl:1:" in r.stderr and "nope" in r.stderr


@pytest.mark.parametrize("grid", ["0", "x", "1,2,3,4"])
def test_bad_grid(tmp_path: Path, grid: str) -> None:
    _inputs(tmp_path)
    r = irc_run(tmp_path, VECTOR_ADD, "--grid", grid, *VA_ARGS[2:], "--arg", "n=1000")
    assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr


def test_run_beyond_an_emulator_limit_exits_2_naming_the_limit(tmp_path: Path) -> None:
    """A grid the emulator cannot hold is refused before anything is allocated (LimitError), naming the
    limit and its variable; not a MemoryError or a traceback."""
    _inputs(tmp_path)
    args = ["--grid", "65535,65535,64", "--block", "1024", *VA_ARGS[4:], "--arg", "n=1000"]
    r = irc_run(tmp_path, VECTOR_ADD, *args)
    _usage_error(r, "the emulator runs at most", "emu_max_threads", "IRC_LIMIT_EMU_MAX_THREADS")
