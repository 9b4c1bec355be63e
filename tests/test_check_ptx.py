"""Acceptance: `irc check` on the real-world PTX corpus (tests/data/ptx/expected.json) reports exactly
the expected barrier-divergence / warp-sync-divergence / self-cancel findings, nothing on correct kernels,
and `uninitialized` only on a kernel that really reads a register never written on one branch."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from irc.compiler import check_ptx

DATA = Path(__file__).parent / "data" / "ptx"
EXPECTED: dict[str, list[dict]] = json.loads((DATA / "expected.json").read_text())
CHECKS = {"barrier-divergence", "warp-sync-divergence", "self-cancel", "uninitialized"}


def _params() -> list:
    return [pytest.param(rel, id=rel) for rel in sorted(EXPECTED)]


@pytest.mark.parametrize("rel", _params())
def test_corpus_findings_match_expected(rel: str) -> None:
    path = DATA / rel
    diags = check_ptx(path.read_text(), str(path))
    # the PTX instruction's line (`origin` when the primary span was mapped to the source through .loc)
    got = sorted({(d.check, (d.origin or d.span).line) for d in diags if d.check in CHECKS})
    want = sorted({(e["check"], e["line"]) for e in EXPECTED[rel]})
    assert got == want
    assert not [d for d in diags if d.check == "unknown-instruction"]


HDR = ".version 8.0\n.target sm_80\n.address_size 64\n"
UNINIT = (
    HDR
    + """.visible .entry k(.param .u64 k_param_0)
{
    .reg .pred %p<4>;
    .reg .b32 %r<8>;
    .reg .f32 %f<8>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [k_param_0];
    mov.u32 %r1, %tid.x;
    setp.lt.u32 %p1, %r1, 7;
    @%p1 bra $L1;
    mov.f32 %f1, 0f3F800000;
$L1:
    add.f32 %f2, %f1, 0f3F800000;
    st.global.f32 [%rd1], %f2;
    ret;
}
"""
)


def test_builder_kernel_reading_unwritten_register_is_uninitialized() -> None:
    diags = check_ptx(UNINIT, "u.ptx")
    assert "uninitialized" in {d.check for d in diags}


def test_cli_checks_the_corpus_directory() -> None:
    r = subprocess.run(
        [sys.executable, "-m", "irc.cli", "check", *map(str, sorted(DATA.rglob("*.ptx")))],
        capture_output=True,
        text=True,
        timeout=300,
    )
    out = r.stdout + r.stderr
    assert "Traceback" not in out
    assert "barrier-divergence" in out and "self-cancel" in out
