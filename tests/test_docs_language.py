"""Every example in docs/language.md compiles (or fails exactly as the page says).

Blocks tagged ```kdsl are complete programs that must give no error-severity diagnostic; blocks tagged
```kdsl-error must give the check named by their first line, `// error: <check-name>`. A comment line
`// arch: sm_90a` among the first lines selects the target (default sm_80). ```kdsl-fragment blocks are
snippets and are not compiled.

The full pipeline (`irc.compiler.check_kdsl`) needs the front end's lowering, `compile_to_ir`; while that is
missing those tests skip, and `test_frontend_*` still checks the examples with the parser and semantic
analysis alone (which report every front-end check).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from irc.diagnostics import CompileError, Severity

DOC = Path(__file__).resolve().parent.parent / "docs" / "language.md"
_FENCE = re.compile(r"^```(kdsl(?:-error)?)[ \t]*\n(.*?)^```[ \t]*$", re.S | re.M)
_ARCH = re.compile(r"^\s*//\s*arch:\s*(\S+)")
_ERROR = re.compile(r"^\s*//\s*error:\s*([a-z0-9-]+)")

FRONTEND_CHECKS = frozenset(
    {
        "parse-error",
        "name-error",
        "type-error",
        "const-error",
        "recursion",
        "limit-error",
        "unsupported-target",
        "uninitialized",
        "static-assert",
    }
)
# Reported while generating code (shared-memory layout, register allocation), so `irc compile` finds them
# but `check_kdsl` (front end + analyzer) does not.
BACKEND_CHECKS = frozenset({"shared-overflow", "register-pressure"})


def _blocks() -> list:
    text = DOC.read_text(encoding="utf-8")
    out = []
    for m in _FENCE.finditer(text):
        tag, body = m.group(1), m.group(2)
        line = text.count("\n", 0, m.start()) + 1
        lines = body.splitlines()
        arch = "sm_80"
        for ln in lines[:3]:
            a = _ARCH.match(ln)
            if a:
                arch = a.group(1)
        expect = None
        if tag == "kdsl-error":
            e = _ERROR.match(lines[0]) if lines else None
            expect = e.group(1) if e else "<missing `// error: check-name` first line>"
        out.append(pytest.param(body, arch, expect, id=f"{tag}-L{line}"))
    return out


BLOCKS = _blocks()


def _have_lowering() -> bool:
    try:
        import irc.frontend.kdsl as fe
    except ImportError:
        return False
    return hasattr(fe, "compile_to_ir")


needs_lowering = pytest.mark.skipif(
    not _have_lowering(), reason="irc.frontend.kdsl.compile_to_ir is not implemented yet"
)


def _show(diags) -> str:
    from irc.tooling.render import render_text

    return render_text(diags, {})


def test_doc_has_examples() -> None:
    tags = [p.values[2] is None for p in BLOCKS]
    assert sum(tags) >= 5, "docs/language.md should have complete ```kdsl examples"
    assert len(tags) - sum(tags) >= 5, "docs/language.md should have ```kdsl-error examples"


@needs_lowering
@pytest.mark.parametrize(("body", "arch", "expect"), BLOCKS)
def test_doc_block(body: str, arch: str, expect: str | None) -> None:
    from irc.compiler import CompileOptions, check_kdsl, compile_kdsl

    diags = check_kdsl(body, "doc.kdsl", arch=arch)
    if expect is None:
        errors = [d for d in diags if d.severity == Severity.ERROR]
        assert not errors, "example should compile cleanly:\n" + _show(errors)
        return
    found = {d.check for d in diags}
    if expect not in found and expect in BACKEND_CHECKS:
        try:
            res = compile_kdsl(body, "doc.kdsl", CompileOptions(arch=arch))
            diags = diags + list(res.diagnostics)
        except CompileError as e:
            diags = diags + list(e.diagnostics)
        found = {d.check for d in diags}
    assert expect in found, f"expected a `{expect}` diagnostic, got {sorted(found)}:\n" + _show(diags)


@pytest.mark.parametrize(("body", "arch", "expect"), BLOCKS)
def test_frontend_block(body: str, arch: str, expect: str | None) -> None:
    """Parser + semantic analysis only: valid examples have no front-end error, and examples of front-end
    checks produce them (analyzer checks need the lowering; see test_doc_block)."""
    from irc.frontend.kdsl import analyze, parse_kdsl

    try:
        analyze(parse_kdsl(body, "doc.kdsl"), arch=arch)
        diags = []
    except CompileError as e:
        diags = list(e.diagnostics)
    errors = [d for d in diags if d.severity == Severity.ERROR]
    if expect is None or expect not in FRONTEND_CHECKS:
        assert not errors, "the front end should accept this example:\n" + _show(errors)
    else:
        assert expect in {d.check for d in errors}, (
            f"expected a `{expect}` diagnostic, got {sorted({d.check for d in errors})}:\n" + _show(diags)
        )
