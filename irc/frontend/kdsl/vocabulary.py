"""The words of .kdsl, by kind, derived from the front end itself: the grammar's keywords, the scalar
types, the intrinsic and built-in tables, attribute names. Editor support (the Pygments lexer in
`irc.tooling.highlight`, the TextMate grammar in `editors/`) reads these lists, so highlighting cannot drift from
what the compiler accepts; the tests check both against them.
"""

from __future__ import annotations

import functools

from .attrs import KERNEL_ATTRS
from .intrinsics import BUILTIN_SCALARS, BUILTIN_VECTORS, INTRINSICS
from .parse import _grammar
from .types import SCALARS

# Contextual words the parser checks itself (`shared x: [T; 4] align 16;`, `shared y: [T] dynamic;`).
CONTEXTUAL = ("align", "dynamic")
MEMBERS = ("x", "y", "z")
CONSTANTS = ("true", "false", "inf", "nan")


@functools.cache
def keywords() -> tuple[str, ...]:
    """Every reserved word of the grammar (the terminals the lexer turns identifiers into), less the
    literal constants (`true` `false` `inf` `nan`: see CONSTANTS)."""
    return tuple(sorted(set(_grammar().lexer.keywords) - set(CONSTANTS)))


def types() -> tuple[str, ...]:
    return tuple(sorted([*SCALARS, "mbarrier", "tensormap"]))


def intrinsics() -> tuple[str, ...]:
    return tuple(sorted(INTRINSICS))


def builtins() -> tuple[str, ...]:
    """Built-in values: `laneid`, `lanemask_lt`, ... and the index vectors `tid` `ntid` `ctaid` `nctaid`."""
    return tuple(sorted([*BUILTIN_SCALARS, *BUILTIN_VECTORS]))


def attributes() -> tuple[str, ...]:
    return tuple(sorted(KERNEL_ATTRS))


def pointer_spaces() -> tuple[str, ...]:
    return ("global", "shared")


def number_patterns() -> tuple[str, str]:
    """The grammar's own integer and float literal regexes (INT, FLOAT)."""
    terms = {name: value for name, kind, value in _grammar().terminals if kind == "re"}
    return terms["INT"], terms["FLOAT"]


def string_pattern() -> str:
    return next(value for name, _, value in _grammar().terminals if name == "STRING")
