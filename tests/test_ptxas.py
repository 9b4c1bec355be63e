"""ptxas driver: locating, running on the reference forms, error and `-v` parsing, cubin generation."""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path

import pytest

from irc import ptxas as px
from irc.ptxas import (
    PtxasError,
    PtxasMessage,
    PtxasNotFound,
    find_ptxas,
    parse_messages,
    parse_verbose,
    ptx_to_cubin,
    run_ptxas,
)

FORMS = Path("/work/shared/ptx-reference/forms")
PTXAS = find_ptxas()
needs_ptxas = pytest.mark.skipif(PTXAS is None, reason="ptxas not found ($IRC_PTXAS, nvidia-cuda-nvcc, PATH)")
needs_forms = pytest.mark.skipif(not FORMS.is_dir(), reason="reference forms not present")

BROKEN = """\
.version 7.0
.target sm_80
.address_size 64

.visible .entry k()
{
  .reg .b32 r<4>;
  frobnicate.b32 r1, r2;
  ret;
}
"""


def target_of(text: str) -> str:
    m = re.search(r"^\s*\.target\s+(sm_\w+)", text, re.M)
    assert m
    return m.group(1)


@needs_ptxas
@needs_forms
@pytest.mark.parametrize(
    "form",
    [
        "bar_sync_0",
        "shfl_sync_bfly_b32",
        "mbarrier_try_wait_parity_loop",
        "setmaxnreg_dec_40",
        "tcgen05_alloc_dealloc",
    ],
)
def test_reference_forms_accepted(form: str) -> None:
    text = (FORMS / f"{form}.ptx").read_text()
    res = run_ptxas(text, target_of(text), verbose=True)
    assert res.ok, res.errors
    assert res.errors == []
    assert res.info and all(f["registers"] > 0 for f in res.info.values() if f["entry"])


@needs_ptxas
def test_broken_ptx_reports_line() -> None:
    res = run_ptxas(BROKEN, "sm_80")
    assert not res.ok and res.returncode != 0
    assert res.errors, res.stderr
    assert all(e.line == 8 for e in res.errors if e.line is not None)
    assert any("frobnicate" in e.message for e in res.errors)
    assert not any("aborted due to errors" in e.message for e in res.errors)


@needs_ptxas
def test_lineinfo_flag_accepted() -> None:
    text = (
        (FORMS / "bar_sync_0.ptx").read_text()
        if FORMS.is_dir()
        else BROKEN.replace("frobnicate.b32 r1, r2;", "")
    )
    assert run_ptxas(text, "sm_80", lineinfo=True).ok


@needs_ptxas
@needs_forms
def test_verbose_parse_real_output() -> None:
    res = run_ptxas((FORMS / "ptxas_v_format_spill_sm80.ptx").read_text(), "sm_80", verbose=True)
    assert res.ok, res.errors
    heavy, light, helper = res.info["_Z5heavyPKfPfii"], res.info["_Z5lightPf"], res.info["_Z6helperPfi"]
    assert heavy["entry"] and light["entry"] and not helper["entry"]
    assert heavy["target"] == "sm_80"
    assert heavy["shared_bytes"] == 4096 and light["shared_bytes"] == 0  # dynamic shared is not counted
    assert heavy["stack_frame"] == 128 and heavy["cumulative_stack"] == 128
    assert heavy["barriers"] == 1 and heavy["registers"] > light["registers"] > 0
    assert 0 in heavy["cmem"] and res.gmem_bytes == 0


VERBOSE_WITH_SPILLS = """\
ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function '_Z5heavyPKfPfii' for 'sm_80'
ptxas info    : Function properties for _Z5heavyPKfPfii
    264 bytes stack frame, 132 bytes spill stores, 140 bytes spill loads
ptxas info    : Used 32 registers, used 1 barriers, 264 bytes cumulative stack size, 4096 bytes smem, 376 bytes cmem[0], 8 bytes cmem[2]
ptxas info    : Compile time = 16.690 ms
ptxas info    : Function properties for _Z6helperPfi
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Compiling entry function 'k' for 'sm_90a'
ptxas info    : Function properties for k
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 168 registers, 360 bytes cmem[0]
"""


