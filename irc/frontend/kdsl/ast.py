"""The .kdsl abstract syntax tree.

Every node carries the `Span` of the source text it was parsed from (the parser propagates token
positions through every reduction), so every later diagnostic can point at the smallest construct that
shows it. Nodes compare by identity (`eq=False`): semantic analysis keys its side tables (types, constant
values, resolved names) by node, and two textually equal expressions are different nodes.

The tree can be as deep as the input nests (1,000 nested parentheses are legal input); code that walks it
recursively should run under `irc.deep.run_deep`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from irc.diagnostics import Span
from irc.records import MISSING, Field, make_init


def factory(make: Callable[[], Any]) -> Any:
    """A field default made fresh for each node (`field(default_factory=...)`)."""
    return Field(default_factory=make)


class _NodeMeta(type):
    """Makes each node class a slotted record: its annotated fields (after the inherited ones) become
    `__slots__`, the positional-or-keyword `__init__` (compiled by `irc.records.make_init`), and
    `__repr__`; `fields` lists them in order.

    Why not `@record` or `@dataclass(eq=False, slots=True)`: nodes need slots (a dataclass builds a
    slotted class twice) and identity equality, and nothing else; for the 44 node classes dataclasses
    cost ~10 ms of every `irc compile` start-up (issue 15)."""

    def __new__(mcls, name: str, bases: tuple, ns: dict):
        own = tuple(ns.get("__annotations__", {}))
        defaults = {f: ns.pop(f) for f in own if f in ns}
        ns["__slots__"] = own
        cls = super().__new__(mcls, name, bases, ns)
        inherited: tuple[Field, ...] = ()
        for b in bases:
            if isinstance(b, _NodeMeta):
                inherited = b._fields
        mine = []
        for f in own:
            d = defaults.get(f, MISSING)
            fld = d if isinstance(d, Field) else Field(default=d)
            fld.name = f
            mine.append(fld)
        cls._fields = inherited + tuple(mine)
        cls.fields = tuple(f.name for f in cls._fields)
        cls.__init__ = make_init(name, list(cls._fields))["__init__"]
        return cls


class Record(metaclass=_NodeMeta):
    """Base of the syntax records (see `_NodeMeta`)."""

    # class attributes, set by the metaclass (not annotated: annotations are what become fields)
    fields = ()  # type: ignore[var-annotated]
    _fields = ()  # type: ignore[var-annotated]

    def __repr__(self) -> str:
        inner = ", ".join(f"{f}={getattr(self, f)!r}" for f in self.fields)
        return f"{type(self).__qualname__}({inner})"


class Node(Record):
    span: Span


# ----------------------------------------------------------------------------------------------- types
class TypeExpr(Node):
    """Syntax of a type; `irc.frontend.kdsl.types` holds the resolved form."""


class NamedType(TypeExpr):
    name: str  # bool, i32, f16, mbarrier, ...


class PtrType(TypeExpr):
    space: str  # "global" | "shared" (anything else is reported by sema)
    elem: TypeExpr
    readonly: bool = False


class ArrayType(TypeExpr):
    """`[T; N]` (register array) or `[T; N, M, ...]` (shared array shape)."""

    elem: TypeExpr
    dims: list[Expr]


class UnsizedType(TypeExpr):
    """`[T]`: the type of a `shared x: [T] dynamic;` declaration (its size is set at launch)."""

    elem: TypeExpr


class TensorMapType(TypeExpr):
    elem: TypeExpr
    box: list[Expr]  # IntLit or Name (a const/param)


# ----------------------------------------------------------------------------------------- expressions
class Expr(Node):
    pass


class IntLit(Expr):
    value: int
    suffix: str | None  # u32 i32 u64 i64
    text: str


class FloatLit(Expr):
    value: float  # inf / nan included
    suffix: str | None  # f16 bf16 f32 f64
    text: str


class BoolLit(Expr):
    value: bool


class Name(Expr):
    ident: str


class Unary(Expr):
    op: str  # "-" "!" "~"
    operand: Expr


class AddrOf(Expr):
    operand: Expr


class Binary(Expr):
    op: str  # "||" "&&" "|" "^" "&" "==" "!=" "<" "<=" ">" ">=" "<<" ">>" "+" "-" "*" "/" "%"
    lhs: Expr
    rhs: Expr
    op_span: Span


class Ternary(Expr):
    cond: Expr
    then: Expr
    else_: Expr


class Cast(Expr):
    operand: Expr
    target: TypeExpr
    bits: bool = False  # `bitcast<T>(x)`: reinterpret the bits (same width), not convert the value


class Call(Expr):
    callee: str
    callee_span: Span
    args: list[Expr]


class Index(Expr):
    base: Expr
    indices: list[Expr]


class Member(Expr):
    base: Expr
    field: str  # "x" "y" "z" (only the built-in index vectors have members)


class ArrayRepeat(Expr):
    value: Expr
    count: Expr


class ArrayList(Expr):
    elems: list[Expr]


# ------------------------------------------------------------------------------------------ statements
class Stmt(Node):
    pass


class Block(Stmt):
    stmts: list[Stmt]


class LetStmt(Stmt):
    """`let` (mutable=False) or `var` (mutable=True)."""

    name: str
    name_span: Span
    type: TypeExpr | None
    init: Expr | None
    mutable: bool


class AssignStmt(Stmt):
    target: Expr  # Name or Index
    op: str  # "=" or the compound operator without "=" ("+", "<<", ...)
    value: Expr


class ExprStmt(Stmt):
    expr: Call


class SharedStmt(Stmt):
    name: str
    name_span: Span
    type: TypeExpr
    align: Expr | None
    dynamic: bool = False  # `shared x: [T] dynamic;`


class IfStmt(Stmt):
    cond: Expr
    then: Block
    else_: Block | IfStmt | None


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


class ForListStmt(Stmt):
    """`for v in [a, b, c]`: always unrolled, `v` is a constant per copy."""

    var: str
    var_span: Span
    items: list[Expr]
    body: Block


class WhileStmt(Stmt):
    cond: Expr
    body: Block


class BreakStmt(Stmt):
    pass


class ContinueStmt(Stmt):
    pass


class StaticAssert(Stmt):
    """`static_assert(cond, "message");` -- at module scope (in `Program.asserts`) or as a statement."""

    cond: Expr
    message: str | None


class ReturnStmt(Stmt):
    value: Expr | None


# ----------------------------------------------------------------------------------------------- items
class AttrArg(Node):
    """`key = value` (key set) or a positional value. A parenthesized tuple `(16, 8, 1)` is a list."""

    key: str | None
    value: Expr | list[Expr]


class Attribute(Node):
    name: str
    args: list[AttrArg]


class Param(Node):
    name: str
    type: TypeExpr


class Item(Node):
    name: str
    name_span: Span


class ConstItem(Item):
    """`const` (spec=False) or `param` (spec=True, a specialization constant overridable by defines)."""

    type: TypeExpr | None
    init: Expr
    spec: bool


class FnItem(Item):
    """A device function (kernel=False, optional `ret`) or a kernel (kernel=True, no return type)."""

    attrs: list[Attribute]
    params: list[Param]
    ret: TypeExpr | None
    body: Block
    kernel: bool


class AllowComment(Record):
    """`// irc: allow(check, ...)`: suppresses the checks on its own line and the next one."""

    line: int
    checks: tuple[str, ...]
    span: Span


class Program(Node):
    path: str
    items: list[Item]
    allow_comments: list[AllowComment] = factory(list)
    asserts: list[StaticAssert] = factory(list)  # module-scope `static_assert`s
