"""The Python API: irc.compile / compile_file, kernels by name, launch-argument validation, the on-disk
cache and TensorMap validation."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import irc
import irc.compiler
from irc import CompileError, LaunchError, TensorMap

ROOT = Path(__file__).resolve().parent.parent
VECTOR_ADD = ROOT / "examples" / "vector_add.kdsl"

TWO = """
kernel fill(out: *global u32, v: u32) { out[tid.x] = v; }
kernel scale(out: *global f32, x: *global f32, a: f32, k: i32) {
    out[tid.x] = x[tid.x] * a + (k as f32);
}
"""

TMA = """
kernel tload(out: *global f32, m: tensormap<f32; 8, 16>) {
    out[tid.x] = 0.0;
}
"""


@pytest.fixture(autouse=True)
def _cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    d = tmp_path / "irc-cache"
    monkeypatch.setenv("IRC_CACHE_DIR", str(d))
    return d


@pytest.fixture(scope="module")
def vadd() -> irc.CompiledModule:
    return irc.compile_file(VECTOR_ADD, arch="sm_80")


@pytest.fixture(scope="module")
def two() -> irc.CompiledModule:
    return irc.compile(TWO, cache=False)


def test_compile_file_and_launch(vadd: irc.CompiledModule) -> None:
    assert vadd.kernels == ["vector_add"]
    assert list(vadd) == ["vector_add"]
    assert ".entry vector_add" in vadd.ptx_text and vadd.arch == "sm_80"
    k = vadd["vector_add"]
    assert k.param_names == ["out", "x", "y", "n"]
    rng = np.random.default_rng(1)
    x, y = rng.standard_normal(1000).astype(np.float32), rng.standard_normal(1000).astype(np.float32)
    out = np.zeros(1000, np.float32)
    k.launch(8, 128, [out, x, y, 1000])
    np.testing.assert_array_equal(out, x + y)


def test_compile_source_several_kernels(two: irc.CompiledModule) -> None:
    assert two.kernels == ["fill", "scale"]
    out = np.zeros(32, np.uint32)
    two["fill"].launch(1, 32, [out, 7])
    assert (out == 7).all()
    x = np.arange(32, dtype=np.float32)
    outf = np.zeros(32, np.float32)
    two["scale"].launch((1, 1, 1), (32,), [outf, x, 2.0, np.int32(-3)])
    np.testing.assert_array_equal(outf, x * 2 - 3)


def test_compile_defines_and_arch() -> None:
    src = "param K: u32 = 1;\nkernel k(out: *global u32) { out[tid.x] = K; }\n"
    m = irc.compile(src, defines={"K": 5}, arch="sm_90", cache=False)
    assert ".target sm_90" in m.ptx_text
    out = np.zeros(4, np.uint32)
    m["k"].launch(1, 4, [out])
    assert (out == 5).all()


def test_compile_error_has_diagnostics() -> None:
    with pytest.raises(CompileError) as e:
        irc.compile("kernel k(out: *global u32) { out[0] = nope; }\n", path="bad.kdsl", cache=False)
    assert e.value.diagnostics and e.value.diagnostics[0].check == "name-error"
    assert "bad.kdsl:1:" in str(e.value)


def test_unknown_arch() -> None:
    with pytest.raises(ValueError, match="sm_70"):
        irc.compile(TWO, arch="sm_70", cache=False)


def test_missing_kernel_lists_kernels(two: irc.CompiledModule) -> None:
    with pytest.raises(KeyError) as e:
        two["nope"]
    assert "nope" in str(e.value) and "fill, scale" in str(e.value)


# -- launch argument errors ----------------------------------------------------------------------------


def _vargs(n: int = 64) -> list:
    return [np.zeros(n, np.float32), np.ones(n, np.float32), np.ones(n, np.float32), n]


def test_wrong_argument_count_shows_signature(vadd: irc.CompiledModule) -> None:
    with pytest.raises(LaunchError) as e:
        vadd["vector_add"].launch(1, 64, _vargs()[:3])
    msg = str(e.value)
    assert "takes 4 arguments" in msg and "got 3" in msg
    assert "out: *global f32, x: *global f32, y: *global f32, n: u32" in msg


def test_wrong_dtype(vadd: irc.CompiledModule) -> None:
    args = _vargs()
    args[1] = args[1].astype(np.float64)
    with pytest.raises(LaunchError, match=r"`x`.*float32.*float64"):
        vadd["vector_add"].launch(1, 64, args)


def test_scalar_for_pointer(vadd: irc.CompiledModule) -> None:
    args = _vargs()
    args[0] = 3
    with pytest.raises(LaunchError, match=r"`out`.*numpy array.*int"):
        vadd["vector_add"].launch(1, 64, args)


def test_array_for_scalar(vadd: irc.CompiledModule) -> None:
    args = _vargs()
    args[3] = np.arange(4, dtype=np.uint32)
    with pytest.raises(LaunchError, match=r"`n` is a scalar `u32`, got an array"):
        vadd["vector_add"].launch(1, 64, args)


@pytest.mark.parametrize("bad", [-1, 2**32, "ten"])
def test_out_of_range_or_bad_scalar(vadd: irc.CompiledModule, bad) -> None:
    args = _vargs()
    args[3] = bad
    with pytest.raises(LaunchError, match=r"`n`"):
        vadd["vector_add"].launch(1, 64, args)


def test_signed_scalar_range(two: irc.CompiledModule) -> None:
    out, x = np.zeros(32, np.float32), np.zeros(32, np.float32)
    with pytest.raises(LaunchError, match=r"`k` = 2147483648 does not fit `i32`"):
        two["scale"].launch(1, 32, [out, x, 1.0, 2**31])
    two["scale"].launch(1, 32, [out, x, 1.0, -(2**31)])  # the minimum fits
    assert (out == -(2.0**31)).all()


def test_non_contiguous_array(vadd: irc.CompiledModule) -> None:
    args = _vargs(128)
    args[1] = np.ones(256, np.float32)[::2]
    with pytest.raises(LaunchError, match=r"`x` must be C-contiguous"):
        vadd["vector_add"].launch(1, 64, args)


def test_bad_grid_and_device(vadd: irc.CompiledModule) -> None:
    with pytest.raises(LaunchError, match="grid"):
        vadd["vector_add"].launch(0, 64, _vargs())
    with pytest.raises(LaunchError, match="block"):
        vadd["vector_add"].launch(1, (64, 0), _vargs())
    with pytest.raises(LaunchError, match="unknown device `tpu`"):
        vadd["vector_add"].launch(1, 64, _vargs(), device="tpu")


def test_launch_error_is_a_value_error() -> None:
    assert issubclass(LaunchError, ValueError)


# -- the on-disk cache ---------------------------------------------------------------------------------


def test_cache_hit_skips_compilation(_cache_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    src = VECTOR_ADD.read_text() + "\n// cache test\n"
    m1 = irc.compile(src)
    entries = list(_cache_dir.rglob("*.ptx"))
    assert len(entries) == 1 and ".entry vector_add" in entries[0].read_text()

    def boom(*a, **k):
        raise AssertionError("compile_kdsl called on a cache hit")

    monkeypatch.setattr(irc.compiler, "compile_kdsl", boom)
    m2 = irc.compile(src)
    assert m2.ptx_text == m1.ptx_text and m2.kernels == m1.kernels
    assert m2["vector_add"].param_names == m1["vector_add"].param_names
    assert [str(t) for t in m2["vector_add"].param_types] == [str(t) for t in m1["vector_add"].param_types]
    out, x, y, n = _vargs()
    m2["vector_add"].launch(1, 128, [out, x, y, n])
    assert (out == 2).all()
    # a different define, target or source is a different key: compiles again
    with pytest.raises(AssertionError, match="cache hit"):
        irc.compile(src, arch="sm_90")


def test_cache_false_does_not_write(_cache_dir: Path) -> None:
    irc.compile(TWO, cache=False)
    assert not _cache_dir.exists() or not list(_cache_dir.rglob("*.ptx"))


def test_corrupt_cache_entry_is_recompiled(_cache_dir: Path) -> None:
    src = TWO + "// corrupt\n"
    irc.compile(src)
    (entry,) = _cache_dir.rglob("*.ptx")
    entry.write_text("{not json")
    m = irc.compile(src)
    assert m.kernels == ["fill", "scale"]
    assert '"format"' in entry.read_text()  # overwritten with a good entry


def test_cache_keyed_by_defines(_cache_dir: Path) -> None:
    src = "param K: u32 = 1;\nkernel k(out: *global u32) { out[tid.x] = K; }\n"
    irc.compile(src, defines={"K": 2})
    irc.compile(src, defines={"K": 3})
    assert len(list(_cache_dir.rglob("*.ptx"))) == 2


def test_unwritable_cache_dir_does_not_fail(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    monkeypatch.setenv("IRC_CACHE_DIR", str(blocker / "sub"))  # a path under a regular file
    assert irc.compile(TWO + "// ro\n").kernels == ["fill", "scale"]


# -- TensorMap -----------------------------------------------------------------------------------------


def test_tensormap_validation() -> None:
    a = np.zeros((16, 32), np.float32)
    TensorMap(a, (8, 16))
    with pytest.raises(LaunchError, match="C-contiguous"):
        TensorMap(a[:, ::2], (8, 8))
    with pytest.raises(LaunchError, match="C-contiguous"):
        TensorMap([[0.0]], (1, 1))  # type: ignore[arg-type]
    with pytest.raises(LaunchError, match="one extent per array dimension"):
        TensorMap(a, (8,))
    with pytest.raises(LaunchError, match="1..256"):
        TensorMap(a, (8, 512))
    with pytest.raises(LaunchError, match="1..256"):
        TensorMap(a, (0, 8))
    with pytest.raises(LaunchError, match="unknown swizzle `16B`"):
        TensorMap(a, (8, 16), swizzle="16B")
    with pytest.raises(LaunchError, match="unknown oob_fill"):
        TensorMap(a, (8, 16), oob_fill="inf")
    with pytest.raises(LaunchError, match="one extent per array dimension"):
        TensorMap(np.zeros((2,) * 6, np.float32), (1,) * 6)


def test_tensormap_launch_checks() -> None:
    m = irc.compile(TMA, arch="sm_90", cache=False)
    k = m["tload"]
    out = np.zeros(32, np.float32)
    with pytest.raises(LaunchError, match=r"`m`.*irc.TensorMap"):
        k.launch(1, 32, [out, np.zeros((16, 32), np.float32)])
    with pytest.raises(LaunchError, match=r"box \(8, 8\) differs from the declared box \(8, 16\)"):
        k.launch(1, 32, [out, TensorMap(np.zeros((16, 32), np.float32), (8, 8))])
    with pytest.raises(LaunchError, match=r"dtype float16, expected float32"):
        k.launch(1, 32, [out, TensorMap(np.zeros((16, 32), np.float16), (8, 16))])
    with pytest.raises(LaunchError, match="swizzle"):
        k.launch(1, 32, [out, TensorMap(np.zeros((16, 32), np.float32), (8, 16), swizzle="128B")])
    out[:] = 1
    k.launch(1, 32, [out, TensorMap(np.zeros((16, 32), np.float32), (8, 16))])
    assert not out.any()
