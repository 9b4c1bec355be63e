"""Textual IR printer. The format round-trips through `irc.ir.parser` (print -> parse -> print is identical).

    module "k.kdsl" {
    kernel @add(%x.0: *global f32, %n.1: u32) attributes {launch = [128, 1, 1]} {
      shared @tile: [f32; 128] align 16
    ^bb0:
      %2 = sreg {name = "tid.x"} : u32
      %3 = cmp %2, %n.1 {pred = "lt"} : bool
      cbr %3, ^bb1, ^bb2
    ^bb1:
      ...
    }
    }

Values are numbered in order of definition per function (`%N`, or `%hint.N` when the value carries a
source-name hint), blocks `^bbN` in layout order: ids are stable for a given module.
"""

from __future__ import annotations

import math
import re
from typing import Any

from irc.floatbits import double_bits
from irc.ir.core import Block, Function, Module, Op, Value

_QNAN = 0x7FF8000000000000  # the NaN `nan` parses as

_HINT_RE = re.compile(r"[^A-Za-z0-9_]")


def format_attr(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if math.isnan(v):  # the sign and payload are part of the constant (`select(c, -nan, nan)`)
            bits = double_bits(v)
            return {_QNAN: "nan", _QNAN | 1 << 63: "-nan"}.get(bits) or f"0d{bits:016X}"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        return repr(v)
    if isinstance(v, str):
        import json  # lazy: string attributes are rare on the compile path

        return json.dumps(v)
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(format_attr(x) for x in v) + "]"
    raise TypeError(f"cannot print attribute value {v!r}")


def format_attrs(attrs: dict[str, Any]) -> str:
    items = [f"{k} = {format_attr(v)}" for k, v in attrs.items() if v is not None]
    return "{" + ", ".join(items) + "}" if items else ""


class Namer:
    """Assigns printable ids to the values and blocks of one function."""

    def __init__(self, fn: Function):
        self.values: dict[int, str] = {}
        self.blocks: dict[int, str] = {}
        n = 0
        for bi, b in enumerate(fn.blocks):
            self.blocks[id(b)] = f"^bb{bi}"
            for a in b.args:
                self.values[id(a)] = self._name(a, n)
                n += 1
            for op in b.ops:
                for r in op.results:
                    self.values[id(r)] = self._name(r, n)
                    n += 1

    @staticmethod
    def _name(v: Value, n: int) -> str:
        if v.name:
            return f"%{_HINT_RE.sub('_', v.name)}.{n}"
        return f"%{n}"

    def v(self, v: Value) -> str:
        return self.values.get(id(v), "%<undefined>")

    def b(self, b: Block) -> str:
        return self.blocks.get(id(b), "^<foreign>")


def format_op(op: Op, nm: Namer, locs: bool = False) -> str:
    parts = []
    if op.results:
        parts.append(", ".join(nm.v(r) for r in op.results) + " = ")
    parts.append(op.name)
    items = [nm.v(v) for v in op.operands]
    for s, args in zip(op.successors, op.succ_args):
        items.append(nm.b(s) + ("(" + ", ".join(nm.v(a) for a in args) + ")" if args else ""))
    if items:
        parts.append(" " + ", ".join(items))
    a = format_attrs(op.attrs)
    if a:
        parts.append(" " + a)
    if op.results:
        parts.append(" : " + ", ".join(str(r.type) for r in op.results))
    if locs and op.span is not None:
        s = op.span
        parts.append(f" loc({s.line}:{s.col}:{s.end_line}:{s.end_col})")
    return "".join(parts)


def print_function(fn: Function, locs: bool = False) -> str:
    nm = Namer(fn)
    kw = "kernel" if fn.is_kernel else "func"
    params = ", ".join(f"{nm.v(a)}: {a.type}" for a in fn.params)
    head = f"{kw} @{fn.name}({params})"
    a = format_attrs(fn.attrs)
    if a:
        head += f" attributes {a}"
    lines = [head + " {"]
    for s in fn.shared:
        lines.append(f"  shared @{s.name}: {s.type} align {s.align}")
    for bi, b in enumerate(fn.blocks):
        label = nm.b(b)
        if bi > 0 and b.args:
            label += "(" + ", ".join(f"{nm.v(x)}: {x.type}" for x in b.args) + ")"
        lines.append(label + ":")
        for op in b.ops:
            lines.append("  " + format_op(op, nm, locs))
    lines.append("}")
    return "\n".join(lines)


def print_module(m: Module, locs: bool = False) -> str:
    head = "module"
    if m.source is not None:
        import json

        head += " " + json.dumps(m.source)
    a = format_attrs(m.attrs)
    if a:
        head += f" attributes {a}"
    out = [head + " {"]
    for f in m.functions:
        out.append(print_function(f, locs))
    out.append("}")
    return "\n".join(out) + "\n"
