"""Expression typing for semantic analysis (a mixin of `sema.Analyzer`).

Literal typing is bidirectional but cheap: every expression is first typed bottom-up, unsuffixed literals
(and what is computed only from them) get an *untyped* type, and the consumer fixes it with `coerce` (the
other operand of a binary operator, a declared or parameter type) or `finish` (no context: `i32` / `f32`).
Constant values are folded on the way up (`fold.py`) and range-checked when the type becomes known, so
`-2147483648` fits `i32` while `2147483648` alone does not.
"""

from __future__ import annotations

from irc.diagnostics import Label
from irc.target import FAMILY_TEXT

from . import ast, fold
from .intrinsics import (
    BUILTIN_SCALARS,
    BUILTIN_VECTORS,
    CUDA_SPELLINGS,
    INTRINSICS,
    target_supports,
)
from .typed import UNROLL
from .types import (
    BOOL,
    ERROR,
    F32,
    I32,
    MBARRIER,
    SCALARS,
    U32,
    UNTYPED_FLOAT,
    UNTYPED_INT,
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
    Void,
    fits,
    is_untyped,
    round_to,
)

ARITH = ("+", "-", "*", "/", "%")
BITWISE = ("&", "|", "^")
SHIFTS = ("<<", ">>")
COMPARE = ("==", "!=", "<", "<=", ">", ">=")
LOGICAL = ("&&", "||")
MAX_REG_ARRAY = 1024


def default_type(t: Type) -> Type:
    return I32 if isinstance(t, UntypedInt) else F32 if isinstance(t, UntypedFloat) else t


def show(t: Type) -> str:
    return str(t) if is_untyped(t) else f"`{t}`"


