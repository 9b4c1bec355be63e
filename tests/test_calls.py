"""Interprocedural summaries: barriers and collectives inside `.func` callees are checked at the call
(nvcc -O3 `__noinline__` helpers and -G builds, tests/data/ptx/nvcc/*noinline*, *helper*), and a callee that
cannot be analysed under thread-dependent control gives a note, never silence."""

from __future__ import annotations

from pathlib import Path

import pytest

from irc.compiler import check_ptx
from irc.diagnostics import Severity

DATA = Path(__file__).parent / "data" / "ptx"


def diags(rel: str):
    p = DATA / rel
    return check_ptx(p.read_text(), str(p))


@pytest.mark.parametrize(
    "rel",
    ["nvcc/bug_barrier_in_noinline_callee.sm_80.ptx", "nvcc/bug_barrier_in_noinline_callee.G.sm_80.ptx"],
)
def test_barrier_in_callee_flagged_at_call_naming_both_places(rel: str) -> None:
    errs = [d for d in diags(rel) if d.severity == Severity.ERROR]
    assert [d.check for d in errs] == ["barrier-divergence"]
    d = errs[0]
    text = (DATA / rel).read_text().splitlines()
    at = d.origin or d.span  # the PTX instruction (the primary span is the .cu line when .loc is there)
    assert text[at.line - 1].strip().startswith("call")
    assert "stage_and_sync" in d.message
    bars = [lb for lb in d.labels if "block-wide barrier in" in lb.message]
    assert bars and "bar.sync" in text[(bars[0].origin or bars[0].span).line - 1]


def test_shfl_in_callee_flagged_at_call() -> None:
    errs = [d for d in diags("nvcc/bug_shfl_in_helper.sm_80.ptx") if d.severity == Severity.ERROR]
    assert [d.check for d in errs] == ["warp-sync-divergence"]
    assert "warp_total" in errs[0].message


def test_debug_build_mask_through_param_memory_is_a_note() -> None:
    """-G: `__shfl_xor_sync` is itself a .func whose mask arrives through .param memory: not decided,
    so a note at the call under the divergent branch (not silence, not a guess)."""
    ds = diags("debug/bug_shfl_in_helper.G.sm_80.ptx")
    assert [(d.check, d.severity) for d in ds] == [("unanalysed-call", Severity.NOTE)]
    assert "warp_total" in ds[0].message


@pytest.mark.parametrize(
    "rel", ["nvcc/ok_noinline_callee_uniform.sm_80.ptx", "nvcc/ok_noinline_callee_uniform.G.sm_80.ptx"]
)
def test_callees_under_uniform_control_are_clean(rel: str) -> None:
    assert [d.check for d in diags(rel)] == []


EXTERN = """.version 8.0
.target sm_80
.address_size 64
.extern .func helper_with_unknown_body(.param .b32 a);
.extern .func (.param .b32 r) vprintf(.param .b64 f, .param .b64 a);
.visible .entry k(.param .u32 n)
{
  .reg .pred %p<2>;
  .reg .b32 %r<4>;
  ld.param.u32 %r1, [n];
  mov.u32 %r2, %tid.x;
  setp.ge.u32 %p1, %r2, %r1;
  @%p1 bra DONE;
  { .param .b32 param0;
  st.param.b32 [param0], %r2;
  call.uni helper_with_unknown_body, (param0); }
DONE:
  ret;
}
"""


def test_unknown_extern_under_divergent_control_is_a_note() -> None:
    ds = check_ptx(EXTERN, "e.ptx")
    assert [(d.check, d.severity) for d in ds] == [("unanalysed-call", Severity.NOTE)]
    assert "helper_with_unknown_body" in ds[0].message


def test_unknown_extern_under_uniform_control_is_silent() -> None:
    text = EXTERN.replace("mov.u32 %r2, %tid.x;", "mov.u32 %r2, %ctaid.x;")
    assert check_ptx(text, "e.ptx") == []