def test_verbose_parse_spills() -> None:
    info, gmem = parse_verbose(VERBOSE_WITH_SPILLS)
    assert gmem == 0
    h = info["_Z5heavyPKfPfii"]
    assert (h["registers"], h["spill_stores"], h["spill_loads"], h["stack_frame"]) == (32, 132, 140, 264)
    assert h["cmem"] == {0: 376, 2: 8} and h["compile_time_ms"] == pytest.approx(16.69)
    assert info["_Z6helperPfi"]["entry"] is False
    k = info["k"]
    assert (k["registers"], k["barriers"], k["shared_bytes"], k["target"]) == (168, 0, 0, "sm_90a")


def test_parse_messages_formats() -> None:
    text = (
        "ptxas /tmp/x/kernel.ptx, line 2; error   : PTX .version 7.8 does not support .target sm_90a\n"
        "ptxas /tmp/x/kernel.ptx, line 9; warning : Unused variable\n"
        "ptxas fatal   : Ptx assembly aborted due to errors\n"
    )
    errors, warnings = parse_messages(text)
    assert errors == [PtxasMessage(2, "PTX .version 7.8 does not support .target sm_90a", "error")]
    assert warnings == [PtxasMessage(9, "Unused variable", "warning")]
    only_fatal, _ = parse_messages("ptxas fatal   : SM version specified by .target is higher than default\n")
    assert only_fatal == [
        PtxasMessage(None, "SM version specified by .target is higher than default", "fatal")
    ]
    v_fatal, _ = parse_messages(
        "ptxas k.ptx, line 1; fatal   : Unsupported .version 9.9; current version is '9.0'\n"
    )
    assert v_fatal[0].line == 1 and v_fatal[0].severity == "fatal"


def test_find_ptxas_env_is_authoritative(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    fake = tmp_path / "ptxas"
    fake.write_text("#!/bin/sh\nexit 0\n")
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("IRC_PTXAS", str(fake))
    assert find_ptxas() == str(fake)
    monkeypatch.setenv("IRC_PTXAS", "")
    assert find_ptxas() is None
    monkeypatch.setenv("IRC_PTXAS", str(tmp_path / "missing"))
    assert find_ptxas() is None
    with pytest.raises(PtxasNotFound):
        run_ptxas(BROKEN, "sm_80")


def test_find_ptxas_default_order(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("IRC_PTXAS", raising=False)
    wheel = px._wheel_ptxas()
    found = find_ptxas()
    if wheel is not None:
        assert found == wheel and os.access(wheel, os.X_OK)
        assert "nvidia" in wheel
    else:
        import shutil

        assert found == shutil.which("ptxas")


@needs_ptxas
@needs_forms
@pytest.mark.parametrize("prefer", ["nvjitlink", "ptxas"])
def test_ptx_to_cubin(prefer: str) -> None:
    cubin = ptx_to_cubin((FORMS / "bar_sync_0.ptx").read_text(), "sm_80", prefer=prefer)
    assert cubin[:4] == b"\x7fELF"


@needs_ptxas
@needs_forms
def test_ptx_to_cubin_falls_back_without_nvjitlink(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(px, "_cubin_via_nvjitlink", lambda text, arch: None)
    assert ptx_to_cubin((FORMS / "bar_sync_0.ptx").read_text(), "sm_80")[:4] == b"\x7fELF"


@needs_ptxas
@pytest.mark.parametrize("prefer", ["nvjitlink", "ptxas"])
def test_ptx_to_cubin_rejects_broken_with_lines(prefer: str) -> None:
    with pytest.raises(PtxasError) as exc:
        ptx_to_cubin(BROKEN, "sm_80", prefer=prefer)
    assert any(e.line == 8 for e in exc.value.errors)


@needs_forms
def test_nvjitlink_log_parsed_without_ptxas(monkeypatch: pytest.MonkeyPatch) -> None:
    """With no ptxas at all, nvJitLink alone still builds cubins and reports line-numbered errors."""
    pytest.importorskip("cuda.bindings.nvjitlink")
    monkeypatch.setenv("IRC_PTXAS", "")
    assert ptx_to_cubin((FORMS / "bar_sync_0.ptx").read_text(), "sm_80")[:4] == b"\x7fELF"
    with pytest.raises(PtxasError) as exc:
        ptx_to_cubin(BROKEN, "sm_80")
    assert [e.line for e in exc.value.errors] == [8]
