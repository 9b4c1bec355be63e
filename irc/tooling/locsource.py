"""The user's source files behind a PTX file (`.file`/`.loc`: nvcc -lineinfo, Triton), and the `// irc:`
comments in them.

Why: a finding on nvcc's or Triton's PTX is mapped to the .cu/.cuh/.py line it came from
(`irc.analysis.report.map_to_source`), so the comments that steer the analysis must be read there too:
`// irc: allow(check)` in a .cu file (or `# irc: allow(check)` in a Triton .py file) suppresses the
finding mapped to its line, exactly as in .kdsl (`irc.tooling.suppress`, fed with these texts).

Hook for launch contracts (issue 26): `loc_directives(ptx_text, ptx_path, "assume")` returns every
`// irc: assume(...)` comment of those files with the PTX instruction lines its source line (or the line
below, as for `allow`) compiled to, which is where an assumption about the values on that line applies.
Nothing here interprets `assume`; the argument text is handed over verbatim.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping

from irc.diagnostics import Diagnostic
from irc.records import field, record


def read_text(path: str) -> str | None:
    """The text of a user's source file, or None when it cannot be read (deleted, elsewhere)."""
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            return fh.read()
    except OSError:
        return None


def user_sources(diags: Iterable[Diagnostic], known: Mapping[str, str]) -> dict[str, str]:
    """The texts of the files that the findings' spans (primary and labels) name and `known` lacks: the
    .cu, .cuh and .py files that findings on PTX were mapped to."""
    out: dict[str, str] = {}
    for d in diags:
        spans = [d.span, *(lab.span for lab in d.labels)] if d.span is not None else []
        for s in spans:
            if s.file in known or s.file in out:
                continue
            text = read_text(s.file)
            if text is not None:
                out[s.file] = text
    return out


def loc_paths(ptx_text: str, ptx_path: str) -> list[str]:
    """The user source files a PTX text names in `.file` (toolkit headers left out), resolved as the
    findings are (`irc.ptxisa.lineinfo.resolve`), in `.file` order."""
    from irc.ptxisa.lineinfo import LineInfo, is_system, resolve

    if ".file" not in ptx_text:
        return []
    files = LineInfo(ptx_text).files.values()
    return list(dict.fromkeys(resolve(f, ptx_path) for f in files if not is_system(f)))


def loc_sources(ptx_text: str, ptx_path: str) -> dict[str, str]:
    """path -> text of every `loc_paths` file that can be read."""
    out: dict[str, str] = {}
    for p in loc_paths(ptx_text, ptx_path):
        text = read_text(p)
        if text is not None:
            out[p] = text
    return out


@record
class LocDirective:
    """One `// irc: VERB(ARGS)` comment in a user source file, with the PTX lines it covers: the
    instructions whose `.loc` (followed out of toolkit headers) is the comment's line or the next one."""

    file: str
    line: int
    args: str
    ptx_lines: list[int] = field(default_factory=list)


def directives(text: str, verb: str) -> list[tuple[int, str]]:
    """(line, argument text) of each `// irc: VERB(...)` or `# irc: VERB(...)` comment; the argument
    may contain balanced parentheses (`assume(n % (32 * k) == 0)`)."""
    head = re.compile(r"(?://|#)\s*irc\s*:\s*" + re.escape(verb) + r"\s*\(")
    out: list[tuple[int, str]] = []
    for lineno, line in enumerate(text.splitlines(), start=1):
        if "irc" not in line:
            continue
        for m in head.finditer(line):
            depth, i = 1, m.end()
            while i < len(line) and depth:
                depth += {"(": 1, ")": -1}.get(line[i], 0)
                i += 1
            if depth == 0:
                out.append((lineno, line[m.end() : i - 1].strip()))
    return out


def loc_directives(ptx_text: str, ptx_path: str, verb: str) -> list[LocDirective]:
    """Every `VERB(...)` comment in the user sources of a PTX text, with the PTX lines it covers."""
    from irc.ptxisa.lineinfo import LineInfo, resolve

    sources = loc_sources(ptx_text, ptx_path)
    found = [LocDirective(f, n, a) for f, text in sources.items() for n, a in directives(text, verb)]
    if not found:
        return []
    info = LineInfo(ptx_text)
    at: dict[tuple[str, int], list[int]] = {}
    for ptx_line in info.loc_of_line:
        loc = info.at(ptx_line)
        if loc is not None:
            at.setdefault((resolve(loc[0], ptx_path), loc[1]), []).append(ptx_line)
    for d in found:
        d.ptx_lines = sorted(at.get((d.file, d.line), []) + at.get((d.file, d.line + 1), []))
    return found


def stale_sources(ptx_text: str, ptx_path: str, slack_s: float = 2.0) -> list[str]:
    """The user sources named by the PTX's `.file` lines that were modified more than `slack_s` seconds
    after the PTX file: its `.loc` lines may point at the wrong source lines. The slack absorbs a
    checkout, which writes a source and its PTX in whatever order within moments."""
    try:
        ptx_mtime = os.stat(ptx_path).st_mtime
    except OSError:
        return []
    out = []
    for p in loc_paths(ptx_text, ptx_path):
        try:
            if os.stat(p).st_mtime > ptx_mtime + slack_s:
                out.append(p)
        except OSError:
            continue
    return out
