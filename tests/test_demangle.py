"""Demangled C++ names (issue 28): libstdc++'s demangler through cxxfilt, applied to text by the renderers
only, and the mangled symbol kept when no demangler is available or a name is not a C++ symbol."""

from __future__ import annotations

import pytest

from irc.diagnostics import Diagnostic, Label, Severity, Span
from irc.tooling import demangle as dm
from irc.tooling.render import for_display, render_github

needs = pytest.mark.skipif(not dm.available(), reason="no demangler (cxxfilt and libstdc++)")


@needs
def test_names_and_text() -> None:
    assert dm.demangle("_Z10shift_tilePKfPfi") == "shift_tile(float const*, float*, int)"
    assert dm.demangle("_Z9reduce_v2ILi256EEvPKfPfi") == "void reduce_v2<256>(float const*, float*, int)"
    assert dm.demangle("_ZZ10shift_tilePKfPfiE1t") == "shift_tile(float const*, float*, int)::t"
    # not C++ symbols, or not valid ones: unchanged
    for name in ("pair_sum", "_Z10shift_tilePKfPfi_param_0", "_Zoops", "$L__BB0_2"):
        assert dm.demangle(name) == name
    assert (
        dm.demangle_text("`_Z3fooPi` calls `_Z3barv` at $L__BB0_2")
        == "`foo(int*)` calls `bar()` at $L__BB0_2"
    )


@needs
def test_renderers_demangle_but_the_diagnostic_keeps_the_symbol() -> None:
    d = Diagnostic(
        "barrier-divergence",
        Severity.ERROR,
        "barrier in `_Z6helperv`",
        Span.point("k.cu", 3, 1),
        [Label(Span.point("k.cu", 2, 1), "called from `_Z1kv`")],
        notes=["in kernel `_Z1kv`"],
        kernel="_Z1kv",
    )
    shown = for_display(d)
    assert shown.message == "barrier in `helper()`" and shown.labels[0].message == "called from `k()`"
    assert shown.notes == ["in kernel `k()`"] and d.message == "barrier in `_Z6helperv`"
    assert "_Z" not in render_github([d])


def test_without_a_demangler_the_symbol_is_shown(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(dm, "_load", lambda: None)
    dm.demangle.cache_clear()
    try:
        assert dm.demangle("_Z10shift_tilePKfPfi") == "_Z10shift_tilePKfPfi"
    finally:
        dm.demangle.cache_clear()
