"""Reduction callbacks that build the AST while the LALR parser runs (no parse tree, no recursion).

The parse driver (`parse.py`) sets `span` to the extent of the rule being reduced before each callback,
computed from the positions of the reduced symbols; callbacks read it through `_sp()`. Problems that the
grammar accepts but the language does not (a call statement that is not a call, `align` misspelt, a
malformed literal value) are recorded in `diagnostics` as `parse-error`s and a placeholder node is returned
so that parsing continues.
"""

from __future__ import annotations

import math
import re

from irc.diagnostics import Diagnostic, Span, error

from . import ast
from .lexer import Tok

_INT_SUFFIXES = ("u32", "i32", "u64", "i64")
_FLOAT_SUFFIXES = ("bf16", "f16", "f32", "f64")


class AstBuilder:
    """One instance per parse; method names are the grammar's rule names and aliases."""

    def __init__(self, path: str):
        self.path = path
        self.span: tuple[int, int, int, int] = (1, 1, 1, 1)
        self.diagnostics: list[Diagnostic] = []

    # ---------------------------------------------------------------------------------------- helpers
    def _sp(self) -> Span:
        return Span(self.path, *self.span)

    def _tsp(self, t: Tok) -> Span:
        return Span(self.path, t.line, t.col, t.end_line, t.end_col)

    def _err(self, message: str, span: Span, **kw) -> None:
        self.diagnostics.append(error("parse-error", message, span, **kw))

    # ------------------------------------------------------------------------------------------ items
    def start(self, c: list) -> ast.Program:
        return ast.Program(
            self._sp(),
            self.path,
            [i for i in c if isinstance(i, ast.Item)],
            asserts=[i for i in c if isinstance(i, ast.StaticAssert)],
        )

    def static_assert_item(self, c: list) -> ast.StaticAssert:
        return self.static_assert_stmt(c)

    def static_assert_stmt(self, c: list) -> ast.StaticAssert:
        cond, msg = c
        text = None
        if msg is not None:
            text = re.sub(r"\\(.)", r"\1", msg.value[1:-1])
        return ast.StaticAssert(self._sp(), cond, text)

    def const_item(self, c: list) -> ast.ConstItem:
        name, ty, init = c
        return ast.ConstItem(self._sp(), name.value, self._tsp(name), ty, init, False)

    def param_item(self, c: list) -> ast.ConstItem:
        name, ty, init = c
        return ast.ConstItem(self._sp(), name.value, self._tsp(name), ty, init, True)

    def fn_item(self, c: list) -> ast.FnItem:
        attrs, name, params, ret, body = c
        return ast.FnItem(
            self._sp(), name.value, self._tsp(name), attrs or [], params or [], ret, body, False
        )

    def kernel_item(self, c: list) -> ast.FnItem:
        attrs, name, params, body = c
        return ast.FnItem(
            self._sp(), name.value, self._tsp(name), attrs or [], params or [], None, body, True
        )

    def attrs(self, c: list) -> list[ast.Attribute]:
        return list(c)

    def attribute(self, c: list) -> ast.Attribute:
        name, args = c
        return ast.Attribute(self._sp(), name.value, args or [])

    def attr_args(self, c: list) -> list[ast.AttrArg]:
        return list(c)

    def attr_kw(self, c: list) -> ast.AttrArg:
        key, value = c
        return ast.AttrArg(self._sp(), key.value, value)

    def attr_pos(self, c: list) -> ast.AttrArg:
        return ast.AttrArg(self._sp(), None, c[0])

    def attr_tuple(self, c: list) -> list[ast.Expr]:
        return list(c)

    def params(self, c: list) -> list[ast.Param]:
        return list(c)

    def param(self, c: list) -> ast.Param:
        name, ty = c
        return ast.Param(self._sp(), name.value, ty)

    # ------------------------------------------------------------------------------------------ types
    def named_type(self, c: list) -> ast.NamedType:
        return ast.NamedType(self._sp(), c[0].value)

    def ptr_space(self, c: list) -> Tok:
        return c[0]

    def ptr_type(self, c: list) -> ast.PtrType:
        space, ro, elem = c
        return ast.PtrType(self._sp(), space.value, elem, ro is not None)

    def array_type(self, c: list) -> ast.ArrayType:
        elem, dims = c
        return ast.ArrayType(self._sp(), elem, dims)

    def unsized_type(self, c: list) -> ast.UnsizedType:
        return ast.UnsizedType(self._sp(), c[0])

    def tensormap_type(self, c: list) -> ast.TypeExpr:
        name, elem, *box = c
        span = self._sp()
        if name.value != "tensormap":
            self._err(
                f"unknown generic type `{name.value}<...>`",
                self._tsp(name),
                help="the only generic type is `tensormap<T; B0, B1, ...>`",
            )
        return ast.TensorMapType(span, elem, box)

    def tm_int(self, c: list) -> ast.IntLit:
        return self.int_lit(c)

    def tm_name(self, c: list) -> ast.Name:
        return self.name(c)

    # ------------------------------------------------------------------------------------- statements
    def block(self, c: list) -> ast.Block:
        return ast.Block(self._sp(), list(c))

    def let_stmt(self, c: list) -> ast.LetStmt:
        name, ty, init = c
        return ast.LetStmt(self._sp(), name.value, self._tsp(name), ty, init, False)

    def var_stmt(self, c: list) -> ast.LetStmt:
        name, ty, init = c
        return ast.LetStmt(self._sp(), name.value, self._tsp(name), ty, init, True)

    def assign_op(self, c: list) -> Tok:
        return c[0]

    def assign_stmt(self, c: list) -> ast.AssignStmt:
        target, op, value = c
        if not isinstance(target, (ast.Name, ast.Index)):
            self._err("invalid assignment target: assign to a variable or an indexed element", target.span)
        return ast.AssignStmt(self._sp(), target, op.value[:-1] or "=", value)

    def expr_stmt(self, c: list) -> ast.Stmt:
        expr = c[0]
        if not isinstance(expr, ast.Call):
            help = "did you mean `=`?" if isinstance(expr, ast.Binary) and expr.op == "==" else None
            self._err("this expression is not a statement: only calls can stand alone", expr.span, help=help)
        return ast.ExprStmt(self._sp(), expr)

    def shared_stmt(self, c: list) -> ast.SharedStmt:
        name, ty, word, arg = c
        dynamic = word is not None and word.value == "dynamic"
        if word is not None and word.value not in ("align", "dynamic"):
            self._err(f"expected `align`, `dynamic` or `;`, found `{word.value}`", self._tsp(word))
        elif word is not None and (arg is None) != dynamic:
            what = "`dynamic` takes no value" if dynamic else "`align` needs a value: `align 16`"
            self._err(what, self._tsp(word))
        if isinstance(ty, ast.UnsizedType) and not dynamic:
            self._err(
                "an array without a length is only allowed as `shared NAME: [T] dynamic;`",
                ty.span,
                help="give the length (`[T; N]`) or size it at launch with `dynamic`",
            )
        return ast.SharedStmt(self._sp(), name.value, self._tsp(name), ty, None if dynamic else arg, dynamic)

    def if_stmt(self, c: list) -> ast.IfStmt:
        cond, then, else_ = c
        return ast.IfStmt(self._sp(), cond, then, else_)

    def for_stmt(self, c: list) -> ast.ForStmt:
        var, start, end, step, body = c
        return ast.ForStmt(self._sp(), var.value, self._tsp(var), start, end, step, body, False)

    def unroll_stmt(self, c: list) -> ast.ForStmt:
        factor, var, start, end, step, body = c
        return ast.ForStmt(
            self._sp(), var.value, self._tsp(var), start, end, step, body, factor is None, factor
        )

    def for_list_stmt(self, c: list) -> ast.ForListStmt:
        var, items, body = c
        return ast.ForListStmt(self._sp(), var.value, self._tsp(var), items, body)

    def while_stmt(self, c: list) -> ast.WhileStmt:
        cond, body = c
        return ast.WhileStmt(self._sp(), cond, body)

    def break_stmt(self, c: list) -> ast.BreakStmt:
        return ast.BreakStmt(self._sp())

    def continue_stmt(self, c: list) -> ast.ContinueStmt:
        return ast.ContinueStmt(self._sp())

    def return_stmt(self, c: list) -> ast.ReturnStmt:
        return ast.ReturnStmt(self._sp(), c[0])

    # ------------------------------------------------------------------------------------ expressions
    def ternary(self, c: list) -> ast.Ternary:
        cond, then, else_ = c
        return ast.Ternary(self._sp(), cond, then, else_)

    def binop(self, c: list) -> ast.Binary:
        lhs, op, rhs = c
        return ast.Binary(self._sp(), op.value, lhs, rhs, self._tsp(op))

    def unop(self, c: list) -> ast.Expr:
        op, operand = c
        if op.value == "&":
            return ast.AddrOf(self._sp(), operand)
        return ast.Unary(self._sp(), op.value, operand)

    def cast(self, c: list) -> ast.Cast:
        operand, target = c
        return ast.Cast(self._sp(), operand, target)

    def bitcast(self, c: list) -> ast.Cast:
        target, operand = c
        return ast.Cast(self._sp(), operand, target, bits=True)

    def call(self, c: list) -> ast.Expr:
        callee, args = c
        if not isinstance(callee, ast.Name):
            self._err("only functions and intrinsics can be called, by name", callee.span)
            return callee
        return ast.Call(self._sp(), callee.ident, callee.span, args or [])

    def index(self, c: list) -> ast.Index:
        base, args = c
        return ast.Index(self._sp(), base, args)

    def member(self, c: list) -> ast.Member:
        base, name = c
        return ast.Member(self._sp(), base, name.value)

    def args(self, c: list) -> list[ast.Expr]:
        return list(c)

    def int_lit(self, c: list) -> ast.IntLit:
        text = c[0].value
        body, suffix = _split_suffix(text, _INT_SUFFIXES)
        digits = body.replace("_", "")
        try:
            if digits[:2] in ("0x", "0X"):
                value = int(digits[2:], 16)
            elif digits[:2] in ("0b", "0B"):
                value = int(digits[2:], 2)
            else:
                value = int(digits)
        except ValueError:  # only `0x_` and the like
            self._err(f"numeric literal `{text}` has no digits", self._sp())
            value = 0
        return ast.IntLit(self._sp(), value, suffix, text)

    def float_lit(self, c: list) -> ast.FloatLit:
        text = c[0].value
        body, suffix = _split_suffix(text, _FLOAT_SUFFIXES)
        try:
            value = float(body.replace("_", ""))
        except ValueError:  # e.g. `1e_` (underscore where the exponent digits are)
            self._err(f"invalid float literal `{text}`", self._sp())
            value = 0.0
        return ast.FloatLit(self._sp(), value, suffix, text)

    def true_lit(self, c: list) -> ast.BoolLit:
        return ast.BoolLit(self._sp(), True)

    def false_lit(self, c: list) -> ast.BoolLit:
        return ast.BoolLit(self._sp(), False)

    def inf_lit(self, c: list) -> ast.FloatLit:
        return ast.FloatLit(self._sp(), math.inf, None, "inf")

    def nan_lit(self, c: list) -> ast.FloatLit:
        return ast.FloatLit(self._sp(), math.nan, None, "nan")

    def name(self, c: list) -> ast.Name:
        return ast.Name(self._sp(), c[0].value)

    def array_repeat(self, c: list) -> ast.ArrayRepeat:
        value, count = c
        return ast.ArrayRepeat(self._sp(), value, count)

    def array_list(self, c: list) -> ast.ArrayList:
        return ast.ArrayList(self._sp(), c[0])


def _split_suffix(text: str, suffixes: tuple[str, ...]) -> tuple[str, str | None]:
    """Split a type suffix off a literal. Hex literals never carry float suffixes (`0x1f16` is hex)."""
    is_hex = text[:2] in ("0x", "0X")
    for s in suffixes:
        if text.endswith(s) and not (is_hex and s[0] in "bf"):
            return text[: -len(s)], s
    return text, None
