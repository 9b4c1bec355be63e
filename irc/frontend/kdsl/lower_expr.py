"""Expression lowering for .kdsl (mixed into `lower.KernelLowering`).

Values are IR `Value`s; register arrays are lists of `Value`s (scalarized: one SSA value per element).
Constants come from sema's `values` table, or are folded here for expressions that are constant only per
unrolled copy (they depend on an `unroll for` / list-loop variable), using sema's own `fold` so that both
agree on overflow and rounding.

Why control flow for some `?:` and every `&&`/`||`: the spec makes `&&`/`||` short-circuit, and an arm of
`?:` that loads memory or calls may fault or have effects when evaluated for the arm not taken (the
guarded load `i < n ? x[i] : 0.0` is the common case), so those become branches joined by a block
argument. Side-effect-free ternaries become `select`.
"""

from __future__ import annotations

from irc.ir import types as ir
from irc.ir.core import Value
from irc.ir.types import PtrType, ScalarType, size_of

from . import ast, fold
from .intrinsics import Intrinsic
from .typed import CONST, SHARED, SPEC, UNROLL
from .types import (
    F32,
    I32,
    ErrorType,
    MBarrier,
    Ptr,
    RegArray,
    Scalar,
    SharedArray,
    TensorMap,
    Type,
    UntypedFloat,
    UntypedInt,
    fits,
    is_untyped,
    round_to,
)

_UNTYPED = (UntypedInt, UntypedFloat)  # what `is_untyped` tests

_ARITH = {
    "+": "add",
    "-": "sub",
    "*": "mul",
    "/": "div",
    "%": "rem",
    "&": "and",
    "|": "or",
    "^": "xor",
    "<<": "shl",
    ">>": "shr",
}
_CMP = {"==": "eq", "!=": "ne", "<": "lt", "<=": "le", ">": "gt", ">=": "ge"}


