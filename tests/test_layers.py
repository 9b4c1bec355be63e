"""Layering of `irc/`: no import cycle, and the lower layers never import the higher ones.

The walk reads every `import` statement of every module with `ast`, including the ones inside functions
(lazy imports hide cycles from a plain `python -c "import irc"`), and resolves `from pkg import name`
to the submodule `pkg.name` when that is a module. A cycle fails with the modules on it.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent / "irc"


def _modules() -> dict[str, Path]:
    mods: dict[str, Path] = {}
    for p in ROOT.rglob("*.py"):
        parts = list(p.relative_to(ROOT.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        mods[".".join(parts)] = p
    return mods


MODS = _modules()


def _targets(mod: str, node: ast.Import | ast.ImportFrom) -> list[str]:
    if isinstance(node, ast.Import):
        return [a.name for a in node.names if a.name in MODS]
    base = node.module or ""
    if node.level:
        pkg = mod.split(".")
        if MODS[mod].name != "__init__.py":
            pkg = pkg[:-1]
        pkg = pkg[: len(pkg) - node.level + 1]
        base = ".".join(pkg + ([base] if base else []))
    out = []
    for a in node.names:
        full = f"{base}.{a.name}"
        out.append(full if full in MODS else base)
    return [t for t in out if t in MODS]


def _runtime_imports(tree: ast.AST) -> list[ast.Import | ast.ImportFrom]:
    """Every import statement that can execute: all of them, at any depth, except the bodies of
    `if TYPE_CHECKING:` (annotations only; they never run, so they cannot form a cycle)."""
    out: list[ast.Import | ast.ImportFrom] = []
    work = [tree]
    while work:
        node = work.pop()
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            out.append(node)
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
            work.extend(node.orelse)
            continue
        work.extend(ast.iter_child_nodes(node))
    return out


def import_graph() -> dict[str, set[str]]:
    """module -> the irc modules it imports anywhere in its body (top level or inside functions)."""
    g: dict[str, set[str]] = {}
    for m, p in MODS.items():
        g[m] = set()
        for node in _runtime_imports(ast.parse(p.read_text(encoding="utf-8"))):
            g[m].update(t for t in _targets(m, node) if t != m)
    return g


def cycles(g: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []
    counter = 0
    for root in sorted(g):
        if root in index:
            continue
        work = [(root, iter(sorted(g[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(g[w]))))
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    comp = []
                    while True:
                        w = stack.pop()
                        on.discard(w)
                        comp.append(w)
                        if w == v:
                            break
                    if len(comp) > 1:
                        out.append(sorted(comp))
    return out


def test_cycle_detector_finds_a_cycle() -> None:
    g = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycles(g) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_graph_sees_imports_inside_functions() -> None:
    g = import_graph()
    assert "irc.tooling.run" in g["irc.cli"]  # `cmd_run` imports it lazily


def test_no_import_cycle() -> None:
    found = cycles(import_graph())
    assert found == [], "import cycles: " + "; ".join(" <-> ".join(c) for c in found)


# layer -> packages it must never import (the lower layers never import the higher ones)
FORBIDDEN = {
    "irc.target": ("irc.",),
    "irc.ptxisa": (
        "irc.tooling",
        "irc.backends",
        "irc.frontend",
        "irc.emu",
        "irc.analysis",
        "irc.passes",
        "irc.ir",
    ),
    "irc.ir": (
        "irc.tooling",
        "irc.backends",
        "irc.frontend",
        "irc.emu",
        "irc.analysis",
        "irc.passes",
        "irc.api",
        "irc.cli",
    ),
    "irc.passes": (
        "irc.tooling",
        "irc.backends",
        "irc.frontend",
        "irc.emu",
        "irc.analysis",
        "irc.api",
        "irc.cli",
    ),
    "irc.frontend": ("irc.tooling", "irc.backends", "irc.emu", "irc.api", "irc.cli", "irc.compiler"),
    "irc.emu": (
        "irc.tooling",
        "irc.backends",
        "irc.frontend",
        "irc.analysis",
        "irc.passes",
        "irc.api",
        "irc.cli",
    ),
    "irc.analysis": (
        "irc.tooling",
        "irc.backends",
        "irc.frontend",
        "irc.emu",
        "irc.api",
        "irc.cli",
        "irc.compiler",
    ),
    "irc.api": ("irc.cli",),
    "irc.tooling": ("irc.cli",),
    "irc.triton": ("irc.cli",),
}


@pytest.mark.parametrize("layer", sorted(FORBIDDEN))
def test_layer_imports(layer: str) -> None:
    g = import_graph()
    allowed_self = {"irc.target": ("irc.target", "irc.records", "irc.record_codes")}.get(layer, ())
    bad = []
    for m, deps in g.items():
        if m != layer and not m.startswith(layer + "."):
            continue
        for d in deps:
            if d.startswith(allowed_self):
                continue
            if any(
                d == f.rstrip(".") or d.startswith(f if f.endswith(".") else f + ".") or d == f
                for f in FORBIDDEN[layer]
            ):
                bad.append(f"{m} -> {d}")
    assert bad == [], "layer violations: " + ", ".join(sorted(bad))


def test_records_is_the_floor() -> None:
    """`irc.records` (the dataclass replacement) sits below every layer, `irc.target` included, so it
    imports nothing from irc but its generated methods, which import nothing; the cache directory and the
    file checks it uses sit at the floor too."""
    g = import_graph()
    assert g["irc.records"] == {"irc.record_codes"}
    assert g["irc.record_codes"] == set()
    assert g["irc.cachedir"] == {"irc.fileguard"}
    assert g["irc.fileguard"] == set()


def test_no_private_helper_imported_across_modules() -> None:
    """`from irc.x import _helper` couples modules through a name that promises no stability."""
    bad = []
    for m, p in MODS.items():
        for node in ast.walk(ast.parse(p.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("irc"):
                bad += [
                    f"{m}: {a.name}" for a in node.names if a.name.startswith("_") and a.name != "__version__"
                ]
    assert bad == []
