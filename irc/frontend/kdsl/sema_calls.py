"""Call checking (a mixin of `sema.Analyzer`): intrinsics against their table row, device functions
against their signatures. Every argument is type-checked even when the call itself is wrong (unknown
callee, wrong arity), so that unrelated mistakes inside the arguments are still reported."""

from __future__ import annotations

from irc.diagnostics import Label, warning
from irc.ir.optable import NO_F64, UNARY_MATH
from irc.target import FAMILY_TEXT

from . import ast
from .intrinsics import INTRINSICS, Arg, Intrinsic, target_supports
from .typed import FnInfo
from .types import (
    ERROR,
    F32,
    F64,
    I32,
    SCALARS,
    VOID,
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
    is_untyped,
)


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _names(allowed) -> str:
    return ", ".join(f"`{a}`" for a in sorted(allowed))


#: Intrinsics with no f64 PTX form: the math ops of `irc.ir.optable.NO_F64`, and `exp` / `log`, which lower
#: to `exp2` / `log2` (name -> the f32-only PTX instruction).
NO_F64_INTRINSICS: dict[str, str] = {n: UNARY_MATH[n] + ".f32" for n in NO_F64}
NO_F64_INTRINSICS.update({"exp": UNARY_MATH["exp2"] + ".f32", "log": UNARY_MATH["log2"] + ".f32"})


