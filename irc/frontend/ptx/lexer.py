"""Line-oriented tokenizer for PTX text.

Why line oriented: PTX is almost always one statement per line, and the parser's fast path
(`irc.frontend.ptx.parser`) consumes whole instruction lines without tokenizing them at all. The
tokenizer here is the general path: it tokenizes one line at a time, lazily, so the parser can switch
back to the fast path whenever the token buffer runs dry at a line boundary. Block comments may span
lines; they are tracked with `in_block_comment` so the fast path never reads a line inside one.

Unknown characters become an `err` token rather than an exception, so that text the parser skips
(debug sections, unknown directives) can never fail on the lexer.
"""

from __future__ import annotations

import re
import struct
from typing import NamedTuple

_TOKEN_RE = re.compile(
    r"""
    (?P<ws>[ \t\r\f\v]+)
  | (?P<lc>//.*)
  | (?P<bc>/\*)
  | (?P<str>"(?:[^"\\]|\\.)*")
  | (?P<num>0[fF][0-9a-fA-F]{8}(?![\w$])|0[dD][0-9a-fA-F]{16}(?![\w$])|0[xX][0-9a-fA-F]+U?
        |\d+\.\d*(?:[eE][+-]?\d+)?|\d+[eE][+-]?\d+|\d+U?)
  | (?P<id>[%$_A-Za-z][\w$]*(?:(?:\.|::)[\w$]+)*)
  | (?P<dir>\.[A-Za-z_][\w$]*(?:::[\w$]+)*)
  | (?P<punct>[{}()\[\],;:+\-|!@<>=*])
    """,
    re.VERBOSE,
)


class Token(NamedTuple):
    """One token: `kind` is num/id/dir/str/punct/err/eof; `line` and `col` are 1-based."""

    kind: str
    text: str
    line: int
    col: int


def parse_number(text: str) -> int | float:
    """Value of a PTX numeric literal: `0f3F800000` (f32 bits), `0d...` (f64 bits), hex, decimal, float.

    Why keep bit-pattern literals exact: nvcc prints every float constant in this form and the emulator
    must see exactly the value ptxas would."""
    if len(text) > 1 and text[0] == "0":
        c = text[1]
        if c in "fF" and len(text) == 10:
            return struct.unpack(">f", bytes.fromhex(text[2:]))[0]
        if c in "dD" and len(text) == 18:
            return struct.unpack(">d", bytes.fromhex(text[2:]))[0]
        if c in "xX":
            return int(text[2:].rstrip("U"), 16)
    if "." in text or "e" in text or "E" in text:
        return float(text)
    return int(text.rstrip("U"))


class Lexer:
    """Lazy, line-at-a-time tokenizer over a list of lines."""

    __slots__ = ("lines", "li", "buf", "pos", "in_block_comment", "_eof")

    def __init__(self, lines: list[str]):
        self.lines = lines
        self.li = 0  # index of the next line to load
        self.buf: list[Token] = []
        self.pos = 0  # next token index in buf
        self.in_block_comment = False
        # End of input sits just after the last character (line 1 col 1 for empty text).
        self._eof = Token("eof", "", max(len(lines), 1), (len(lines[-1]) if lines else 0) + 1)

    def at_line_start(self) -> bool:
        """True when no tokens of a partly consumed line are pending (the fast path may take a line)."""
        return self.pos >= len(self.buf) and not self.in_block_comment

    def _load(self) -> bool:
        """Tokenize lines until one yields tokens. False at end of input."""
        lines = self.lines
        while self.li < len(lines):
            text = lines[self.li]
            self.li += 1
            toks = self._tokenize(text, self.li)
            if toks:
                self.buf = toks
                self.pos = 0
                return True
        self.buf = []
        self.pos = 0
        return False

    def _tokenize(self, text: str, lineno: int) -> list[Token]:
        out: list[Token] = []
        pos = 0
        n = len(text)
        if self.in_block_comment:
            end = text.find("*/")
            if end < 0:
                return out
            self.in_block_comment = False
            pos = end + 2
        match = _TOKEN_RE.match
        while pos < n:
            m = match(text, pos)
            if m is None:
                out.append(Token("err", text[pos], lineno, pos + 1))
                pos += 1
                continue
            kind = m.lastgroup
            if kind == "ws" or kind == "lc":
                pos = m.end()
                continue
            if kind == "bc":
                end = text.find("*/", m.end())
                if end < 0:
                    self.in_block_comment = True
                    return out
                pos = end + 2
                continue
            out.append(Token(kind, m.group(), lineno, pos + 1))  # type: ignore[arg-type]
            pos = m.end()
        return out

    def peek(self) -> Token:
        if self.pos >= len(self.buf) and not self._load():
            return self._eof
        return self.buf[self.pos]

    def next(self) -> Token:
        tok = self.peek()
        if tok.kind != "eof":
            self.pos += 1
        return tok

    def peek2(self) -> Token:
        """The token after `peek()` if it is on the same line (else an eof token): enough for `name:`."""
        self.peek()
        if self.pos + 1 < len(self.buf):
            return self.buf[self.pos + 1]
        return self._eof

    def skip_braced(self, depth: int) -> None:
        """Skip raw text until `depth` open braces are closed. Used for `.section` blocks, whose content
        (DWARF bytes, label differences, strings) the parser never needs and must not choke on."""
        while self.pos < len(self.buf):
            t = self.buf[self.pos]
            self.pos += 1
            if t.text == "{" and t.kind == "punct":
                depth += 1
            elif t.text == "}" and t.kind == "punct":
                depth -= 1
                if depth == 0:
                    return
        lines = self.lines
        while depth > 0:
            # Most section lines (`.b8 1  // DW_AT_...`) hold no brace: skip them without tokenizing.
            while self.li < len(lines):
                raw = lines[self.li]
                if "{" in raw or "}" in raw or "/*" in raw or self.in_block_comment:
                    break
                self.li += 1
            if not self._load():
                return
            while self.pos < len(self.buf):
                t = self.buf[self.pos]
                self.pos += 1
                if t.kind == "punct" and t.text == "{":
                    depth += 1
                elif t.kind == "punct" and t.text == "}":
                    depth -= 1
                    if depth == 0:
                        return
