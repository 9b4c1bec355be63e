"""Renderers for diagnostics: human text in the style of rustc, JSON (spec section 9), SARIF 2.1.0 (code
scanning tools), and GitHub Actions workflow annotations.

Kept apart from `irc.diagnostics` so the data model stays dependency-free; every renderer takes the
diagnostics in the order the caller wants them shown (the CLI sorts with `Diagnostic.sort_key`).

Text-rendering conventions (documented here because emitters rely on them):
  * The primary span is underlined with `^`. A `Label` whose span equals the primary span gives the primary
    underline its message ("block-wide barrier") instead of being drawn twice.
  * Other labels are underlined with `-`; on one source line the rightmost message sits after its underline,
    the others hang below on `|` connectors, as rustc does.
  * Lines between shown lines: one skipped line is printed, longer gaps become `...`.
  * A multi-line primary span underlines its first line (to the end of the text) and marks the end line.
  * Labels in other files get their own `::: file:line:col` section.
  * A file missing from `sources` (or a line past its end) degrades to `= note: file:line:col: message`.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import TextIO
from urllib.parse import quote

from irc.diagnostics import Diagnostic, Severity, Span
from irc.records import record

# ----------------------------------------------------------------------------------------------- colour

_RESET = "\x1b[0m"
_BOLD = "\x1b[1m"
_BLUE = "\x1b[1;34m"
_SEV_COLOR = {Severity.ERROR: "\x1b[1;31m", Severity.WARNING: "\x1b[1;33m", Severity.NOTE: "\x1b[1;32m"}
_ANSI = re.compile(r"\x1b\[[0-9;]*m")


def use_color(stream: TextIO) -> bool:
    """Colour only for a terminal, and never when NO_COLOR is set (https://no-color.org: any value)."""
    isatty = getattr(stream, "isatty", None)
    try:
        tty = bool(isatty()) if isatty is not None else False
    except (ValueError, OSError):  # closed or detached stream
        tty = False
    return tty and "NO_COLOR" not in os.environ


class _Paint:
    def __init__(self, color: bool):
        self.color = color

    def __call__(self, text: str, code: str) -> str:
        return f"{code}{text}{_RESET}" if self.color and text else text


# ----------------------------------------------------------------------------------------------- text


@record
class _Ann:
    """One underline on one source line, in display columns (0-based, end exclusive)."""

    line: int
    start: int
    end: int
    primary: bool
    message: str


def _display_col(text: str, idx: int) -> int:
    """Display column (0-based) of character index `idx`, with tabs expanded to 4 so underlines align."""
    if idx <= len(text):
        return len(text[:idx].expandtabs(4))
    return len(text.expandtabs(4)) + (idx - len(text))


def _line_text(lines: list[str] | None, n: int) -> str | None:
    if lines is None or n < 1 or n > len(lines):
        return None
    return lines[n - 1]


def _anns_for_span(span: Span, lines: list[str], primary: bool, message: str) -> list[_Ann]:
    text = _line_text(lines, span.line) or ""
    start_idx = max(span.col - 1, 0)
    if span.end_line > span.line:
        # Multi-line: underline the first line from the start column to the end of its text.
        end_idx = max(len(text.rstrip()), start_idx + 1)
        first = _Ann(span.line, _display_col(text, start_idx), _display_col(text, end_idx), primary, message)
        if not primary:
            return [first]
        end_text = _line_text(lines, span.end_line)
        if end_text is None:
            return [first]
        lead = len(end_text) - len(end_text.lstrip())
        e_end = max(span.end_col - 1, lead + 1)
        last = _Ann(
            span.end_line, _display_col(end_text, lead), _display_col(end_text, e_end), primary, "ends here"
        )
        return [first, last]
    end_idx = max(span.end_col - 1, start_idx + 1)
    return [_Ann(span.line, _display_col(text, start_idx), _display_col(text, end_idx), primary, message)]


def _ann_rows(anns: list[_Ann], sev_code: str, paint: _Paint) -> list[str]:
    """The rows under one source line: underlines, then hanging messages (rustc layout)."""

    def code(a: _Ann) -> str:
        return sev_code if a.primary else _BLUE

    width = max(a.end for a in anns)
    cells: list[tuple[str, str]] = [(" ", "")] * width
    for a in sorted(anns, key=lambda a: a.primary):  # primary drawn last so it wins overlaps
        ch = "^" if a.primary else "-"
        for c in range(a.start, a.end):
            cells[c] = (ch, code(a))

    with_msg = sorted((a for a in anns if a.message), key=lambda a: (a.start, a.end))
    inline: _Ann | None = None
    if with_msg:
        cand = with_msg[-1]
        if all(o is cand or o.end <= cand.end for o in anns):
            inline = cand
    hanging = [a for a in with_msg if a is not inline]

    def render(row: list[tuple[str, str]], tail: str = "", tail_code: str = "") -> str:
        out, run, run_code = [], "", None
        for ch, c in row:
            if c != run_code:
                out.append(paint(run, run_code) if run_code else run)
                run, run_code = "", c
            run += ch
        out.append(paint(run, run_code) if run_code else run)
        line = "".join(out)
        if tail:
            line += " " + paint(tail, tail_code)
        return line.rstrip()

    rows = [render(cells, inline.message if inline else "", code(inline) if inline else "")]
    pending = sorted(hanging, key=lambda a: a.start)
    while pending:
        h = pending[-1]
        conn_w = max(a.start for a in pending) + 1
        conn: list[tuple[str, str]] = [(" ", "")] * conn_w
        for a in pending:
            conn[a.start] = ("|", code(a))
        rows.append(render(conn))
        pending.pop()
        msg_row: list[tuple[str, str]] = [(" ", "")] * h.start
        for a in pending:
            if a.start < h.start:
                msg_row[a.start] = ("|", code(a))
        msg_line = render(msg_row)
        pad = " " * (h.start - len(_strip_ansi(msg_line)))
        rows.append(msg_line + pad + paint(h.message, code(h)))
    return rows


def _strip_ansi(s: str) -> str:
    return _ANSI.sub("", s)


def _footer(diag: Diagnostic, pad: str, paint: _Paint) -> list[str]:
    out: list[str] = []
    items = [("note", n) for n in diag.notes] + ([("help", diag.help)] if diag.help else [])
    if diag.witness and diag.witness.get("text"):
        items.insert(0, ("witness", diag.witness["text"]))
    for kind, text in items:
        head = f"{pad} = {paint(kind, _BOLD)}: "
        cont = " " * (len(pad) + 3 + len(kind) + 2)
        parts = str(text).splitlines() or [""]
        out.append(head + parts[0])
        out.extend(cont + p for p in parts[1:])
    return out


_LINES: dict[int, tuple[str, list[str]]] = {}  # recent sources split into lines (by identity)
_READ: dict[str, str | None] = {}  # files named by spans but not given to the renderer (.cu via .loc)
_KEEP = 8


def _split_lines(text: str) -> list[str]:
    """`text.splitlines()`, reused while the same sources are rendered: a 30 MB PTX file with hundreds of
    findings would otherwise be split once per finding (quadratic). A finding mapped through `.loc` names
    both the PTX and the .cu, so a few sources are kept, not just the last."""
    hit = _LINES.get(id(text))
    if hit is not None and hit[0] is text:
        return hit[1]
    if len(_LINES) >= _KEEP:
        _LINES.pop(next(iter(_LINES)))
    _LINES[id(text)] = (text, text.splitlines())
    return _LINES[id(text)][1]


def _render_one(diag: Diagnostic, sources: Mapping[str, str], paint: _Paint) -> str:
    sev = Severity(diag.severity)
    sev_code = _SEV_COLOR[sev]
    title = f"{sev.value}[{diag.check}]" if diag.check else sev.value
    out = [paint(title, sev_code) + paint(f": {diag.message}", _BOLD)]

    span = diag.span
    if span is None:
        footer = _footer(diag, "", paint)
        return "\n".join(out + footer)

    # Primary message from a label that repeats the primary span; the remaining labels are secondary.
    primary_msg = ""
    secondary = []
    for lab in diag.labels:
        if lab.span == span and not primary_msg:
            primary_msg = lab.message
        else:
            secondary.append(lab)

    file_lines: dict[str, list[str] | None] = {}

    def lines_of(f: str) -> list[str] | None:
        if f not in file_lines:
            text = sources.get(f)
            if text is None:
                text = _read_source(f)  # e.g. the .cu a PTX finding was mapped to through .loc
            file_lines[f] = _split_lines(text) if text is not None else None
        return file_lines[f]

    # Per file: annotations that can be drawn, and (span, message) pairs that cannot (missing source).
    order: list[str] = [span.file]
    anns: dict[str, list[_Ann]] = {}
    unshown: dict[str, list[tuple[Span, str]]] = {}
    first_span: dict[str, Span] = {span.file: span}

    def add(s: Span, primary: bool, message: str) -> None:
        if s.file not in order:
            order.append(s.file)
        cur = first_span.get(s.file)
        if s.file != span.file and (cur is None or (s.line, s.col) < (cur.line, cur.col)):
            first_span[s.file] = s
        lines = lines_of(s.file)
        if lines is None or _line_text(lines, s.line) is None:
            if message or primary:
                unshown.setdefault(s.file, []).append((s, message))
            return
        anns.setdefault(s.file, []).extend(_anns_for_span(s, lines, primary, message))

    add(span, True, primary_msg)
    for lab in secondary:
        add(lab.span, False, lab.message)

    # Shown line numbers per file (annotated lines plus single skipped lines) fix the gutter width.
    shown: dict[str, list[int]] = {}
    for f in order:
        ls = sorted({a.line for a in anns.get(f, [])})
        full: list[int] = []
        for n in ls:
            if full and n - full[-1] == 2:
                full.append(n - 1)
            full.append(n)
        shown[f] = full
    max_line = max([n for ls in shown.values() for n in ls] + [span.line])
    width = len(str(max_line))
    pad = " " * width
    bar = paint("|", _BLUE)
    empty_bar = f"{pad} {bar}"

    for i, f in enumerate(order):
        fs = first_span[f]
        if i == 0:
            out.append(f"{pad}{paint('-->', _BLUE)} {span}")
        else:
            out.append(empty_bar)
            out.append(f"{pad}{paint(':::', _BLUE)} {fs}")
        lines = lines_of(f)
        for s, msg in unshown.get(f, []):
            if s is span and not msg:
                continue
            out.append(f"{pad} = {paint('note', _BOLD)}: {s}: {msg}".rstrip())
        if not shown[f]:
            continue
        out.append(empty_bar)
        by_line: dict[int, list[_Ann]] = {}
        for a in anns.get(f, []):
            by_line.setdefault(a.line, []).append(a)
        prev: int | None = None
        for n in shown[f]:
            if prev is not None and n - prev > 1:
                out.append(paint("...", _BLUE))
            prev = n
            text = (_line_text(lines, n) or "").expandtabs(4).rstrip()
            out.append(f"{paint(str(n).rjust(width), _BLUE)} {bar} {text}".rstrip())
            if n in by_line:
                for row in _ann_rows(by_line[n], sev_code, paint):
                    out.append(f"{pad} {bar} {row}".rstrip())

    footer = _footer(diag, pad, paint)
    if footer:
        out.append(empty_bar)
        out.extend(footer)
    return "\n".join(out)


def _read_source(path: str) -> str | None:
    """A source file named by a span but not given to the renderer, when it is readable (read once per
    process: hundreds of findings map to the same few .cu files)."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    key = f"{path}\0{st.st_mtime_ns}\0{st.st_size}"  # a rewritten file is read again
    if key in _READ:
        return _READ[key]
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            text: str | None = fh.read()
    except OSError:
        text = None
    if len(_READ) >= 64:
        _READ.clear()
    _READ[key] = text
    return text


def _instr(s: Span) -> str:
    """` `bar.sync 0;` ` for a PTX span whose file is readable, else empty."""
    text = _read_source(s.file)
    if text is None:
        return ""
    lines = _split_lines(text)
    if not 0 < s.line <= len(lines):
        return ""
    t = " ".join(lines[s.line - 1].split())
    return f" `{t if len(t) <= 60 else t[:57] + '...'}`"


def ptx_note(d: Diagnostic) -> str | None:
    """The PTX instructions behind a finding mapped to the user's source through `.loc` (its own and its
    labels', in order), as one note: `PTX k.ptx: 53 `bar.sync 0;`; labels: 40 `@%p1 bra ...;`, 67 `ret;``."""
    if d.origin is None and not any(lab.origin for lab in d.labels):
        return None
    o = d.origin or next(lab.origin for lab in d.labels if lab.origin is not None)
    assert o is not None
    text = f"PTX {o.file}:"
    if d.origin is not None:
        text += f" {d.origin.line}{_instr(d.origin)}"
    labs = [lab.origin for lab in d.labels if lab.origin is not None]
    if labs:
        text += ("; labels: " if d.origin is not None else " labels: ") + ", ".join(
            f"{x.line}{_instr(x)}" if x.file == o.file else f"{x.file}:{x.line}{_instr(x)}" for x in labs
        )
    return text


def for_display(d: Diagnostic) -> Diagnostic:
    """`d` as people read it: mangled C++ names in its message, labels, notes and help demangled
    (`irc.tooling.demangle`), and the PTX lines behind a finding mapped through `.loc` as a note. Every
    renderer shows this; the diagnostic itself keeps the symbols and its origins."""
    note = ptx_note(d)
    texts = [d.message, d.help or "", *d.notes, *(lab.message for lab in d.labels)]
    if note is None and not any("_Z" in t for t in texts):
        return d
    from irc.diagnostics import Label
    from irc.records import replace
    from irc.tooling.demangle import demangle_text as dm

    labels = [Label(lab.span, dm(lab.message), lab.origin) for lab in d.labels]
    notes = [dm(n) for n in d.notes] + ([note] if note else [])
    return replace(
        d, message=dm(d.message), help=dm(d.help) if d.help else d.help, notes=notes, labels=labels
    )


def render_text(diags: Iterable[Diagnostic], sources: Mapping[str, str], color: bool = False) -> str:
    """All diagnostics in rustc style, separated by blank lines; ends with a newline unless empty.
    `sources` maps a span's file (as written in the span) to its text."""
    paint = _Paint(color)
    blocks = [_render_one(for_display(d), sources, paint) for d in diags]
    return "\n\n".join(blocks) + "\n" if blocks else ""


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def summary_line(diags: Sequence[Diagnostic], files_checked: int) -> str:
    """`irc: 2 errors, 1 warning in 3 files`, or `irc: no findings in 3 files`."""
    counts = {s: 0 for s in Severity}
    for d in diags:
        counts[Severity(d.severity)] += 1
    parts = [_plural(counts[s], s.value) for s in Severity if counts[s]]
    what = ", ".join(parts) if parts else "no findings"
    return f"irc: {what} in {_plural(files_checked, 'file')}"


# ----------------------------------------------------------------------------------------------- JSON


def diagnostic_to_json(d: Diagnostic, display: bool = False) -> dict:
    """The spec section 9 object for one diagnostic (those keys; location fields are null when the
    diagnostic has no span, `help` is null when absent), plus `kernel` for analyzer findings. With
    `display` (what `--format json` prints) C++ names are demangled and a mangled kernel's symbol is
    kept as `symbol`; without it (the compile cache) the diagnostic round-trips unchanged."""
    symbol = d.kernel
    if display:
        d = for_display(d)
    s = d.span
    obj = {
        "check": d.check,
        "severity": Severity(d.severity).value,
        "file": s.file if s else None,
        "line": s.line if s else None,
        "column": s.col if s else None,
        "end_line": s.end_line if s else None,
        "end_column": s.end_col if s else None,
        "message": d.message,
        "labels": [
            {"file": lab.span.file, "line": lab.span.line, "column": lab.span.col, "message": lab.message}
            | ({"ptx": _where(lab.origin)} if display and lab.origin is not None else {})
            for lab in d.labels
        ],
        "help": d.help,
    }
    if display and d.origin is not None:
        obj["ptx"] = _where(d.origin)  # the PTX instruction behind a finding mapped through .loc
    if d.kernel:
        obj["kernel"] = d.kernel
        if display:
            from irc.tooling.demangle import demangle

            obj["kernel"] = demangle(d.kernel)
            if obj["kernel"] != symbol:
                obj["symbol"] = symbol
    if d.witness:
        obj["witness"] = d.witness
    return obj


def _where(s: Span) -> dict:
    return {"file": s.file, "line": s.line, "column": s.col}


def diagnostic_from_json(obj: dict) -> Diagnostic:
    """The inverse of `diagnostic_to_json` (label end positions, which the schema omits, become one
    character wide). Used by the compile cache to replay a compile's warnings on a hit."""
    from irc.diagnostics import Label

    span = None
    if obj.get("file") is not None:
        span = Span(obj["file"], obj["line"], obj["column"], obj["end_line"], obj["end_column"])
    labels = [
        Label(Span.point(x["file"], x["line"], x["column"]), x["message"]) for x in obj.get("labels", [])
    ]
    d = Diagnostic(obj["check"], Severity(obj["severity"]), obj["message"], span, labels, obj.get("help"))
    d.kernel = obj.get("kernel")
    w = obj.get("witness")
    d.witness = w if isinstance(w, dict) else None
    return d


def render_json(diags: Iterable[Diagnostic], files_checked: int) -> str:
    """`{"diagnostics": [...], "files_checked": N}` per spec section 9 (notes are not part of that schema)."""
    obj = {"diagnostics": [diagnostic_to_json(d, True) for d in diags], "files_checked": files_checked}
    return json.dumps(obj, indent=2) + "\n"


# ----------------------------------------------------------------------------------------------- SARIF

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"

_SARIF_LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.NOTE: "note"}


