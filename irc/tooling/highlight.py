"""A Pygments lexer for .kdsl, registered as the `kdsl` entry point of `pygments.lexers` (pyproject), so
`pygmentize -l kdsl`, Sphinx/MkDocs code blocks and any Pygments-based tool highlight kernels.

Every word list comes from `irc.frontend.kdsl.vocabulary` (the grammar's keywords, the type, intrinsic and
built-in tables) and the number and string patterns are the grammar's own, so a new keyword or intrinsic is
highlighted the day it exists. Pygments is needed only here (a dev/docs dependency, not a runtime one).
"""

from __future__ import annotations

from pygments.lexer import RegexLexer, bygroups, words
from pygments.token import (
    Comment,
    Keyword,
    Name,
    Number,
    Operator,
    Punctuation,
    String,
    Whitespace,
)

from irc.frontend.kdsl import vocabulary as v

_INT, _FLOAT = v.number_patterns()
OPERATORS = r"\.\.|<<=|>>=|->|&&|\|\||<<|>>|==|!=|<=|>=|[-+*/%&|^]=|[-+*/%&|^!~<>=?:]"


def _tokens() -> dict:
    b = r"\b"
    return {
        "root": [
            (r"\s+", Whitespace),
            (r"//\s*irc:\s*allow\([^)\n]*\)[^\n]*", Comment.Special),
            (r"//[^\n]*", Comment.Single),
            (r"/\*[\s\S]*?\*/", Comment.Multiline),
            (v.string_pattern(), String),
            (r"(@)([A-Za-z_]\w*)", bygroups(Punctuation, Name.Decorator)),
            (r"\b(fn|kernel)(\s+)([A-Za-z_]\w*)", bygroups(Keyword, Whitespace, Name.Function)),
            (_FLOAT, Number.Float),
            (_INT, Number.Integer),
            (words(v.CONSTANTS, prefix=b, suffix=b), Keyword.Constant),
            (words(v.keywords(), prefix=b, suffix=b), Keyword),
            (words(v.types(), prefix=b, suffix=b), Keyword.Type),
            (words(v.pointer_spaces() + v.CONTEXTUAL, prefix=b, suffix=b), Keyword.Pseudo),
            (words(v.builtins(), prefix=b, suffix=b), Name.Builtin.Pseudo),
            (words(v.intrinsics(), prefix=b, suffix=b), Name.Builtin),
            (r"[A-Za-z_]\w*", Name),
            (OPERATORS, Operator),
            (r"[{}()\[\];,.]", Punctuation),
        ]
    }


class KdslLexer(RegexLexer):
    """Lexer for .kdsl kernels (irc's SIMT kernel language)."""

    name = "kdsl"
    aliases = ["kdsl"]
    filenames = ["*.kdsl"]
    mimetypes = ["text/x-kdsl"]
    tokens = _tokens()
