"""Per-target facts. The minimum PTX versions are re-measured against the installed ptxas: the recorded
minimum must be accepted and the PTX version just below it rejected."""

from __future__ import annotations

import pytest

from irc.ptxas import find_ptxas, run_ptxas
from irc.target import (
    ARCHES,
    STATIC_SHARED_LIMIT,
    Arch,
    format_version,
    max_shared_per_block,
    min_ptx_version,
    parse_arch,
    parse_version,
    previous_ptx_version,
    version_max,
    versions_max,
)

PTXAS = find_ptxas()
needs_ptxas = pytest.mark.skipif(PTXAS is None, reason="ptxas not found ($IRC_PTXAS, nvidia-cuda-nvcc, PATH)")


def trivial_kernel(version: tuple[int, int], arch: str) -> str:
    return f".version {format_version(version)}\n.target {arch}\n.address_size 64\n\n.visible .entry k()\n{{\n  ret;\n}}\n"


def test_parse_arch() -> None:
    assert parse_arch("sm_80") == Arch("sm_80", 80, False, 8)
    a = parse_arch("sm_90a")
    assert (a.number, a.arch_specific, a.family, a.major, a.minor) == (90, True, 9, 9, 0)
    assert parse_arch("sm_120a").number == 120 and parse_arch("sm_120a").family == 12
    assert parse_arch("sm_103a").at_least(100) and not parse_arch("sm_89").at_least(90)
    assert [parse_arch(n).name for n in ARCHES] == ARCHES


@pytest.mark.parametrize("bad", ["sm_70", "sm_100f", "SM_80", "sm80", "", "compute_80"])
def test_unknown_arch_lists_choices(bad: str) -> None:
    with pytest.raises(ValueError) as exc:
        parse_arch(bad)
    assert "sm_80, sm_86" in str(exc.value) and "sm_120a" in str(exc.value)


def test_spec_min_versions() -> None:
    assert min_ptx_version("sm_80") == (7, 0)
    assert min_ptx_version("sm_90a") == (8, 0)
    assert min_ptx_version(parse_arch("sm_100a")) == (8, 6)
    assert all(min_ptx_version(a) for a in ARCHES)


def test_shared_limits() -> None:
    assert STATIC_SHARED_LIMIT == 49152
    assert max_shared_per_block("sm_80") == 163 * 1024
    for a in ("sm_86", "sm_89", "sm_120a"):
        assert max_shared_per_block(a) == 99 * 1024
    for a in ("sm_90", "sm_90a", "sm_100", "sm_100a", "sm_103a"):
        assert max_shared_per_block(a) == 227 * 1024
    assert all(max_shared_per_block(a) > STATIC_SHARED_LIMIT for a in ARCHES)


def test_version_helpers() -> None:
    assert version_max((7, 8), (8, 0)) == (8, 0)
    assert version_max((8, 6), (8, 0)) == (8, 6)
    assert versions_max() == (7, 0) and versions_max((7, 4), (7, 8), (7, 1)) == (7, 8)
    assert format_version((8, 0)) == "8.0" and parse_version(" 8.6 ") == (8, 6)
    with pytest.raises(ValueError):
        parse_version("8")
    assert previous_ptx_version((8, 0)) == (7, 8)
    assert previous_ptx_version((7, 0)) == (6, 5)
    assert previous_ptx_version((6, 0)) is None


@needs_ptxas
@pytest.mark.parametrize("arch", ARCHES)
def test_min_version_measured(arch: str) -> None:
    v = min_ptx_version(arch)
    ok = run_ptxas(trivial_kernel(v, arch), arch)
    assert ok.ok, f"{arch} at .version {format_version(v)} rejected: {ok.errors}"
    below = previous_ptx_version(v)
    assert below is not None
    bad = run_ptxas(trivial_kernel(below, arch), arch)
    assert not bad.ok, f"{arch} accepted .version {format_version(below)}; the table is stale"
    assert any(e.line == 2 and "does not support .target" in e.message for e in bad.errors), bad.errors
