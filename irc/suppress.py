"""Line-level suppressions (spec section 7): `// irc: allow(check-a, check-b)`.

The comment suppresses the named checks on its own line and on the next line, so it works both as a
trailing comment and as a comment on the line above the finding. The syntax is the same in `.kdsl` and
`.ptx` (both use `//` line comments), which is why this works on raw text and needs no parser. Only named
checks are suppressed: there is deliberately no `allow(all)` (a blanket switch hides new bugs), and the
name `all` is treated like any other name, i.e. it matches nothing. Kernel-level `@allow(...)` is an
attribute handled by the front end, not here.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from irc.diagnostics import Diagnostic

# `//` then optional spaces, `irc:`, `allow(...)`. Text after the closing parenthesis is free-form (a reason).
_ALLOW = re.compile(r"//\s*irc\s*:\s*allow\s*\(([^)]*)\)")
_CHECK_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_-]*$")


@dataclass
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

    def __bool__(self) -> bool:
        return bool(self.by_line)


def filter(diags: Iterable[Diagnostic], sources: Mapping[str, str]) -> list[Diagnostic]:  # noqa: A001
    """Drop the diagnostics that an allow comment suppresses, keeping order. A diagnostic is matched by its
    primary span's start line in its own file; diagnostics without a span, or whose file is not in
    `sources`, are always kept (nothing can suppress what cannot be located)."""
    cache: dict[str, Suppressions] = {}
    kept: list[Diagnostic] = []
    for d in diags:
        span = d.span
        if span is not None and span.file in sources:
            sup = cache.get(span.file)
            if sup is None:
                sup = cache[span.file] = Suppressions.from_source(sources[span.file])
            if sup.allows(d.check, span.line):
                continue
        kept.append(d)
    return kept
