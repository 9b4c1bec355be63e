"""Diagnostics: source spans, findings, and the error type that carries them.

Every user-facing problem (a parse error, a type error, an analyzer finding) is a `Diagnostic` with a stable
`check` name (spec section 8), a primary `Span`, optional labelled secondary spans and a help line. The
renderers (text in the style of rustc, JSON per spec section 9, SARIF 2.1.0, GitHub annotations) live in
`irc.tooling.render` so that this module stays a dependency-free data model that every layer can import.
"""

from __future__ import annotations

from enum import Enum

from irc.records import field, record


def show_path(path: str) -> str:
    """`path` as it may be printed: control characters (a newline, an escape, a tab) escaped the way
    Python writes them in a string, so a file name cannot start a line of its own (a forged
    `::warning ...::` workflow command) or move the cursor. Ordinary names are unchanged."""
    if path.isprintable():
        return path
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in path)


@record(frozen=True)
class Span:
    """A source range. Lines and columns are 1-based; `end_col` is exclusive-after-last (rustc style:
    a one-character span has end_col == col + 1). `file` is the path as the user gave it."""

    file: str
    line: int
    col: int
    end_line: int
    end_col: int

    @staticmethod
    def point(file: str, line: int, col: int, length: int = 1) -> Span:
        return Span(file, line, col, line, col + max(length, 1))

    def __str__(self) -> str:
        return f"{show_path(self.file)}:{self.line}:{self.col}"


class Severity(str, Enum):
    ERROR = "error"
    WARNING = "warning"
    NOTE = "note"


@record(frozen=True)
class Label:
    """A secondary span with a message ("depends on tid.x through `i`"). `origin` is the PTX
    instruction when `span` was mapped to the user's source through `.loc` (as `Diagnostic.origin`)."""

    span: Span
    message: str
    origin: Span | None = None


@record
class Diagnostic:
    """One finding. `check` is the stable name from spec section 8 (e.g. `barrier-divergence`)."""

    check: str
    severity: Severity
    message: str
    span: Span | None
    labels: list[Label] = field(default_factory=list)
    help: str | None = None
    notes: list[str] = field(default_factory=list)
    kernel: str | None = None  # the kernel (or function) the finding is in, when it comes from the analyzer
    origin: Span | None = None  # the PTX instruction, when `span` was mapped to the user's source (.loc)
    # the concrete launch that shows the finding (the analyzer's solver model): a JSON-able dict whose
    # "text" is the sentence renderers print (`irc.analysis.symbolic.witness.Witness.to_json`)
    witness: dict | None = None

    @property
    def is_error(self) -> bool:
        return self.severity == Severity.ERROR

    def sort_key(self) -> tuple:
        s = self.span
        return (s.file, s.line, s.col, self.check) if s else ("", 0, 0, self.check)


def error(check: str, message: str, span: Span | None, **kw) -> Diagnostic:
    return Diagnostic(check, Severity.ERROR, message, span, **kw)


def warning(check: str, message: str, span: Span | None, **kw) -> Diagnostic:
    return Diagnostic(check, Severity.WARNING, message, span, **kw)


def note(check: str, message: str, span: Span | None, **kw) -> Diagnostic:
    return Diagnostic(check, Severity.NOTE, message, span, **kw)


class CompileError(Exception):
    """Raised when user input has errors; carries every diagnostic found (never only the first)."""

    def __init__(self, diagnostics: list[Diagnostic]):
        self.diagnostics = list(diagnostics)
        first = self.diagnostics[0] if self.diagnostics else None
        super().__init__(f"{first.span}: {first.message}" if first else "compile error")

    def __str__(self) -> str:
        """Every diagnostic, one per line (`file:line:col: message [check]`), each followed by its labels and
        help indented: what a log or a test failure shows should be the whole story, not the first line."""
        if not self.diagnostics:
            return "compile error"
        out: list[str] = []
        for d in self.diagnostics:
            where = f"{d.span}: " if d.span is not None else ""
            kind = "" if d.is_error else f"{d.severity.value}: "
            out.append(f"{where}{kind}{d.message} [{d.check}]")
            for lb in d.labels:
                out.append(f"    {lb.span}: {lb.message}")
            for n in d.notes:
                out.append(f"    note: {n}")
            if d.help:
                out.append(f"    help: {d.help}")
        return "\n".join(out)


class InternalCompilerError(Exception):
    """A bug in irc itself (e.g. the allocation checker found a miscompile). Reported as
    'internal compiler error' with the op involved and a hint to report it; never blamed on the user."""

    def __init__(self, message: str, op: str | None = None, span: Span | None = None):
        self.op = op
        self.span = span
        super().__init__(message)
