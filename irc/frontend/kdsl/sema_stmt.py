"""Statement checks and definite assignment (a mixin of `sema.Analyzer`).

One walk does both: `assigned` holds the `var`s declared without a value that are assigned on every path
to the current point, `reachable` is false after `return`, `break` and `continue`. An `if` intersects its
arms (an arm that cannot fall through does not count; a constant condition discards the dead arm); a loop
body may run zero times, so after a loop the state at its entry holds, which is why a `var` assigned only
inside a loop is not definitely assigned after it (`while true` without `break` does not fall through).
"""

from __future__ import annotations

from irc import limits
from irc.diagnostics import Label
from irc.records import record
from irc.target import max_shared_any_target

from . import ast, fold
from .sema_expr import default_type, show
from .typed import ARG, CONST, LET, LOOP, SHARED, SPEC, UNROLL, VAR, Symbol, Value
from .types import (
    BOOL,
    ERROR,
    I32,
    SCALARS,
    VOID,
    ErrorType,
    MBarrier,
    Ptr,
    RegArray,
    Scalar,
    SharedArray,
    Type,
    UntypedInt,
    fits,
    is_untyped,
)

# The largest `align` of a shared declaration: the power of two just above any target's shared memory per
# block (2^18 for 227 KB). More cannot matter, and ptxas 13 fails on some larger ones (`.align 4294967296`:
# "Constant overflow"; `.align 2147483648` on sm_100a: a crash), so the front end stops there.
MAX_ALIGN = 1 << (max_shared_any_target() - 1).bit_length()

MAX_UNROLL = limits.get("max_unroll")
_KIND_TEXT = {
    LET: "a `let` binding",
    ARG: "a parameter",
    CONST: "a `const`",
    SPEC: "a `param`",
    SHARED: "a shared array",
    LOOP: "a loop variable",
    UNROLL: "a loop variable",
}


def _elem_text(t: ast.TypeExpr) -> str:
    if isinstance(t, ast.ArrayType) and isinstance(t.elem, ast.NamedType):
        return t.elem.name
    return "T"


@record
class LoopState:
    breaks: bool = False