def _artifact_uri(path: str) -> str:
    """A SARIF artifact URI: forward slashes, percent-encoded, relative paths stay relative."""
    return quote(path.replace("\\", "/"), safe="/:._-~")


def _sarif_location(s: Span) -> dict:
    return {
        "physicalLocation": {
            "artifactLocation": {"uri": _artifact_uri(s.file)},
            "region": {
                "startLine": s.line,
                "startColumn": s.col,
                "endLine": s.end_line,
                "endColumn": s.end_col,
            },
        }
    }


def _sarif_rule(rid: str, docs_url: str | None) -> dict:
    """A reportingDescriptor: short and full description, the docs section as help (markdown, shown by
    code-scanning UIs) and as `helpUri`, and the check's default level."""
    from irc.tooling import checkinfo

    short = checkinfo.summary(rid)
    rule: dict = {"id": rid, "name": rid, "shortDescription": {"text": short}}
    if checkinfo.known(rid):
        long = checkinfo.explain(rid)
        rule["fullDescription"] = {"text": long.split("\n\n", 2)[1] if long.count("\n\n") >= 1 else short}
        rule["helpUri"] = checkinfo.help_uri(rid, docs_url)
        rule["help"] = {"text": long, "markdown": long}
        rule["defaultConfiguration"] = {"level": checkinfo.default_severity(rid)}
    return rule


