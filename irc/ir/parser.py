"""Parser for the textual IR (the inverse of irc.ir.printer), built with lark (LALR).

Forward references are allowed: a value may be used (in a later block, or as a successor argument) before
the op that defines it is parsed; such uses get a placeholder that is replaced once the definition is seen.
Errors are `parse-error` diagnostics with the line and column.
"""

from __future__ import annotations

import json
import math
import struct
from functools import lru_cache
from importlib import resources
from typing import Any

from lark import Lark, Token, Tree
from lark.exceptions import UnexpectedInput

from irc.diagnostics import CompileError, Span, error
from irc.ir.core import Block, Function, Module, Op, SharedDecl, Value
from irc.ir.optable import OPS
from irc.ir.types import MBARRIER, SCALARS, ArrayType, PtrType, TensorMapType, Type


@lru_cache(maxsize=1)
def _parser() -> Lark:
    text = resources.files("irc.grammar").joinpath("ir.lark").read_text()
    return Lark(text, parser="lalr", maybe_placeholders=True)


def _type(t: Tree | Token) -> Type:
    if isinstance(t, Token):
        return SCALARS[str(t)]
    k = t.data
    c = t.children
    if k == "t_scalar":
        return SCALARS[str(c[0])]
    if k == "t_ptr":
        return PtrType(str(c[0]), _type(c[1]))
    if k == "t_array":
        return ArrayType(_type(c[0]), tuple(int(x) for x in c[1:]))
    if k == "t_tmap":
        return TensorMapType(_type(c[0]), tuple(int(x) for x in c[1:]))
    if k == "t_mbar":
        return MBARRIER
    raise ValueError(k)


def _attr(t: Tree | Token) -> Any:
    k = t.data
    c = t.children
    if k == "a_int":
        return int(c[0])
    if k == "a_float":
        return float(c[0])
    if k == "a_str":
        return json.loads(str(c[0]))
    if k == "a_true":
        return True
    if k == "a_false":
        return False
    if k == "a_inf":
        return math.inf
    if k == "a_ninf":
        return -math.inf
    if k == "a_nan":
        return math.nan
    if k == "a_nnan":
        return -math.nan
    if k == "a_fbits":  # a NaN with a payload, by its double bits
        return struct.unpack("<d", struct.pack("<Q", int(str(c[0])[2:], 16)))[0]
    if k == "a_list":
        return [_attr(x) for x in c if x is not None]
    raise ValueError(k)


def _attrs(t: Tree | None) -> dict[str, Any]:
    if t is None:
        return {}
    if t.data == "attr_clause":
        t = t.children[0]
    out = {}
    for a in t.children:
        if a is None:
            continue
        out[str(a.children[0])] = _attr(a.children[1])
    return out


def _hint(tok: str) -> str | None:
    body = tok[1:]
    if "." in body:
        return body.rsplit(".", 1)[0]
    return None


class _Placeholder(Value):
    """Stands for a value used before its definition was parsed."""


class _FnBuilder:
    def __init__(self, fn: Function, path: str):
        self.fn = fn
        self.path = path
        self.values: dict[str, Value] = {}
        self.pending: dict[str, _Placeholder] = {}
        self.blocks: dict[str, Block] = {}

    def block(self, name: str) -> Block:
        b = self.blocks.get(name)
        if b is None:
            b = Block(label=name)
            self.blocks[name] = b
        return b

    def use(self, tok: Token) -> Value:
        name = str(tok)
        v = self.values.get(name)
        if v is not None:
            return v
        p = self.pending.get(name)
        if p is None:
            p = _Placeholder(SCALARS["b32"])
            self.pending[name] = p
        return p

    def define(self, tok: Token, v: Value) -> None:
        name = str(tok)
        if name in self.values:
            raise CompileError([error("parse-error", f"value {name} defined twice", _span(self.path, tok))])
        v.name = _hint(name)
        self.values[name] = v
        p = self.pending.pop(name, None)
        if p is not None:
            p.replace_all_uses_with(v)


def _span(path: str, tok: Token) -> Span:
    return Span.point(path, tok.line or 1, tok.column or 1, len(str(tok)))


