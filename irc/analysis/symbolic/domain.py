"""The op table's semantics (`irc.ir.semantics`) over z3 terms: the symbolic domain.

Why: what an op computes is written once, over a domain of primitives; constant folding runs it on
numbers (`irc.ir.fold.Concrete`) and the race evaluator on per-thread vectors (`irc.analysis.lanes`).
Queries that need a solver run the same definitions here, so `add.sat`, `shr` by 40 or `prmt` mean one
thing to the folder, the evaluators and the solver.

Values are bit-vectors of their width (a bool is one bit). A float is its bit pattern: a comparison reads
it as an IEEE value (z3's floating-point theory), negation and absolute value are exact bit operations,
and the arithmetic (`fadd`, `fmul`, ...) is an uninterpreted function per operation and type, with the
operands of the commutative ones (add, mul, min, max) in a canonical order: exactly the facts IEEE gives
(commutativity, determinism) and no more. A query that needs more of float arithmetic than that gets
"not proven", never a guess.

`assumptions` collects what the semantics requires (`defined`: no division by zero, ...) and, when
`ordered` is set, that compared floats are not NaN (a query states that it relies on it).
"""

from __future__ import annotations

import struct
from typing import Any

_FP = {"f16": (5, 11), "bf16": (8, 8), "f32": (8, 24), "f64": (11, 53)}
_FW = {"f16": 16, "bf16": 16, "f32": 32, "f64": 64}


