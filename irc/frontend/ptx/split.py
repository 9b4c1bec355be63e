"""Split a large PTX module into one small module per function, for checking in bounded memory.

A 30 MB PTX file parsed and lifted at once holds every function's PTX model and IR at the same time
(gigabytes of Python objects) and slows down as the heap grows. Checking one function at a time bounds
memory by the largest function. Each chunk is the module header (`.version`, `.target`,
`.address_size`), the top-level declarations the function names (globals, `.func` prototypes) and the
function itself. Lines are kept intact, so a chunk's spans map back to the file through `LineMap`.

The scan is linear: one regex pass over the text that skips comments and strings and tracks brace depth.
Functions are found at depth 0 as the items whose text before the first `{` contains `.entry` or `.func`.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator

from irc import records
from irc.diagnostics import Diagnostic, Label, Span
from irc.records import record

_SCAN = re.compile(
    r'//[^\n]*|/\*.*?\*/|"(?:[^"\\\n]|\\.)*"|^[ \t]*\.(?:version|target|address_size|file)\b[^\n]*|[{};]',
    re.S | re.M,
)
_WORD = re.compile(r"[A-Za-z_$%][\w$]*")
_DECL_NAME = re.compile(r"([A-Za-z_$][\w$]*)\s*(?:\[[^\]]*\]\s*)*(?:=|;|$)")
_FUNC_NAME = re.compile(r"\.(?:entry|func)\s+(?:\([^)]*\)\s*)?([A-Za-z_$][\w$]*)")
_LOC = re.compile(r"\.loc\s+(\d+)")
_HEADER = re.compile(r"^\s*\.(version|target|address_size|file)\b")


@record
class Item:
    start: int  # character offsets in the file
    end: int
    line: int  # 1-based line of `start`
    is_function: bool
    name: str | None


def items(text: str) -> list[Item]:
    """Top-level items: declarations ending in `;` and functions ending in their body's `}`."""
    out: list[Item] = []
    depth = 0
    start = 0
    func_head: bool | None = None
    for m in _SCAN.finditer(text):
        tok = m.group()
        if tok[0] in '/"':
            continue
        if tok not in "{};":  # a line directive without `;` (.version, .target, .file ...)
            if depth != 0:
                continue
            if text[start : m.start()].strip():  # whatever came before it is an item of its own
                _close(out, text, start, m.start(), func_head)
            _close(out, text, m.start(), m.end(), False)
            start = m.end()
            func_head = None
            continue
        if tok == "{":
            if depth == 0 and func_head is None:
                head = text[start : m.start()]
                func_head = ".entry" in head or ".func" in head
            depth += 1
            continue
        if tok == "}":
            depth = max(0, depth - 1)
            nxt = text[m.end() : m.end() + 64].lstrip()
            if depth == 0 and (func_head or not nxt.startswith(";")):
                end = m.end()
            else:
                continue
        else:  # ";"
            if depth != 0:
                continue
            end = m.end()
        _close(out, text, start, end, func_head)
        start = end
        func_head = None
    return out


def _close(out: list[Item], text: str, start: int, end: int, func_head: bool | None) -> None:
    """Record `text[start:end]` as an item (its line counted from the previous item's)."""
    s = start
    while s < end and text[s] in " \t\r\n":
        s += 1
    prev_off, prev_line = (out[-1].start, out[-1].line) if out else (0, 1)
    line = prev_line + text.count("\n", prev_off, s)
    body = text[s:end]
    fm = _FUNC_NAME.search(body.split("{", 1)[0]) if func_head else None
    name = fm.group(1) if fm else _decl_name(body)
    out.append(Item(s, end, line, bool(func_head), name))


def _decl_name(body: str) -> str | None:
    m = _DECL_NAME.search(body.split("=", 1)[0].rstrip().rstrip(";") + ";")
    return m.group(1) if m else None


