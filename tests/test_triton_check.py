"""Triton kernels checked where they are written (issue 28): `irc.triton.check` compiles a `@triton.jit`
function for each target without a GPU and reports in the kernel's .py lines; the pytest plugin
(`pytest --irc`) fails a session that compiles the buggy kernel and passes one that compiles its fixed
twin; `irc check` on a Triton cache directory names the kernel behind each finding.

The kernels are in tests/data/triton_check/pair_kernels.py: a butterfly shuffle written as inline PTX,
which the buggy one runs under a per-lane predicate with a full mask (a partial-warp shuffle).
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

triton = pytest.importorskip("triton", reason="triton is not installed (pip install -e '.[dev]')")

pytest_plugins = ("pytester",)

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data" / "triton_check"
KERNELS = DATA / "pair_kernels.py"


@pytest.fixture
def kernels(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path / "triton-cache"))
    monkeypatch.setenv("TRITON_DEFAULT_FP_FUSION", "1")
    monkeypatch.syspath_prepend(str(DATA))
    import pair_kernels

    return pair_kernels


def shuffle_line() -> int:
    return next(
        i for i, t in enumerate(KERNELS.read_text().splitlines(), 1) if "tl.inline_asm_elementwise(" in t
    )


def test_buggy_kernel_is_reported_at_its_py_line_and_the_fixed_twin_is_clean(kernels) -> None:  # type: ignore[no-untyped-def]
    import irc.triton

    found = irc.triton.check(
        kernels.pair_sum_bug,
        signature=kernels.SIGNATURE,
        constexprs={"BLOCK": 128},
        targets=["sm_80", "sm_90a"],
        options={"num_warps": 4},
    )
    (d,) = found  # both targets report it: one finding
    assert d.check == "warp-sync-divergence" and d.is_error
    assert Path(d.span.file).resolve() == KERNELS and d.span.line == shuffle_line()
    assert all(Path(lab.span.file).resolve() == KERNELS for lab in d.labels)
    assert d.origin is not None and d.origin.file.endswith(".ptx")
    assert d.notes[0] == "@triton.jit `pair_sum_bug` with BLOCK=128 (sm_80, sm_90a, num_warps=4)"
    text = irc.triton.render(found)
    assert "tl.inline_asm_elementwise(" in text and "pair_kernels.py" in text
    fixed = irc.triton.check(
        kernels.pair_sum_fixed,
        signature=kernels.SIGNATURE,
        constexprs={"BLOCK": 128},
        targets=["sm_80", "sm_90a"],
        options={"num_warps": 4},
    )
    assert fixed == []


def test_allow_comment_in_the_py_file_suppresses(
    kernels, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:  # type: ignore[no-untyped-def]
    src = KERNELS.read_text().replace(
        '    y = tl.inline_asm_elementwise(\n        "{ .reg',
        '    y = tl.inline_asm_elementwise(  # irc: allow(warp-sync-divergence) reviewed\n        "{ .reg',
        1,
    )
    assert "# irc: allow(" in src
    (tmp_path / "allowed_kernels.py").write_text(src)
    monkeypatch.syspath_prepend(str(tmp_path))
    import allowed_kernels

    import irc.triton

    assert (
        irc.triton.check(
            allowed_kernels.pair_sum_bug,
            signature=kernels.SIGNATURE,
            constexprs={"BLOCK": 128},
            targets=["sm_80"],
        )
        == []
    )


def test_plugin_is_registered_as_a_pytest11_entry_point() -> None:
    eps = importlib.metadata.entry_points(group="pytest11")
    assert any(ep.value == "irc.triton.pytest_plugin" for ep in eps)


SESSION_TEST = """
import sys
sys.path.insert(0, {data!r})
import triton
from triton.backends.compiler import GPUTarget
import pair_kernels


def test_compiles_the_kernel():
    src = triton.compiler.ASTSource(
        fn=pair_kernels.{name}, signature={{**pair_kernels.SIGNATURE, "BLOCK": "constexpr"}},
        constexprs={{"BLOCK": 128}},
    )
    compiled = triton.compile(src, target=GPUTarget("cuda", 80, 32), options={{"num_warps": 4}})
    assert "shfl.sync" in compiled.asm["ptx"]
"""


@pytest.mark.parametrize(("name", "fails"), [("pair_sum_bug", True), ("pair_sum_fixed", False)])
def test_pytest_irc_fails_only_the_session_that_compiles_the_buggy_kernel(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, name: str, fails: bool
) -> None:
    monkeypatch.setenv("TRITON_CACHE_DIR", str(pytester.path / "triton-cache"))
    monkeypatch.setenv("TRITON_DEFAULT_FP_FUSION", "1")
    pytester.makepyfile(test_kernel=SESSION_TEST.format(data=str(DATA), name=name))
    r = pytester.runpytest_subprocess("--irc", "-p", "no:cacheprovider")
    out = r.stdout.str()
    r.assert_outcomes(passed=1)  # the test itself passes: the session's status carries the finding
    assert "irc: Triton kernels" in out
    if fails:
        assert r.ret == 1
        assert "warp-sync-divergence" in out and f"@triton.jit `{name}` with BLOCK=128 (sm_80" in out
        assert (
            f"pair_kernels.py:{shuffle_line()}:" in out
            and "compiled in test_kernel.py::test_compiles_the_kernel" in out
        )
        # without --irc the plugin only adds its option: the same session passes
        assert pytester.runpytest_subprocess("-p", "no:cacheprovider").ret == 0
    else:
        assert r.ret == 0 and "irc: no findings in 1 Triton kernel" in out


def test_irc_check_on_a_triton_cache_directory(kernels, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from triton.backends.compiler import GPUTarget

    for fn in (kernels.pair_sum_bug, kernels.pair_sum_fixed):
        src = triton.compiler.ASTSource(
            fn=fn, signature={**kernels.SIGNATURE, "BLOCK": "constexpr"}, constexprs={"BLOCK": 64}
        )
        triton.compile(src, target=GPUTarget("cuda", 80, 32), options={"num_warps": 2})
    cache = tmp_path / "triton-cache"
    env = dict(os.environ, NO_COLOR="1", IRC_CACHE_DIR=str(tmp_path / "irc-cache"))
    r = subprocess.run(
        [sys.executable, "-m", "irc.cli", "check", str(cache), "--no-config", "--format", "json"],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
    )
    assert r.returncode == 1, r.stderr
    out = json.loads(r.stdout)
    assert out["files_checked"] == 2  # the two kernels' .ptx (the other stages are not PTX)
    (d,) = out["diagnostics"]
    assert d["check"] == "warp-sync-divergence" and d["kernel"] == "pair_sum_bug"
    assert Path(ROOT / d["file"]).resolve() == KERNELS and d["line"] == shuffle_line()
    text = subprocess.run(
        [sys.executable, "-m", "irc.cli", "check", str(cache), "--no-config"],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
    ).stderr
    assert "Triton cache entry: @triton.jit `pair_sum_bug` (sm_80, num_warps=2, num_stages=3)" in text
