"""The .kdsl front end: `parse_kdsl` (text -> AST with spans), `analyze` (AST -> `TypedProgram`), `lower`
(TypedProgram -> SSA IR) and `compile_to_ir` (all three, plus the verifier).

program = parse_kdsl(text, "softmax.kdsl")          # raises CompileError(parse-error, ...)
typed = analyze(program, defines={"N": 64}, arch="sm_90a")   # raises CompileError(type-error, ...)

The names are imported on first use (PEP 562): importing the whole front end costs about 50 ms, which a
process that needs only one part (the parser tables, the lexer for highlighting) should not pay.
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "parse_kdsl": "parse",
    "analyze": "sema",
    "lower": "lower",
    "compile_to_ir": "lower",
    "TypedProgram": "typed",
    "KernelInfo": "typed",
    "FnInfo": "typed",
    "Symbol": "typed",
}

__all__ = list(_EXPORTS)


def __getattr__(name: str) -> Any:
    mod = _EXPORTS.get(name)
    if mod is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{mod}"), name)
    globals()[name] = value  # (`lower` is also a submodule: importing it first binds the module here)
    return value