@record
class LineMap:
    """Chunk line -> file line, piecewise: `starts[i]` is a chunk line where a piece begins, at file
    line `origins[i]`."""

    starts: list[int]
    origins: list[int]

    def line(self, chunk_line: int) -> int:
        i = bisect.bisect_right(self.starts, chunk_line) - 1
        return self.origins[i] + chunk_line - self.starts[i] if i >= 0 else chunk_line

    def span(self, s: Span | None, path: str) -> Span | None:
        if s is None or s.file != path:
            return s
        return records.replace(s, line=self.line(s.line), end_line=self.line(s.end_line))

    def text(self, s: str) -> str:
        """A message's "line N" (a PTX line of this chunk, as the checks write them) as the file's line."""
        return _LINE_REF.sub(lambda m: f"line {self.line(int(m.group(1)))}", s)

    def diagnostic(self, d: Diagnostic, path: str) -> Diagnostic:
        labels = [
            Label(self.span(lb.span, path), self.text(lb.message), self.span(lb.origin, path))  # type: ignore[arg-type]
            for lb in d.labels
        ]
        origin = (
            self.span(d.origin, path) if d.origin is not None else None
        )  # mapped to the .cu: the PTX line
        return records.replace(
            d,
            span=self.span(d.span, path),
            labels=labels,
            origin=origin,
            message=self.text(d.message),
            notes=[self.text(n) for n in d.notes],
        )


_LINE_REF = re.compile(r"\bline (\d+)\b")


def chunks(text: str) -> Iterator[tuple[str, LineMap, str | None]]:
    """(chunk text, line map, function name) per function, in file order. A file without functions gives
    one chunk: the file itself."""
    its = items(text)
    header: list[Item] = []
    decls: dict[str, Item] = {}
    funcs: list[Item] = []
    files: dict[str, Item] = {}  # `.file N`: the first definition of each number
    for it in its:
        body = text[it.start : it.end]
        if it.is_function:
            funcs.append(it)
        elif body.startswith(".file"):
            num = body.split(None, 2)[1] if len(body.split(None, 2)) > 1 else ""
            files.setdefault(num, it)
        elif _HEADER.match(body):
            header.append(it)
        elif it.name:
            decls.setdefault(it.name, it)
    protos = {
        f.name: (f, text[f.start : f.end].split("{", 1)[0].rstrip() + ";")
        for f in funcs
        if f.name and ".func" in text[f.start : f.end].split("{", 1)[0]
    }
    if not funcs:
        yield text, LineMap([1], [1]), None
        return
    words = {f.name: set(_WORD.findall(text[f.start : f.end])) for f in funcs}
    for f in funcs:
        body = text[f.start : f.end]
        # the .func bodies it calls, transitively: the callee summaries (barriers and collectives a call
        # runs) need them, so a split check reports what the whole-module check does
        callees: dict[str, Item] = {}
        todo = [f]
        while todo:
            g = todo.pop()
            for name in sorted(words.get(g.name, set()) & protos.keys()):
                c = protos[name][0]
                if c is not f and name not in callees:
                    callees[name] = c
                    todo.append(c)
        group = [f, *callees.values()]
        used = set().union(*(words.get(g.name, set()) for g in group))
        texts = [text[g.start : g.end] for g in group]
        locs = set().union(*(set(_LOC.findall(b)) for b in texts))
        pieces: list[tuple[str, int]] = [(text[h.start : h.end], h.line) for h in header]
        for num in sorted(locs & files.keys(), key=lambda n: files[n].start):
            pieces.append((text[files[num].start : files[num].end], files[num].line))
        for name in sorted(used & decls.keys(), key=lambda n: decls[n].start):
            d = decls[name]
            pieces.append((text[d.start : d.end], d.line))
        for name in sorted(used & protos.keys()):  # prototypes first: any order of bodies is then legal
            g, proto = protos[name]
            if g is not f:
                pieces.append((proto, g.line))
        for c in sorted(callees.values(), key=lambda c: c.start):
            pieces.append((text[c.start : c.end], c.line))
        pieces.append((body, f.line))
        out: list[str] = []
        starts: list[int] = []
        origins: list[int] = []
        cur = 1
        for piece, orig in pieces:
            starts.append(cur)
            origins.append(orig)
            out.append(piece)
            cur += piece.count("\n") + 1
        yield "\n".join(out) + "\n", LineMap(starts, origins), f.name
