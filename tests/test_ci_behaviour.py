"""Daily-loop behaviour outside the CI tree: the compile cache (keyed on irc's own sources, replays
warnings), suppression warnings (`unknown-check`, `--warn-unused-allow`, allow on the cause line), exit
codes (`unknown-instruction` under --werror, `irc run --device cuda` without a driver), config globs and
fingerprint stability."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

import irc
from irc.backends.ptx import cache as ptx_cache
from irc.cli import main
from irc.diagnostics import Label, Span, error
from irc.tooling import baseline, suppress
from irc.tooling.config import glob_match, header_arch

DATA = Path(__file__).parent / "data"

RP = """@launch(block = 32)
@max_registers(24)
kernel many(out: *global f32, x: *global f32) {
    var acc = [0.0; 32];
    unroll for i in 0..32 {
        acc[i] = x[tid.x * 32 + i];
    }
    unroll for i in 0..32 {
        out[tid.x * 32 + i] = acc[i] * acc[31 - i];
    }
}
"""


@pytest.fixture
def cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    d = tmp_path / "irc-cache"
    monkeypatch.setenv("IRC_CACHE_DIR", str(d))
    return d


# -- compile cache ---------------------------------------------------------------------------------------


def test_a_warning_survives_a_cache_hit(cache_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    m1 = irc.compile(RP, path="rp.kdsl")
    assert [d.check for d in m1.diagnostics] == ["register-pressure"]

    def boom(*a, **k):
        raise AssertionError("compile_kdsl called on a cache hit")

    monkeypatch.setattr(irc.compiler, "compile_kdsl", boom)
    m2 = irc.compile(RP, path="rp.kdsl")  # a hit: nothing is compiled
    assert [(d.check, d.severity, d.message, d.span) for d in m2.diagnostics] == [
        (d.check, d.severity, d.message, d.span) for d in m1.diagnostics
    ]


def test_changed_compiler_source_recompiles(cache_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    src = "kernel k(out: *global u32) { out[tid.x] = 7; }\n"
    irc.compile(src)
    calls = []
    real = irc.compiler.compile_kdsl

    def counting(*a, **k):
        calls.append(1)
        return real(*a, **k)

    monkeypatch.setattr(irc.compiler, "compile_kdsl", counting)
    irc.compile(src)
    assert calls == []  # same compiler: a hit
    # The same version number, but a compiler source file hashes differently: a new key, a recompile.
    monkeypatch.setattr(ptx_cache, "_COMPILER_HASH", None)
    real_read = Path.read_bytes

    def patched(self: Path) -> bytes:
        data = real_read(self)
        return data + b"\n# changed\n" if self.name == "isel.py" else data

    monkeypatch.setattr(Path, "read_bytes", patched)
    irc.compile(src)
    assert calls == [1]
    assert len(list(cache_dir.rglob("*.ptx"))) == 2
    monkeypatch.setattr(ptx_cache, "_COMPILER_HASH", None)  # do not leak the patched hash


def test_compiler_hash_covers_the_package() -> None:
    h = ptx_cache.compiler_hash()
    assert len(h) == 64 and h == ptx_cache.compiler_hash()


# -- suppressions ----------------------------------------------------------------------------------------


def test_unknown_check_in_allow_warns_with_did_you_mean(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    f = tmp_path / "k.kdsl"
    f.write_text("kernel k(out: *global f32) {\n    out[tid.x] = 1.0; // irc: allow(barier-divergence)\n}\n")
    assert main(["check", "--no-config", str(f), "--format", "json"]) == 0
    (d,) = json.loads(capsys.readouterr().out)["diagnostics"]
    assert d["check"] == "unknown-check" and d["severity"] == "warning"
    assert "did you mean `barrier-divergence`?" in d["message"]
    assert (d["line"], d["column"]) == (2, 37)
    assert main(["check", "--no-config", str(f), "--werror"]) == 1


def test_warn_unused_allow(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    used = DATA / "check_kdsl" / "ok_suppress_same_line.kdsl"
    assert main(["check", "--no-config", str(used), "--warn-unused-allow"]) == 0
    assert "unused-allow" not in capsys.readouterr().err  # it suppressed a real finding
    f = tmp_path / "k.kdsl"
    f.write_text("kernel k(out: *global f32) {\n    out[tid.x] = 1.0; // irc: allow(self-cancel)\n}\n")
    assert main(["check", "--no-config", str(f)]) == 0
    assert "unused-allow" not in capsys.readouterr().err  # off by default
    assert main(["check", "--no-config", str(f), "--warn-unused-allow", "--format", "json"]) == 0
    (d,) = json.loads(capsys.readouterr().out)["diagnostics"]
    assert d["check"] == "unused-allow" and d["line"] == 2 and "allow(self-cancel)" in d["message"]


def test_allow_on_the_cause_line_suppresses_the_finding() -> None:
    src = "if c {\n    return;\n}\nbarrier();\n"
    cause = Span("k.kdsl", 1, 4, 1, 5)
    ret = Span("k.kdsl", 2, 5, 2, 12)
    d = error(
        "barrier-divergence", "m", Span("k.kdsl", 4, 1, 4, 10), labels=[Label(cause, "c"), Label(ret, "r")]
    )
    assert suppress.filter([d], {"k.kdsl": src}) == [d]
    for line in (0, 1):
        lines = src.splitlines()
        lines[line] += " // irc: allow(barrier-divergence)"
        assert suppress.filter([d], {"k.kdsl": "\n".join(lines)}) == []
        lines[line] = lines[line].replace("barrier-divergence", "self-cancel")
        assert suppress.filter([d], {"k.kdsl": "\n".join(lines)}) == [d]  # only the named check


def test_allow_on_cause_line_end_to_end(capsys: pytest.CaptureFixture[str]) -> None:
    for name in ("ok_suppress_cause_line.kdsl", "ok_suppress_return_line.kdsl"):
        f = DATA / "check_kdsl" / name
        assert main(["check", "--no-config", str(f), "--warn-unused-allow"]) == 0
        assert "no findings" in capsys.readouterr().err
        bare = re.sub(r"// irc: allow\(barrier-divergence\).*", "", f.read_text())
        assert [d.check for d in irc.compiler.check_kdsl(bare, "x.kdsl")] == ["barrier-divergence"]


# -- exit codes ------------------------------------------------------------------------------------------


def test_unknown_instruction_is_a_warning_werror_fails(capsys: pytest.CaptureFixture[str]) -> None:
    ptx = str(DATA / "ci_tree" / "ptx" / "opaque.sm_90.ptx")
    assert main(["check", "--no-config", ptx]) == 0
    assert "warning[unknown-instruction]" in capsys.readouterr().err
    assert main(["check", "--no-config", ptx, "--werror"]) == 1


def test_run_on_cuda_without_a_driver_is_exit_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from irc.runtime import cuda

    monkeypatch.setattr(cuda, "driver_available", lambda: (False, "no CUDA driver: RuntimeError"))
    argv = [
        "run",
        "examples/vector_add.kdsl",
        "--grid",
        "1",
        "--block",
        "32",
        "--device",
        "cuda",
        "--arg",
        "n=1",
    ]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "irc: error: no CUDA driver: RuntimeError" in err and "internal compiler error" not in err


# -- config and fingerprints -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "pattern, path, hit",
    [
        ("kernels", "kernels/a/b.kdsl", True),
        ("kernels/**", "kernels/a/b.kdsl", True),
        ("kernels/*.kdsl", "kernels/a/b.kdsl", False),
        ("kernels/*.kdsl", "kernels/b.kdsl", True),
        ("**/*.ptx", "x/y/z.ptx", True),
        ("**/*.ptx", "z.ptx", True),
        ("examples/*sm100*.kdsl", "examples/tma_gemm_sm100.kdsl", True),
        ("kern", "kernels/b.kdsl", False),
        ("./ptx/", "ptx/a.ptx", True),
    ],
)
def test_glob_match(pattern: str, path: str, hit: bool) -> None:
    assert glob_match(pattern, path) is hit


def test_header_arch() -> None:
    assert header_arch("// arch: sm_90a\nkernel k() {}") == "sm_90a"
    assert header_arch("// a comment\n//arch:sm_100a\n") == "sm_100a"
    assert header_arch("kernel k() {}\n" * 6 + "// arch: sm_90a") is None


def test_fingerprints_ignore_line_numbers_and_whitespace() -> None:
    src = "kernel a() {\n    barrier();\n}\nkernel b() {\n    barrier();\n    barrier();\n}\n"
    moved = "// new first line\n" + src.replace("    barrier();", "  barrier( );".replace("( )", "()"))
    d = [error("barrier-divergence", "m", Span("f.kdsl", n, 5, n, 14)) for n in (2, 5, 6)]
    d2 = [error("barrier-divergence", "m", Span("f.kdsl", n + 1, 3, n + 1, 12)) for n in (2, 5, 6)]
    fp = baseline.fingerprints(d, {"f.kdsl": src})
    assert len(set(fp)) == 3  # different kernels, and an ordinal for the two equal lines in `b`
    assert baseline.fingerprints(d2, {"f.kdsl": moved}) == fp


def test_sarif_fingerprint_after_baseline_is_the_unfiltered_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Two findings on equal lines differ only by their ordinal; filtering the first out through the
    baseline must not renumber the second in SARIF."""
    monkeypatch.chdir(tmp_path)
    src = DATA / "check_kdsl" / "bad_parity114.kdsl"
    k = tmp_path / "k.kdsl"
    k.write_text(src.read_text())
    assert main(["check", "--no-config", "k.kdsl", "--write-baseline", "b.json"]) == 0
    k.write_text(src.read_text().replace("    barrier();", "    barrier();\n    barrier();", 1))
    capsys.readouterr()

    def sarif(*extra: str) -> list[str]:
        main(["check", "--no-config", "k.kdsl", "--format", "sarif", *extra])
        res = json.loads(capsys.readouterr().out)["runs"][0]["results"]
        return [r["partialFingerprints"]["ircFindingHash/v1"] for r in res]

    full = sarif()
    assert len(full) == 2 and full[0] != full[1]
    assert sarif("--baseline", "b.json") == [full[1]]


def test_arch_header_sets_the_compile_target(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    tma = DATA / "ci_tree" / "kernels" / "hopper" / "tma_tile.kdsl"
    f = tmp_path / "t.kdsl"
    f.write_text(tma.read_text())
    assert main(["compile", str(f), "-o", str(tmp_path / "a.ptx")]) == 1  # sm_80 has no TMA
    assert "unsupported-target" in capsys.readouterr().err
    f.write_text("// arch: sm_90a\n" + tma.read_text())
    assert main(["compile", str(f), "-o", str(tmp_path / "b.ptx")]) == 0
    assert ".target sm_90a" in (tmp_path / "b.ptx").read_text()
    assert main(["compile", str(f), "--arch", "sm_100a", "-o", str(tmp_path / "c.ptx")]) == 0
    assert ".target sm_100a" in (tmp_path / "c.ptx").read_text()  # an explicit --arch wins for compile
