"""`unroll(N) for i in a..b step s { ... }`: partial unrolling (mixed into `lower.KernelLowering`).

Shape of the lowered loop (i has the range's type; s is 1 without `step`):

    main:   if !(i < b)                   -> exit
            if !((b - i) > (N-1)*s)       -> rest     (unsigned difference: no overflow for any i < b)
            body(i); i += s; ... N copies ...; -> main
    rest:   if !(i < b) -> exit; body(i); i += s; -> rest
    exit:

so the main loop runs only while all N copies are in range and the remainder (fewer than N trips) runs one
copy at a time: the trips are exactly those of `for`. Why not a trip count: `(b - a) / s` costs a division,
and `i + (N-1)*s < b` can overflow near the type's maximum; the unsigned distance cannot. A `continue` in a
copy goes on with the next copy, a `break` leaves both loops. With a non-constant step the test becomes
`s <= (b - i - 1) / (N - 1)` (same meaning, no overflowing multiplication).
"""

from __future__ import annotations

from irc.ir import types as ir
from irc.ir.core import Value

from . import ast
from .lower_expr import _const_of
from .typed import Symbol


class PartialUnrollLowering:
    """Partial unrolling; state (builder, SSA, loop stack) lives in `lower.KernelLowering`."""

    def partial_unroll(self, s: ast.ForStmt, sym: Symbol, n: int, loop_cls: type) -> None:
        b = self.b
        start = self.lower_value(s.start, sym.type)
        end = self.lower_value(s.end, sym.type)
        step = self.lower_value(s.step, sym.type) if s.step is not None else None
        b.span = s.var_span
        if step is None:
            step = b.const(1, start.type)
        self.write_var(sym, start)
        ty = start.type
        uty = ir.SCALARS[f"u{ty.bits}"]
        main_h, check, main_b, rest_h, exit_ = (self.new_block() for _ in range(5))
        b.span = s.span
        self.br(main_h)
        self.start(main_h)
        i = self.read_var(sym)
        b.span = s.end.span
        self.cbr(b.value("cmp", [i, end], attrs={"pred": "lt"}), check, exit_)
        self.ssa.seal(check)
        self.start(check)
        self.cbr(self._all_copies_fit(i, end, step, n, uty), main_b, rest_h)
        self.ssa.seal(main_b)
        self.start(main_b)
        loop = loop_cls(exit_, None)
        self.loops.append(loop)
        for _ in range(n):
            loop.cont_block = None
            self.block(s.body)
            cont = loop.cont_block
            if cont is not None:
                if self.cur is not None:
                    self.br(cont)
                self.continue_in(cont)
            if self.cur is None:
                break
            b.span = s.step.span if s.step is not None else s.var_span
            self.write_var(sym, b.value("add", [self.read_var(sym), step], hint=sym.name))
        self.loops.pop()
        if self.cur is not None:
            b.span = s.span
            self.br(main_h)
        self.ssa.seal(main_h)
        self._remainder(s, sym, end, step, rest_h, exit_, loop_cls)

    def _all_copies_fit(self, i: Value, end: Value, step: Value, n: int, uty: ir.ScalarType) -> Value:
        """`(end - i) > (n-1)*step` in unsigned arithmetic, given `i < end`."""
        b = self.b
        if n == 1:
            return b.const(True, ir.BOOL)
        dist = b.value("sub", [end, i])
        if dist.type != uty:
            dist = b.value("bitcast", [dist], uty)
        c = _const_of(step)
        if isinstance(c, int):
            need = (n - 1) * c
            if need >= 1 << uty.bits:
                return b.const(False, ir.BOOL)
            return b.value("cmp", [dist, b.const(need, uty)], attrs={"pred": "gt"})
        us = step if step.type == uty else b.value("bitcast", [step], uty)
        room = b.value("div", [b.value("sub", [dist, b.const(1, uty)]), b.const(n - 1, uty)])
        return b.value("cmp", [us, room], attrs={"pred": "le"})

    def _remainder(self, s, sym, end, step, header, exit_, loop_cls) -> None:
        """The plain loop over the trips left after the unrolled main loop (fewer than N)."""
        b = self.b
        body, latch = self.new_block(), self.new_block()
        self.start(header)
        b.span = s.end.span
        self.cbr(b.value("cmp", [self.read_var(sym), end], attrs={"pred": "lt"}), body, exit_)
        self.ssa.seal(body)
        self.start(body)
        self.loops.append(loop_cls(exit_, latch))
        self.block(s.body)
        self.loops.pop()
        if self.cur is not None:
            b.span = s.span
            self.br(latch)
        self.ssa.seal(latch)
        if self.has_preds(latch):
            self.start(latch)
            b.span = s.step.span if s.step is not None else s.var_span
            self.write_var(sym, b.value("add", [self.read_var(sym), step], hint=sym.name))
            self.br(header)
        self.ssa.seal(header)
        self.continue_in(exit_)
