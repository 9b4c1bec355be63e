"""A builder that appends ops at an insertion point and infers result types from the op table.

Why: the front end, the PTX lifter and the passes all create ops; inferring the common result types
(`add` -> the operand type, `cmp` -> bool) here keeps those call sites short and consistent.
"""

from __future__ import annotations

from typing import Any

from irc.diagnostics import Span
from irc.ir.core import Block, Op, Value
from irc.ir.optable import opdef
from irc.ir.types import SCALARS, Type

# op name -> (position of its first "T" operand or None, its results: "T" or a scalar type; None when a
# result constraint is neither, so the types must be declared)
_PLANS: dict[str, tuple[int | None, tuple[Type | str, ...] | None]] = {}


def _plan(name: str) -> tuple[int | None, tuple[Type | str, ...] | None]:
    got = _PLANS.get(name)
    if got is None:
        d = opdef(name)
        t_at = d.operands.index("T") if "T" in d.operands else None
        res: tuple[Type | str, ...] | None = tuple(
            "T" if r == "T" else SCALARS[r] for r in d.results if r == "T" or r in SCALARS
        )
        if len(res) != len(d.results):
            res = None
        got = _PLANS[name] = (t_at, res)
    return got


def infer_result_types(name: str, operands: list[Value]) -> list[Type] | None:
    """Result types implied by the op table, or None when the op needs them declared. (The op table's
    row is read once per op name: every op the front end and the passes build comes through here.)"""
    t_at, res = _plan(name)
    if res is None:
        return None
    tvar = operands[t_at].type if t_at is not None and t_at < len(operands) else None
    out: list[Type] = []
    for r in res:
        if r.__class__ is str:  # "T"
            if tvar is None:
                return None
            out.append(tvar)
        else:
            out.append(r)  # type: ignore[arg-type]
    return out


class Builder:
    """Appends ops to `block` (before its terminator when `before_terminator`); `span` is attached to each
    op created while it is set, so lowering code sets it once per source construct."""

    def __init__(self, block: Block | None = None, span: Span | None = None):
        self.block = block
        self.index: int | None = None  # None: append at the end
        self.span = span
        self.created = 0  # ops created so far: front ends bound the IR size with it (irc/limits.py)

    def at_end(self, block: Block) -> Builder:
        self.block, self.index = block, None
        return self

    def before(self, op: Op) -> Builder:
        assert op.block is not None
        self.block, self.index = op.block, op.block.ops.index(op)
        return self

    def create(
        self,
        name: str,
        operands: list[Value] | None = None,
        result_types: list[Type] | None = None,
        attrs: dict[str, Any] | None = None,
        successors=None,
        succ_args=None,
        span: Span | None = None,
        names: list[str | None] | None = None,
    ) -> Op:
        operands = operands or []  # (read here; `Op` copies it)
        if result_types is None:
            result_types = infer_result_types(name, operands)
            if result_types is None:
                if opdef(name).results:
                    raise ValueError(f"op {name} needs explicit result types")
                result_types = []
        op = Op(name, operands, result_types, attrs, successors, succ_args, span or self.span, names)
        assert self.block is not None, "builder has no insertion block"
        self.created += 1
        if self.index is None:
            op.block = self.block  # (Block.append, inline)
            self.block.ops.append(op)
        else:
            self.block.insert(self.index, op)
            self.index += 1
        return op

    def value(
        self,
        name: str,
        operands: list[Value] | None = None,
        type: Type | None = None,
        attrs: dict[str, Any] | None = None,
        span: Span | None = None,
        hint: str | None = None,
    ) -> Value:
        """Create a single-result op and return its result."""
        op = self.create(
            name,
            operands,
            [type] if type is not None else None,
            attrs,
            span=span,
            names=[hint] if hint else None,
        )
        return op.result

    def const(self, value: int | float | bool, type: Type) -> Value:
        return self.value("const", [], type, {"value": value})

    def br(self, dest: Block, args: list[Value] | None = None) -> Op:
        return self.create("br", [], [], successors=[dest], succ_args=[list(args or [])])

    def cbr(
        self,
        cond: Value,
        then: Block,
        then_args: list[Value] | None,
        els: Block,
        else_args: list[Value] | None,
    ) -> Op:
        return self.create(
            "cbr",
            [cond],
            [],
            successors=[then, els],
            succ_args=[list(then_args or []), list(else_args or [])],
        )

    def ret(self, values: list[Value] | None = None) -> Op:
        return self.create("ret", list(values or []), [])
