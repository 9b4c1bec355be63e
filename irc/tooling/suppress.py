"""Line-level suppressions (spec section 7): `// irc: allow(check-a, check-b)`.

The comment suppresses the named checks on its own line and on the next line, so it works both as a
trailing comment and as a comment on the line above the finding. The syntax is the same in `.kdsl` and
`.ptx` (both use `//` line comments), which is why this works on raw text and needs no parser; findings on
nvcc's or Triton's PTX are mapped to the .cu/.cuh/.py line, so comments there count too (`# irc: allow(...)`
in Python; `irc.tooling.locsource` reads those files). Only named
checks are suppressed: there is deliberately no `allow(all)` (a blanket switch hides new bugs), and the
name `all` is treated like any other name, i.e. it matches nothing. Kernel-level `@allow(...)` is an
attribute handled by the front end, not here.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar

from irc.diagnostics import Diagnostic, Span, warning
from irc.records import field, record

# `//` then optional spaces, `irc:`, `allow(...)`. Text after the closing parenthesis is free-form (a reason).
# `#` too: a Triton kernel's findings are mapped to its .py file, where comments start with `#`.
_ALLOW = re.compile(r"(?://|#)\s*irc\s*:\s*allow\s*\(([^)]*)\)")
_CHECK_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_-]*$")


@record
class Suppressions:
    """The `allow` comments of one source file: `by_line` maps the 1-based line of each comment to the
    check names it lists. `malformed` records (line, name) pairs that are not check names, so that a
    caller may warn about typos such as `allow(barrier divergence)`."""

    by_line: dict[int, frozenset[str]] = field(default_factory=dict)
    malformed: list[tuple[int, str]] = field(default_factory=list)

    @staticmethod
    def from_source(text: str) -> Suppressions:
        """Scan every line for allow comments (several per line are merged)."""
        sup = Suppressions()
        for lineno, line in enumerate(text.splitlines(), start=1):
            if "irc" not in line:  # cheap pre-filter; most lines have no comment at all
                continue
            names: set[str] = set()
            for m in _ALLOW.finditer(line):
                for raw in m.group(1).split(","):
                    name = raw.strip()
                    if not name:
                        continue
                    if _CHECK_NAME.match(name):
                        names.add(name)
                    else:
                        sup.malformed.append((lineno, name))
            if names:
                sup.by_line[lineno] = frozenset(names | sup.by_line.get(lineno, frozenset()))
        return sup

    def allows(self, check: str, line: int) -> bool:
        """True when an allow comment on `line` or on the line before it names `check`."""
        return check in self.by_line.get(line, ()) or check in self.by_line.get(line - 1, ())

    def matching_line(self, check: str, line: int) -> int | None:
        """The line of the allow comment that covers `check` at `line` (same line first), or None."""
        for n in (line, line - 1):
            if check in self.by_line.get(n, ()):
                return n
        return None

    def __bool__(self) -> bool:
        return bool(self.by_line)


#: While `recording()` is active: the (file, line, check) allow entries that suppressed something.
_USED: ContextVar[set[tuple[str, int, str]] | None] = ContextVar("irc_used_allows", default=None)


@contextmanager
def recording() -> Iterator[set[tuple[str, int, str]]]:
    """Collect which allow comments matched a finding, for `--warn-unused-allow`."""
    used: set[tuple[str, int, str]] = set()
    token = _USED.set(used)
    try:
        yield used
    finally:
        _USED.reset(token)


def filter(diags: Iterable[Diagnostic], sources: Mapping[str, str]) -> list[Diagnostic]:  # noqa: A001
    """Drop the diagnostics that an allow comment suppresses, keeping order. A diagnostic is matched at its
    primary span's start line, or at the line of any of its labels (the cause: the divergent `if`, the
    early `return`), in the span's own file; diagnostics without a span, or whose file is not in
    `sources`, are always kept (nothing can suppress what cannot be located)."""
    cache: dict[str, Suppressions] = {}
    kept: list[Diagnostic] = []
    used = _USED.get()
    for d in diags:
        spans = [d.span, *(lab.span for lab in d.labels)] if d.span is not None else []
        hit: tuple[str, int] | None = None
        for span in spans:
            if span.file not in sources:
                continue
            sup = cache.get(span.file)
            if sup is None:
                sup = cache[span.file] = Suppressions.from_source(sources[span.file])
            n = sup.matching_line(d.check, span.line)
            if n is not None:
                hit = (span.file, n)
                break
        if hit is not None:
            if used is not None:
                used.add((hit[0], hit[1], d.check))
            continue
        kept.append(d)
    return kept


def _name_span(path: str, line: str, lineno: int, name: str) -> Span:
    m = _ALLOW.search(line)
    col = line.find(name, m.start(1) if m else 0) + 1
    return Span(path, lineno, max(col, 1), lineno, max(col, 1) + len(name))


def lint(
    text: str, path: str, known: Callable[[str], bool], suggest: Callable[[str], str | None]
) -> list[Diagnostic]:
    """`unknown-check` warnings for allow comments that name no check (with a did-you-mean)."""
    sup = Suppressions.from_source(text)
    lines = text.splitlines()
    out = []
    for lineno, names in sorted(sup.by_line.items()):
        for name in sorted(names):
            if known(name):
                continue
            dym = suggest(name)
            out.append(
                warning(
                    "unknown-check",
                    f"`{name}` is not a check name" + (f"; did you mean `{dym}`?" if dym else ""),
                    _name_span(path, lines[lineno - 1], lineno, name),
                    help="`irc check --list-checks` prints every check name",
                )
            )
    for lineno, name in sup.malformed:
        out.append(
            warning(
                "unknown-check",
                f"`{name}` is not a check name (names are like `barrier-divergence`)",
                _name_span(path, lines[lineno - 1], lineno, name),
            )
        )
    return out


def unused(
    text: str, path: str, used: set[tuple[str, int, str]], known: Callable[[str], bool]
) -> list[Diagnostic]:
    """`unused-allow` warnings for allow entries (of known checks) that suppressed nothing."""
    sup = Suppressions.from_source(text)
    lines = text.splitlines()
    out = []
    for lineno, names in sorted(sup.by_line.items()):
        for name in sorted(names):
            if known(name) and (path, lineno, name) not in used:
                out.append(
                    warning(
                        "unused-allow",
                        f"`allow({name})` suppresses nothing here",
                        _name_span(path, lines[lineno - 1], lineno, name),
                        help="delete the stale comment (it would hide the next real finding on this line)",
                    )
                )
    return out