class ExprMixin:
    """Expression checks; state (tables, scopes, diagnostics) lives in `sema.Analyzer`."""

    # ------------------------------------------------------------------------------------------ entry
    def expr(self, e: ast.Expr, want: Type | None = None) -> Type:
        t = self._expr_handlers[type(e)](self, e, want)
        self.types[e] = t
        return t

    def value_expr(self, e: ast.Expr, want: Type | None = None) -> Type:
        """Type `e` where a value is needed: shared arrays, mbarriers, tensormaps and `()` are errors."""
        return self.need_value(e, self.expr(e, want))

    def need_value(self, e: ast.Expr, t: Type) -> Type:
        if isinstance(t, (Scalar, Ptr, RegArray, UntypedInt, UntypedFloat, ErrorType)):
            return t
        if isinstance(t, Void):
            self.err("type-error", "this call returns no value", e.span)
        elif isinstance(t, SharedArray):
            name = e.ident if isinstance(e, ast.Name) else "a shared array"
            self.err(
                "type-error",
                f"`{name}` is a shared array, not a value: index it or take an address",
                e.span,
                help=f"`{name}[i]` loads an element, `&{name}[i]` is a `*shared` pointer",
            )
        elif isinstance(t, MBarrier):
            self.err(
                "type-error",
                "an mbarrier is not a value: pass its address",
                e.span,
                help="use `&bar` (a `*shared mbarrier`)",
            )
        elif isinstance(t, TensorMap):
            self.err("type-error", "a tensormap can only be passed to the TMA intrinsics", e.span)
        else:
            self.err("type-error", f"`{t}` is not a value", e.span)
        self.types[e] = ERROR
        return ERROR

    def finish(self, e: ast.Expr, t: Type) -> Type:
        """No context: an untyped expression takes its default type (`i32` / `f32`)."""
        return self.coerce(e, default_type(t)) if is_untyped(t) else t

    def coerce(self, e: ast.Expr, target: Type) -> Type:
        """Give the (possibly) untyped expression `e` the type `target`, reporting when it cannot."""
        t = self.types.get(e, ERROR)
        if not is_untyped(t):
            return t
        if isinstance(target, ErrorType):
            self._fix(e, default_type(t), check=False)
            return ERROR
        if (
            not isinstance(target, Scalar)
            or target.is_bool
            or (isinstance(t, UntypedFloat) and target.is_int)
        ):
            self.err("type-error", f"expected `{target}`, found {t}", e.span)
            self._fix(e, default_type(t), check=False)
            return ERROR
        v = self.values.get(e)
        if v is not None:
            if not fits(v, target):
                what = (
                    f"literal `{e.text}`" if isinstance(e, (ast.IntLit, ast.FloatLit)) else f"constant `{v}`"
                )
                self.err(
                    "const-error", f"{what} does not fit in `{target}`", e.span, help=_range_help(target)
                )
                self._fix(e, target, check=False)
                return ERROR
            self._fix(e, target, check=False)
        else:
            self._fix(e, target, check=True)
        return target

    def _fix(self, e: ast.Expr, target: Scalar, check: bool) -> None:
        """Set the type of the untyped tree `e` to `target` (values converted). With `check`, constant
        leaves are range-checked (the whole tree has no single value: it depends on an unroll variable)."""
        if not is_untyped(self.types.get(e, ERROR)):
            return
        self.types[e] = target
        v = self.values.get(e)
        if v is not None and target.is_float:
            self.values[e] = round_to(float(v), target)
        sides = (
            (e.operand,)
            if isinstance(e, ast.Unary)
            else (e.lhs, e.rhs)
            if isinstance(e, ast.Binary)
            else (e.then, e.else_)
            if isinstance(e, ast.Ternary)
            else ()
        )
        for side in sides:
            if check:
                self.coerce(side, target)
            else:
                self._fix(side, target, False)
        if isinstance(e, ast.Name) and check:
            sym = self.refs.get(e)
            if sym is not None and sym.values and not all(fits(x, target) for x in sym.values):
                self.err(
                    "const-error",
                    f"the values of `{e.ident}` ({min(sym.values)}..{max(sym.values)}) "
                    f"do not fit in `{target}`",
                    e.span,
                )

    def expect(self, e: ast.Expr, t: Type, want: Type, what: str = "") -> Type:
        """`e` (of type `t`) is used where `want` is required."""
        if isinstance(t, ErrorType) or isinstance(want, ErrorType):
            return ERROR
        if is_untyped(t):
            return self.coerce(e, want)
        if t != want:
            self.err("type-error", f"expected `{want}`, found `{t}`" + (f" ({what})" if what else ""), e.span)
            return ERROR
        return t

    def const_of(self, e: ast.Expr, what: str) -> object | None:
        """The compile-time value of an already typed expression, or a const-error."""
        v = self.values.get(e)
        if v is None and not isinstance(self.types.get(e), ErrorType):
            self.err(
                "const-error",
                f"{what} must be a compile-time constant",
                e.span,
                help="use literals, `const`s, `param`s and operators on them",
            )
        return v

    # -------------------------------------------------------------------------------------- literals
    def _int_lit(self, e: ast.IntLit, want: Type | None) -> Type:
        self.values[e] = e.value
        if e.suffix is None:
            return UNTYPED_INT
        t = SCALARS[e.suffix]
        if not fits(e.value, t):
            self.err("const-error", f"literal `{e.text}` does not fit in `{t}`", e.span, help=_range_help(t))
        return t

    def _float_lit(self, e: ast.FloatLit, want: Type | None) -> Type:
        if e.suffix is None:
            self.values[e] = e.value
            return UNTYPED_FLOAT
        t = SCALARS[e.suffix]
        if not fits(e.value, t):
            self.err("const-error", f"literal `{e.text}` does not fit in `{t}`", e.span, help=_range_help(t))
        self.values[e] = round_to(e.value, t)
        return t

    def _bool_lit(self, e: ast.BoolLit, want: Type | None) -> Type:
        self.values[e] = e.value
        return BOOL

    # ----------------------------------------------------------------------------------------- names
    def _name(self, e: ast.Name, want: Type | None) -> Type:
        sym = self.lookup(e.ident)
        if sym is None:
            return self._name_not_symbol(e)
        self.refs[e] = sym
        if sym.value is not None:
            self.values[e] = sym.value
        if sym.kind == UNROLL:
            self.per_copy.add(e)
        if sym in self.deferred and sym not in self.assigned and self.reachable:
            self.err(
                "uninitialized",
                f"`{e.ident}` is read before it is assigned on every path",
                e.span,
                labels=[Label(sym.span, f"`{e.ident}` declared here without a value")] if sym.span else [],
                help=f"give `{e.ident}` an initial value, or assign it on every path before this read",
            )
            self.assigned.add(sym)  # report once
        return sym.type

    def _name_not_symbol(self, e: ast.Name) -> Type:
        name = e.ident
        if name in BUILTIN_SCALARS:
            self.builtins[e] = name
            req = BUILTIN_SCALARS[name]
            if not target_supports(req, self.arch):
                self.err(
                    "unsupported-target",
                    f"`{name}` requires {FAMILY_TEXT[req]}; the target is {self.arch}",
                    e.span,
                )
            return U32
        if name in BUILTIN_VECTORS:
            self.err("type-error", f"`{name}` is a vector: use `{name}.x`, `{name}.y` or `{name}.z`", e.span)
        elif name in self.fn_items or name in INTRINSICS:
            self.err("type-error", f"`{name}` is a function: call it", e.span)
        else:
            self.unknown_name(name, e.span)
        return ERROR

    def unknown_name(self, name: str, span, kind: str = "name") -> None:
        if name in CUDA_SPELLINGS:
            alt = CUDA_SPELLINGS[name]
            self.err(
                "name-error",
                f"unknown {kind} `{name}`",
                span,
                help=f"did you mean `{alt}`? (`{name}` is the CUDA spelling)",
            )
            return
        pool = (list(self.fn_items) + list(INTRINSICS)) if kind == "function" else self.visible_names()
        import difflib  # lazy: only for a suggestion in an error message

        close = difflib.get_close_matches(name, pool, n=1)
        self.err(
            "name-error",
            f"unknown {kind} `{name}`",
            span,
            help=f"did you mean `{close[0]}`?" if close else None,
        )

    def _member(self, e: ast.Member, want: Type | None) -> Type:
        base = e.base
        if isinstance(base, ast.Name) and base.ident in BUILTIN_VECTORS and self.lookup(base.ident) is None:
            self.types[base] = U32
            if e.field not in ("x", "y", "z"):
                self.err(
                    "type-error", f"`{base.ident}` has no component `.{e.field}` (use .x, .y or .z)", e.span
                )
                return ERROR
            self.builtins[e] = f"{base.ident}.{e.field}"
            return U32
        t = self.expr(base)
        if not isinstance(t, ErrorType):
            self.err(
                "type-error",
                f"`{t}` has no field `.{e.field}`",
                e.span,
                help="only the built-in vectors tid, ntid, ctaid, nctaid have .x/.y/.z",
            )
        return ERROR

    # ------------------------------------------------------------------------------------- operators
    def _unary(self, e: ast.Unary, want: Type | None) -> Type:
        t = self.value_expr(e.operand)
        if isinstance(t, ErrorType):
            return ERROR
        op = e.op
        ok = (
            (op == "!" and t == BOOL)
            or (op == "~" and (isinstance(t, UntypedInt) or (isinstance(t, Scalar) and t.is_int)))
            or (op == "-" and (is_untyped(t) or (isinstance(t, Scalar) and (t.is_float or t.is_signed))))
        )
        if not ok:
            need = {"!": "`bool`", "~": "an integer", "-": "a signed integer or a float"}[op]
            self.err("type-error", f"`{op}` needs {need}, found {show(t)}", e.span)
            return ERROR
        self._fold(e, lambda a: fold.unary(op, a, t), e.operand)
        return t

    def _binary(self, e: ast.Binary, want: Type | None) -> Type:
        op = e.op
        lt = self.value_expr(e.lhs)
        rt = self.value_expr(e.rhs)
        if isinstance(lt, ErrorType) or isinstance(rt, ErrorType):
            return ERROR
        if op in LOGICAL:
            for side, t in ((e.lhs, lt), (e.rhs, rt)):
                if t != BOOL:
                    self.err("type-error", f"`{op}` needs `bool` operands, found {show(t)}", side.span)
                    return ERROR
            self._fold(e, lambda a, b: fold.binary(op, a, b, BOOL), e.lhs, e.rhs)
            return BOOL
        if isinstance(lt, Ptr) or isinstance(rt, Ptr):
            return self._pointer_binary(e, lt, rt)
        for side, t in ((e.lhs, lt), (e.rhs, rt)):
            if not isinstance(t, Scalar) and not is_untyped(t):  # vectors, arrays, mbarriers
                self.err("type-error", f"`{op}` needs scalar operands, found {show(t)}", side.span)
                return ERROR
        if op in SHIFTS:
            return self._shift(e, lt, rt)
        t = self.unify(e, lt, rt)
        if isinstance(t, ErrorType):
            return ERROR
        if op in COMPARE:
            if is_untyped(t):  # `1 < 2`: the operands take their default type
                t = self.finish(e.lhs, t)
                self.finish(e.rhs, self.types[e.rhs])
            if t == BOOL and op not in ("==", "!="):
                self.err("type-error", f"`{op}` is not defined on `bool`", e.span)
                return ERROR
            self._fold(e, lambda a, b: fold.binary(op, a, b, t), e.lhs, e.rhs)
            return BOOL
        is_float = isinstance(t, UntypedFloat) or (isinstance(t, Scalar) and t.is_float)
        if t == BOOL and op not in BITWISE:
            self.err("type-error", f"`{op}` is not defined on `bool`", e.span)
            return ERROR
        if op in BITWISE and is_float:
            self.err("type-error", f"`{op}` needs integer or `bool` operands, found {show(t)}", e.span)
            return ERROR
        if op == "%" and is_float:
            self.err("type-error", f"`%` needs integer operands, found {show(t)}", e.span)
            return ERROR
        self._fold(e, lambda a, b: fold.binary(op, a, b, t), e.lhs, e.rhs)
        return t

    def unify(self, e: ast.Binary | ast.Ternary, lt: Type, rt: Type) -> Type:
        """The common type of two operands (a literal adapts to the other side)."""
        lhs, rhs = (e.lhs, e.rhs) if isinstance(e, ast.Binary) else (e.then, e.else_)
        if is_untyped(lt) and is_untyped(rt):
            return UNTYPED_FLOAT if UNTYPED_FLOAT in (lt, rt) else UNTYPED_INT
        if is_untyped(lt) or is_untyped(rt):
            (u, ut), (k, kt) = ((lhs, lt), (rhs, rt)) if is_untyped(lt) else ((rhs, rt), (lhs, lt))
            if not isinstance(kt, Scalar) or kt.is_bool or (isinstance(ut, UntypedFloat) and kt.is_int):
                self.err(
                    "type-error",
                    f"mismatched types: {show(lt)} and {show(rt)}",
                    e.span,
                    labels=[Label(k.span, f"this is `{kt}`")],
                )
                return ERROR
            return kt if not isinstance(self.coerce(u, kt), ErrorType) else ERROR
        if lt != rt:
            self.err(
                "type-error",
                f"mismatched types: `{lt}` and `{rt}`",
                e.span,
                labels=[Label(lhs.span, f"this is `{lt}`"), Label(rhs.span, f"this is `{rt}`")],
                help="convert one side with `as`",
            )
            return ERROR
        return lt

    def _shift(self, e: ast.Binary, lt: Type, rt: Type) -> Type:
        def is_intlike(t: Type) -> bool:
            return isinstance(t, UntypedInt) or (isinstance(t, Scalar) and t.is_int)

        for side, t in ((e.lhs, lt), (e.rhs, rt)):
            if not is_intlike(t):
                self.err("type-error", f"`{e.op}` needs integer operands, found {show(t)}", side.span)
                return ERROR
        if isinstance(rt, UntypedInt) and not is_untyped(lt):
            self.coerce(e.rhs, lt)
        elif isinstance(lt, UntypedInt) and not is_untyped(rt):
            pass  # the result adapts like a literal; the amount keeps its own type
        self._fold(e, lambda a, b: fold.binary(e.op, a, b, lt), e.lhs, e.rhs)
        return lt

    def _pointer_binary(self, e: ast.Binary, lt: Type, rt: Type) -> Type:
        op = e.op
        if op in COMPARE and isinstance(lt, Ptr) and isinstance(rt, Ptr):
            if lt != rt:
                self.err("type-error", f"mismatched types: `{lt}` and `{rt}`", e.span)
                return ERROR
            return BOOL
        if op in ("+", "-") and isinstance(lt, Ptr):
            if isinstance(rt, UntypedInt):
                self.coerce(e.rhs, I32)
                return lt
            if isinstance(rt, Scalar) and rt.is_int:
                return lt
            self.err(
                "type-error", f"pointer arithmetic needs an integer offset, found {show(rt)}", e.rhs.span
            )
            return ERROR
        if op == "+" and isinstance(rt, Ptr):
            self.err("type-error", "write the pointer first: `p + i`", e.span)
            return ERROR
        self.err(
            "type-error",
            f"`{op}` is not defined on {show(lt)} and {show(rt)}",
            e.span,
            help="pointers support `p + i`, `p - i`, `p[i]` and comparisons",
        )
        return ERROR

    def _ternary(self, e: ast.Ternary, want: Type | None) -> Type:
        ct = self.value_expr(e.cond)
        if not isinstance(ct, ErrorType) and ct != BOOL:
            self.err("type-error", f"the condition of `?:` must be `bool`, found {show(ct)}", e.cond.span)
        at = self.value_expr(e.then, want)
        bt = self.value_expr(e.else_, want)
        if isinstance(at, ErrorType) or isinstance(bt, ErrorType):
            return ERROR
        t = self.unify(e, at, bt)
        c = self.values.get(e.cond)
        if isinstance(c, bool):
            chosen = e.then if c else e.else_
            if chosen in self.values:
                self.values[e] = self.values[chosen]
            elif chosen in self.per_copy:
                self.per_copy.add(e)
        return t

    def _cast(self, e: ast.Cast, want: Type | None) -> Type:
        if e.bits:
            return self._bitcast(e)
        src = self.value_expr(e.operand)
        dst = self.resolve_type(e.target, "cast")
        if isinstance(src, ErrorType) or isinstance(dst, ErrorType):
            return dst
        if is_untyped(src):
            # a literal operand takes the target type when that holds it (`3000000000 as u64`), else its
            # default type, and is then converted (`(-1) as u32` is 0xFFFFFFFF)
            v = self.values.get(e.operand)
            direct = (
                isinstance(dst, Scalar)
                and not dst.is_bool
                and not (isinstance(src, UntypedFloat) and dst.is_int)
            )
            if direct and v is not None and not fits(v, dst):
                direct = False
            src = self.coerce(e.operand, dst if direct else self._fit_default(src, v))
            if isinstance(src, ErrorType):
                return ERROR
        if not _castable(src, dst):
            self.err(
                "type-error",
                f"cannot convert `{src}` to `{dst}` with `as`",
                e.span,
                help=_cast_help(src, dst),
            )
            return dst
        if isinstance(dst, Scalar):
            self._fold(e, lambda a: fold.cast(a, src, dst), e.operand)
        return dst

    def _bitcast(self, e: ast.Cast) -> Type:
        """`bitcast<T>(x)`: T and x are non-bool scalars of the same width. An unsuffixed literal takes the
        same-width type of its kind (`bitcast<f32>(0x3f800000)` reads the literal as u32)."""
        src = self.value_expr(e.operand)
        dst = self.resolve_type(e.target, "bitcast")
        if isinstance(src, ErrorType) or isinstance(dst, ErrorType):
            return dst
        if not isinstance(dst, Scalar) or dst.is_bool:
            self.err(
                "type-error", f"`bitcast` needs a numeric scalar target type, not `{dst}`", e.target.span
            )
            return ERROR
        if is_untyped(src):
            kind = "u" if isinstance(src, UntypedInt) else "f"
            name = f"{kind}{dst.bits}"
            if name not in SCALARS:
                self.err(
                    "type-error",
                    f"no {dst.bits}-bit type for this literal to `bitcast` from",
                    e.operand.span,
                    help="bitcast a typed value (a 16-bit float, for example) instead of a literal",
                )
                return dst
            src = self.coerce(e.operand, SCALARS[name])
            if isinstance(src, ErrorType):
                return ERROR
        if not isinstance(src, Scalar) or src.is_bool:
            self.err("type-error", f"`bitcast` needs a numeric scalar operand, not `{src}`", e.operand.span)
            return dst
        if src.bits != dst.bits:
            self.err(
                "type-error",
                f"`bitcast` from `{src}` ({src.bits} bits) to `{dst}` ({dst.bits} bits): the widths differ",
                e.span,
                help="bitcast reinterprets bits of the same width; use `as` to convert values",
            )
            return dst
        v = self.values.get(e.operand)
        if v is not None:
            folded = fold.bitcast(v, src, dst)
            if folded is not None:
                self.values[e] = folded
        return dst

    @staticmethod
    def _fit_default(t: Type, v: object) -> Scalar:
        """The default type for an untyped constant, widened to i64/u64 when the value needs it."""
        if isinstance(t, UntypedInt) and v is not None:
            for cand in (I32, SCALARS["i64"], SCALARS["u64"]):
                if fits(v, cand):
                    return cand
        return default_type(t)

    def _fold(self, e: ast.Expr, f, *operands: ast.Expr) -> None:
        """Record the constant value of `e` if all operands are constants, or mark it per-copy constant."""
        vals = [self.values.get(o) for o in operands]
        if all(v is not None for v in vals):
            try:
                self.values[e] = f(*vals)
            except fold.FoldError as ex:
                self.err(ex.check, str(ex), e.span)
        elif all(v is not None or o in self.per_copy for v, o in zip(vals, operands)):
            self.per_copy.add(e)

    # ------------------------------------------------------------------------------- memory and arrays
    def _index(self, e: ast.Index, want: Type | None) -> Type:
        t = self.place(e)
        if isinstance(t, MBarrier):
            self.err(
                "type-error",
                "an mbarrier is not a value: pass its address",
                e.span,
                help="use `&bars[k]` (a `*shared mbarrier`)",
            )
            return ERROR
        return t

    def place(self, e: ast.Index) -> Type:
        """Type-check `base[indices]` and return the element type (possibly `mbarrier`)."""
        bt = self.expr(e.base)
        for i in e.indices:
            it = self.value_expr(i)
            if isinstance(it, UntypedInt):
                self.coerce(i, I32)
            elif not isinstance(it, ErrorType) and not (isinstance(it, Scalar) and it.is_int):
                self.err("type-error", f"an index must be an integer, found {show(it)}", i.span)
        if isinstance(bt, ErrorType):
            return ERROR
        n = len(e.indices)
        if isinstance(bt, Ptr):
            if n != 1:
                self.err("type-error", f"a pointer takes one index, found {n}", e.span)
                return ERROR
            if isinstance(bt.elem, MBarrier):
                return MBARRIER
            return bt.elem
        if isinstance(bt, SharedArray):
            if n != len(bt.shape):
                self.err(
                    "type-error",
                    f"`{_base_name(e)}` has {len(bt.shape)} dimension(s) but {n} index(es) were given",
                    e.span,
                )
                return ERROR
            for i, dim in zip(e.indices, bt.shape):
                v = self.values.get(i)
                if isinstance(v, int) and not 0 <= v < (dim if not bt.dynamic else 1 << 62):
                    self.err(
                        "const-error", f"index {v} is out of bounds for a dimension of size {dim}", i.span
                    )
            return bt.elem
        if isinstance(bt, RegArray):
            if bt.cols:  # `a[i, j]` an element, `a[i]` a row
                if n not in (1, 2):
                    self.err("type-error", f"`{bt}` takes one or two indices, found {n}", e.span)
                    return ERROR
                self.check_reg_index(e.indices[0], RegArray(bt.elem, bt.n // bt.cols), f"the rows of `{bt}`")
                if n == 1:
                    return bt.row
                self.check_reg_index(e.indices[1], bt.row, f"the columns of `{bt}`")
                return bt.elem
            if n != 1:
                self.err("type-error", f"a register array takes one index, found {n}", e.span)
                return ERROR
            self.check_reg_index(e.indices[0], bt)
            return bt.elem
        self.need_value(e.base, bt)
        if not isinstance(self.types.get(e.base), ErrorType):
            self.err("type-error", f"cannot index a value of type `{bt}`", e.span)
        return ERROR

    def check_reg_index(self, i: ast.Expr, arr: RegArray, what: str | None = None) -> None:
        """Register arrays are indexed by constants; inside unrolled loops, by per-copy constants.
        `what` names the dimension in messages (default: the array type)."""
        what = what or f"`{arr}`"
        if isinstance(self.types.get(i), ErrorType):
            return
        v = self.values.get(i)
        if isinstance(v, int):
            if not 0 <= v < arr.n:
                self.err("const-error", f"index {v} is out of bounds for {what}", i.span)
            return
        if i in self.per_copy:
            sym = self.refs.get(i) if isinstance(i, ast.Name) else None
            if sym is not None and sym.values is not None:
                bad = [x for x in sym.values if not 0 <= x < arr.n]
                if bad:
                    self.err(
                        "const-error",
                        f"index `{i.ident}` reaches {bad[0]}, out of bounds for {what}",
                        i.span,
                    )
            else:
                self.const_index_checks.append((i, arr.n))
            return
        self.err(
            "const-error",
            "a register array index must be a compile-time constant",
            i.span,
            help="use a literal or a `const`, or index inside `unroll for` / `for x in [...]`",
        )

    def _addr_of(self, e: ast.AddrOf, want: Type | None) -> Type:
        x = e.operand
        if isinstance(x, ast.Index):
            elem = self.place(x)
            self.types[x] = elem
            bt = self.types.get(x.base)
            if isinstance(elem, ErrorType):
                return ERROR
            if isinstance(bt, Ptr):
                return bt
            if isinstance(bt, SharedArray):
                return Ptr("shared", elem)
            self.err(
                "type-error",
                "registers have no address: `&` applies to shared arrays, mbarriers and pointer elements",
                e.span,
            )
            return ERROR
        if isinstance(x, ast.Name):
            t = self.expr(x)
            if isinstance(t, SharedArray):
                return Ptr("shared", t.elem)
            if isinstance(t, MBarrier):
                return Ptr("shared", MBARRIER)
            if isinstance(t, ErrorType):
                return ERROR
        else:
            self.expr(x)
        self.err(
            "type-error", "`&` applies to shared arrays, mbarriers and pointer elements (`&p[i]`)", e.span
        )
        return ERROR

    def _array_repeat(self, e: ast.ArrayRepeat, want: Type | None) -> Type:
        elem_want = _elem_want(want)
        vt = self.value_expr(e.value, elem_want)
        ct = self.value_expr(e.count)
        if is_untyped(ct):
            self.coerce(e.count, I32)
        elif not isinstance(ct, ErrorType) and not (isinstance(ct, Scalar) and ct.is_int):
            # fuzz campaign: `[0.0; (4i32 as f32)]` was an error type with no diagnostic (then a crash)
            self.err(
                "type-error", f"the length of an array literal must be an integer, found `{ct}`", e.count.span
            )
            return ERROR
        n = self.const_of(e.count, "the length of an array literal")
        return self._array_type(e, [(e.value, vt)], elem_want, n)

    def _array_list(self, e: ast.ArrayList, want: Type | None) -> Type:
        elem_want = _elem_want(want)
        items = [(x, self.value_expr(x, elem_want)) for x in e.elems]
        return self._array_type(e, items, elem_want, len(e.elems))

    def _array_type(self, e: ast.Expr, items: list, elem_want: Type | None, n: object) -> Type:
        if any(isinstance(t, ErrorType) for _, t in items):
            return ERROR
        if any(isinstance(t, RegArray) for _, t in items):
            return self._array2_type(e, items, n)
        if isinstance(elem_want, RegArray):  # scalars where rows were wanted: the caller reports the mismatch
            elem_want = None
        concrete = [t for _, t in items if not is_untyped(t)]
        elem = elem_want if elem_want is not None else concrete[0] if concrete else None
        if elem is None:
            kinds = {type(t) for _, t in items}
            elem = F32 if UntypedFloat in kinds else I32
        for x, t in items:
            if not isinstance(t, ErrorType):
                self.expect(x, t, elem, "array element")
        if not isinstance(elem, Scalar):
            self.err("type-error", f"register array elements must be scalars, found `{elem}`", e.span)
            return ERROR
        if not isinstance(n, int) or isinstance(n, bool):
            return ERROR
        if n <= 0:
            self.err("const-error", f"an array needs at least one element, found {n}", e.span)
            return ERROR
        if n > MAX_REG_ARRAY:
            self.err(
                "limit-error", f"register array of {n} elements exceeds the limit of {MAX_REG_ARRAY}", e.span
            )
            return ERROR
        return RegArray(elem, n)

    def _array2_type(self, e: ast.Expr, items: list, n: object) -> Type:
        """A literal of rows (`[[0.0; 4]; 2]`, `[[a, b], [c, d]]`): a two-dimensional register array."""
        row = items[0][1]
        for x, t in items:
            if not isinstance(t, RegArray) or t.cols or t != row:
                self.err(
                    "type-error",
                    f"the rows of a two-dimensional array must all be `{row}`, found {show(t)}"
                    if isinstance(row, RegArray) and not row.cols
                    else "array literals nest at most two deep, with rows of one register array type",
                    x.span,
                )
                return ERROR
        if not isinstance(n, int) or isinstance(n, bool):
            return ERROR
        if n <= 0 or n * row.n > MAX_REG_ARRAY:
            self.err(
                "limit-error" if n > 0 else "const-error",
                f"a two-dimensional array of {n} rows of `{row}` is outside 1..{MAX_REG_ARRAY} elements",
                e.span,
            )
            return ERROR
        return RegArray(row.elem, n * row.n, row.n)

    def _call(self, e: ast.Call, want: Type | None) -> Type:
        return self.call(e, want)

    _expr_handlers = {
        ast.IntLit: _int_lit,
        ast.FloatLit: _float_lit,
        ast.BoolLit: _bool_lit,
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


def _base_name(e: ast.Index) -> str:
    return e.base.ident if isinstance(e.base, ast.Name) else "the array"


def _range_help(t: Scalar) -> str:
    if t.is_int:
        from .types import int_range

        lo, hi = int_range(t)
        return f"`{t}` holds {lo}..{hi}; add a suffix (`u64`, ...) or convert with `as`"
    return f"`{t}` cannot represent it; use a wider float type"


def _elem_want(want: Type | None) -> Type | None:
    """What each element of an array literal should be: a row of a two-dimensional array, else a scalar."""
    if isinstance(want, RegArray):
        return want.row if want.cols else want.elem
    return None


def _castable(src: Type, dst: Type) -> bool:
    if src == dst:
        return True
    if isinstance(src, Scalar) and isinstance(dst, Scalar):
        if dst.is_bool:
            return False
        if src.is_bool:
            return dst.is_int
        return True
    if isinstance(src, Ptr) and isinstance(dst, Ptr):
        return (
            src.space == dst.space
            and not isinstance(src.elem, MBarrier)
            and not isinstance(dst.elem, MBarrier)
        )
    if isinstance(src, Ptr) and isinstance(dst, Scalar):
        return dst.name == ("u64" if src.space == "global" else "u32")
    if isinstance(src, Scalar) and isinstance(dst, Ptr):
        return src.name == ("u64" if dst.space == "global" else "u32")
    return False


def _cast_help(src: Type, dst: Type) -> str | None:
    if isinstance(dst, Scalar) and dst.is_bool:
        return "compare instead: `x != 0`"
    if isinstance(src, Ptr) or isinstance(dst, Ptr):
        return "pointers convert to pointers of the same space, `*global T` <-> `u64`, `*shared T` <-> `u32`"
    return None