class ExprLowering:
    """Expression lowering; state (builder, SSA, diagnostics) lives in `lower.KernelLowering`."""

    # ------------------------------------------------------------------------------------ types
    def ir_type(self, t: Type | None) -> ir.Type:
        if isinstance(t, Scalar):
            return ir.SCALARS[t.name]
        if isinstance(t, Ptr):
            return PtrType(t.space, ir.MBARRIER if isinstance(t.elem, MBarrier) else self.ir_type(t.elem))
        if isinstance(t, MBarrier):
            return ir.MBARRIER
        if isinstance(t, TensorMap):
            return ir.TensorMapType(self.ir_type(t.elem), tuple(t.box))
        if isinstance(t, SharedArray):
            return ir.ArrayType(self.ir_type(t.elem), tuple(t.shape))
        if isinstance(t, UntypedFloat):
            return ir.F32
        if isinstance(t, (UntypedInt, ErrorType)) or t is None:
            return ir.I32
        raise TypeError(f"no IR type for {t}")

    def fe_type(self, e: ast.Expr, want: Type | None = None) -> Type:
        """The front-end type of `e`; an untyped literal tree takes `want` (context) or its default."""
        t = self.typed.types.get(e)
        if t is None or is_untyped(t):
            if isinstance(want, Scalar):
                return want
            return F32 if isinstance(t, UntypedFloat) else I32
        return t

    # ------------------------------------------------------------------------------------ constants
    def cval(self, e: ast.Expr):
        """The compile-time value of `e` in the current unrolled copy, or None."""
        typed = self.typed
        if e in typed.values:
            return typed.values[e]
        if isinstance(e, ast.Name):
            sym = typed.refs.get(e)
            if sym is not None and sym.kind == UNROLL:
                return self.unroll_vals.get(sym)
            return None
        if e not in typed.per_copy_const:
            return None
        try:
            if isinstance(e, ast.Unary):
                v = self.cval(e.operand)
                return None if v is None else fold.unary(e.op, v, typed.types.get(e.operand))
            if isinstance(e, ast.Binary):
                a, b = self.cval(e.lhs), self.cval(e.rhs)
                if a is None or b is None:
                    return None
                lt, rt = typed.types.get(e.lhs), typed.types.get(e.rhs)
                t = lt if e.op in ("<<", ">>") or not is_untyped(lt) else rt
                return fold.binary(e.op, a, b, t)
            if isinstance(e, ast.Cast) and not e.bits:
                v = self.cval(e.operand)
                dst = typed.types.get(e)
                return (
                    None
                    if v is None or not isinstance(dst, Scalar)
                    else fold.cast(v, typed.types.get(e.operand), dst)
                )
            if isinstance(e, ast.Ternary):
                c = self.cval(e.cond)
                return None if c is None else self.cval(e.then if c else e.else_)
        except fold.FoldError as ex:
            self.err(ex.check, str(ex), e.span)
            return 0
        return None

    def emit_const(self, v, t: Type, span) -> Value:
        """A `const` of front-end scalar type `t` (ints range-checked: per-copy values are known only now)."""
        it = self.ir_type(t)
        if isinstance(t, Scalar) and t.is_bool:
            v = bool(v)
        elif isinstance(t, Scalar) and t.is_float or isinstance(t, UntypedFloat):
            v = round_to(float(v), t) if isinstance(t, Scalar) else float(v)
        else:
            v = int(v)
            if isinstance(t, Scalar) and not fits(v, t):
                self.err("const-error", f"constant `{v}` does not fit in `{t}`", span)
                v = 0
        return self.b.const(v, it)

    def static_bool(self, e: ast.Expr) -> bool | None:
        """The value of a condition when it is known at compile time, including `true || x` and
        `false && x` (which sema does not fold because `x` is not constant)."""
        v = self.cval(e)
        if isinstance(v, bool):
            return v
        if isinstance(e, ast.Binary) and e.op in ("&&", "||"):
            lv = self.static_bool(e.lhs)
            if lv is not None:
                if lv != (e.op == "&&"):
                    return lv
                return self.static_bool(e.rhs)
        return None

    def const_index(self, e: ast.Expr, n: int) -> int | None:
        """A register-array index: a constant after unrolling, in bounds (else a `const-error`)."""
        v = self.cval(e)
        if not isinstance(v, int) or isinstance(v, bool):
            self.err(
                "const-error",
                "a register array index must be a compile-time constant",
                e.span,
                help="use a literal or a `const`, or index inside `unroll for` / `for x in [...]`",
            )
            return None
        if not 0 <= v < n:
            self.err("const-error", f"index {v} is out of bounds for an array of {n} elements", e.span)
            return None
        return v

    def reg_slots(self, e: ast.Index, bt: RegArray) -> range | None:
        """The flat element positions `e` names in register array `bt`: one for `a[i]` / `a[i, j]`, a row
        (`cols` positions) for `a[i]` of a two-dimensional array; None after an index error."""
        if not bt.cols:
            i = self.const_index(e.indices[0], bt.n)
            return None if i is None else range(i, i + 1)
        i = self.const_index(e.indices[0], bt.n // bt.cols)
        if i is None:
            return None
        if len(e.indices) == 1:
            return range(i * bt.cols, (i + 1) * bt.cols)
        j = self.const_index(e.indices[1], bt.cols)
        return None if j is None else range(i * bt.cols + j, i * bt.cols + j + 1)

    # ------------------------------------------------------------------------------------ entry points
    def lower_value(self, e: ast.Expr, want: Type | None = None) -> Value | list[Value]:
        return self.lower(e, want)

    def lower(self, e: ast.Expr, want: Type | None = None):
        """Lower `e` at the current insertion point; returns a Value, a list (register array) or None."""
        b = self.b
        saved = b.span
        b.span = e.span
        typed = self.typed
        try:
            t = typed.types.get(e)  # `fe_type`, inline: this runs for every expression node
            if t is None or isinstance(t, _UNTYPED):
                t = want if isinstance(want, Scalar) else F32 if isinstance(t, UntypedFloat) else I32
            if isinstance(t, Scalar):
                if e in typed.values or e in typed.per_copy_const:
                    const = True
                elif e.__class__ is ast.Name:
                    sym = typed.refs.get(e)
                    const = sym is not None and sym.kind == UNROLL
                else:
                    const = False
                if const:
                    v = self.cval(e)
                    if v is not None:
                        return self.emit_const(v, t, e.span)
            return self._expr_handlers[type(e)](self, e, t)
        finally:
            b.span = saved

    # ------------------------------------------------------------------------------------ leaves
    def _lit(self, e: ast.Expr, t: Type) -> Value:
        return self.emit_const(self.typed.values[e], t, e.span)

    def _name(self, e: ast.Name, t: Type):
        if e in self.typed.builtins:
            return self.b.value("sreg", [], ir.U32, {"name": self.typed.builtins[e]})
        sym = self.typed.refs[e]
        if sym.kind in (CONST, SPEC):
            return self.emit_const(self.typed.consts.get(sym.name, sym.value), t, e.span)
        if sym.kind == SHARED:
            return self.shared_base(sym)
        return self.read_var(sym)

    def _member(self, e: ast.Member, t: Type) -> Value:
        return self.b.value("sreg", [], ir.U32, {"name": self.typed.builtins[e]})

    def shared_base(self, sym) -> Value:
        st = sym.type
        elem = st.elem if isinstance(st, SharedArray) else st
        return self.b.value(
            "shared_addr",
            [],
            PtrType("shared", self.ir_type(elem)),
            {"sym": self.shared_names[sym]},
            hint=sym.name,
        )

    # ------------------------------------------------------------------------------------ operators
    def _unary(self, e: ast.Unary, t: Type) -> Value:
        v = self.lower(e.operand, t)
        return self.b.value("neg" if e.op == "-" else "not", [v])

    def _binary(self, e: ast.Binary, t: Type):
        op = e.op
        if op in ("&&", "||"):
            return self._logical(e)
        lt, rt = self.typed.types.get(e.lhs), self.typed.types.get(e.rhs)
        if op in _CMP:
            ot = rt if is_untyped(lt) else lt
            ot = self.fe_type(e.lhs, ot if not is_untyped(ot) else None)
            a = self.lower(e.lhs, ot)
            b = self.lower(e.rhs, ot)
            return self.compare(op, a, b)
        if isinstance(lt, Ptr):
            p = self.lower(e.lhs)
            i = self.lower(e.rhs, rt if not is_untyped(rt) else I32)
            return self.ptr_offset(p, i, negate=op == "-")
        if op in ("<<", ">>"):
            a = self.lower(e.lhs, t)
            b = self.lower(e.rhs, t if is_untyped(rt) else rt)
            return self.binop(op, a, b, e.span)
        a = self.lower(e.lhs, t)
        b = self.lower(e.rhs, t)
        return self.binop(op, a, b, e.span)

    def compare(self, op: str, a: Value, b: Value) -> Value:
        if isinstance(a.type, ScalarType) and a.type.is_bool:  # no setp on predicates: xor / not
            x = self.b.value("xor", [a, b])
            return x if op == "!=" else self.b.value("not", [x])
        return self.b.value("cmp", [a, b], attrs={"pred": _CMP[op]})

    def binop(self, op: str, a: Value, b: Value, span=None) -> Value:
        """`a op b` for lowered operands (also compound assignment); pointers advance by elements."""
        if isinstance(a.type, PtrType) and op in ("+", "-"):
            return self.ptr_offset(a, b, negate=op == "-")
        if op in ("<<", ">>") and b.type != a.type:
            b = self.convert(b, a.type)
        return self.b.value(_ARITH[op], [a, b])

    def _logical(self, e: ast.Binary) -> Value:
        """Short-circuit `&&` / `||`: the right operand runs only when needed; the result is a block arg."""
        is_and = e.op == "&&"
        lv = self.static_bool(e.lhs)
        if isinstance(lv, bool):
            if lv != is_and:  # false && x, true || x
                return self.b.const(lv, ir.BOOL)
            return self.lower(e.rhs)
        lhs = self.lower(e.lhs)
        rhs_b, join = self.new_block(), self.new_block([ir.BOOL])
        short = self.b.const(not is_and, ir.BOOL)
        self.b.span = e.span
        head, start = self.cur, self.ssa.mark()
        if is_and:
            self.cbr(lhs, rhs_b, join, [], [short])
        else:
            self.cbr(lhs, join, rhs_b, [short], [])
        self.ssa.seal(rhs_b)
        self.start(rhs_b)
        rhs = self.lower(e.rhs)
        self._join_edge(join, [rhs], e)
        self.ssa.close_region(join, head, start)
        return self._finish_join(join, e)[0]

    def _join_edge(self, join, vals: list[Value], e: ast.Expr) -> None:
        if self.cur is not None:
            self.b.span = e.span
            self.br(join, vals)

    def _finish_join(self, join, e: ast.Expr) -> list[Value]:
        self.continue_in(join)
        self.b.span = e.span
        if self.cur is None:
            self.dead_block()
            return [self.ssa.undef(a.type) for a in join.args]
        return list(join.args)

    def _ternary(self, e: ast.Ternary, t: Type):
        c = self.cval(e.cond)
        if isinstance(c, bool):
            return self.lower(e.then if c else e.else_, t)
        cond = self.lower(e.cond)
        if not (self.may_trap(e.then) or self.may_trap(e.else_)):
            a = self.lower(e.then, t)
            b = self.lower(e.else_, t)
            self.b.span = e.span
            if isinstance(a, list):
                return [self.select(cond, x, y) for x, y in zip(a, b)]
            return self.select(cond, a, b)
        types = [self.ir_type(t.elem)] * t.n if isinstance(t, RegArray) else [self.ir_type(t)]
        then_b, else_b, join = self.new_block(), self.new_block(), self.new_block(types)
        self.b.span = e.span
        head, start = self.cur, self.ssa.mark()
        self.cbr(cond, then_b, else_b)
        for blk, arm in ((then_b, e.then), (else_b, e.else_)):
            self.ssa.seal(blk)
            self.start(blk)
            v = self.lower(arm, t)
            self._join_edge(join, v if isinstance(v, list) else [v], e)
        self.ssa.close_region(join, head, start)
        vals = self._finish_join(join, e)
        return vals if isinstance(t, RegArray) else vals[0]

    def select(self, c: Value, a: Value, b: Value) -> Value:
        if isinstance(a.type, ScalarType) and a.type.is_bool:  # no selp on predicates: (c & a) | (!c & b)
            nc = self.b.value("not", [c])
            return self.b.value("or", [self.b.value("and", [c, a]), self.b.value("and", [nc, b])])
        return self.b.value("select", [c, a, b])

    def may_trap(self, e: ast.Expr) -> bool:
        """Does evaluating `e` touch memory or have effects (so it must not run for the arm not taken)?"""
        if e in self.typed.values:
            return False
        if isinstance(e, ast.Index):
            bt = self.typed.types.get(e.base)
            if isinstance(bt, (Ptr, SharedArray)):
                return True
            return any(self.may_trap(x) for x in [e.base, *e.indices])
        if isinstance(e, ast.Call):
            target = self.typed.calls.get(e)
            if not isinstance(target, Intrinsic) or not target.pure:
                return True
            return any(self.may_trap(a) for a in e.args)
        if isinstance(e, ast.Binary):
            return self.may_trap(e.lhs) or self.may_trap(e.rhs)
        if isinstance(e, ast.Unary):
            return self.may_trap(e.operand)
        if isinstance(e, ast.Cast):
            return self.may_trap(e.operand)
        if isinstance(e, ast.Ternary):
            return self.may_trap(e.cond) or self.may_trap(e.then) or self.may_trap(e.else_)
        if isinstance(e, ast.ArrayList):
            return any(self.may_trap(x) for x in e.elems)
        if isinstance(e, ast.ArrayRepeat):
            return self.may_trap(e.value)
        if isinstance(e, ast.AddrOf):
            x = e.operand
            return isinstance(x, ast.Index) and any(self.may_trap(i) for i in [x.base, *x.indices])
        return False

    # ------------------------------------------------------------------------------------ conversions
    def _cast(self, e: ast.Cast, t: Type) -> Value:
        src = self.fe_type(e.operand)
        v = self.lower(e.operand, src)
        if e.bits:
            dst = self.ir_type(t)
            return v if v.type == dst else self.b.value("bitcast", [v], dst)
        return self.convert(v, self.ir_type(t))

    def convert(self, v: Value, dst: ir.Type) -> Value:
        """`v as dst` (spec section 2): `cvt`, except `bool as int` (a select of 1 and 0)."""
        if v.type == dst:
            return v
        st = v.type
        if isinstance(st, ScalarType) and st.is_bool:
            one = self.b.const(1.0 if dst.is_float else 1, dst)
            zero = self.b.const(0.0 if dst.is_float else 0, dst)
            return self.b.value("select", [v, one, zero])
        if isinstance(dst, ScalarType) and dst.is_bool:
            return self.b.value("cmp", [v, self.b.const(0.0 if st.is_float else 0, st)], attrs={"pred": "ne"})
        return self.b.value("cvt", [v], dst)

    # ------------------------------------------------------------------------------------ memory
    def ptr_offset(self, p: Value, i: Value, negate: bool = False) -> Value:
        """`p + i` / `p - i` in elements: `ptradd p, i * sizeof(T)` with a byte offset of the pointer's width
        (64-bit for global pointers, sign-extending signed indices; 32-bit for shared pointers)."""
        pt = p.type
        assert isinstance(pt, PtrType)
        size = size_of(pt.elem)
        if isinstance(i.type, ScalarType):
            signed = i.type.is_signed or negate
        else:
            signed = False
        wide = pt.space != "shared"
        ot = (ir.I64 if signed else ir.U64) if wide else (ir.I32 if signed else ir.U32)
        c = _const_of(i)
        if c is not None:
            off = int(c) * size * (-1 if negate else 1)
            if off == 0:
                return p
            bits = 64 if wide else 32
            if not -(1 << (bits - 1)) <= off < (1 << bits):
                self.err(
                    "const-error",
                    f"the constant byte offset {off} does not fit the {bits}-bit address of a "
                    f"{pt.space} pointer",
                    self.b.span,
                )
                return p
            if off < 0:
                ot = ir.I64 if wide else ir.I32
            off_v = self.b.const(off, ot)
            return self.b.value("ptradd", [p, off_v], pt)
        if i.type != ot:
            if i.type.is_signed != ot.is_signed and i.type.bits == ot.bits:
                i = self.b.value("cvt", [i], ot)
            elif i.type.bits < ot.bits and not i.type.is_signed and ot.is_signed:
                i = self.b.value("cvt", [self.b.value("cvt", [i], ir.U64 if wide else ir.U32)], ot)
            else:
                i = self.b.value("cvt", [i], ot)
        if size != 1:
            i = self.b.value("mul", [i, self.b.const(size, ot)])
        if negate:
            i = self.b.value("neg", [i])
        return self.b.value("ptradd", [p, i], pt)

    def place_addr(self, e: ast.Index) -> Value:
        """Address of `p[i]` or `tile[r, c]` (element type from the pointer / the shared declaration)."""
        bt = self.typed.types.get(e.base)
        if isinstance(bt, Ptr):
            p = self.lower(e.base)
            it = self.typed.types.get(e.indices[0])
            i = self.lower(e.indices[0], it if not is_untyped(it) else I32)
            self.b.span = e.span
            return self.ptr_offset(p, i)
        assert isinstance(bt, SharedArray) and isinstance(e.base, ast.Name)
        sym = self.typed.refs[e.base]
        base = self.shared_base(sym)
        consts = [self.cval(i) for i in e.indices]
        if all(isinstance(c, int) for c in consts):
            lin = 0
            for c, d in zip(consts, bt.shape):
                lin = lin * d + int(c)
            self.b.span = e.span
            return self.ptr_offset(base, self.b.const(lin, ir.I32 if lin < 0 else ir.U32))
        idx = []
        for i in e.indices:
            it = self.typed.types.get(i)
            idx.append(self.lower(i, it if not is_untyped(it) else I32))
        self.b.span = e.span
        signed = any(v.type.is_signed for v in idx if isinstance(v.type, ScalarType))
        ot = ir.I32 if signed else ir.U32
        idx = [v if v.type == ot else self.b.value("cvt", [v], ot) for v in idx]
        lin = idx[0]
        for v, d in zip(idx[1:], bt.shape[1:]):
            lin = self.b.value("add", [self.b.value("mul", [lin, self.b.const(d, ot)]), v])
        return self.ptr_offset(base, lin)

    def _index(self, e: ast.Index, t: Type):
        bt = self.typed.types.get(e.base)
        if isinstance(bt, RegArray):
            slots = self.reg_slots(e, bt)
            vals: dict[int, Value] | list[Value] | None
            if (
                isinstance(e.base, ast.Name)
                and e.base in self.typed.refs
                and self.typed.refs[e.base].kind != SHARED
            ):
                sym = self.typed.refs[e.base]
                vals = self.read_elems(sym, slots) if slots is not None else None
            else:
                vals = self.lower(e.base)
            if slots is None:
                undef = self.ssa.undef(self.ir_type(bt.elem))
                return [undef] * bt.cols if bt.cols and len(e.indices) == 1 else undef
            if bt.cols and len(e.indices) == 1:
                return [vals[k] for k in slots]
            return vals[slots[0]]
        addr = self.place_addr(e)
        self.b.span = e.span
        if isinstance(bt, Ptr) and bt.readonly:
            return self.b.value("load", [addr], addr.type.elem, {"nc": True})
        return self.b.value("load", [addr], addr.type.elem)

    def _addr_of(self, e: ast.AddrOf, t: Type) -> Value:
        x = e.operand
        if isinstance(x, ast.Index):
            return self.place_addr(x)
        assert isinstance(x, ast.Name)
        return self.shared_base(self.typed.refs[x])

    def _array_repeat(self, e: ast.ArrayRepeat, t: Type) -> list[Value]:
        n = self.cval(e.count)
        v = self.lower(e.value, _item_type(t))
        return (v if isinstance(v, list) else [v]) * int(n)

    def _array_list(self, e: ast.ArrayList, t: Type) -> list[Value]:
        out: list[Value] = []
        for x in e.elems:
            v = self.lower(x, _item_type(t))
            out.extend(v if isinstance(v, list) else [v])  # rows of a two-dimensional array, flattened
        return out

    def _call(self, e: ast.Call, t: Type):
        target = self.typed.calls[e]
        if isinstance(target, Intrinsic):
            return self.intrinsic(e, target, t)
        return self.inline_call(e, target)

    _expr_handlers = {
        ast.IntLit: _lit,
        ast.FloatLit: _lit,
        ast.BoolLit: _lit,
        ast.Name: _name,
        ast.Member: _member,
        ast.Unary: _unary,
        ast.Binary: _binary,
        ast.Ternary: _ternary,
        ast.Cast: _cast,
        ast.Index: _index,
        ast.AddrOf: _addr_of,
        ast.ArrayRepeat: _array_repeat,
        ast.ArrayList: _array_list,
        ast.Call: _call,
    }


def _item_type(t: Type) -> Type | None:
    """The type of each item of an array literal of type `t` (a row when `t` is two-dimensional)."""
    if isinstance(t, RegArray):
        return t.row if t.cols else t.elem
    return None


def _const_of(v: Value):
    """The value of a `const` op result, else None."""
    op = getattr(v, "op", None)
    if op is not None and op.name == "const":
        return op.attrs["value"]
    return None
