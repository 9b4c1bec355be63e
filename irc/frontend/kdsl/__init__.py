"""The .kdsl front end: `parse_kdsl` (text -> AST with spans) and `analyze` (AST -> `TypedProgram`).

program = parse_kdsl(text, "softmax.kdsl")          # raises CompileError(parse-error, ...)
typed = analyze(program, defines={"N": 64}, arch="sm_90a")   # raises CompileError(type-error, ...)
"""

from .parse import parse_kdsl
from .sema import analyze
from .typed import FnInfo, KernelInfo, Symbol, TypedProgram

__all__ = ["parse_kdsl", "analyze", "TypedProgram", "KernelInfo", "FnInfo", "Symbol"]