def render_sarif(
    diags: Iterable[Diagnostic],
    tool_version: str,
    sources: Mapping[str, str] | None = None,
    docs_url: str | None = None,
    fingerprints: Sequence[str] | None = None,
) -> str:
    """A SARIF 2.1.0 log with one run of tool "irc". Rules are the check names used, in first-use order;
    SARIF's endColumn is exclusive like `Span.end_col`, so columns map 1:1. Help and notes go to the
    result's `properties` because SARIF has no per-result help field. With `sources`, every result gets
    its stable fingerprint (`irc.tooling.baseline`) in `partialFingerprints` (or the given `fingerprints`, one per
    diagnostic, when the caller computed them before filtering the list)."""
    diags = list(diags)
    rule_ids: list[str] = []
    for d in diags:
        if d.check not in rule_ids:
            rule_ids.append(d.check)
    rules = [_sarif_rule(rid, docs_url) for rid in rule_ids]
    from irc.tooling.baseline import FINGERPRINT_KEY

    fps = list(fingerprints) if fingerprints is not None else None
    if fps is None and sources is not None:
        from irc.tooling.baseline import fingerprints as compute

        fps = compute(diags, sources)
    results = []
    for d in map(for_display, diags):
        res: dict = {
            "ruleId": d.check,
            "ruleIndex": rule_ids.index(d.check),
            "level": _SARIF_LEVEL[Severity(d.severity)],
            "message": {"text": d.message},
        }
        if d.span is not None:
            res["locations"] = [_sarif_location(d.span)]
        if fps is not None:
            res["partialFingerprints"] = {FINGERPRINT_KEY: fps[len(results)]}
            if d.kernel:
                from irc.tooling.demangle import demangle

                logical = {"name": demangle(d.kernel), "kind": "function"}
                if logical["name"] != d.kernel:
                    logical["decoratedName"] = d.kernel  # SARIF's field for the mangled symbol
                res["locations"][0]["logicalLocations"] = [logical]
        if d.labels:
            res["relatedLocations"] = [
                {"id": i, **_sarif_location(lab.span), "message": {"text": lab.message}}
                for i, lab in enumerate(d.labels)
            ]
        props = {}
        if d.help:
            props["help"] = d.help
        if d.notes:
            props["notes"] = list(d.notes)
        if d.witness:
            props["witness"] = d.witness
        if props:
            res["properties"] = props
        results.append(res)
    log = {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "irc",
                        "version": tool_version,
                        "rules": rules,
                    }
                },
                "results": results,
            }
        ],
    }
    return json.dumps(log, indent=2) + "\n"