def parse_module(text: str, path: str = "<ir>") -> Module:
    """Parse textual IR into a Module. Raises CompileError (`parse-error`) on malformed input."""
    try:
        tree = _parser().parse(text)
    except UnexpectedInput as e:
        exp = sorted(getattr(e, "expected", None) or getattr(e, "allowed", None) or [])
        msg = "unexpected input" + (f"; expected one of {', '.join(exp[:12])}" if exp else "")
        raise CompileError(
            [error("parse-error", msg, Span.point(path, e.line or 1, e.column or 1))]
        ) from None
    ch = [c for c in tree.children if c is not None]
    m = Module()
    i = 0
    if ch and isinstance(ch[0], Token) and ch[0].type == "STRING":
        m.source = json.loads(str(ch[0]))
        i = 1
    if i < len(ch) and isinstance(ch[i], Tree) and ch[i].data == "attr_clause":
        m.attrs = _attrs(ch[i])
        i += 1
    for f in ch[i:]:
        if isinstance(f, Tree) and f.data == "function":
            m.add_function(_function(f, m.source or path))
    return m


def _function(t: Tree, path: str) -> Function:
    c = t.children
    kw, name = ("kernel" if c[0].data == "kw_kernel" else "func"), str(c[1])
    idx = 2
    params: list[Tree] = []
    while idx < len(c) and (c[idx] is None or (isinstance(c[idx], Tree) and c[idx].data == "param")):
        if c[idx] is not None:
            params.append(c[idx])
        idx += 1
    fn = Function(name, [_type(p.children[1]) for p in params], is_kernel=(kw == "kernel"))
    fb = _FnBuilder(fn, path)
    for p, a in zip(params, fn.entry.args):
        fb.define(p.children[0], a)
    rest = c[idx:]
    first_block = True
    for item in rest:
        if item is None:
            continue
        if item.data == "attr_clause":
            fn.attrs = _attrs(item)
        elif item.data == "shared":
            sc = item.children
            fn.shared.append(SharedDecl(str(sc[0]), _type(sc[1]), int(sc[2])))
        elif item.data == "block":
            bc = item.children
            label = str(bc[0])
            if first_block:
                b = fn.entry
                fb.blocks[label] = b
                b.label = label
                first_block = False
            else:
                b = fb.block(label)
                fn.add_block(b)
            j = 1
            while j < len(bc) and (bc[j] is None or bc[j].data == "param"):
                if bc[j] is not None:
                    fb.define(bc[j].children[0], b.add_arg(_type(bc[j].children[1])))
                j += 1
            for o in bc[j:]:
                if o is not None:
                    b.append(_op(o, fb))
    for bname, b in fb.blocks.items():
        if b.function is None:
            raise CompileError(
                [error("parse-error", f"branch to undefined block {bname}", Span.point(path, 1, 1))]
            )
    if fb.pending:
        name = sorted(fb.pending)[0]
        raise CompileError(
            [error("parse-error", f"use of undefined value {name} in @{fn.name}", Span.point(path, 1, 1))]
        )
    return fn


def _op(t: Tree, fb: _FnBuilder) -> Op:
    c = t.children
    results_t, opname = c[0], c[1]
    name = str(opname)
    if name not in OPS:
        raise CompileError([error("parse-error", f"unknown op `{name}`", _span(fb.path, opname))])
    operands: list[Value] = []
    succs: list[Block] = []
    succ_args: list[list[Value]] = []
    attrs: dict[str, Any] = {}
    types: list[Type] = []
    span = None
    for item in c[2:]:
        if item is None:
            continue
        if isinstance(item, Tree) and item.data == "value_ref":
            if succs:
                raise CompileError(
                    [error("parse-error", "operand after a successor", _span(fb.path, item.children[0]))]
                )
            operands.append(fb.use(item.children[0]))
        elif isinstance(item, Tree) and item.data == "succ_ref":
            succs.append(fb.block(str(item.children[0])))
            succ_args.append([fb.use(x) for x in item.children[1:] if x is not None])
        elif isinstance(item, Tree) and item.data == "attr_dict":
            attrs = _attrs(item)
        elif isinstance(item, Tree) and item.data == "loc":
            n = [int(x) for x in item.children]
            span = Span(fb.path, n[0], n[1], n[2], n[3])
        else:
            types.append(_type(item))
    res_toks = [x for x in (results_t.children if results_t is not None else []) if x is not None]
    if len(res_toks) != len(types):
        raise CompileError(
            [
                error(
                    "parse-error",
                    f"op `{name}` has {len(res_toks)} results but {len(types)} types",
                    _span(fb.path, opname),
                )
            ]
        )
    op = Op(name, operands, types, attrs, succs, succ_args, span)
    for tok, r in zip(res_toks, op.results):
        fb.define(tok, r)
    return op
