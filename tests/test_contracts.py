"""Launch contracts (issue 26): `[[tool.irc.contract]]` and `// irc: assume(...)` remove exactly the
findings that need a launch outside the contract, and a finding that stays says which contract it
assumed. Each removal has a near miss (a weaker contract) that keeps the finding."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from irc.analysis.symbolic.contract import AssumeError, parse
from irc.cli import main
from irc.compiler import check_kdsl

DATA = Path(__file__).parent / "data"
KDSL = (DATA / "check_kdsl" / "bad_parity114.kdsl").read_text()
PTX = DATA / "ptx" / "nvcc" / "bug_return_before_barrier.sm_80.ptx"
CU = DATA / "ptx" / "nvcc" / "bug_return_before_barrier.cu"


def _divergence(src: str) -> list:
    return [d for d in check_kdsl(src, "k.kdsl") if d.check == "barrier-divergence"]


def test_assume_comment_in_kdsl_removes_the_early_exit_finding() -> None:
    """`gid >= n` with `n` a multiple of the 256-thread block: a block's threads all return or none do."""
    assert _divergence(KDSL)
    for exact in ("n % 256 == 0", "n % 512 == 0 && gridDim.x * 256 == n"):
        assert _divergence(KDSL.replace("@launch", f"// irc: assume({exact})\n@launch")) == [], exact
    # near miss: a multiple of half the block still splits block n / 256 (n = 128: threads 128..255 leave)
    near = _divergence(KDSL.replace("@launch", "// irc: assume(n % 128 == 0)\n@launch"))
    assert len(near) == 1 and "assuming `n % 128 == 0`" in near[0].witness["text"]


def test_pyproject_contract_removes_the_finding_on_nvcc_ptx(tmp_path: Path, capsys, monkeypatch) -> None:
    """The same bug in nvcc's PTX, the contract in pyproject.toml; the parameter is named as in the .cu
    signature (`n`, read through `.loc`) or by position (`param_2`)."""
    (tmp_path / ".git").mkdir()
    shutil.copy(PTX, tmp_path / "k.ptx")
    shutil.copy(CU, tmp_path / "bug_return_before_barrier.cu")
    text = (tmp_path / "k.ptx").read_text().replace(str(CU.parent), str(tmp_path))
    (tmp_path / "k.ptx").write_text(text)
    monkeypatch.chdir(tmp_path)
    assert main(["check", "--format", "json", "k.ptx"]) == 1
    before = json.loads(capsys.readouterr().out)["diagnostics"]
    assert [d["check"] for d in before] == ["barrier-divergence"]
    for name in ("n", "param_2"):
        (tmp_path / "pyproject.toml").write_text(
            "[tool.irc]\n[[tool.irc.contract]]\n"
            'kernels = ["bug_return_before_barrier"]\nblock = 256\n'
            f'assume = ["gridDim.x * blockDim.x == {name}"]\n'
        )
        assert main(["check", "--format", "json", "k.ptx"]) == 0, capsys.readouterr().err
        assert json.loads(capsys.readouterr().out)["diagnostics"] == []
    # near miss: the block alone (the grid may still overshoot n)
    (tmp_path / "pyproject.toml").write_text(
        '[tool.irc]\n[[tool.irc.contract]]\nkernels = ["*return_before*"]\nblock = [256, 1, 1]\n'
    )
    assert main(["check", "--format", "json", "k.ptx"]) == 1
    (d,) = json.loads(capsys.readouterr().out)["diagnostics"]
    assert d["witness"]["block_dim"] == [256, 1, 1] and "block 256x1x1" in d["witness"]["contract"]


@pytest.mark.parametrize(
    ("expr", "col", "words"),
    [
        ("n % % 2", 5, "expected a number"),
        ("threadIdx.x < 32", 1, "differs between threads"),
        ("(n + 1", 7, "expected `)`"),
        ("blockDim.w == 1", 10, "expected `x`, `y` or `z`"),
    ],
)
def test_malformed_assume_is_located(expr: str, col: int, words: str) -> None:
    with pytest.raises(AssumeError) as e:
        parse(expr)
    assert words in str(e.value) and e.value.col == col


def test_assume_comment_errors_are_diagnostics_not_tracebacks() -> None:
    bad = check_kdsl(KDSL.replace("@launch", "// irc: assume(n >= )\n@launch"), "k.kdsl")
    assert any(d.check == "parse-error" and d.span.line == 2 for d in bad)
    unknown = check_kdsl(KDSL.replace("@launch", "// irc: assume(m > 0)\n@launch"), "k.kdsl")
    msg = [d.message for d in unknown if d.check == "parse-error"]
    assert msg and "`m`" in msg[0] and "n" in msg[0]


def test_bad_contract_table_is_a_configuration_error(tmp_path: Path, capsys, monkeypatch) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / "k.kdsl").write_text(KDSL)
    (tmp_path / "irc.toml").write_text('[[contract]]\nkernels = ["shift"]\nblock = 4096\n')
    monkeypatch.chdir(tmp_path)
    assert main(["check", "k.kdsl"]) == 2
    assert "more than 1024 threads" in capsys.readouterr().err
    (tmp_path / "irc.toml").write_text('[[contract]]\nassume = ["n >"]\n')
    assert main(["check", "k.kdsl"]) == 2
    assert "assume `n >`" in capsys.readouterr().err