class StmtMixin:
    """Statement checks; state (scopes, flow sets, diagnostics) lives in `sema.Analyzer`."""

    def block(self, b: ast.Block) -> None:
        self.scopes.append({})
        for s in b.stmts:
            self._stmt_handlers[type(s)](self, s)
        self.scopes.pop()

    def cond(self, e: ast.Expr, what: str) -> None:
        t = self.value_expr(e)
        if not isinstance(t, ErrorType) and t != BOOL:
            self.finish(e, t)
            help = "compare explicitly, e.g. `x != 0`" if isinstance(t, Scalar) and t.is_int else None
            self.err(
                "type-error", f"the condition of `{what}` must be `bool`, found {show(t)}", e.span, help=help
            )

    def _let(self, s: ast.LetStmt) -> None:
        declared = self.resolve_type(s.type, "value") if s.type is not None else None
        t: Type
        if s.init is not None:
            t = self.value_expr(s.init, declared)
            t = self.expect(s.init, t, declared) if declared is not None else self.finish(s.init, t)
            if declared is not None:
                t = declared
        elif declared is not None:
            t = declared
            if not s.mutable:
                self.err(
                    "type-error",
                    f"`let {s.name}` needs a value",
                    s.span,
                    help=f"write `let {s.name} = ...;`, or `var {s.name}: ...;` to assign it later",
                )
        else:
            self.err(
                "type-error", f"`{'var' if s.mutable else 'let'} {s.name}` needs a type or a value", s.span
            )
            t = ERROR
        sym = Symbol(s.name, VAR if s.mutable else LET, t, s.name_span, decl=s)
        self.declare(sym, s)
        if s.init is None and s.mutable and not isinstance(t, ErrorType):
            self.deferred.add(sym)

    def _assign(self, s: ast.AssignStmt) -> None:
        tgt = s.target
        if s.op != "=":
            tmp = ast.Binary(s.span, s.op, tgt, s.value, s.span)
            rt = self.expr(tmp)
            del self.types[tmp]  # not a node of the program
            tt = self.types.get(tgt, ERROR)
            if (
                self._assignable(tgt)
                and not isinstance(rt, ErrorType)
                and not isinstance(tt, ErrorType)
                and rt != tt
            ):
                self.err("type-error", f"`{s.op}=` gives `{rt}`, which cannot be stored in `{tt}`", s.span)
            return
        vt = self.value_expr(s.value)
        if isinstance(tgt, ast.Name):
            sym = self.lookup(tgt.ident)
            if sym is None:
                self.finish(s.value, vt)
                if not isinstance(self._name_not_symbol(tgt), ErrorType):  # a built-in value
                    self.err(
                        "type-error", f"cannot assign to `{tgt.ident}`: it is a built-in value", tgt.span
                    )
                return
            self.refs[tgt] = sym
            self.types[tgt] = sym.type
        else:
            self.types[tgt] = self.place(tgt)
        tt = self.types[tgt]
        if self._assignable(tgt) and not isinstance(tt, ErrorType):
            self.expect(s.value, vt, tt)
        else:
            self.finish(s.value, vt)

    def _assignable(self, tgt: ast.Expr) -> bool:
        """Report (once) if `tgt` cannot be assigned; marks `var`s as assigned."""
        if isinstance(tgt, ast.Name):
            sym = self.refs.get(tgt)
            if sym is None:
                if tgt in self.builtins:  # `laneid = ...`: typed as a value, never declared
                    self.err(
                        "type-error", f"cannot assign to `{tgt.ident}`: it is a built-in value", tgt.span
                    )
                return False
            if sym.kind != VAR:
                help = f"declare it with `var {sym.name}`" if sym.kind == LET else None
                self.err(
                    "type-error",
                    f"cannot assign to `{sym.name}`: it is {_KIND_TEXT[sym.kind]}",
                    tgt.span,
                    labels=[Label(sym.span, "declared here")] if sym.span else [],
                    help=help,
                )
                return False
            if sym in self.deferred:
                self.assigned.add(sym)
            return True
        if not isinstance(tgt, ast.Index):
            return False
        bt = self.types.get(tgt.base, ERROR)
        if isinstance(bt, ErrorType) or isinstance(self.types.get(tgt), ErrorType):
            return False
        if isinstance(bt, Ptr):
            if isinstance(bt.elem, MBarrier):
                self.err(
                    "type-error", "an mbarrier cannot be assigned; use the mbarrier intrinsics", tgt.span
                )
                return False
            if bt.readonly:
                self.err(
                    "type-error",
                    f"cannot store through `{bt}`: the pointer is `readonly`",
                    tgt.span,
                    help="drop `readonly` from the pointer's type if the kernel writes this memory",
                )
                return False
            return True
        if isinstance(bt, SharedArray):
            if isinstance(bt.elem, MBarrier):
                self.err(
                    "type-error", "an mbarrier cannot be assigned; use the mbarrier intrinsics", tgt.span
                )
                return False
            return True
        if isinstance(bt, RegArray):
            if isinstance(tgt.base, ast.Name):
                return self._assignable(tgt.base)
            self.err("type-error", "cannot assign to an element of a temporary array", tgt.span)
            return False
        return False

    def _expr_stmt(self, s: ast.ExprStmt) -> None:
        t = self.expr(s.expr)
        self.finish(s.expr, t)

    def _shared(self, s: ast.SharedStmt) -> None:
        unsized = isinstance(s.type, ast.UnsizedType)
        t = self.resolve_type(s.type, "shared_dynamic" if s.dynamic and unsized else "shared")
        if s.dynamic and not unsized:
            self.err(
                "type-error",
                f"a `dynamic` shared array has no length: write `[{_elem_text(s.type)}]`",
                s.type.span,
                help="its size in bytes is given at launch (`dynamic_shared_bytes`)",
            )
            t = ERROR
        if s.dynamic and self.cur_kernel is not None and not isinstance(t, ErrorType):
            prev = next((x for x in self.cur_kernel.shared if getattr(x.type, "dynamic", False)), None)
            if prev is not None:
                self.err(
                    "type-error",
                    "a kernel has at most one `dynamic` shared array (they would all start at the same address)",
                    s.name_span,
                    labels=[Label(prev.span, "the first one")] if prev.span else [],
                    help="carve several arrays out of one with offsets or pointers",
                )
        if self.cur_kernel is None:
            self.err(
                "type-error",
                "`shared` declarations are only allowed in kernels",
                s.span,
                help="declare the array in the kernel and pass a `*shared` pointer",
            )
            t = ERROR
        if isinstance(t, Scalar):
            self.err(
                "type-error",
                f"a shared declaration is an array or an mbarrier; write `[{t}; 1]`",
                s.type.span,
            )
            t = ERROR
        if s.align is not None:
            a = self._const_dim(s.align, "an alignment")
            if a is not None and a & (a - 1):
                self.err("const-error", f"an alignment must be a power of two, found {a}", s.align.span)
            elif a is not None and a > MAX_ALIGN:  # fuzz campaign: `align 4294967296` went to ptxas
                self.err(
                    "const-error",
                    f"an alignment must be at most {MAX_ALIGN} bytes (more than any target's shared memory "
                    f"per block), found {a}",
                    s.align.span,
                )
            elif a is not None and isinstance(t, SharedArray):
                t = SharedArray(t.elem, t.shape, a)
        sym = Symbol(s.name, SHARED, t, s.name_span, decl=s)
        self.declare(sym, s)
        if self.cur_kernel is not None and not isinstance(t, ErrorType):
            self.cur_kernel.shared.append(sym)

    def _if(self, s: ast.IfStmt) -> None:
        self.cond(s.cond, "if")
        before, reach0 = set(self.assigned), self.reachable
        self.block(s.then)
        a1, r1 = self.assigned, self.reachable
        self.assigned, self.reachable = set(before), reach0
        if s.else_ is not None:
            self._stmt_handlers[type(s.else_)](self, s.else_)
        a2, r2 = self.assigned, self.reachable
        c = self.values.get(s.cond)
        if c is True:
            a2, r2 = a1, r1
        elif c is False:
            a1, r1 = a2, r2
        if r1 and r2:
            self.assigned, self.reachable = a1 & a2, True
        elif r1 or r2:
            self.assigned, self.reachable = (a1 if r1 else a2), True
        else:
            self.assigned, self.reachable = before, False

    def _loop_body(
        self, body: ast.Block, var: Symbol | None, decl: ast.Node | None, const_true: bool
    ) -> None:
        entry, reach0 = set(self.assigned), self.reachable
        self.loops.append(LoopState())
        self.scopes.append({})
        if var is not None:
            self.declare(var, decl)
        self.block(body)
        self.scopes.pop()
        loop = self.loops.pop()
        self.assigned = entry
        self.reachable = reach0 and not (const_true and not loop.breaks)

    def _while(self, s: ast.WhileStmt) -> None:
        self.cond(s.cond, "while")
        self._loop_body(s.body, None, None, self.values.get(s.cond) is True)

    def _for(self, s: ast.ForStmt) -> None:
        t = self._range_type(s)
        values: tuple | None = None
        if s.unroll and not isinstance(t, ErrorType):
            bounds = [
                self.const_of(x, "the bounds of `unroll for`") if x is not None else 1
                for x in (s.start, s.end, s.step)
            ]
            if all(v is not None for v in bounds):
                a, b, step = bounds
                if step <= 0:
                    self.err("const-error", f"the step of a loop must be positive, found {step}", s.step.span)
                else:
                    trips = fold.trip_count(a, b, step)
                    if trips > MAX_UNROLL:
                        self.err(
                            "limit-error",
                            f"`unroll for` would make {trips} copies; the limit is {MAX_UNROLL}",
                            s.span,
                            help="use a plain `for` loop, or unroll part of it",
                        )
                    else:
                        values = tuple(range(a, b, step))
        elif s.step is not None:
            v = self.values.get(s.step)
            if isinstance(v, int) and v <= 0:
                self.err("const-error", f"the step of a loop must be positive, found {v}", s.step.span)
        if s.factor is not None:
            n = self._const_dim(s.factor, "an unroll factor")
            if n is not None and n > MAX_UNROLL:
                self.err(
                    "limit-error", f"`unroll({n})` exceeds the limit of {MAX_UNROLL} copies", s.factor.span
                )
        kind = UNROLL if s.unroll else LOOP
        var = Symbol(s.var, kind, t, s.var_span, values=values, decl=s)
        self._loop_body(s.body, var, s, False)

    def _range_type(self, s: ast.ForStmt) -> Type:
        parts = [x for x in (s.start, s.end, s.step) if x is not None]
        types = [self.value_expr(x) for x in parts]
        if any(isinstance(t, ErrorType) for t in types):
            for x, t in zip(parts, types):
                self.finish(x, t)
            return ERROR
        concrete = [t for t in types if not is_untyped(t)]
        if not concrete:
            target: Type = I32
            if all(isinstance(t, UntypedInt) for t in types) and s.unroll:
                for x in parts:  # the loop variable adapts like a literal; bounds are just numbers
                    self.coerce(x, self._fit_int(self.values.get(x)))
                return types[0]
        else:
            target = concrete[0]
        if not (isinstance(target, Scalar) and target.is_int):
            bad = next(x for x, t in zip(parts, types) if t == target)
            self.err(
                "type-error", f"a loop range needs integer bounds, found {show(self.types[bad])}", bad.span
            )
            return ERROR
        for x, t in zip(parts, types):
            if is_untyped(t):
                if isinstance(self.coerce(x, target), ErrorType):
                    return ERROR
            elif t != target:
                self.err("type-error", f"mismatched types: `{target}` and `{t}` in a loop range", x.span)
                return ERROR
        return target

    @staticmethod
    def _fit_int(v: Value | None) -> Scalar:
        return I32 if v is None or fits(v, I32) else SCALARS["i64"]

    def _for_list(self, s: ast.ForListStmt) -> None:
        types = [self.value_expr(x) for x in s.items]
        values: list | None = []
        t: Type = ERROR
        if not any(isinstance(x, ErrorType) for x in types):
            concrete = [x for x in types if not is_untyped(x)]
            if concrete:
                t = concrete[0]
                for x, xt in zip(s.items, types):
                    self.expect(x, xt, t, "loop list element")
            else:
                t = types[0] if all(x == types[0] for x in types) else ERROR
                if isinstance(t, ErrorType):  # mixed int and float literals: floats
                    t = default_type(next(x for x in types if x != UntypedInt()))
                    for x in s.items:
                        self.coerce(x, t)
                else:
                    for x in s.items:
                        self.coerce(
                            x,
                            self._fit_int(self.values.get(x))
                            if isinstance(t, UntypedInt)
                            else default_type(t),
                        )
            for x in s.items:
                v = self.const_of(x, "an element of a `for ... in [...]` list")
                if v is None:
                    values = None
                elif values is not None:
                    values.append(v)
        if len(s.items) > MAX_UNROLL:
            self.err(
                "limit-error", f"the loop list has {len(s.items)} elements; the limit is {MAX_UNROLL}", s.span
            )
        var = Symbol(
            s.var, UNROLL, t, s.var_span, values=tuple(values) if values is not None else None, decl=s
        )
        self._loop_body(s.body, var, s, False)

    def _break(self, s: ast.BreakStmt) -> None:
        if not self.loops:
            self.err("type-error", "`break` outside of a loop", s.span)
        else:
            self.loops[-1].breaks = True
        self.reachable = False

    def _continue(self, s: ast.ContinueStmt) -> None:
        if not self.loops:
            self.err("type-error", "`continue` outside of a loop", s.span)
        self.reachable = False

    def _return(self, s: ast.ReturnStmt) -> None:
        fn = self.cur_fn
        assert fn is not None
        ret = self.fn_infos[fn.name].ret
        if s.value is not None:
            t = self.value_expr(s.value, ret if ret != VOID else None)
            if fn.kernel or ret == VOID:
                self.finish(s.value, t)
                what = "a kernel" if fn.kernel else f"`{fn.name}`"
                self.err(
                    "type-error",
                    f"{what} returns no value",
                    s.value.span,
                    help=None
                    if fn.kernel
                    else f"declare a result: `fn {fn.name}(...) -> {show(default_type(t))}`",
                )
            else:
                self.expect(s.value, t, ret, f"the result of `{fn.name}`")
        elif not fn.kernel and ret != VOID and not isinstance(ret, ErrorType):
            self.err("type-error", f"`{fn.name}` must return a `{ret}`", s.span)
        self.reachable = False

    def _block_stmt(self, s: ast.Block) -> None:
        self.block(s)

    def _static_assert(self, s: ast.StaticAssert) -> None:
        self.static_assert(s)

    _stmt_handlers = {
        ast.LetStmt: _let,
        ast.AssignStmt: _assign,
        ast.ExprStmt: _expr_stmt,
        ast.SharedStmt: _shared,
        ast.IfStmt: _if,
        ast.ForStmt: _for,
        ast.ForListStmt: _for_list,
        ast.WhileStmt: _while,
        ast.BreakStmt: _break,
        ast.ContinueStmt: _continue,
        ast.ReturnStmt: _return,
        ast.Block: _block_stmt,
        ast.StaticAssert: _static_assert,
    }
