"""`irc check` on CUDA sources (issue 28): .cu compiled with nvcc and checked per target, findings and every
label in .cu lines with demangled kernel names, `// irc: allow` in .cu honoured, CMake's
compile_commands.json (`-p build`), the content cache (a second run compiles nothing; a changed header
or a tampered entry compiles again), stale PTX, and the errors without nvcc or with a broken .cu.

nvcc runs through a wrapper that logs its command lines, so "served from the cache" is observed, not
inferred from timing. Tests that need nvcc (or cmake) skip with the reason when it is absent.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from irc.tooling.compdb import split_command
from irc.tooling.nvcc import find_nvcc

ROOT = Path(__file__).resolve().parent.parent
PROJECT = ROOT / "tests" / "data" / "cuda_project"
NVCC = find_nvcc()
needs_nvcc = pytest.mark.skipif(
    NVCC is None, reason="no nvcc (PATH, $IRC_NVCC or the nvidia-cuda-nvcc wheel)"
)

BUG_CU = """#include <cuda_runtime.h>

__global__ void shift_tile(const float* in, float* out, int n) {
  __shared__ float t[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  t[threadIdx.x] = in[i];
  __syncthreads();
  out[i] = t[(threadIdx.x + 1) % 256];
}
"""


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    """An environment whose nvcc logs each command line to `tmp_path/nvcc.log`, with a fresh cache."""
    assert NVCC is not None
    wrapper = tmp_path / "bin" / "nvcc"
    wrapper.parent.mkdir()
    wrapper.write_text(f'#!/bin/sh\necho "$@" >> "{tmp_path / "nvcc.log"}"\nexec "{NVCC}" "$@"\n')
    wrapper.chmod(0o755)
    return dict(
        os.environ,
        IRC_NVCC=str(wrapper),
        IRC_CACHE_DIR=str(tmp_path / "cache"),
        NO_COLOR="1",
        PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
    )


def compiles(tmp_path: Path) -> list[str]:
    """The nvcc command lines that compiled (not `--version`), and empty the log."""
    log = tmp_path / "nvcc.log"
    lines = log.read_text().splitlines() if log.exists() else []
    log.write_text("")
    return [ln for ln in lines if "-ptx" in ln]


def irc(*args: str, env: dict[str, str], cwd: Path = ROOT) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "irc.cli", *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
        timeout=600,
    )


def line_of(path: Path, needle: str) -> int:
    return next(i for i, t in enumerate(path.read_text().splitlines(), 1) if needle in t)


# ------------------------------------------------------------------------------------ compile database


def test_compile_command_split_keeps_flags_and_reads_targets() -> None:
    cmake = (
        "/usr/local/bin/nvcc -forward-unknown-to-host-compiler -DFOO=1 --options-file "
        "CMakeFiles/k.dir/includes_CUDA.rsp -std=c++17 "
        "--generate-code=arch=compute_80,code=[compute_80,sm_80] "
        "--generate-code=arch=compute_90a,code=[compute_90a,sm_90a] --expt-relaxed-constexpr "
        "-x cu -c /src/a.cu -o CMakeFiles/k.dir/a.cu.o -MD -MT x.o -MF x.d"
    ).split()
    flags, archs = split_command(cmake, "/src/a.cu")
    assert archs == ["sm_80", "sm_90a"]
    assert flags == [
        "-forward-unknown-to-host-compiler",
        "-DFOO=1",
        "--options-file",
        "CMakeFiles/k.dir/includes_CUDA.rsp",
        "-std=c++17",
        "--expt-relaxed-constexpr",
    ]
    flags, archs = split_command(["nvcc", "-arch", "sm_100a", "-I", "inc", "-O2", "a.cu", "-c"], "a.cu")
    assert archs == ["sm_100a"] and flags == ["-I", "inc", "-O2"]
    flags, archs = split_command(
        ["nvcc", "-gencode", "arch=compute_86,code=sm_86", "-arch=native", "a.cu"], "a.cu"
    )
    assert archs == ["sm_86"] and flags == []  # `native` names no target irc can check


# ------------------------------------------------------------------------------------ the test project


def _configure(tmp_path: Path, env: dict[str, str]) -> Path:
    cmake = shutil.which("cmake", path=env["PATH"])
    if cmake is None:
        pytest.skip("no cmake (pip install cmake)")
    build = tmp_path / "build"
    r = subprocess.run(
        [
            cmake,
            "-S",
            str(PROJECT),
            "-B",
            str(build),
            "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON",
            f"-DCMAKE_CUDA_COMPILER={NVCC}",  # CMake's CUDA language needs a working nvcc to configure
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert r.returncode == 0, r.stdout + r.stderr
    return build


@needs_nvcc
def test_project_reports_exactly_the_bug_in_cu_lines_then_from_the_cache(
    tmp_path: Path, env: dict[str, str]
) -> None:
    build = _configure(tmp_path, env)
    t0 = time.perf_counter()
    r = irc("check", "-p", str(build), "--format", "json", "--warn-unused-allow", env=env)
    first = time.perf_counter() - t0
    assert r.returncode == 1, r.stderr
    assert len(compiles(tmp_path)) == 6  # three .cu files, two targets (CMAKE_CUDA_ARCHITECTURES "80;90")
    out = json.loads(r.stdout)
    assert out["files_checked"] == 3
    (d,) = out["diagnostics"]  # the allowed finding in scale.cu is suppressed, and its allow is used
    shift = PROJECT / "src" / "shift.cu"
    rel = "tests/data/cuda_project/src/shift.cu"
    assert (d["check"], d["file"], d["line"]) == ("barrier-divergence", rel, line_of(shift, "__syncthreads"))
    assert d["kernel"] == "shift_tile(float const*, float*, int)" and d["symbol"] == "_Z10shift_tilePKfPfi"
    assert [(lab["file"], lab["line"]) for lab in d["labels"]] == [
        (rel, line_of(shift, "if (i >= n) return;")),
        (rel, line_of(shift, "}")),
    ]
    assert d["ptx"]["file"].endswith("shift.sm_80.ptx") and all("ptx" in lab for lab in d["labels"])

    t0 = time.perf_counter()
    again = irc("check", "-p", str(build), "--format", "json", "--warn-unused-allow", env=env)
    second = time.perf_counter() - t0
    assert again.returncode == 1 and json.loads(again.stdout) == out
    assert compiles(tmp_path) == []  # served from the cache
    assert second < first

    text = irc("check", "-p", str(build), env=env)
    assert text.returncode == 1
    assert f"--> {rel}:{line_of(shift, '__syncthreads')}:" in text.stderr
    assert "in kernel `shift_tile(float const*, float*, int)`" in text.stderr and "_Z10" not in text.stderr
    sarif = json.loads(irc("check", "-p", str(build), "--format", "sarif", env=env).stdout)
    (res,) = sarif["runs"][0]["results"]
    uris = [
        loc["physicalLocation"]["artifactLocation"]["uri"]
        for loc in res["locations"] + res["relatedLocations"]
    ]
    assert uris == [rel] * 3
    github = irc("check", "-p", str(build), "--format", "github", env=env).stdout
    assert github.startswith(f"::error file={rel},line={line_of(shift, '__syncthreads')},")
    assert "shift_tile(float const*, float*, int)" in github


@needs_nvcc
def test_allow_comment_in_cu_is_what_hides_the_scale_finding(tmp_path: Path, env: dict[str, str]) -> None:
    """The near miss of the project test: without its allow comment, scale.cu's barrier is reported."""
    src = tmp_path / "proj"
    shutil.copytree(PROJECT, src)
    scale = src / "src" / "scale.cu"
    scale.write_text(scale.read_text().replace("// irc: allow(barrier-divergence)", "//"))
    r = irc("check", str(scale), "--arch", "sm_80", "--no-config", "--format", "json", env=env, cwd=tmp_path)
    # without the include directory nvcc refuses the file: a finding at the #include, not a traceback
    assert r.returncode == 1 and "Traceback" not in r.stderr
    (d,) = json.loads(r.stdout)["diagnostics"]
    assert d["check"] == "cuda-compile-error" and d["file"].endswith("scale.cu")
    assert d["line"] == line_of(scale, '#include "tile.cuh"') and "tile.cuh" in d["message"]
    (src / "irc.toml").write_text('nvcc-flags = ["-Iinclude"]\ncuda-arch = ["sm_80"]\n')
    r = irc("check", "src/scale.cu", "--format", "json", env=env, cwd=src)
    assert r.returncode == 1, r.stderr
    (d,) = json.loads(r.stdout)["diagnostics"]
    assert d["check"] == "barrier-divergence" and d["line"] == line_of(scale, "__syncthreads")
    assert d["kernel"] == "scale_rows(float*, int, float)"


# ------------------------------------------------------------------------------------ .cu without CMake


@needs_nvcc
def test_cu_file_with_arch_list(tmp_path: Path, env: dict[str, str]) -> None:
    cu = tmp_path / "shift.cu"
    cu.write_text(BUG_CU)
    r = irc("check", "shift.cu", "--arch", "sm_90a,sm_100a", "--format", "json", env=env, cwd=tmp_path)
    assert r.returncode == 1, r.stderr
    ran = compiles(tmp_path)
    assert sorted(a for ln in ran for a in ln.split() if a.startswith("-arch=")) == [
        "-arch=sm_100a",
        "-arch=sm_90a",
    ]
    (d,) = json.loads(r.stdout)["diagnostics"]  # both targets report it: one finding
    assert (d["file"], d["line"], d["kernel"]) == ("shift.cu", 8, "shift_tile(float const*, float*, int)")
    assert [lab["line"] for lab in d["labels"]] == [6, 10]
    # --why: the chain from tid.x to the branch, in .cu lines with each PTX instruction beside (cached PTX)
    why = irc("check", "shift.cu", "--arch", "sm_90a,sm_100a", "--why", env=env, cwd=tmp_path)
    assert why.returncode == 1 and compiles(tmp_path) == []
    assert "why (shift.cu:6, PTX line " in why.stderr
    assert "at 5:" in why.stderr and "| int i = blockIdx.x * blockDim.x + threadIdx.x;  (PTX " in why.stderr
    # the default target without --arch or configuration is sm_80
    r = irc("check", "shift.cu", "--no-config", env=env, cwd=tmp_path)
    assert r.returncode == 1 and [a for ln in compiles(tmp_path) for a in ln.split() if "-arch=" in a] == [
        "-arch=sm_80"
    ]
    # the fixed kernel is clean (every thread passes the barrier; only memory is guarded)
    fixed = BUG_CU.replace(
        "  if (i >= n) return;\n  t[threadIdx.x] = in[i];", "  t[threadIdx.x] = i < n ? in[i] : 0.0f;"
    )
    fixed = fixed.replace("  out[i] = ", "  if (i < n) out[i] = ")
    cu.write_text(fixed)
    r = irc("check", "shift.cu", "--no-config", env=env, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert len(compiles(tmp_path)) == 1  # the source changed: compiled again


@needs_nvcc
def test_header_change_recompiles_and_cuh_is_checked_through_its_units(
    tmp_path: Path, env: dict[str, str]
) -> None:
    (tmp_path / "irc.toml").write_text('cuda-arch = ["sm_80"]\n')
    (tmp_path / "h.cuh").write_text("__device__ inline float twice(float v) { return 2.0f * v; }\n")
    (tmp_path / "k.cu").write_text(
        '#include "h.cuh"\n__global__ void k(float* x) {\n  x[threadIdx.x] = twice(x[threadIdx.x]);\n}\n'
    )
    assert irc("check", "k.cu", env=env, cwd=tmp_path).returncode == 0
    assert len(compiles(tmp_path)) == 1
    assert irc("check", "k.cu", env=env, cwd=tmp_path).returncode == 0
    assert compiles(tmp_path) == []
    # the header gains a barrier under a thread-dependent branch: the .cu is compiled again, and the
    # finding is on the header's line (the inlined helper), found by checking the header itself
    (tmp_path / "h.cuh").write_text(
        "__device__ inline float twice(float v) {\n"
        "  if (threadIdx.x > 3) {\n"
        "    __syncthreads();\n"
        "  }\n"
        "  return 2.0f * v;\n"
        "}\n"
    )
    r = irc("check", "h.cuh", "--format", "json", env=env, cwd=tmp_path)
    assert r.returncode == 1, r.stderr
    assert len(compiles(tmp_path)) == 1
    (d,) = json.loads(r.stdout)["diagnostics"]
    assert (d["check"], d["file"], d["line"]) == ("barrier-divergence", "h.cuh", 3)
    assert d["kernel"] == "k(float*)" and d["labels"][0]["line"] == 2


@needs_nvcc
def test_tampered_cache_entry_is_not_used(tmp_path: Path, env: dict[str, str]) -> None:
    (tmp_path / "a.cu").write_text(BUG_CU)
    want = irc("check", "a.cu", "--no-config", "--format", "json", env=env, cwd=tmp_path)
    assert want.returncode == 1 and len(compiles(tmp_path)) == 1
    (cached,) = (tmp_path / "cache" / "nvcc").rglob("a.sm_80.ptx")
    cached.write_text(cached.read_text().replace("bar.sync", "membar.cta"))  # would hide the bug
    again = irc("check", "a.cu", "--no-config", "--format", "json", env=env, cwd=tmp_path)
    assert again.stdout == want.stdout and len(compiles(tmp_path)) == 1  # rejected and recompiled
    # a cache directory others can write is not used (someone could plant PTX there)
    root = tmp_path / "cache" / "nvcc"
    root.chmod(root.stat().st_mode | stat.S_IWOTH)
    r = irc("check", "a.cu", "--no-config", env=env, cwd=tmp_path)
    assert r.returncode == 1 and "not using the PTX cache" in r.stderr and len(compiles(tmp_path)) == 1


# ------------------------------------------------------------------------------------ errors and staleness


def test_without_nvcc_the_error_says_how_to_get_one(tmp_path: Path) -> None:
    (tmp_path / "a.cu").write_text(BUG_CU)
    env = dict(os.environ, IRC_NVCC="")
    r = irc("check", "a.cu", "--no-config", env=env, cwd=tmp_path)
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert "IRC_NVCC" in r.stderr and "[tool.irc]" in r.stderr and "nvidia-cuda-nvcc" in r.stderr


@needs_nvcc
def test_broken_cu_is_a_finding_at_nvccs_line(tmp_path: Path, env: dict[str, str]) -> None:
    (tmp_path / "bad.cu").write_text("__global__ void k(float* x) {\n  x[0] = undefined_name;\n}\n")
    r = irc("check", "bad.cu", "--no-config", "--format", "json", env=env, cwd=tmp_path)
    assert r.returncode == 1 and "Traceback" not in r.stderr
    (d,) = json.loads(r.stdout)["diagnostics"]
    assert (d["check"], d["file"], d["line"]) == ("cuda-compile-error", "bad.cu", 2)
    assert "undefined_name" in d["message"]


@needs_nvcc
def test_stale_ptx_gets_a_warning(tmp_path: Path) -> None:
    cu, ptx = tmp_path / "a.cu", tmp_path / "a.ptx"
    cu.write_text(BUG_CU)
    subprocess.run(
        [NVCC, "-ptx", "-lineinfo", "-arch=sm_80", "a.cu", "-o", "a.ptx"], cwd=tmp_path, check=True
    )
    env = dict(os.environ, NO_COLOR="1")
    fresh = irc("check", "a.ptx", "--no-config", "--format", "json", env=env, cwd=tmp_path)
    assert [d["check"] for d in json.loads(fresh.stdout)["diagnostics"]] == ["barrier-divergence"]
    later = ptx.stat().st_mtime + 10
    os.utime(cu, (later, later))  # the .cu touched after the PTX was made
    stale = irc("check", "a.ptx", "--no-config", "--format", "json", env=env, cwd=tmp_path)
    ds = json.loads(stale.stdout)["diagnostics"]
    assert sorted(d["check"] for d in ds) == ["barrier-divergence", "stale-ptx"]
    (w,) = [d for d in ds if d["check"] == "stale-ptx"]
    assert w["severity"] == "warning" and w["file"] == "a.ptx" and "`a.cu`" in w["message"]
    assert stale.returncode == 1
    ok = irc("check", "a.ptx", "--no-config", "--werror", env=env, cwd=tmp_path)
    assert ok.returncode == 1 and "stale-ptx" in ok.stderr


@needs_nvcc
def test_emit_cfg_of_a_cu_file_speaks_in_cu_lines(tmp_path: Path, env: dict[str, str]) -> None:
    (tmp_path / "a.cu").write_text(BUG_CU)
    r = irc("compile", "a.cu", "--emit", "cfg", env=env, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert 'label="kernel shift_tile(float const*, float*, int)"' in r.stdout
    assert "barrier: barrier (a.cu:8, PTX line " in r.stdout
    assert irc("compile", "a.cu", env=env, cwd=tmp_path).returncode == 2  # only the CFG of a .cu file
