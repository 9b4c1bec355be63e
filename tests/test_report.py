"""One finding per bug, "(N instances)" in every output format, and findings on -lineinfo PTX placed on
the user's .cu line (through `inlined_at`, out of CUDA's headers) with the kernel named."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from irc.compiler import check_kdsl, check_ptx
from irc.diagnostics import Severity

ROOT = Path(__file__).parent.parent
UNROLLED = "tests/data/ptx/nvcc/bug_barrier_unrolled_loop.sm_80.ptx"
KERNEL = "_Z16unrolled_barrierPKfPfi"
SHOWN = "unrolled_barrier(float const*, float*, int)"  # every output format demangles


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "irc.cli", *args], capture_output=True, text=True, cwd=ROOT)


def test_unrolled_barrier_is_one_finding_with_its_count() -> None:
    p = ROOT / UNROLLED
    errs = [d for d in check_ptx(p.read_text(), UNROLLED) if d.severity == Severity.ERROR]
    assert len(errs) == 1 and errs[0].check == "barrier-divergence"
    assert errs[0].message.endswith("(16 instances)")
    assert any(n.startswith("16 instances of this finding") for n in errs[0].notes)


@pytest.mark.parametrize("fmt", ["text", "json", "sarif", "github"])
def test_instance_count_in_every_format(fmt: str) -> None:
    r = run("check", UNROLLED, "--format", fmt)
    assert r.returncode == 1
    out = r.stderr if fmt == "text" else r.stdout
    assert out.count("(16 instances)") == 1, out
    if fmt == "json":
        (d,) = json.loads(out)["diagnostics"]
        assert d["message"].endswith("(16 instances)") and d["kernel"] == SHOWN and d["symbol"] == KERNEL
    if fmt == "sarif":
        (res,) = json.loads(out)["runs"][0]["results"]
        assert res["message"]["text"].endswith("(16 instances)")
        assert res["locations"][0]["logicalLocations"][0] == {
            "name": SHOWN,
            "kind": "function",
            "decoratedName": KERNEL,
        }
        assert all(
            loc["physicalLocation"]["artifactLocation"]["uri"].endswith(".cu")
            for loc in res["locations"] + res.get("relatedLocations", [])
        )
    if fmt == "github":
        assert out.startswith("::error file=tests/data/ptx/nvcc/bug_barrier_unrolled_loop.cu,line=12,")
        assert f"in kernel `{SHOWN}`" in out and "_Z" not in out


def test_lineinfo_finding_shows_cu_line_and_kernel() -> None:
    r = run("check", UNROLLED)
    text = r.stderr
    assert "--> tests/data/ptx/nvcc/bug_barrier_unrolled_loop.cu:12:" in text
    assert "__syncthreads(); // EXPECT: barrier-divergence" in text  # the source line is shown
    assert f"= note: in kernel `{SHOWN}`" in text
    # every label is on a .cu line; the PTX lines stay as a secondary note
    assert ".ptx:" not in text.split("= note")[0]
    assert "= note: PTX tests/data/ptx/nvcc/bug_barrier_unrolled_loop.sm_80.ptx: " in text


def test_inlined_header_collective_maps_to_the_users_call() -> None:
    """`__shfl_down_sync` is inlined from CUDA's sm_30_intrinsics.hpp; the finding is at the user's call."""
    rel = "tests/data/ptx/nvcc/bug_half_warp_shfl.sm_80.ptx"
    (d,) = [d for d in check_ptx((ROOT / rel).read_text(), rel) if d.severity == Severity.ERROR]
    assert d.span.file.endswith("bug_half_warp_shfl.cu")
    src = (ROOT / "tests/data/ptx/nvcc/bug_half_warp_shfl.cu").read_text().splitlines()
    assert "EXPECT: warp-sync-divergence" in src[d.span.line - 1]
    assert d.origin is not None and d.origin.file == rel


def test_kdsl_unrolled_shuffle_is_one_finding() -> None:
    p = ROOT / "tests/data/check_kdsl/bad_allreduce_half_warp.kdsl"
    errs = [d for d in check_kdsl(p.read_text(), str(p)) if d.severity == Severity.ERROR]
    assert len(errs) == 1 and errs[0].message.endswith("(5 instances)")
    assert errs[0].kernel == "masked_rowmax_half"


def test_emulator_error_names_kernel_and_source_line_on_lineinfo_ptx() -> None:
    import numpy as np

    from irc.emu import run_kernel
    from irc.emu.errors import BarrierError
    from irc.frontend.ptx.parser import parse_ptx

    rel = "tests/data/ptx/nvcc/bug_return_before_barrier.sm_80.ptx"
    m = parse_ptx((ROOT / rel).read_text(), rel)
    inp = np.arange(256, dtype=np.float32)
    out = np.zeros(256, dtype=np.float32)
    with pytest.raises(BarrierError) as ei:
        run_kernel(m, m.functions[0].name, grid=1, block=128, args=[inp, out, 100])
    src = (ROOT / "tests/data/ptx/nvcc/bug_return_before_barrier.cu").read_text().splitlines()
    path, line = ei.value.source.rsplit(":", 1)
    assert path.endswith("bug_return_before_barrier.cu") and "__syncthreads" in src[int(line) - 1]
    assert "_Z25bug_return_before_barrierPKfPfi" in str(ei.value) and ei.value.source in str(ei.value)


KDSL_BUG = """@launch(block = 128)
@allow(barrier-divergence)
kernel shift(inp: *global f32, out: *global f32, n: u32) {
    shared tile: [f32; 128];
    let gid = ctaid.x * ntid.x + tid.x;
    if gid >= n {
        return;
    }
    tile[tid.x] = inp[gid];
    barrier();
    out[gid] = tile[(tid.x + 1) % 128];
}
"""


def test_emulator_error_names_the_kdsl_line() -> None:
    import numpy as np

    from irc.compiler import compile_kdsl
    from irc.emu import run_kernel
    from irc.emu.errors import BarrierError
    from irc.frontend.ptx.parser import parse_ptx

    r = compile_kdsl(KDSL_BUG, "shift.kdsl")
    m = parse_ptx(r.ptx_text, "shift.ptx")
    with pytest.raises(BarrierError) as ei:
        run_kernel(
            m,
            "shift",
            grid=1,
            block=128,
            args=[np.zeros(128, np.float32), np.zeros(128, np.float32), np.uint32(100)],
        )
    assert ei.value.source == "shift.kdsl:10" and "shift:" in str(ei.value)