class Z3Domain:
    def __init__(self, m: Any, ctx: Any, ordered: bool = False) -> None:
        self.m = m
        self.ctx = ctx
        self.ordered = ordered
        self.assumptions: list[Any] = []
        self._ufs: dict[tuple, Any] = {}
        self.compared_floats = False  # whether a float comparison was encoded

    # -- bit-vectors ------------------------------------------------------------------------------
    def const(self, k: int, w: int) -> Any:
        return self.m.BitVecVal(k & ((1 << w) - 1), w, ctx=self.ctx)

    def add(self, a: Any, b: Any, w: int) -> Any:
        return a + b

    def sub(self, a: Any, b: Any, w: int) -> Any:
        return a - b

    def mul(self, a: Any, b: Any, w: int) -> Any:
        return a * b

    def and_(self, a: Any, b: Any, w: int) -> Any:
        return a & b

    def or_(self, a: Any, b: Any, w: int) -> Any:
        return a | b

    def xor(self, a: Any, b: Any, w: int) -> Any:
        return a ^ b

    def not_(self, a: Any, w: int) -> Any:
        return ~a

    def neg(self, a: Any, w: int) -> Any:
        return -a

    def shl(self, a: Any, s: Any, w: int) -> Any:
        return a << s  # SMT-LIB: an amount >= w gives 0, as the semantics states

    def lshr(self, a: Any, s: Any, w: int) -> Any:
        return self.m.LShR(a, s)

    def ashr(self, a: Any, s: Any, w: int) -> Any:
        return a >> s

    def udiv(self, a: Any, b: Any, w: int) -> Any:
        return self.m.UDiv(a, b)

    def urem(self, a: Any, b: Any, w: int) -> Any:
        return self.m.URem(a, b)

    def sdiv(self, a: Any, b: Any, w: int) -> Any:
        return a / b

    def srem(self, a: Any, b: Any, w: int) -> Any:
        return self.m.SRem(a, b)

    def _bit(self, c: Any) -> Any:
        one = self.m.BitVecVal(1, 1, ctx=self.ctx)
        zero = self.m.BitVecVal(0, 1, ctx=self.ctx)
        return self.m.If(c, one, zero)

    def eq(self, a: Any, b: Any, w: int) -> Any:
        return self._bit(a == b)

    def ult(self, a: Any, b: Any, w: int) -> Any:
        return self._bit(self.m.ULT(a, b))

    def slt(self, a: Any, b: Any, w: int) -> Any:
        return self._bit(a < b)

    def ite(self, c: Any, a: Any, b: Any, w: int) -> Any:
        return self.m.If(c == 1, a, b)

    def zext(self, a: Any, w: int, to: int) -> Any:
        return self.m.ZeroExt(to - w, a) if to > w else a

    def sext(self, a: Any, w: int, to: int) -> Any:
        return self.m.SignExt(to - w, a) if to > w else a

    def trunc(self, a: Any, w: int, to: int) -> Any:
        return self.m.Extract(to - 1, 0, a) if to < w else a

    def popc(self, a: Any, w: int) -> Any:
        bits = [self.m.ZeroExt(w - 1, self.m.Extract(i, i, a)) for i in range(w)]
        return self.m.Sum(bits) if w > 1 else a

    def defined(self, c: Any) -> None:
        self.assumptions.append(c == 1)

    # -- floats (bit patterns) --------------------------------------------------------------------
    def fconst(self, x: float, t: str) -> Any:
        fmt = {"f16": "<e", "f32": "<f", "f64": "<d"}.get(t)
        if fmt is None:
            raise ValueError(f"{t} constant")
        raw = int.from_bytes(struct.pack(fmt, x), "little")
        return self.m.BitVecVal(raw, _FW[t], ctx=self.ctx)

    def uf(self, key: tuple, args: list[Any], bits: int, commutative: bool = False) -> Any:
        """An uninterpreted function (one per `key`) of `args` with a `bits`-wide result; the operands of a
        `commutative` one in a canonical order, so f(a, b) and f(b, a) are one term."""
        if commutative and len(args) == 2 and args[0].size() == args[1].size():
            a, b = args
            le = self.m.ULE(a, b)
            args = [self.m.If(le, a, b), self.m.If(le, b, a)]
        f = self._ufs.get(key)
        if f is None:
            sorts = [self.m.BitVecSort(x.size(), ctx=self.ctx) for x in args]
            res = self.m.BitVecSort(bits, ctx=self.ctx)
            f = self._ufs[key] = self.m.Function(f"uf{len(self._ufs)}", *sorts, res)
        return f(*args)

    def _uf(self, name: str, t: str, args: list[Any], commutative: bool = False) -> Any:
        return self.uf((name, t), args, _FW[t], commutative)

    def fadd(self, a: Any, b: Any, t: str) -> Any:
        return self._uf("fadd", t, [a, b], True)

    def fsub(self, a: Any, b: Any, t: str) -> Any:
        return self._uf("fsub", t, [a, b])

    def fmul(self, a: Any, b: Any, t: str) -> Any:
        return self._uf("fmul", t, [a, b], True)

    def fdiv(self, a: Any, b: Any, t: str) -> Any:
        return self._uf("fdiv", t, [a, b])

    def fmin(self, a: Any, b: Any, t: str) -> Any:
        return self._uf("fmin", t, [a, b], True)

    def fmax(self, a: Any, b: Any, t: str) -> Any:
        return self._uf("fmax", t, [a, b], True)

    def fneg(self, a: Any, t: str) -> Any:
        return a ^ self.m.BitVecVal(1 << (_FW[t] - 1), _FW[t], ctx=self.ctx)

    def fabs(self, a: Any, t: str) -> Any:
        return a & self.m.BitVecVal((1 << (_FW[t] - 1)) - 1, _FW[t], ctx=self.ctx)

    def fcmp(self, pred: str, a: Any, b: Any, t: str) -> Any:
        m, ctx = self.m, self.ctx
        srt = m.FPSort(*_FP[t], ctx=ctx)
        x, y = m.fpToFP(a, srt, ctx=ctx), m.fpToFP(b, srt, ctx=ctx)  # z3's float API needs ctx= everywhere
        nan = m.Or(m.fpIsNaN(x, ctx=ctx), m.fpIsNaN(y, ctx=ctx))
        self.compared_floats = True
        if self.ordered:
            self.assumptions.append(m.Not(nan))
        if pred == "num":
            return self._bit(m.Not(nan))
        if pred == "nan":
            return self._bit(nan)
        unordered = pred == "ne" or (pred.endswith("u") and pred not in ("num",))
        base = {"ne": "ne", "one": "ne"}.get(pred, pred[:-1] if pred.endswith("u") else pred)
        table = {"eq": m.fpEQ, "ne": m.fpNEQ, "lt": m.fpLT, "le": m.fpLEQ, "gt": m.fpGT, "ge": m.fpGEQ}
        r = table[base](x, y, ctx=ctx)
        if base == "ne":
            r = m.And(m.Not(nan), m.Not(m.fpEQ(x, y, ctx=ctx)))
        return self._bit(m.Or(nan, r) if unordered else r)

    def fbits(self, a: Any, t: str) -> Any:
        return a

    def ffrombits(self, a: Any, t: str) -> Any:
        return a
