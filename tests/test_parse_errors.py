"""Syntax and name errors that point at the cause (issue 16): an unclosed `{` at its opener, CUDA spellings
with a did-you-mean, one error for a C-style `for`, and `str(CompileError)` with every diagnostic and label.
Exact line:col everywhere; one golden rendering with carets."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import irc
from irc.diagnostics import CompileError
from irc.frontend.kdsl.parse import parse_kdsl
from irc.tooling.render import render_text


def failure(src: str) -> CompileError:
    with pytest.raises(CompileError) as ei:
        irc.compile(src, cache=False, path="k.kdsl")
    return ei.value


UNCLOSED_IF = """kernel k(o: *global f32) {
    if tid.x < 4u32 {
        o[0] = 1.0;

    o[1] = 2.0;
}
"""


def test_missing_brace_points_at_the_unclosed_opener() -> None:
    e = failure(UNCLOSED_IF)
    assert str(e) == (
        "k.kdsl:2:21: unclosed `{`: the file ends before its `}` [parse-error]\n"
        "    k.kdsl:6:2: the file ends here\n"
        "    help: add the missing `}` (a `}` further down is indented like an outer block, so this block is "
        "probably the one left open)"
    )


def test_missing_brace_golden_rendering() -> None:
    e = failure(UNCLOSED_IF)
    text = render_text(e.diagnostics, {"k.kdsl": UNCLOSED_IF})
    assert text.splitlines()[:5] == [
        "error[parse-error]: unclosed `{`: the file ends before its `}`",
        " --> k.kdsl:2:21",
        "  |",
        "2 |     if tid.x < 4u32 {",
        "  |                     ^",
    ]
    assert "6 | }" in text and "the file ends here" in text


def test_missing_brace_without_indentation_hint_names_the_innermost_opener() -> None:
    src = "kernel k(o: *global f32) {\n    if tid.x < 4u32 {\n        o[0] = 1.0;\n    }\n"
    e = failure(src)
    d = e.diagnostics
    assert [(x.span.line, x.span.col, x.message) for x in d] == [
        (1, 26, "unclosed `{`: the file ends before its `}`")
    ]
    assert d[0].help == "add the missing `}`"


def test_unclosed_paren_at_end_of_file() -> None:
    assert str(failure("kernel k(o: *global f32) { o[0] = max(1.0, 2.0")) == (
        "k.kdsl:1:38: unclosed `(`: the file ends before its `)` [parse-error]\n"
        "    k.kdsl:1:47: the file ends here\n"
        "    help: add the missing `)`"
    )


def test_c_style_for_is_one_error() -> None:
    src = """kernel k(o: *global f32, n: u32) {
    for (var i = 0u32; i < n; i++) {
        o[0] = 1.0;
    }
    o[1] = 2.0;
}
"""
    e = failure(src)
    assert str(e) == (
        "k.kdsl:2:5: C-style `for (init; condition; step)` loops do not exist in .kdsl [parse-error]\n"
        "    help: write `for i in a..b { ... }` (half-open; add `step s` for a stride)"
    )
    d = e.diagnostics[0]
    assert (d.span.end_line, d.span.end_col) == (2, 35)


def test_c_style_for_then_a_later_error_is_still_reported() -> None:
    src = "kernel k(o: *global f32) {\n    for (;;) { }\n    let x = ;\n}\n"
    d = failure(src).diagnostics
    assert [(x.span.line, x.span.col, x.check) for x in d] == [(2, 5, "parse-error"), (3, 13, "parse-error")]


@pytest.mark.parametrize(
    ("stmt", "col", "message", "help"),
    [
        ("__syncthreads();", 5, "unknown function `__syncthreads`", "did you mean `barrier()`?"),
        ("o[threadIdx.x] = 1.0;", 7, "unknown name `threadIdx`", "did you mean `tid`?"),
        ("o[blockIdx.x] = 1.0;", 7, "unknown name `blockIdx`", "did you mean `ctaid`?"),
        ("o[blockDim.x] = 1.0;", 7, "unknown name `blockDim`", "did you mean `ntid`?"),
        (
            "let u = __float_as_uint(o[0]);",
            13,
            "unknown function `__float_as_uint`",
            "did you mean `bitcast<u32>(x)`?",
        ),
    ],
)
def test_cuda_spellings_get_did_you_mean(stmt: str, col: int, message: str, help: str) -> None:
    d = failure(f"kernel k(o: *global f32) {{\n    {stmt}\n}}\n").diagnostics
    assert [(x.check, x.span.line, x.span.col, x.message) for x in d] == [("name-error", 2, col, message)]
    assert d[0].help.startswith(help)


def test_str_of_compile_error_lists_every_diagnostic_with_labels() -> None:
    src = """kernel k(o: *global f32) {
    let a = 1.0;
    let a = 2.0;
    o[0] = b;
}
"""
    assert str(failure(src)) == (
        "k.kdsl:3:9: `a` is already declared in this block [name-error]\n"
        "    k.kdsl:2:9: first declared here\n"
        "    help: use another name, or assign to the existing variable\n"
        "k.kdsl:4:12: unknown name `b` [name-error]"
    )


def test_unterminated_string_in_static_assert() -> None:
    with pytest.raises(CompileError) as ei:
        parse_kdsl('static_assert(true, "oops);\n', "k.kdsl")
    assert (1, 21, "unterminated string literal") in [
        (d.span.line, d.span.col, d.message) for d in ei.value.diagnostics
    ]


EXAMPLES = sorted((Path(__file__).resolve().parent.parent / "examples").glob("*.kdsl"))


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(EXAMPLES), st.integers(0, 10**6))
def test_removing_a_closing_brace_is_reported_at_an_opener(path: Path, k: int) -> None:
    """Delete one `}` of a valid example: the program is rejected, and an "unclosed" error sits on a `{`."""
    src = path.read_text(encoding="utf-8")
    closers = [i for i, c in enumerate(src) if c == "}"]
    cut = closers[k % len(closers)]
    text = src[:cut] + src[cut + 1 :]
    with pytest.raises(CompileError) as ei:
        parse_kdsl(text, "k.kdsl")
    lines = text.splitlines()
    for d in ei.value.diagnostics:
        assert d.check == "parse-error"
        if d.message.startswith("unclosed `{`"):
            assert lines[d.span.line - 1][d.span.col - 1] == "{"


@pytest.mark.parametrize(
    ("src", "where", "help"),
    [
        (
            "__global__ void k(float* o) { }",
            (1, 1),
            "a kernel is `kernel name(p: *global f32, n: u32) { ... }`",
        ),
        (
            "kernel k() {\n    __shared__ float t[32];\n}",
            (2, 16),
            "shared memory is `shared tile: [f32; 32, 33];`",
        ),
        ("kernel k() {\n    var i = 0;\n    i++;\n}", (3, 7), "`++` does not exist in .kdsl: write `x += 1`"),
        (
            "kernel k() {\n    float x = 1.0;\n}",
            (2, 11),
            "declare with `let x: f32 = ...;` (or `var` for a mutable variable)",
        ),
    ],
)
def test_cuda_syntax_habits_get_a_help_line(src: str, where: tuple[int, int], help: str) -> None:
    d = failure(src).diagnostics
    assert (d[0].check, (d[0].span.line, d[0].span.col), d[0].help) == ("parse-error", where, help)
