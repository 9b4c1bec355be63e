"""Issue 30, "every edge a clear answer": the inputs the issue lists that are not a single error site of
the command line (those are enumerated in tests/test_cli_error_paths.py), each with its diagnostic and an
exit status that is not 3."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import irc
from irc.cli import main
from irc.tooling import checkinfo

ROOT = Path(__file__).resolve().parent.parent
VECTOR_ADD = ROOT / "examples" / "vector_add.kdsl"


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.setenv("IRC_CACHE_DIR", str(tmp_path / "cache"))

    def run(*argv: str) -> tuple[int, str, str]:
        capsys.readouterr()
        rc = main(list(argv))
        out, err = capsys.readouterr()
        assert rc != 3 and "Traceback" not in err
        return rc, out, err

    return run


def _tree(tmp_path: Path) -> Path:
    d = tmp_path / "tree"
    d.mkdir()
    (d / "good.kdsl").write_text(VECTOR_ADD.read_text())
    (d / "dangling.ptx").symlink_to(tmp_path / "nowhere.ptx")
    (d / "latin1.ptx").write_bytes(b".version 8.0\n.target sm_80\n// caf\xe9\n.address_size 64\n")
    return d


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_unreadable_files_are_findings_and_the_run_goes_on(cli, tmp_path: Path, jobs: str) -> None:
    d = _tree(tmp_path)
    rc, out, err = cli("check", "--no-config", "-j", jobs, "--format", "json", str(d))
    rep = json.loads(out)
    assert rc == 1 and rep["files_checked"] == 3
    got = sorted(
        (Path(x["file"]).name, x["check"], x["line"], x["column"], x["message"]) for x in rep["diagnostics"]
    )
    assert got == [
        (
            "dangling.ptx",
            "read-error",
            1,
            1,
            f"cannot read {d}/dangling.ptx: it is a dangling symbolic link (to {tmp_path}/nowhere.ptx)",
        ),
        ("latin1.ptx", "read-error", 3, 7, "not UTF-8 text: byte 0xe9 at line 3, column 7 cannot be decoded"),
    ]
    # the good file was checked: the same tree with only it is clean
    (d / "dangling.ptx").unlink()
    (d / "latin1.ptx").unlink()
    assert cli("check", "--no-config", str(d))[0] == 0


def test_shfl_lane_out_of_range_is_a_warning_and_runs_as_its_low_bits(cli, tmp_path: Path) -> None:
    src = "kernel k(o: *global u32) {\n    o[tid.x] = shfl_xor(tid.x, 33) + shfl_down(tid.x, 1);\n}\n"
    (tmp_path / "s.kdsl").write_text(src)
    rc, _, err = cli("check", "--no-config", "s.kdsl")
    assert rc == 0 and "warning[shuffle-lane]: `shfl_xor` lane mask 33 is outside 0..31" in err
    assert "s.kdsl:2:32" in err and err.count("shuffle-lane") == 1  # `shfl_down(.., 1)` is fine
    # shfl.sync reads b[4:0] (PTX ISA): xor 33 exchanges with lane ^ 1, as the warning says
    mod = irc.compile("kernel k(o: *global u32) { o[tid.x] = shfl_xor(tid.x, 33); }")
    assert [d.check for d in mod.diagnostics] == ["shuffle-lane"]
    o = np.zeros(32, np.uint32)
    mod["k"].launch(1, 32, [o])
    np.testing.assert_array_equal(o, np.arange(32, dtype=np.uint32) ^ 1)


def test_every_check_name_can_be_written_in_allow() -> None:
    from irc.compiler import check_kdsl
    from irc.frontend.kdsl.attrs import waivable_checks

    names = checkinfo.all_names()
    assert "shared-race" in names and "const-error" in names
    for name in names:
        diags = check_kdsl(f"@allow({name})\nkernel k() {{ }}\n", "a.kdsl")
        assert all(d.check != "parse-error" for d in diags), (name, diags)
        if name in waivable_checks():
            assert diags == [], (name, diags)
        else:  # parses; says it cannot waive it
            assert [d.check for d in diags] == ["name-error"], (name, diags)
            assert f"`{name}` is not a check `@allow` can waive" in diags[0].message


def test_allow_shared_race_waives_it() -> None:
    from irc.compiler import check_kdsl

    src = (
        "@launch(block = 64)\n{allow}kernel k(out: *global f32) {{\n    shared s: [f32; 64];\n"
        "    s[tid.x] = 1.0;\n    out[tid.x] = s[(tid.x + 1) % 64];\n}}\n"
    )
    assert [d.check for d in check_kdsl(src.format(allow=""), "r.kdsl")] == ["shared-race"]  # the near miss
    assert check_kdsl(src.format(allow="@allow(shared-race)\n"), "r.kdsl") == []


def test_allow_register_pressure_waives_it() -> None:
    src = (
        "@launch(block = 32)\n@max_registers(24)\nkernel many(out: *global f32, x: *global f32) {\n"
        "    var acc = [0.0; 32];\n    unroll for i in 0..32 { acc[i] = x[tid.x * 32 + i]; }\n"
        "    unroll for i in 0..32 { out[tid.x * 32 + i] = acc[i] * acc[31 - i]; }\n}\n"
    )
    assert [d.check for d in irc.compile(src, cache=False).diagnostics] == ["register-pressure"]  # near miss
    waived = src.replace("kernel many", "@allow(register-pressure)\nkernel many")
    assert irc.compile(waived, cache=False).diagnostics == []


def test_api_integers_are_exact_and_grids_validated() -> None:
    k = irc.compile_file(VECTOR_ADD)["vector_add"]
    x = np.zeros(16, np.float32)
    for n, msg in [
        (1000.5, "argument `n` is `u32`: 1000.5 is not an integer"),
        (2.9, "argument `n` is `u32`: 2.9 is not an integer"),
        ("1000", "argument `n` is `u32`: pass a number, not the string '1000'"),
        (1 << 40, "argument `n` = 1099511627776 does not fit `u32` (0..4294967295)"),
    ]:
        with pytest.raises(irc.LaunchError) as e:
            k.launch(1, 128, [x, x, x, n])
        assert str(e.value) == msg
    k.launch(1, 128, [x, x, x, 16.0])  # an integral float is exact
    with pytest.raises(irc.LaunchError, match=r"got 8\.0 \(float 8\.0 is not an integer\)"):
        k.launch(8.0, 128, [x, x, x, 16])
    with pytest.raises(irc.LaunchError, match=r"block\.z = 128 exceeds the limit of 64 on sm_80"):
        k.launch(1, (1, 1, 128), [x, x, x, 16])


def test_cli_and_api_refuse_with_the_same_words(cli, tmp_path: Path) -> None:
    for name in ("out", "x", "y"):
        np.save(tmp_path / f"{name}.npy", np.zeros(16, np.float32))
    args = ["--arg", "out=out.npy", "--arg", "x=x.npy", "--arg", "y=y.npy"]
    k = irc.compile_file(VECTOR_ADD)["vector_add"]
    x = np.zeros(16, np.float32)
    for cli_args, api in [
        (["--grid", "1", "--block", "128", "--arg", "n=2.9"], lambda: k.launch(1, 128, [x, x, x, 2.9])),
        (
            ["--grid", "1,70000", "--block", "128", "--arg", "n=3"],
            lambda: k.launch((1, 70000), 128, [x, x, x, 3]),
        ),
        (
            ["--grid", "1", "--block", "32,32,2", "--arg", "n=3"],
            lambda: k.launch(1, (32, 32, 2), [x, x, x, 3]),
        ),
    ]:
        rc, _, err = cli("run", str(VECTOR_ADD), *cli_args, *args)
        with pytest.raises(irc.LaunchError) as e:
            api()
        assert rc == 2 and err == f"irc: error: {e.value}\n"


def test_compile_file_honours_the_arch_header(tmp_path: Path) -> None:
    p = tmp_path / "h.kdsl"
    p.write_text("// arch: sm_90a\nkernel k(o: *global u32) { o[0] = 1u32; }\n")
    assert irc.compile_file(p).arch == "sm_90a"
    assert irc.compile_file(p, arch="sm_80").arch == "sm_80"
    assert ".target sm_90a" in irc.compile_file(p).ptx_text
    p.write_text("// arch: sm_999\nkernel k() { }\n")
    with pytest.raises(ValueError, match=r"`// arch: sm_999` header: unknown target 'sm_999'"):
        irc.compile_file(p)


def test_unknown_kernel_is_a_plain_message() -> None:
    mod = irc.compile_file(VECTOR_ADD)
    with pytest.raises(KeyError) as e:
        mod["nope"]
    assert str(e.value) == "no kernel `nope`; kernels: vector_add"


BAD_NAME = "x\n::warning file=a.kdsl,line=1::forged\x1b[31m.kdsl"


@pytest.mark.parametrize("fmt", ["text", "github"])
def test_file_names_cannot_forge_lines(cli, tmp_path: Path, fmt: str) -> None:
    (tmp_path / BAD_NAME).write_text("kernel k( {\n")
    rc, out, err = cli("check", "--no-config", "--format", fmt, BAD_NAME)
    text = out + err
    assert rc == 1 and "parse-error" in text
    assert not any(line.startswith("::warning") for line in text.splitlines()), text
    assert "\x1b" not in text
    if fmt == "text":
        assert "x\\n::warning file=a.kdsl,line=1::forged\\x1b[31m.kdsl:1:" in err


def _python(tmp_path: Path, *args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, NO_COLOR="1", IRC_CACHE_DIR=str(tmp_path / "cache"))
    return subprocess.run(
        [sys.executable, *args], capture_output=True, text=True, cwd=cwd, env=env, timeout=120
    )


def test_stats_follow_the_ptx_on_one_stream(tmp_path: Path) -> None:
    """`--stats` is for a person (stderr); with both streams on one pipe the table comes after the PTX."""
    env = dict(os.environ, NO_COLOR="1", IRC_CACHE_DIR=str(tmp_path / "cache"))
    r = subprocess.run(
        [sys.executable, "-m", "irc.cli", "compile", "--stats", str(VECTOR_ADD)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=env,
        timeout=120,
    )
    assert r.returncode == 0
    ptx_end = r.stdout.rindex("ret;")
    assert r.stdout.index("kernel vector_add (sm_80") > ptx_end
    split = _python(tmp_path, "-m", "irc.cli", "compile", "--stats", str(VECTOR_ADD), cwd=tmp_path)
    assert "kernel vector_add" in split.stderr and "kernel vector_add (" not in split.stdout


def test_no_findings_summary_is_on_stderr(cli) -> None:
    rc, out, err = cli("check", "--no-config", str(VECTOR_ADD))
    assert rc == 0 and out == "" and err == "irc: no findings in 1 file\n"
    rc, out, err = cli("check", "--no-config", "--format", "json", str(VECTOR_ADD))
    assert rc == 0 and json.loads(out)["diagnostics"] == [] and err == ""


def test_a_clone_named_irc_seen_from_its_parent_is_explained(tmp_path: Path) -> None:
    parent = tmp_path / "parent"
    parent.mkdir()
    (parent / "irc").symlink_to(ROOT, target_is_directory=True)
    probe = _python(tmp_path, "-c", "import irc; print(getattr(irc, '__file__', None))", cwd=parent)
    shadowed = probe.stdout.strip() == "None"
    for args in (["-m", "irc", "--version"], ["-m", "irc.cli", "--version"]):
        r = _python(tmp_path, *args, cwd=parent)
        assert r.returncode == 0 and r.stdout.strip().startswith("irc "), r.stderr
        if shadowed:  # an editable install: the folder wins over the package
            assert f"`import irc` found the folder {parent / 'irc'}, not the irc package" in r.stderr
            assert "cd irc" in r.stderr
        else:
            assert r.stderr == ""
    r = _python(tmp_path, "-m", "irc", "--version", cwd=tmp_path)
    assert r.returncode == 0 and r.stderr == ""


def test_cli_doc_lists_every_exit_code_with_an_example() -> None:
    import irc.cli as cli

    doc = (ROOT / "docs" / "cli.md").read_text()
    section = doc[doc.index("## Exit codes") : doc.index("## Output streams")]
    rows = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 3 and cells[0] not in ("code", "---"):
            rows[cells[0]] = cells
    codes = {str(v) for k, v in vars(cli).items() if k.startswith("EXIT_")}
    assert codes == {"0", "1", "2", "3"} and codes | {"128+N"} == set(rows)
    for code, (_, meaning, example) in rows.items():
        assert meaning and "`" in example, code  # an example: a command or the message it prints