# ----------------------------------------------------------------------------------------------- GitHub

_GH_LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.NOTE: "notice"}


def _gh_escape_data(s: str) -> str:
    """Escaping for the message part of a workflow command (GitHub's `escapeData`), plus any other control
    character as %XX, so a file name with an escape sequence cannot restyle the log."""
    s = s.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    return s if s.isprintable() else "".join(c if c.isprintable() else f"%{ord(c):02X}" for c in s)


def _gh_escape_property(s: str) -> str:
    """Escaping for `key=value` properties (GitHub's `escapeProperty`): data escaping plus `:` and `,`."""
    return _gh_escape_data(s).replace(":", "%3A").replace(",", "%2C")


def render_github(diags: Iterable[Diagnostic]) -> str:
    """One `::error file=..,line=..,col=..,endLine=..,endColumn=..,title=CHECK::message` line per
    diagnostic (`warning`, `notice` for the other severities). Help and notes are appended to the message
    on their own lines (encoded as %0A), which the annotation UI shows."""
    out = []
    for d in map(for_display, diags):
        props: list[tuple[str, str]] = []
        s = d.span
        if s is not None:
            props += [
                ("file", s.file),
                ("line", str(s.line)),
                ("col", str(s.col)),
                ("endLine", str(s.end_line)),
                ("endColumn", str(s.end_col)),
            ]
        props.append(("title", d.check))
        text = d.message
        for lab in d.labels:  # the cause ("this condition depends on `tid.x`...") and where it is
            text += f"\n{lab.span.file}:{lab.span.line}:{lab.span.col}: {lab.message}" if lab.message else ""
        if d.witness and d.witness.get("text"):
            text += f"\nwitness: {d.witness['text']}"
        for n in d.notes:
            text += f"\nnote: {n}"
        if d.help:
            text += f"\nhelp: {d.help}"
        prop_s = ",".join(f"{k}={_gh_escape_property(v)}" for k, v in props)
        out.append(f"::{_GH_LEVEL[Severity(d.severity)]} {prop_s}::{_gh_escape_data(text)}")
    return "".join(line + "\n" for line in out)
