"""Results of semantic analysis: symbols, per-kernel facts and the `TypedProgram` that lowering reads.

The AST is not modified; everything sema learns is in side tables keyed by node identity, so one parsed
program can be analyzed several times (e.g. with different `defines`).
"""

from __future__ import annotations

from irc.diagnostics import Diagnostic, Span
from irc.records import field, record

from . import ast
from .intrinsics import Intrinsic
from .types import Type

Value = int | float | bool

# Symbol kinds
LET, VAR, ARG, CONST, SPEC, SHARED, LOOP, UNROLL = (
    "let",
    "var",
    "arg",
    "const",
    "param",
    "shared",
    "loop",
    "unroll",
)


@record(eq=False)
class Symbol:
    """A named entity. `kind` is one of: let, var, arg (function/kernel parameter), const, param
    (specialization constant), shared, loop (`for` variable), unroll (variable of an unrolled loop: a
    constant per copy, `values` lists them in order)."""

    name: str
    kind: str
    type: Type
    span: Span | None
    value: Value | None = None
    values: tuple[Value, ...] | None = None
    decl: ast.Node | None = None

    @property
    def mutable(self) -> bool:
        return self.kind == VAR


@record
class KernelInfo:
    """A kernel's validated attributes and shared allocations."""

    item: ast.FnItem
    block: tuple[int, int, int] | None = None
    max_registers: int | None = None
    min_blocks_per_sm: int | None = None
    cluster: tuple[int, int, int] | None = None
    allow: frozenset[str] = frozenset()
    shared: list[Symbol] = field(default_factory=list)


@record
class FnInfo:
    item: ast.FnItem
    params: list[Symbol]
    ret: Type  # VOID when the function returns nothing
    allow: frozenset[str] = frozenset()


@record
class TypedProgram:
    """The analyzed program.

    types: every expression's type (unsuffixed literals resolved from context).
    values: compile-time values of constant expressions (literals, consts, params, folded operators).
    per_copy_const: expressions that are constant in each copy of an unrolled loop (they depend on an
        unroll variable), whose value is known only after unrolling.
    refs: the symbol each `Name` denotes; builtins: `Name`/`Member` nodes denoting built-in values
        ("tid.x", "laneid", ...); decls: the symbol each declaring node introduces (LetStmt, Param,
        SharedStmt, ForStmt, ForListStmt, ConstItem).
    calls: each call's target, an `Intrinsic` or the callee's `FnInfo`.
    const_index_checks: register-array index expressions that are constant only per unrolled copy, with
        the array length they must stay below; lowering checks them after unrolling (`const-error`).
    consts: the value of every `const` and `param` (after `defines`).
    """

    program: ast.Program
    arch: str
    types: dict[ast.Expr, Type]
    values: dict[ast.Expr, Value]
    per_copy_const: set[ast.Expr]
    refs: dict[ast.Name, Symbol]
    builtins: dict[ast.Expr, str]
    decls: dict[ast.Node, Symbol]
    calls: dict[ast.Call, Intrinsic | FnInfo]
    const_index_checks: list[tuple[ast.Expr, int]]
    consts: dict[str, Value]
    kernels: dict[str, KernelInfo]
    fns: dict[str, FnInfo]
    warnings: list[Diagnostic] = field(default_factory=list)

    def type_of(self, e: ast.Expr) -> Type:
        return self.types[e]

    def value_of(self, e: ast.Expr) -> Value | None:
        return self.values.get(e)
