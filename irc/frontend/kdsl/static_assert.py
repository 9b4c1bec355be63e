"""`static_assert(cond, "message")`: a compile-time check written by the kernel's author.

Why labels with values: the typical failure is a `param` overridden at compile time (`-D D=48`) that breaks
an assumption the kernel makes silently (`D / 32` lanes drop dims 32..47). The diagnostic names every
constant the condition reads with its value, so the reader sees *why* it failed without re-deriving it.
A condition that is constant only per copy of an `unroll for` is checked by the lowering, per copy.
"""

from __future__ import annotations

from irc.diagnostics import Diagnostic, Label, error

from . import ast
from .types import BOOL, ErrorType

CHECK = "static-assert"


def constant_names(e: ast.Expr) -> list[ast.Name]:
    out: list[ast.Name] = []
    stack: list[object] = [e]
    while stack:
        x = stack.pop()
        if isinstance(x, ast.Name):
            out.append(x)
        elif isinstance(x, ast.Node):
            stack.extend(getattr(x, f) for f in x.fields if f != "span")
        elif isinstance(x, list):
            stack.extend(x)
    return sorted(out, key=lambda n: (n.span.line, n.span.col))


def failure(s: ast.StaticAssert, values: dict) -> Diagnostic:
    """The `static-assert` error for a condition that evaluated to false."""
    labels = []
    seen: set[str] = set()
    for n in constant_names(s.cond):
        v = values.get(n)
        if v is not None and n.ident not in seen:
            seen.add(n.ident)
            labels.append(Label(n.span, f"`{n.ident}` is {v}"))
    msg = f"static assertion failed: {s.message}" if s.message else "static assertion failed"
    return error(CHECK, msg, s.cond.span, labels=labels)


class StaticAssertMixin:
    """Sema of `static_assert`; state lives in `sema.Analyzer`."""

    def static_assert(self, s: ast.StaticAssert) -> None:
        t = self.finish(s.cond, self.value_expr(s.cond))
        if isinstance(t, ErrorType):
            return
        if t != BOOL:
            self.err(
                "type-error", f"the condition of `static_assert` must be `bool`, found `{t}`", s.cond.span
            )
            return
        if s.cond in self.per_copy:
            return  # constant per unrolled copy: the lowering checks each copy
        v = self.const_of(s.cond, "the condition of `static_assert`")
        if v is False:
            self.diags.append(failure(s, self.values))

    def module_static_asserts(self) -> None:
        saved = self.scopes
        self.scopes = []
        try:
            for s in self.program.asserts:
                self.static_assert(s)
        finally:
            self.scopes = saved
