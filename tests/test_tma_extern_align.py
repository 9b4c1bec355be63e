"""`tma-misaligned` on a PTX `.extern .shared` array (dynamic shared memory carved by hand): offsets into it
are judged against its declared alignment (the suite's `tma_dyn_smem_misaligned`: tiles 16 bytes after
two barriers, under `.align 1024`). Near misses: the twin's offset of 128 is clean, and with `.align 16`
the base itself is where the launch puts it, so nothing is reported."""

from __future__ import annotations

from pathlib import Path

from irc.compiler import check_ptx

SUITE = Path(__file__).parent / "data" / "suite" / "cuda"


def _tma(name: str, edit=lambda s: s) -> list:  # type: ignore[no-untyped-def]
    text = edit((SUITE / name).read_text())
    return [d for d in check_ptx(text, name) if d.check == "tma-misaligned"]


def test_an_offset_into_a_dynamic_array_is_judged_against_its_declared_alignment() -> None:
    (d,) = _tma("tma_dyn_smem_misaligned.bug.sm_90a.ptx")
    assert "`smem` (align 1024)" in d.message and "only 16-byte aligned" in d.message
    assert _tma("tma_dyn_smem_misaligned.ok.sm_90a.ptx") == []


def _align16(text: str) -> str:
    return text.replace(".extern .shared .align 1024 .b8 smem[];", ".extern .shared .align 16 .b8 smem[];")


def test_a_dynamic_array_declared_with_less_is_not_judged() -> None:
    assert _tma("tma_dyn_smem_misaligned.bug.sm_90a.ptx", _align16) == []
