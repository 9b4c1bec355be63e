"""The integration files run as documented: the GitHub Actions workflow in docs/ci.md (its `run:` steps,
in order, on the test project of tests/data/ci_tree) and the pre-commit hook of .pre-commit-hooks.yaml
(its entry run the way pre-commit runs it; `pytest -m precommit` runs `pre-commit try-repo .` itself).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

yaml = pytest.importorskip("yaml")

ROOT = Path(__file__).resolve().parent.parent
DATA = Path(__file__).parent / "data"
SCHEMA = json.loads((DATA / "sarif" / "sarif-2.1.0-structural.schema.json").read_text())
BIN = Path(sys.executable).parent  # the venv's `irc` script


def workflow() -> dict:
    text = (ROOT / "docs" / "ci.md").read_text()
    sec = text[text.index("### GitHub Actions workflow") :]
    block = re.search(r"```yaml\n(.*?)```", sec, re.S)
    assert block is not None
    return yaml.safe_load(block.group(1))


def run_steps(wf: dict, cwd: Path) -> list[tuple[str, int, str]]:
    """Each `run:` step with bash -e as GitHub runs it (the install step is this test environment)."""
    env = dict(os.environ, PATH=f"{BIN}{os.pathsep}{os.environ['PATH']}", NO_COLOR="1")
    env["GITHUB_ENV"] = str(cwd / ".github_env")
    env["GITHUB_OUTPUT"] = str(cwd / ".github_output")
    out = []
    for step in wf["jobs"]["irc-check"]["steps"]:
        if "run" not in step or step.get("name", "").startswith("Install"):
            continue
        r = subprocess.run(
            ["bash", "-e", "-c", step["run"]], cwd=cwd, env=env, capture_output=True, text=True, timeout=300
        )
        out.append((step["name"], r.returncode, r.stdout + r.stderr))
    return out


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    shutil.copytree(DATA / "ci_tree", root)
    return root


def test_workflow_shape() -> None:
    wf = workflow()
    assert wf["permissions"]["security-events"] == "write"
    steps = wf["jobs"]["irc-check"]["steps"]
    upload = [s for s in steps if "upload-sarif" in s.get("uses", "")]
    assert upload and upload[0]["with"]["sarif_file"] == "irc.sarif" and upload[0]["if"] == "always()"
    names = [s.get("name") for s in steps]
    assert names.index("irc check (SARIF)") < names.index("Upload to code scanning") < names.index("Gate")


def test_workflow_steps_run_locally(project: Path) -> None:
    wf = workflow()
    # A legacy tree with a baseline in its config: green, and the SARIF is valid.
    r = subprocess.run(
        [str(BIN / "irc"), "check", "--write-baseline", "irc-baseline.json"], cwd=project, capture_output=True
    )
    assert r.returncode == 0
    py = project / "pyproject.toml"
    py.write_text(py.read_text().replace('arch = "sm_80"', 'arch = "sm_80"\nbaseline = "irc-baseline.json"'))
    res = run_steps(wf, project)
    assert [(n, rc) for n, rc, _ in res] == [("irc check (SARIF)", 0), ("Gate", 0)], res
    log = json.loads((project / "irc.sarif").read_text())
    jsonschema.validate(log, SCHEMA)
    assert log["runs"][0]["results"] == []

    # A pull request that adds a bug: the SARIF step still succeeds (so the upload runs), the gate fails
    # and its annotation keeps the cause label.
    (project / "kernels" / "new.kdsl").write_text(
        (project / "kernels" / "legacy_shift.kdsl").read_text().replace("kernel shift", "kernel shift2")
    )
    res = run_steps(wf, project)
    assert [(n, rc) for n, rc, _ in res] == [("irc check (SARIF)", 0), ("Gate", 1)]
    log = json.loads((project / "irc.sarif").read_text())
    jsonschema.validate(log, SCHEMA)
    assert [r["ruleId"] for r in log["runs"][0]["results"]] == ["barrier-divergence"]
    gate = res[1][2]
    assert "::error file=kernels/new.kdsl,line=8" in gate
    assert "this condition depends on `tid.x` through `gid`" in gate

    # A broken configuration is exit 2: the SARIF step must fail rather than upload an empty log.
    (project / "irc.toml").write_text("bogus = 1\n")
    res = run_steps(wf, project)
    assert res[0][0] == "irc check (SARIF)" and res[0][1] != 0 and "unknown key `bogus`" in res[0][2]


def _hook() -> dict:
    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    assert [h["id"] for h in hooks] == ["irc-check"]  # no formatter yet, so no irc-format-check
    return hooks[0]


def test_pre_commit_hook_entry_runs_like_pre_commit() -> None:
    """pre-commit runs `entry` + args + the staged files matching `files`, from the repository root."""
    hook = _hook()
    assert hook["language"] == "python"
    rx = re.compile(hook["files"])
    files = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "examples").iterdir() if rx.search(p.name))
    assert len(files) >= 9
    cmd = hook["entry"].split()
    cmd[0] = str(BIN / cmd[0])
    r = subprocess.run(
        cmd + hook.get("args", []) + files, cwd=ROOT, capture_output=True, text=True, timeout=600
    )
    assert r.returncode == 0, r.stderr
    assert "no findings" in r.stderr
    bad = "tests/data/check_kdsl/bad_parity114.kdsl"
    assert rx.search(bad)
    r = subprocess.run(cmd + [bad], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert r.returncode == 1 and "barrier-divergence" in r.stderr


@pytest.mark.precommit
def test_pre_commit_try_repo(tmp_path: Path) -> None:
    """The real thing: `pre-commit try-repo . irc-check` on the examples (needs git and network or a warm
    pip cache for the hook's virtual environment)."""
    exe = shutil.which("pre-commit") or str(BIN / "pre-commit")
    if not Path(exe).exists():
        pytest.skip("pre-commit is not installed")
    files = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "examples").glob("*.kdsl"))
    env = dict(os.environ, PRE_COMMIT_HOME=str(tmp_path / "pre-commit"))
    r = subprocess.run(
        [exe, "try-repo", ".", "irc-check", "--files", *files],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert r.returncode == 0, r.stdout + r.stderr
    assert re.search(r"irc check\.+Passed", r.stdout)


CU_CLEAN = """#include "tile.cuh"

__global__ void shift_tile(const float* in, float* out, int n) {
  __shared__ float tile[256];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  tile[threadIdx.x] = i < n ? in[i] : 0.0f;
  __syncthreads();
  if (i < n) out[i] = tile[(threadIdx.x + 1) % blockDim.x];
}
"""
CU_BUGGY = CU_CLEAN.replace(
    "  tile[threadIdx.x] = i < n ? in[i] : 0.0f;", "  if (i >= n) return;\n  tile[threadIdx.x] = in[i];"
)


def _cuda_repo(tmp_path: Path) -> Path:
    """A git repository with a clean .cu file committed, then an early exit added and staged."""
    if shutil.which("git") is None:
        pytest.skip("needs git")
    repo = tmp_path / "repo"
    (repo / "src").mkdir(parents=True)
    (repo / "include").mkdir()
    shutil.copy(DATA / "cuda_project" / "include" / "tile.cuh", repo / "include" / "tile.cuh")
    (repo / "irc.toml").write_text('nvcc-flags = ["-Iinclude"]\ncuda-arch = ["sm_80"]\n')
    (repo / "src" / "shift.cu").write_text(CU_CLEAN)
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-qm", "clean"], check=True)
    (repo / "src" / "shift.cu").write_text(CU_BUGGY)
    subprocess.run([*git, "add", "src/shift.cu"], check=True)
    return repo


def _nvcc_env(tmp_path: Path) -> dict[str, str]:
    from irc.tooling.nvcc import find_nvcc

    nvcc = find_nvcc()
    if nvcc is None:
        pytest.skip("no nvcc")
    return dict(os.environ, IRC_NVCC=nvcc, IRC_CACHE_DIR=str(tmp_path / "cache"), NO_COLOR="1")


def test_pre_commit_hook_entry_checks_a_staged_cu_change(tmp_path: Path) -> None:
    """The hook's `files` pattern selects the staged .cu file; its entry reports the new early exit."""
    env = _nvcc_env(tmp_path)
    repo = _cuda_repo(tmp_path)
    hook = _hook()
    staged = subprocess.run(
        ["git", "-C", str(repo), "diff", "--cached", "--name-only"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    files = [f for f in staged if re.search(hook["files"], f)]
    assert files == ["src/shift.cu"] and re.search(hook["files"], "include/tile.cuh")
    cmd = hook["entry"].split()
    cmd[0] = str(BIN / cmd[0])
    r = subprocess.run(cmd + files, cwd=repo, env=env, capture_output=True, text=True, timeout=600)
    assert r.returncode == 1 and "barrier-divergence" in r.stderr and "src/shift.cu:8:" in r.stderr
    # a staged header is checked through the .cu files that include it
    r = subprocess.run(
        cmd + ["include/tile.cuh"], cwd=repo, env=env, capture_output=True, text=True, timeout=600
    )
    assert r.returncode == 1 and "src/shift.cu:8:" in r.stderr


@pytest.mark.precommit
def test_pre_commit_try_repo_on_a_cu_change(tmp_path: Path) -> None:
    """`pre-commit try-repo <irc> irc-check` in a temporary git repository whose staged change adds an
    early exit before a barrier to a .cu file: the hook fails with the finding at the .cu line."""
    exe = shutil.which("pre-commit") or str(BIN / "pre-commit")
    if not Path(exe).exists():
        pytest.skip("pre-commit is not installed")
    env = _nvcc_env(tmp_path)
    env["PRE_COMMIT_HOME"] = str(tmp_path / "pre-commit")
    repo = _cuda_repo(tmp_path)
    r = subprocess.run(
        [exe, "try-repo", str(ROOT), "irc-check"],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert r.returncode == 1, r.stdout + r.stderr
    assert re.search(r"irc check\.+Failed", r.stdout) and "src/shift.cu:8:" in r.stdout
    assert "barrier-divergence" in r.stdout


def cuda_workflow() -> dict:
    text = (ROOT / "docs" / "ci.md").read_text()
    sec = text[text.index("### GitHub Actions workflow for CUDA sources") :]
    block = re.search(r"```yaml\n(.*?)```", sec, re.S)
    assert block is not None
    return yaml.safe_load(block.group(1))


def test_cuda_workflow_runs_on_the_cuda_project(tmp_path: Path) -> None:
    """The CUDA recipe's `run:` steps, in order, on a copy of tests/data/cuda_project: CMake configures
    with the nvcc irc finds, the SARIF step keeps exit 1 (the early-exit bug) and writes SARIF whose
    locations are the .cu file, and the gate fails with the annotation on the .cu line."""
    from irc.tooling.nvcc import find_nvcc

    if find_nvcc() is None or shutil.which("cmake", path=f"{BIN}{os.pathsep}{os.environ['PATH']}") is None:
        pytest.skip("needs nvcc and cmake")
    wf = cuda_workflow()
    steps = wf["jobs"]["irc-check"]["steps"]
    assert any("nvidia-cuda-nvcc" in s.get("run", "") for s in steps)  # nvcc installed in the job
    assert any(s.get("uses", "").startswith("github/codeql-action/upload-sarif") for s in steps)
    project = tmp_path / "proj"
    shutil.copytree(DATA / "cuda_project", project)
    res = run_steps(wf, project)
    assert [(n, rc) for n, rc, _ in res] == [
        ("Configure (compile_commands.json)", 0),
        ("irc check (SARIF)", 0),
        ("Gate", 1),
    ], res
    sarif = json.loads((project / "irc.sarif").read_text())
    jsonschema.validate(sarif, SCHEMA)
    (r,) = sarif["runs"][0]["results"]
    uris = {
        loc["physicalLocation"]["artifactLocation"]["uri"] for loc in r["locations"] + r["relatedLocations"]
    }
    assert uris == {"src/shift.cu"}
    assert r["locations"][0]["logicalLocations"][0]["name"] == "shift_tile(float const*, float*, int)"
    assert "::error file=src/shift.cu,line=9," in res[2][2]
