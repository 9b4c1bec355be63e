"""Shaping the analyzer's findings for people: the user's source location, and one finding per bug.

- `map_to_source`: for lifted PTX with `.file`/`.loc`, the primary span and every label become the
  user's source lines (following `inlined_at` out of CUDA's headers, see `irc.ptxisa.lineinfo`); the PTX
  instructions stay in `Diagnostic.origin` and `Label.origin`, which the renderers show as a note.
- `group`: unrolled loops and inlined helpers repeat one bug many times (16 copies of one barrier in an
  unrolled loop). Findings with the same check, kernel and primary location are one finding; the first
  copy is kept, its message ends with "(N instances)" (so every output format shows it) and a note lists
  where the copies are.
- every finding from the analyzer names its kernel (`Diagnostic.kernel`, set by `check_function`); the
  text, SARIF and GitHub formats show it as a note, JSON as the `kernel` key.
"""

from __future__ import annotations

import re

from irc.diagnostics import Diagnostic, Label, Span

_MAX_LISTED = 8
_LINE = re.compile(r"\bline (\d+)\b")


def _source_lines(text: str, path: str):  # type: ignore[no-untyped-def]
    """Span in PTX file `path` -> the source span its `.loc` names (None without one); each source file
    resolved once."""
    from irc.ptxisa.lineinfo import LineInfo, resolve

    info = LineInfo(text)
    resolved: dict[str, str] = {}

    def to_source(s: Span) -> Span | None:
        at = info.at(s.line)
        if at is None:
            return None
        f, line, col = at
        if f not in resolved:
            resolved[f] = resolve(f, path)
        col = max(col, 1)
        return Span(resolved[f], line, col, line, col + 1)

    return to_source


def map_to_source(diags: list[Diagnostic], text: str, path: str) -> list[Diagnostic]:
    """Move spans in PTX file `path` to the user's source lines named by its `.loc` lines: the primary
    span and every label, so the whole finding (the barrier, the divergent branch, the early `return`)
    reads in the .cu or .py file. The PTX instruction of each is kept in `origin` (the renderers show
    it as a note). A span without `.loc` information stays on its PTX line."""
    mine = [d for d in diags if d.span is not None and d.span.file == path and d.origin is None]
    if not mine or ".loc" not in text:
        return diags
    to_source = _source_lines(text, path)

    for d in mine:
        s = d.span
        assert s is not None
        mapped = to_source(s)
        if mapped is not None:
            d.origin = s
            d.span = mapped
        labels = []
        for lab in d.labels:
            m = to_source(lab.span) if lab.span.file == path and lab.origin is None else None
            labels.append(Label(m, lab.message, lab.span) if m is not None else lab)
        d.labels = labels
    for d in diags:
        w = d.witness
        if w and w.get("template") and w.get("refs"):
            from irc.analysis.symbolic.witness import fill

            def where(f: str, ln: int) -> tuple[str, int] | None:
                if f != path:
                    return None
                m = to_source(Span(f, ln, 1, ln, 2))
                return None if m is None else (m.file, m.line)

            w["text"] = fill(w["template"], w["refs"], where)
    return diags


def message_lines(diags: list[Diagnostic], text: str, path: str) -> list[Diagnostic]:
    """`line N` in the message of a finding mapped to source names PTX line N of `path` (the checks speak
    of the instructions they see): the source line its `.loc` names instead, as `line M` in the finding's
    own file, else `file:M`. Run on the whole file's findings after any per-function split has put its
    chunk lines back (`irc.compiler.check_ptx`), so both ways of checking a file say the same."""
    mapped = [d for d in diags if d.origin is not None and d.origin.file == path and d.span is not None]
    if not mapped or ".loc" not in text:
        return diags
    to_source = _source_lines(text, path)

    def sub(m: re.Match, home: str) -> str:
        n = int(m.group(1))
        at = to_source(Span(path, n, 1, n, 2))
        if at is None:
            return m.group(0)
        return f"line {at.line}" if at.file == home else f"{at.file}:{at.line}"

    for d in mapped:
        home = d.span.file  # type: ignore[union-attr]
        d.message = _LINE.sub(lambda m, home=home: sub(m, home), d.message)
    return diags


def _key(d: Diagnostic) -> tuple:
    s = d.span
    return (
        (d.check, d.severity, d.kernel, s.file, s.line, s.col)
        if s
        else (d.check, d.severity, d.kernel, id(d))
    )


def group(diags: list[Diagnostic]) -> list[Diagnostic]:
    """One finding per (check, kernel, primary location); copies counted in the message and a note."""
    if len(diags) < 2:
        return diags
    groups: dict[tuple, list[Diagnostic]] = {}
    for d in diags:
        groups.setdefault(_key(d), []).append(d)
    out: list[Diagnostic] = []
    for ds in groups.values():
        first = ds[0]
        n = len(ds)
        if n > 1:
            first.message = f"{first.message} ({n} instances)"
            where = list(dict.fromkeys(f"{w.file}:{w.line}" for d in ds if (w := d.origin) is not None))
            text = f"{n} instances of this finding (copies made by unrolling or inlining)"
            if where:
                more = f" and {len(where) - _MAX_LISTED} more" if len(where) > _MAX_LISTED else ""
                text += ": " + ", ".join(where[:_MAX_LISTED]) + more
            first.notes = [*first.notes, text]
        out.append(first)
    return out


def kernel_notes(diags: list[Diagnostic]) -> list[Diagnostic]:
    """Name the kernel of each finding in a note (the text, SARIF and GitHub formats show notes)."""
    for d in diags:
        if d.kernel and not any(n.startswith("in kernel `") for n in d.notes):
            d.notes = [f"in kernel `{d.kernel}`", *d.notes]
    return diags