class CallMixin:
    def call(self, e: ast.Call, want: Type | None) -> Type:
        name = e.callee
        if self.lookup(name) is not None and name not in self.fn_items and name not in INTRINSICS:
            self._args_only(e)
            self.err("type-error", f"`{name}` is a variable, not a function", e.callee_span)
            return ERROR
        if name in self.fn_items:
            return self._fn_call(e, name)
        intr = INTRINSICS.get(name)
        if intr is None:
            self._args_only(e)
            self.unknown_name(name, e.callee_span, "function")
            return ERROR
        self.calls[e] = intr
        return self._intrinsic_call(e, intr)

    def _args_only(self, e: ast.Call) -> None:
        for a in e.args:
            self.finish(a, self.expr(a))

    # ------------------------------------------------------------------------------- device functions
    def _fn_call(self, e: ast.Call, name: str) -> Type:
        item = self.fn_items[name]
        if item.kernel:
            self._args_only(e)
            self.err(
                "type-error",
                f"`{name}` is a kernel; kernels cannot be called",
                e.callee_span,
                labels=[Label(item.name_span, "declared here")],
            )
            return ERROR
        info: FnInfo = self.fn_infos[name]
        self.calls[e] = info
        if self.cur_fn is not None:
            self.call_edges.append((self.cur_fn.name, name, e))
        params = info.params
        if len(e.args) != len(params):
            self._args_only(e)
            self.err(
                "type-error",
                f"`{name}` takes {_plural(len(params), 'argument')} but "
                f"{len(e.args)} {'was' if len(e.args) == 1 else 'were'} given",
                e.span,
                labels=[Label(item.name_span, "declared here")],
            )
            return info.ret
        for a, p in zip(e.args, params):
            t = self.value_expr(a, p.type)
            self.expect(a, t, p.type, f"argument `{p.name}` of `{name}`")
        return info.ret

    # ------------------------------------------------------------------------------------ intrinsics
    def _intrinsic_call(self, e: ast.Call, intr: Intrinsic) -> Type:
        name = intr.name
        if not target_supports(intr.target, self.arch):
            self.err(
                "unsupported-target",
                f"`{name}` requires {FAMILY_TEXT[intr.target]}; the target is {self.arch}",
                e.callee_span,
                help="compile with a newer --arch",
            )
        n, most = len(e.args), len(intr.args)
        least = most - intr.optional
        if not least <= n <= most:
            self._args_only(e)
            takes = _plural(most, "argument") if least == most else f"{least} to {most} arguments"
            self.err(
                "type-error", f"`{name}` takes {takes} but {n} {'was' if n == 1 else 'were'} given", e.span
            )
            return ERROR
        tvars: dict[str, Type] = {}
        lvars: dict[str, int] = {}
        deferred: list[tuple[ast.Expr, Arg]] = []
        ok = True
        for a, k in zip(e.args, intr.args):
            t = self.expr(a, self._arg_hint(k, lvars))
            if isinstance(t, ErrorType):
                ok = False
            elif is_untyped(t) and k.kind == "scalar":
                deferred.append((a, k))
            elif not self._check_arg(e, a, t, k, tvars, lvars):
                ok = False
        for a, k in deferred:
            target = tvars.get(k.var) if k.var else None
            if target is None:
                target = self._literal_default(self.types[a], k)
                if k.var:
                    tvars[k.var] = target
            if k.allowed and isinstance(target, Scalar) and target.name not in k.allowed:
                self.err(
                    "type-error",
                    f"argument `{k.name}` of `{name}` must be {_names(k.allowed)}, found {self.types[a]}",
                    a.span,
                )
                ok = False
                self.finish(a, self.types[a])
            elif isinstance(self.coerce(a, target), ErrorType):
                ok = False
        for a, k in zip(e.args, intr.args):
            if k.const or k.values or k.multiple_of or k.binds:
                ok = self._check_const_arg(name, a, k, lvars) and ok
            if k.lane:
                self._check_lane(name, a, k)
        if name in NO_F64_INTRINSICS and tvars.get("T") == F64:
            self.err(
                "unsupported-target",
                f"`{name}` of an f64 value has no PTX instruction on any target (the hardware approximation "
                f"`{NO_F64_INTRINSICS[name]}` is f32-only)",
                e.span,
                help=f"compute it in f32: `{name}(x as f32) as f64` (f32 accuracy), or write the series in f64",
            )
            ok = False
        return self._ret_type(intr, tvars, lvars, ok)

    def _arg_hint(self, k: Arg, lvars: dict[str, int]) -> Type | None:
        """Expected type for array-literal arguments (`[c0, c1]` coordinates, `[0.0; 4]` accumulators)."""
        if k.kind == "coords" and "R" in lvars:
            return RegArray(I32, lvars["R"])
        if k.kind == "array" and k.allowed and len(k.allowed) == 1 and isinstance(k.length, int):
            return RegArray(SCALARS[next(iter(k.allowed))], k.length)
        return None

    @staticmethod
    def _literal_default(t: Type, k: Arg) -> Scalar:
        allowed = k.allowed or frozenset(SCALARS)
        if isinstance(t, UntypedInt):
            for cand in ("i32", "u32", "f32"):
                if cand in allowed:
                    return SCALARS[cand]
        if isinstance(t, UntypedFloat) and "f32" in allowed:
            return F32
        return SCALARS[sorted(allowed)[0]]

    def _check_arg(self, e: ast.Call, a: ast.Expr, t: Type, k: Arg, tvars: dict, lvars: dict) -> bool:
        name = e.callee
        what = f"argument `{k.name}` of `{name}`"
        if k.kind == "scalar":
            if not isinstance(t, Scalar) or (k.allowed and t.name not in k.allowed):
                if self._is_value(a, t):
                    need = _names(k.allowed) if k.allowed else "a scalar"
                    self.err("type-error", f"{what} must be {need}, found `{t}`", a.span)
                return False
            return self._bind(a, t, k.var, tvars)
        if k.kind == "ptr":
            if not isinstance(t, Ptr) or t.space not in k.spaces:
                spaces = " or ".join(f"`*{s}`" for s in k.spaces)
                help = None
                if isinstance(t, (SharedArray, MBarrier)) and isinstance(a, ast.Name):
                    help = f"pass an address: `&{a.ident}`" + (
                        "" if isinstance(t, MBarrier) else f" or `&{a.ident}[i]`"
                    )
                self.err("type-error", f"{what} must be a {spaces} pointer, found `{t}`", a.span, help=help)
                return False
            if (
                t.readonly
                and k.name == "p"
                and (name.startswith("atomic_") or name in ("store_vec", "wmma_store"))
            ):
                self.err(
                    "type-error",
                    f"`{name}` writes through `{t}`: the pointer is `readonly`",
                    a.span,
                    help="drop `readonly` from the pointer's type if the kernel writes this memory",
                )
                return False
            elem = "mbarrier" if isinstance(t.elem, MBarrier) else str(t.elem)
            if k.allowed and elem not in k.allowed:
                self.err("type-error", f"{what} must point to {_names(k.allowed)}, found `{t}`", a.span)
                return False
            return self._bind(a, t.elem, k.var, tvars)
        if k.kind == "array":
            if not isinstance(t, RegArray):
                if self._is_value(a, t):
                    self.err("type-error", f"{what} must be a register array, found `{t}`", a.span)
                return False
            if t.cols:
                self.err(
                    "type-error",
                    f"{what} must be a one-dimensional register array, found `{t}`",
                    a.span,
                    help="pass one row: `a[i]`",
                )
                return False
            if k.allowed and t.elem.name not in k.allowed:
                self.err("type-error", f"{what} must be an array of {_names(k.allowed)}, found `{t}`", a.span)
                return False
            if not self._bind(a, t.elem, k.var, tvars):
                return False
            if isinstance(k.length, int) and t.n != k.length:
                self.err("type-error", f"{what} must be `[{t.elem}; {k.length}]`, found `{t}`", a.span)
                return False
            if k.lengths and t.n not in k.lengths:
                self.err(
                    "type-error",
                    f"{what} must have {' or '.join(map(str, sorted(k.lengths)))} elements, found `{t}`",
                    a.span,
                )
                return False
            if isinstance(k.length, str):
                lvars[k.length] = t.n
            return True
        if k.kind == "tensormap":
            if not isinstance(t, TensorMap):
                self.err(
                    "type-error", f"{what} must be a `tensormap<...>` kernel parameter, found `{t}`", a.span
                )
                return False
            lvars["R"] = len(t.box)
            return self._bind(a, t.elem, k.var, tvars)
        # coords: [i32; R]
        rank = lvars.get("R")
        if rank is not None and t != RegArray(I32, rank):
            self.err(
                "type-error",
                f"{what} must be `[i32; {rank}]` (one coordinate per box dimension), found `{t}`",
                a.span,
            )
            return False
        return True

    def _is_value(self, a: ast.Expr, t: Type) -> bool:
        """False (after explaining) when `a` is not a value at all (a shared array, an mbarrier, ...)."""
        return not isinstance(self.need_value(a, t), ErrorType)

    def _bind(self, a: ast.Expr, t: Type, var: str | None, tvars: dict) -> bool:
        if var is None:
            return True
        bound = tvars.get(var)
        if bound is None:
            tvars[var] = t
            return True
        if bound != t:
            self.err(
                "type-error",
                f"mismatched types: `{bound}` and `{t}`",
                a.span,
                help="the arguments of this intrinsic must have the same element type",
            )
            return False
        return True

    def _check_const_arg(self, name: str, a: ast.Expr, k: Arg, lvars: dict) -> bool:
        v = self.values.get(a)
        what = f"argument `{k.name}` of `{name}`"
        if v is None:
            if k.const and not isinstance(self.types.get(a), ErrorType):
                self.err("const-error", f"{what} must be a compile-time constant", a.span)
                return False
            return True
        if k.values and v not in k.values:
            self.err(
                "const-error",
                f"{what} must be one of {', '.join(map(str, sorted(k.values)))}, found {v}",
                a.span,
            )
            return False
        if k.multiple_of and v % k.multiple_of:
            self.err("const-error", f"{what} must be a multiple of {k.multiple_of}, found {v}", a.span)
            return False
        if k.binds:
            lvars[k.binds] = int(v)
        return True

    def _check_lane(self, name: str, a: ast.Expr, k: Arg) -> None:
        """A constant lane (or lane offset, xor mask) outside 0..31: shfl.sync reads only its low five
        bits, so `shfl_xor(v, 33)` exchanges with lane ^ 1, which is rarely what was meant."""
        v = self.values.get(a)
        if isinstance(v, bool) or not isinstance(v, int) or 0 <= v <= 31:
            return
        low = v & 31
        what = {"shfl_xor": "lane mask", "shfl_idx": "source lane"}.get(name, "lane offset")
        self.warnings.append(
            warning(
                "shuffle-lane",
                f"`{name}` {what} {v} is outside 0..31; the hardware uses its low five bits ({v} & 31 = {low})",
                a.span,
                help=f"write {low} if that is meant; a warp has 32 lanes",
            )
        )

    @staticmethod
    def _ret_type(intr: Intrinsic, tvars: dict, lvars: dict, ok: bool) -> Type:
        r = intr.ret
        if r.kind == "void":
            return VOID
        if r.kind == "scalar":
            return SCALARS[r.name]
        if r.kind == "var":
            return tvars.get(r.name, ERROR)
        elem = SCALARS.get(r.name) or tvars.get(r.name)
        n = r.length if isinstance(r.length, int) else lvars.get(r.length)
        if not isinstance(elem, Scalar) or n is None:
            return ERROR
        return RegArray(elem, n)
