"""The .kdsl front end: `parse_kdsl` (text -> AST with spans), `analyze` (AST -> `TypedProgram`), `lower`
(TypedProgram -> SSA IR) and `compile_to_ir` (all three, plus the verifier).

program = parse_kdsl(text, "softmax.kdsl")          # raises CompileError(parse-error, ...)
typed = analyze(program, defines={"N": 64}, arch="sm_90a")   # raises CompileError(type-error, ...)
"""

from .lower import compile_to_ir, lower
from .parse import parse_kdsl
from .sema import analyze
from .typed import FnInfo, KernelInfo, Symbol, TypedProgram

__all__ = [
    "parse_kdsl",
    "analyze",
    "lower",
    "compile_to_ir",
    "TypedProgram",
    "KernelInfo",
    "FnInfo",
    "Symbol",
]
