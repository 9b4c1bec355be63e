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


def test_gate_families() -> None:
    """The families every gated table names (op table, intrinsics, PTX forms); sm_100f is not a target."""
    from irc.target import FAMILY_TEXT, GATE_FAMILIES, family_admits, family_of

    assert GATE_FAMILIES["sm_80"] == tuple(ARCHES)
    assert GATE_FAMILIES["sm_90"] == ("sm_90", "sm_90a", "sm_100", "sm_100a", "sm_103a", "sm_120a")
    assert GATE_FAMILIES["sm_100a"] == ("sm_100a", "sm_103a")
    assert GATE_FAMILIES["arch_specific"] == ("sm_90a", "sm_100a", "sm_103a", "sm_120a")
    assert family_admits(None, "sm_80") and not family_admits("sm_100a", "sm_100")
    assert family_of(("sm_100a", "sm_103a")) == "sm_100a" and family_of(("sm_80", "sm_90")) is None
    assert FAMILY_TEXT["sm_100a"] == "sm_100a or sm_103a"
    assert all("sm_100f" not in v for v in GATE_FAMILIES.values())


def test_intrinsics_and_op_table_agree_with_parse_arch() -> None:
    """Every target the .kdsl front end accepts, `parse_arch` accepts too (the old sm_100f disagreement)."""
    from irc.frontend.kdsl.intrinsics import FAMILIES, TARGETS
    from irc.ir.optable import OPS
    from irc.target import GATE_FAMILIES

    assert list(TARGETS) == ARCHES
    for t in TARGETS:
        parse_arch(t)
    assert all(members <= set(ARCHES) for members in FAMILIES.values())
    for d in OPS.values():
        assert all(d.admits(a) == (d.gate is None or a in GATE_FAMILIES[d.gate]) for a in ARCHES)


def test_target_py_is_the_only_place_listing_architectures() -> None:
    """No module of irc/ except irc/target.py spells an architecture list (a literal sequence, set or dict
    with two or more target names, or one line of a string naming two or more targets) or maps a target
    to a PTX version. Docstrings and comments may mention targets; they are not read by the code."""
    import ast
    import re
    from pathlib import Path

    arch = re.compile(r"\bsm_\d+[af]?\b")
    root = Path(__file__).resolve().parent.parent / "irc"
    bad = []
    for p in sorted(root.rglob("*.py")):
        if p.name == "target.py" and p.parent == root:
            continue
        tree = ast.parse(p.read_text(encoding="utf-8"))
        docs = {
            id(n.body[0].value)
            for n in ast.walk(tree)
            if isinstance(n, (ast.Module, ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef))
            and n.body
            and isinstance(n.body[0], ast.Expr)
            and isinstance(n.body[0].value, ast.Constant)
        }
        for n in ast.walk(tree):
            elts: list = []
            if isinstance(n, (ast.List, ast.Tuple, ast.Set)):
                elts = n.elts
            elif isinstance(n, ast.Dict):
                elts = [k for k in n.keys if k is not None]
            names = [e.value for e in elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
            if sum(1 for x in names if arch.fullmatch(x)) >= 2:
                bad.append(f"{p.relative_to(root.parent)}:{n.lineno}")
            if isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in docs:
                if any(len(set(arch.findall(line))) >= 2 for line in n.value.splitlines()):
                    bad.append(f"{p.relative_to(root.parent)}:{n.lineno} (string)")
    assert bad == [], "architecture lists outside irc/target.py: " + ", ".join(bad)
