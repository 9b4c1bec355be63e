"""The .kdsl abstract syntax tree.

Every node carries the `Span` of the source text it was parsed from (the parser propagates token
positions through every reduction), so every later diagnostic can point at the smallest construct that
shows it. Nodes compare by identity (`eq=False`): semantic analysis keys its side tables (types, constant
values, resolved names) by node, and two textually equal expressions are different nodes.

The tree can be as deep as the input nests (1,000 nested parentheses are legal input); code that walks it
recursively should run under `irc.frontend.kdsl.deep.run_deep`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from irc.diagnostics import Span


@dataclass(eq=False, slots=True)
class Node:
    span: Span


# ----------------------------------------------------------------------------------------------- types
@dataclass(eq=False, slots=True)
class TypeExpr(Node):
    """Syntax of a type; `irc.frontend.kdsl.types` holds the resolved form."""


@dataclass(eq=False, slots=True)
class NamedType(TypeExpr):
    name: str  # bool, i32, f16, mbarrier, ...


@dataclass(eq=False, slots=True)
class PtrType(TypeExpr):
    space: str  # "global" | "shared" (anything else is reported by sema)
    elem: TypeExpr
    readonly: bool = False


@dataclass(eq=False, slots=True)
class ArrayType(TypeExpr):
    """`[T; N]` (register array) or `[T; N, M, ...]` (shared array shape)."""

    elem: TypeExpr
    dims: list[Expr]


@dataclass(eq=False, slots=True)
class UnsizedType(TypeExpr):
    """`[T]`: the type of a `shared x: [T] dynamic;` declaration (its size is set at launch)."""

    elem: TypeExpr


@dataclass(eq=False, slots=True)
class TensorMapType(TypeExpr):
    elem: TypeExpr
    box: list[Expr]  # IntLit or Name (a const/param)


# ----------------------------------------------------------------------------------------- expressions
@dataclass(eq=False, slots=True)
class Expr(Node):
    pass


@dataclass(eq=False, slots=True)
class IntLit(Expr):
    value: int
    suffix: str | None  # u32 i32 u64 i64
    text: str


@dataclass(eq=False, slots=True)
class FloatLit(Expr):
    value: float  # inf / nan included
    suffix: str | None  # f16 bf16 f32 f64
    text: str


@dataclass(eq=False, slots=True)
class BoolLit(Expr):
    value: bool


@dataclass(eq=False, slots=True)
class Name(Expr):
    ident: str


@dataclass(eq=False, slots=True)
class Unary(Expr):
    op: str  # "-" "!" "~"
    operand: Expr


@dataclass(eq=False, slots=True)
class AddrOf(Expr):
    operand: Expr


@dataclass(eq=False, slots=True)
class Binary(Expr):
    op: str  # "||" "&&" "|" "^" "&" "==" "!=" "<" "<=" ">" ">=" "<<" ">>" "+" "-" "*" "/" "%"
    lhs: Expr
    rhs: Expr
    op_span: Span


@dataclass(eq=False, slots=True)
class Ternary(Expr):
    cond: Expr
    then: Expr
    else_: Expr


@dataclass(eq=False, slots=True)
class Cast(Expr):
    operand: Expr
    target: TypeExpr
    bits: bool = False  # `bitcast<T>(x)`: reinterpret the bits (same width), not convert the value


@dataclass(eq=False, slots=True)
class Call(Expr):
    callee: str
    callee_span: Span
    args: list[Expr]


@dataclass(eq=False, slots=True)
class Index(Expr):
    base: Expr
    indices: list[Expr]


@dataclass(eq=False, slots=True)
class Member(Expr):
    base: Expr
    field: str  # "x" "y" "z" (only the built-in index vectors have members)


@dataclass(eq=False, slots=True)
class ArrayRepeat(Expr):
    value: Expr
    count: Expr


@dataclass(eq=False, slots=True)
class ArrayList(Expr):
    elems: list[Expr]


# ------------------------------------------------------------------------------------------ statements
@dataclass(eq=False, slots=True)
class Stmt(Node):
    pass


@dataclass(eq=False, slots=True)
class Block(Stmt):
    stmts: list[Stmt]


@dataclass(eq=False, slots=True)
class LetStmt(Stmt):
    """`let` (mutable=False) or `var` (mutable=True)."""

    name: str
    name_span: Span
    type: TypeExpr | None
    init: Expr | None
    mutable: bool


@dataclass(eq=False, slots=True)
class AssignStmt(Stmt):
    target: Expr  # Name or Index
    op: str  # "=" or the compound operator without "=" ("+", "<<", ...)
    value: Expr


@dataclass(eq=False, slots=True)
class ExprStmt(Stmt):
    expr: Call


@dataclass(eq=False, slots=True)
class SharedStmt(Stmt):
    name: str
    name_span: Span
    type: TypeExpr
    align: Expr | None
    dynamic: bool = False  # `shared x: [T] dynamic;`


@dataclass(eq=False, slots=True)
class IfStmt(Stmt):
    cond: Expr
    then: Block
    else_: Block | IfStmt | None


@dataclass(eq=False, slots=True)
class ForStmt(Stmt):
    """`for v in start..end [step s]`; `unroll=True` for `unroll for`."""

    var: str
    var_span: Span
    start: Expr
    end: Expr
    step: Expr | None
    body: Block
    unroll: bool
    factor: Expr | None = None  # `unroll(N) for`: partial unrolling by N (then `unroll` is False)


@dataclass(eq=False, slots=True)
class ForListStmt(Stmt):
    """`for v in [a, b, c]`: always unrolled, `v` is a constant per copy."""

    var: str
    var_span: Span
    items: list[Expr]
    body: Block


@dataclass(eq=False, slots=True)
class WhileStmt(Stmt):
    cond: Expr
    body: Block


@dataclass(eq=False, slots=True)
class BreakStmt(Stmt):
    pass


@dataclass(eq=False, slots=True)
class ContinueStmt(Stmt):
    pass


@dataclass(eq=False, slots=True)
class StaticAssert(Stmt):
    """`static_assert(cond, "message");` -- at module scope (in `Program.asserts`) or as a statement."""

    cond: Expr
    message: str | None


@dataclass(eq=False, slots=True)
class ReturnStmt(Stmt):
    value: Expr | None


# ----------------------------------------------------------------------------------------------- items
@dataclass(eq=False, slots=True)
class AttrArg(Node):
    """`key = value` (key set) or a positional value. A parenthesized tuple `(16, 8, 1)` is a list."""

    key: str | None
    value: Expr | list[Expr]


@dataclass(eq=False, slots=True)
class Attribute(Node):
    name: str
    args: list[AttrArg]


@dataclass(eq=False, slots=True)
class Param(Node):
    name: str
    type: TypeExpr


@dataclass(eq=False, slots=True)
class Item(Node):
    name: str
    name_span: Span


@dataclass(eq=False, slots=True)
class ConstItem(Item):
    """`const` (spec=False) or `param` (spec=True, a specialization constant overridable by defines)."""

    type: TypeExpr | None
    init: Expr
    spec: bool


@dataclass(eq=False, slots=True)
class FnItem(Item):
    """A device function (kernel=False, optional `ret`) or a kernel (kernel=True, no return type)."""

    attrs: list[Attribute]
    params: list[Param]
    ret: TypeExpr | None
    body: Block
    kernel: bool


@dataclass(eq=False, slots=True)
class AllowComment:
    """`// irc: allow(check, ...)`: suppresses the checks on its own line and the next one."""

    line: int
    checks: tuple[str, ...]
    span: Span


@dataclass(eq=False, slots=True)
class Program(Node):
    path: str
    items: list[Item]
    allow_comments: list[AllowComment] = field(default_factory=list)
    asserts: list[StaticAssert] = field(default_factory=list)  # module-scope `static_assert`s
