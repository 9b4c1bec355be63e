"""Tokenizer for .kdsl, built from the terminal patterns of `irc/grammar/kdsl.lark`.

Why not lark's own lexer: it stops at the first bad character, while a compiler must report every lexical
problem and keep going. This lexer uses the grammar's patterns (so the grammar stays the one definition of
the lexical syntax) in a single master regex, recovers from bad input by reporting and skipping it, and is
several times faster than lark's token-by-token lexer on large files.

Lexical errors become `parse-error` diagnostics; a malformed number is replaced by a well-formed literal of
the same kind so that the parser does not report a cascade of follow-on errors.
"""

from __future__ import annotations

import re

from irc.diagnostics import Diagnostic, Span, error
from irc.records import record

from . import ast

END = "$END"

# Error-only patterns (never part of the grammar): tried after the grammar's number patterns failed.
_BAD_NUMBER = r"[0-9](?:[A-Za-z0-9_]|\.[0-9]|(?<=[eE])[+-])*"
_BAD_FLOAT = r"(?<![A-Za-z0-9_.])\.[0-9][A-Za-z0-9_]*"
_OPEN_COMMENT = r"/\*"
_ALLOW_RE = re.compile(r"//\s*irc:\s*allow\(([^)]*)\)")


class Tok:
    """A token: `type` is the grammar's terminal name; positions are 1-based, `end_col` exclusive."""

    __slots__ = ("type", "value", "line", "col", "end_line", "end_col")

    def __init__(self, type: str, value: str, line: int, col: int, end_line: int, end_col: int):
        self.type = type
        self.value = value
        self.line = line
        self.col = col
        self.end_line = end_line
        self.end_col = end_col

    def __repr__(self) -> str:
        return f"Tok({self.type}, {self.value!r}, {self.line}:{self.col})"


@record
class LexResult:
    tokens: list[Tok]  # ends with one `$END` token
    diagnostics: list[Diagnostic]
    allow_comments: list[ast.AllowComment]
    unterminated: bool = False  # input ended inside a block comment


