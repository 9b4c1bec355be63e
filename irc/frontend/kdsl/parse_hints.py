"""Syntax errors that deserve a better message than "expected X, found Y" (used by `parse._Driver`).

* An unclosed `{` (or `(` / `[`): the parser only notices at the end of the file, far from the mistake. The
  diagnostic points at the opener instead. Which opener: the brackets still open at the end are known, but
  the one the author forgot is usually earlier: a `}` whose indentation differs from the line that opened
  the block it closes was probably meant for an outer block (the forgotten `}` is the inner one's). So the
  first such mismatched pair names the likely culprit; without one, the innermost opener still open.
* A C-style `for (init; cond; step)` gives one error that shows the .kdsl spelling, and the parser resumes
  after the matching `)` (the body then parses as a block), instead of three unrelated errors.
"""

from __future__ import annotations

from irc.diagnostics import Diagnostic, Label, Span, error

from .lexer import END, Tok

_PAIRS = {"{": "}", "(": ")", "[": "]"}
_CLOSERS = {v: k for k, v in _PAIRS.items()}


def _span(path: str, t: Tok) -> Span:
    return Span(path, t.line, t.col, t.end_line, max(t.end_col, t.col + 1))


def unclosed_delimiter(tokens: list[Tok], end: int, path: str) -> Diagnostic | None:
    """At the end of the input (token `end`): the diagnostic for a bracket that was never closed."""
    indent: dict[int, int] = {}
    for t in tokens[:end]:
        indent.setdefault(t.line, t.col)
    stack: list[Tok] = []
    suspect: Tok | None = None
    for t in tokens[:end]:
        if t.value in _PAIRS and t.type != "STRING":
            stack.append(t)
        elif t.value in _CLOSERS and t.type != "STRING":
            if stack and stack[-1].value == _CLOSERS[t.value]:
                opener = stack.pop()
                if (
                    suspect is None
                    and t.value == "}"
                    and opener.line != t.line
                    and indent.get(t.line) == t.col
                    and indent.get(opener.line) != t.col
                ):
                    suspect = opener
    if not stack:
        return None
    culprit = suspect if suspect is not None and suspect.value == "{" else stack[-1]
    close = _PAIRS[culprit.value]
    last = tokens[end - 1] if end > 0 else tokens[end]
    labels = [
        Label(Span(path, last.end_line, last.end_col, last.end_line, last.end_col + 1), "the file ends here")
    ]
    help = f"add the missing `{close}`"
    if culprit is suspect:
        help += " (a `}` further down is indented like an outer block, so this block is probably the one left open)"
    return error(
        "parse-error", f"unclosed `{culprit.value}`: the file ends before its `{close}`", _span(path, culprit),
        labels=labels, help=help,
    )  # fmt: skip


def c_style_for(tokens: list[Tok], i: int, path: str) -> tuple[Diagnostic, int] | None:
    """`for (` at token `i` (the `(`): the diagnostic and the index just after the matching `)`."""
    if i == 0 or tokens[i].value != "(" or tokens[i - 1].value != "for":
        return None
    depth = 0
    for j in range(i, len(tokens)):
        t = tokens[j]
        if t.type == END or (t.value in ("{", "}") and t.type != "STRING"):
            return None
        if t.value == "(":
            depth += 1
        elif t.value == ")":
            depth -= 1
            if depth == 0:
                f = tokens[i - 1]
                span = Span(path, f.line, f.col, t.end_line, t.end_col)
                d = error(
                    "parse-error",
                    "C-style `for (init; condition; step)` loops do not exist in .kdsl",
                    span,
                    help="write `for i in a..b { ... }` (half-open; add `step s` for a stride)",
                )
                return d, j + 1
    return None


# Habits from CUDA C++ that stop the parser, with the .kdsl spelling (the help of the syntax error).
_CUDA_SYNTAX = {
    "__global__": "a kernel is `kernel name(p: *global f32, n: u32) { ... }`",
    "__device__": "a device function is `fn name(x: f32) -> f32 { ... }`",
    "__shared__": "shared memory is `shared tile: [f32; 32, 33];`",
    "void": "a kernel is `kernel name(...) { ... }`; a function without a result has no `->`",
    "float": "declare with `let x: f32 = ...;` (or `var` for a mutable variable)",
    "int": "declare with `let x: i32 = ...;` (or `var` for a mutable variable)",
    "unsigned": "declare with `let x: u32 = ...;` (or `var` for a mutable variable)",
    "auto": "declare with `let x = ...;` (or `var` for a mutable variable)",
}


def cuda_syntax_hint(tokens: list[Tok], i: int) -> str | None:
    """A help line for a syntax error at token `i` caused by a CUDA C++ habit, or None."""
    t = tokens[i]
    prev = tokens[i - 1] if i > 0 else None
    nxt = tokens[i + 1] if i + 1 < len(tokens) else None
    if prev is not None and t.value in ("+", "-") and prev.value == t.value:
        return f"`{t.value}{t.value}` does not exist in .kdsl: write `x {t.value}= 1`"
    if t.value in ("+", "-") and nxt is not None and nxt.value == t.value:
        return f"`{t.value}{t.value}` does not exist in .kdsl: write `x {t.value}= 1`"
    if prev is not None and prev.value in _CUDA_SYNTAX and t.type == "IDENT":  # `float x`, `__shared__ float`
        return _CUDA_SYNTAX[prev.value]
    return _CUDA_SYNTAX.get(t.value)
