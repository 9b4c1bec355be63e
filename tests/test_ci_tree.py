"""A project adopting `irc check` as a CI gate (tests/data/ci_tree): mixed targets set by the pyproject
config and by a `// arch:` header, an excluded generated file, one legacy finding recorded in a baseline
and one new finding. Checks that `--baseline` reports only the new finding (also after the legacy code
moves), that `--werror` turns a warning into exit 1, and that the SARIF validates against the vendored
SARIF 2.1.0 schema with fingerprints and `helpUri`.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import jsonschema
import pytest

from irc.cli import main

DATA = Path(__file__).parent / "data"
SCHEMA = json.loads((DATA / "sarif" / "sarif-2.1.0-structural.schema.json").read_text())

NEW_BUG = """\
// New code with a warp-collective under a lane-dependent branch.
@launch(block = 64)
kernel new_bug(out: *global f32, v: *global f32) {
    var r = 0.0;
    if (tid.x & 31) < 16 {
        r = shfl_down(v[tid.x], 8);
    }
    out[tid.x] = r;
}
"""


@pytest.fixture
def tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "proj"
    shutil.copytree(DATA / "ci_tree", root)
    monkeypatch.chdir(root)
    return root


def check(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict]:
    """Run `irc check ARGV --format json`; (exit code, parsed JSON)."""
    rc = main(["check", *argv, "--format", "json"])
    return rc, json.loads(capsys.readouterr().out)


def found(out: dict) -> list[tuple[str, str]]:
    return sorted((d["file"], d["check"]) for d in out["diagnostics"])


def test_configured_tree_mixed_targets_and_excludes(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rc, out = check(capsys)  # no paths: the config's include globs
    assert rc == 1
    assert out["files_checked"] == 4  # kernels/generated/ is excluded
    # The sm_90a TMA kernel (targets table) and the 200 KB shared tile (`// arch: sm_90` header) are clean;
    # checked for the default sm_80 they are not, which proves the per-file targets are used.
    assert found(out) == [
        ("kernels/legacy_shift.kdsl", "barrier-divergence"),
        ("ptx/opaque.sm_90.ptx", "unknown-instruction"),
    ]
    rc, out = check(capsys, "kernels")  # excludes apply inside a directory named on the command line
    assert out["files_checked"] == 3
    rc, out = check(capsys, "kernels/generated/broken.kdsl")  # a file named explicitly is checked
    assert rc == 1 and found(out) == [("kernels/generated/broken.kdsl", "parse-error")]
    # ... unless --force-exclude (what the pre-commit hook passes, as staged files are named explicitly)
    rc = main(["check", "--force-exclude", "kernels/generated/broken.kdsl"])
    assert rc == 0
    rc, out = check(capsys, "--force-exclude", "kernels/generated/broken.kdsl", "kernels/big_tile.kdsl")
    assert rc == 0 and out["files_checked"] == 1
    rc, out = check(capsys, "--no-config", "kernels/hopper/tma_tile.kdsl")
    assert rc == 1 and {c for _, c in found(out)} == {"unsupported-target"}
    big = tree / "kernels" / "big_tile.kdsl"
    (tree / "no_header.kdsl").write_text(big.read_text().replace("// arch: sm_90\n", ""))
    rc, out = check(capsys, "no_header.kdsl")
    assert rc == 1 and found(out) == [("no_header.kdsl", "shared-overflow")]
    rc, out = check(capsys, "--arch", "sm_80", "kernels/big_tile.kdsl")  # an explicit --arch beats the header
    assert rc == 1 and found(out) == [("kernels/big_tile.kdsl", "shared-overflow")]


def test_baseline_reports_only_the_new_finding(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "--write-baseline", "irc-baseline.json"]) == 0
    capsys.readouterr()
    base = json.loads((tree / "irc-baseline.json").read_text())
    assert sorted(e["check"] for e in base["findings"]) == ["barrier-divergence", "unknown-instruction"]

    rc, out = check(capsys, "--baseline", "irc-baseline.json")
    assert rc == 0 and out["diagnostics"] == []

    # Legacy code moves (lines inserted above the finding): the fingerprint has no line number in it.
    legacy = tree / "kernels" / "legacy_shift.kdsl"
    legacy.write_text("// moved down\n// by two lines\n" + legacy.read_text())
    rc, out = check(capsys, "--baseline", "irc-baseline.json")
    assert rc == 0 and out["diagnostics"] == []

    (tree / "kernels" / "new_bug.kdsl").write_text(NEW_BUG)
    rc, out = check(capsys, "--baseline", "irc-baseline.json")
    assert rc == 1
    assert found(out) == [("kernels/new_bug.kdsl", "warp-sync-divergence")]
    rc, out = check(capsys)  # without the baseline all three are reported
    assert len(out["diagnostics"]) == 3

    # The baseline named in the config applies too.
    py = tree / "pyproject.toml"
    py.write_text(py.read_text().replace('arch = "sm_80"', 'arch = "sm_80"\nbaseline = "irc-baseline.json"'))
    rc, out = check(capsys)
    assert rc == 1 and found(out) == [("kernels/new_bug.kdsl", "warp-sync-divergence")]


def test_werror_turns_a_warning_into_exit_1(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rc, out = check(capsys, "ptx/opaque.sm_90.ptx")
    assert rc == 0 and found(out) == [("ptx/opaque.sm_90.ptx", "unknown-instruction")]
    rc, _ = check(capsys, "ptx/opaque.sm_90.ptx", "--werror")
    assert rc == 1
    py = tree / "pyproject.toml"
    py.write_text(py.read_text().replace('arch = "sm_80"', 'arch = "sm_80"\nwerror = true'))
    rc, _ = check(capsys, "ptx/opaque.sm_90.ptx")
    assert rc == 1


def test_sarif_validates_with_fingerprints_and_help_uri(
    tree: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["check", "--write-baseline", "irc-baseline.json"]) == 0
    (tree / "kernels" / "new_bug.kdsl").write_text(NEW_BUG)
    capsys.readouterr()
    rc = main(["check", "--format", "sarif"])
    assert rc == 1
    log = json.loads(capsys.readouterr().out)
    jsonschema.validate(log, SCHEMA)
    run = log["runs"][0]
    rules = {r["id"]: r for r in run["tool"]["driver"]["rules"]}
    assert set(rules) == {"barrier-divergence", "unknown-instruction", "warp-sync-divergence"}
    bd = rules["barrier-divergence"]
    assert bd["helpUri"].endswith("docs/analyzer.md#barrier-divergence")
    assert bd["defaultConfiguration"] == {"level": "error"}
    assert rules["unknown-instruction"]["defaultConfiguration"] == {"level": "warning"}
    assert "PARITY-114" in bd["help"]["markdown"] and bd["fullDescription"]["text"]
    fps = {r["ruleId"]: r["partialFingerprints"]["ircFindingHash/v1"] for r in run["results"]}
    base = {
        e["check"]: e["fingerprint"] for e in json.loads((tree / "irc-baseline.json").read_text())["findings"]
    }
    assert fps["barrier-divergence"] == base["barrier-divergence"]  # one fingerprint everywhere
    assert len(set(fps.values())) == 3

    # A schema violation is caught (the vendored schema is not a rubber stamp).
    run["results"][0]["level"] = "fatal"
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(log, SCHEMA)
    run["results"][0]["level"] = "error"
    bd["helpURI"] = bd.pop("helpUri")
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(log, SCHEMA)


def test_disable_enable_and_severity_overrides(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tree / "irc.toml").write_text(
        'include = ["kernels", "ptx"]\nexclude = ["kernels/generated"]\n'
        '[targets]\n"kernels/hopper/**" = "sm_90a"\n'
        '[severity]\nbarrier-divergence = "warning"\nunknown-instruction = "off"\n'
    )
    rc, out = check(capsys)  # irc.toml wins over pyproject.toml in the same directory
    assert rc == 0
    assert [(d["check"], d["severity"]) for d in out["diagnostics"]] == [("barrier-divergence", "warning")]
    rest = 'exclude = ["kernels/generated"]\n[targets]\n"kernels/hopper/**" = "sm_90a"\n'
    (tree / "irc.toml").write_text('include = ["kernels", "ptx"]\ndisable = ["barrier-divergence"]\n' + rest)
    rc, out = check(capsys)
    assert rc == 0 and found(out) == [("ptx/opaque.sm_90.ptx", "unknown-instruction")]
    (tree / "irc.toml").write_text('include = ["kernels"]\nenable = ["self-cancel"]\n' + rest)
    rc, out = check(capsys)
    assert rc == 0 and out["diagnostics"] == []


@pytest.mark.parametrize(
    "text, message",
    [
        ('includ = ["x"]', "unknown key `includ`"),
        ('disable = ["barier-divergence"]', "did you mean `barrier-divergence`?"),
        ('disable = ["parse-error"]', "cannot be disabled"),
        ('[severity]\ntype-error = "warning"', "always an error"),
        ('[severity]\nself-cancel = "fatal"', "must be one of"),
        ('arch = "sm_70"', "`arch`"),
        ("werror = 1", "true or false"),
        ("include = [", "invalid TOML"),
    ],
)
def test_config_mistakes_are_usage_errors(
    tree: Path, capsys: pytest.CaptureFixture[str], text: str, message: str
) -> None:
    (tree / "irc.toml").write_text(text + "\n")
    assert main(["check"]) == 2
    err = capsys.readouterr().err
    assert message in err and "irc.toml" in err and "Traceback" not in err


def test_bad_arch_header_is_a_usage_error(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tree / "kernels" / "big_tile.kdsl").write_text("// arch: sm_91\n" + NEW_BUG)
    assert main(["check"]) == 2
    assert "`// arch: sm_91` header" in capsys.readouterr().err