class Lexer:
    """Master-regex tokenizer. `keywords` maps keyword text to terminal name; `punct` likewise."""

    def __init__(self, terminals: list[tuple[str, str, str]]):
        """`terminals`: the grammar's (name, "str" | "re", literal or regular expression), from
        `tables.load`."""
        pats: dict[str, str] = {}
        self.keywords: dict[str, str] = {}
        self.punct: dict[str, str] = {}
        ident = next(value for name, _, value in terminals if name == "IDENT")
        ident_re = re.compile(ident)
        for name, kind, value in terminals:
            if kind == "str":
                if ident_re.fullmatch(value):
                    self.keywords[value] = name
                else:
                    self.punct[value] = name
            else:
                pats[name] = value
        puncts = "|".join(re.escape(p) for p in sorted(self.punct, key=len, reverse=True))
        groups = [
            ("WS", r"\n[ \t\r\n\f]*"),  # whitespace with a line break; blanks within a line go to the prefix
            ("LINE_COMMENT", pats["LINE_COMMENT"]),
            ("BLOCK_COMMENT", pats["BLOCK_COMMENT"]),
            ("OPEN_COMMENT", _OPEN_COMMENT),
            ("FLOAT", pats["FLOAT"]),
            ("INT", pats["INT"]),
            ("BAD_NUMBER", _BAD_NUMBER),
            ("BAD_FLOAT", _BAD_FLOAT),
            ("IDENT", pats["IDENT"]),
            ("STRING", pats["STRING"]),
            ("BAD_STRING", r'"[^"\n]*'),
            ("PUNCT", puncts),
            ("BAD_CHAR", r"[^ \t\r\f]"),  # any other single character (blanks are the prefix's)
        ]
        # Blanks before a token are matched with it (one regex match per token, not two); the grammar's WS
        # pattern is the same set of characters.
        assert re.fullmatch(pats["WS"], " \t\r\n\f")
        self.master = re.compile("[ \t\r\f]*(?:" + "|".join(f"(?P<{n}>{p})" for n, p in groups) + ")")

    def tokenize(self, text: str, path: str) -> LexResult:
        toks: list[Tok] = []
        diags: list[Diagnostic] = []
        allows: list[ast.AllowComment] = []
        keywords, punct = self.keywords, self.punct
        match = self.master.match
        pos, line, line_start, n = 0, 1, 0, len(text)
        unterminated = False
        while pos < n:
            m = match(text, pos)
            if m is None:  # only blanks remain
                pos = n
                break
            kind = m.lastgroup
            pos, end = m.span(kind)  # (the token ends the match: blanks only come before it)
            value = text[pos:end]
            col = pos - line_start + 1
            if kind == "IDENT":
                toks.append(Tok(keywords.get(value, "IDENT"), value, line, col, line, col + len(value)))
            elif kind == "PUNCT":
                toks.append(Tok(punct[value], value, line, col, line, col + len(value)))
            elif kind == "INT" or kind == "FLOAT" or kind == "STRING":
                toks.append(Tok(kind, value, line, col, line, col + len(value)))
            elif kind == "WS" or kind == "BLOCK_COMMENT":
                nl = value.count("\n")
                if nl:
                    line += nl
                    line_start = pos + value.rfind("\n") + 1
            elif kind == "LINE_COMMENT":
                am = _ALLOW_RE.match(value)
                if am:
                    checks = tuple(c.strip() for c in am.group(1).split(",") if c.strip())
                    allows.append(
                        ast.AllowComment(line, checks, Span(path, line, col, line, col + len(value)))
                    )
            else:
                span = Span(path, line, col, line, col + len(value))
                if kind == "OPEN_COMMENT":
                    diags.append(
                        error(
                            "parse-error",
                            "unterminated block comment",
                            span,
                            help="close it with `*/` (block comments do not nest)",
                        )
                    )
                    unterminated = True
                    break
                if kind == "BAD_NUMBER":
                    diags.append(_bad_number(value, span))
                    is_float = any(c in value for c in ".eE") and not value.startswith(("0x", "0X"))
                    toks.append(
                        Tok(
                            "FLOAT" if is_float else "INT",
                            "0.0" if is_float else "0",
                            line,
                            col,
                            line,
                            col + len(value),
                        )
                    )
                elif kind == "BAD_STRING":
                    diags.append(
                        error("parse-error", "unterminated string literal", span, help='close it with `"`')
                    )
                    toks.append(Tok("STRING", '""', line, col, line, col + len(value)))
                elif kind == "BAD_FLOAT":
                    diags.append(
                        error(
                            "parse-error",
                            f"float literal `{value}` needs a digit before the `.`",
                            span,
                            help=f"write `0{value}`",
                        )
                    )
                    toks.append(Tok("FLOAT", "0.0", line, col, line, col + len(value)))
                else:  # BAD_CHAR
                    if value == "\n":  # cannot happen (WS), kept for safety of the line count
                        line += 1
                        line_start = end
                    else:
                        diags.append(error("parse-error", f"unexpected character {_show_char(value)}", span))
            pos = end
        col = pos - line_start + 1
        toks.append(Tok(END, "", line, col, line, col))
        return LexResult(toks, diags, allows, unterminated)


def _show_char(c: str) -> str:
    return f"`{c}`" if c.isprintable() and c != "`" else f"U+{ord(c):04X}"


def _bad_number(text: str, span: Span) -> Diagnostic:
    """Explain a malformed numeric literal: a bad suffix, bad digits, or a dangling exponent."""
    m = re.match(
        r"(0[xX][0-9a-fA-F_]*|0[bB][0-9_]*|[0-9][0-9_]*(?:\.[0-9][0-9_]*)?(?:[eE][+-]?[0-9_]*)?)(.*)", text
    )
    digits, rest = (m.group(1), m.group(2)) if m else (text, "")
    if digits[:2] in ("0b", "0B") and any(c not in "01_" for c in digits[2:]):
        return error("parse-error", f"invalid binary literal `{text}`: binary digits are 0 and 1", span)
    if digits in ("0x", "0X", "0b", "0B"):
        return error("parse-error", f"numeric literal `{text}` has no digits", span)
    if rest:
        return error(
            "parse-error",
            f"invalid suffix `{rest}` on numeric literal `{text}`",
            span,
            help="integer suffixes: u32 i32 u64 i64; float suffixes: f16 bf16 f32 f64",
        )
    return error("parse-error", f"invalid numeric literal `{text}`", span)
