"""Semantic analysis of a parsed .kdsl program: names and scopes, types, constants, attributes, calls,
recursion and definite assignment. `analyze()` returns a `TypedProgram` or raises `CompileError` with every
error found.

Design (expressions: `sema_expr.py`, calls: `sema_calls.py`, statements and flow: `sema_stmt.py`):
  * One walk over each function body does typing and definite assignment together (see `sema_stmt`).
  * Errors never cascade: a failed expression has type `ERROR`, and everything built on it is silent.
  * `const`/`param` items are evaluated lazily in dependency order (cycles are a const-error), so
    items may be declared in any order. `defines` override `param` defaults; a define that names no
    `param` is a const-error (a misspelt `-D` would otherwise be silently ignored).
  * Scoping: function parameters form the outermost scope, the body block is nested inside it (so
    `let n = n * 2;` in a body shadows a parameter); redeclaring in the same block is a name-error.
  * The walk recurses as deep as the program nests; `analyze` runs it under `deep.run_deep`.
"""

from __future__ import annotations

from irc.deep import run_deep
from irc.diagnostics import CompileError, Diagnostic, Label, Span, error
from irc.ir.graphs import strongly_connected_components
from irc.target import max_shared_any_target

from . import ast, attrs
from .intrinsics import BUILTIN_SCALARS, BUILTIN_VECTORS, INTRINSICS, TARGETS
from .sema_calls import CallMixin
from .sema_expr import MAX_REG_ARRAY, ExprMixin, default_type
from .sema_stmt import LoopState, StmtMixin
from .static_assert import StaticAssertMixin
from .typed import (
    ARG,
    CONST,
    SPEC,
    FnInfo,
    KernelInfo,
    Symbol,
    TypedProgram,
    Value,
)
from .types import (
    BOOL,
    ERROR,
    MBARRIER,
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
    UntypedInt,
    fits,
    is_untyped,
    round_to,
)

_TYPE_ALIASES = {
    "float": "f32",
    "double": "f64",
    "half": "f16",
    "int": "i32",
    "uint": "u32",
    "long": "i64",
    "bfloat16": "bf16",
    "size_t": "u64",
}


class Analyzer(StmtMixin, ExprMixin, CallMixin, StaticAssertMixin):
    def __init__(self, program: ast.Program, defines: dict[str, Value] | None, arch: str):
        self.program = program
        self.path = program.path
        self.defines = dict(defines or {})
        self.arch = arch
        self.diags: list[Diagnostic] = []
        self.warnings: list[Diagnostic] = []
        # side tables (see TypedProgram)
        self.types: dict[ast.Expr, Type] = {}
        self.values: dict[ast.Expr, Value] = {}
        self.per_copy: set[ast.Expr] = set()
        self.refs: dict[ast.Name, Symbol] = {}
        self.builtins: dict[ast.Expr, str] = {}
        self.decls: dict[ast.Node, Symbol] = {}
        self.calls: dict = {}
        self.const_index_checks: list[tuple[ast.Expr, int]] = []
        # items
        self.const_items: dict[str, ast.ConstItem] = {}
        self.fn_items: dict[str, ast.FnItem] = {}
        self.fn_infos: dict[str, FnInfo] = {}
        self.kernels: dict[str, KernelInfo] = {}
        self.globals: dict[str, Symbol] = {}
        self.evaluating: list[str] = []
        self.call_edges: list[tuple[str, str, ast.Call]] = []
        # walk state
        self.scopes: list[dict[str, Symbol]] = []
        self.cur_fn: ast.FnItem | None = None
        self.cur_kernel: KernelInfo | None = None
        self.deferred: set[Symbol] = set()  # `var`s declared without a value: the only ones tracked
        self.assigned: set[Symbol] = set()  # deferred vars assigned on every path to this point
        self.reachable = True
        self.loops: list[LoopState] = []

    # ----------------------------------------------------------------------------------- diagnostics
    def err(self, check: str, message: str, span: Span | None, **kw) -> None:
        self.diags.append(error(check, message, span, **kw))

    # ---------------------------------------------------------------------------------------- scopes
    def lookup(self, name: str) -> Symbol | None:
        for scope in reversed(self.scopes):
            sym = scope.get(name)
            if sym is not None:
                return sym
        return self._global(name)

    def visible_names(self) -> list[str]:
        names = set(self.const_items) | set(BUILTIN_SCALARS) | set(BUILTIN_VECTORS)
        for scope in self.scopes:
            names |= set(scope)
        return sorted(names)

    def declare(self, sym: Symbol, decl: ast.Node) -> None:
        scope = self.scopes[-1]
        prev = scope.get(sym.name)
        if prev is not None:
            self.err(
                "name-error",
                f"`{sym.name}` is already declared in this block",
                sym.span,
                labels=[Label(prev.span, "first declared here")] if prev.span else [],
                help="use another name, or assign to the existing variable",
            )
        scope[sym.name] = sym
        self.decls[decl] = sym

    # ------------------------------------------------------------------------------------------ types
    def resolve_type(self, t: ast.TypeExpr, ctx: str) -> Type:
        """Resolve a type expression. ctx: value | kernel_param | shared | cast | elem (a pointee)."""
        if isinstance(t, ast.NamedType):
            if t.name in SCALARS:
                return SCALARS[t.name]
            if t.name == "mbarrier":
                if ctx in ("shared", "elem"):
                    return MBARRIER
                self.err("type-error", "an `mbarrier` can only be declared `shared` (or pointed to)", t.span)
                return ERROR
            if t.name == "tensormap":
                self.err(
                    "type-error",
                    "`tensormap` needs an element type and a box: `tensormap<f16; 64, 64>`",
                    t.span,
                )
                return ERROR
            import difflib  # lazy: only for a suggestion in an error message

            close = _TYPE_ALIASES.get(t.name) or next(
                iter(difflib.get_close_matches(t.name, [*SCALARS, "mbarrier"], n=1)), None
            )
            self.err(
                "name-error",
                f"unknown type `{t.name}`",
                t.span,
                help=f"did you mean `{close}`?" if close else None,
            )
            return ERROR
        if isinstance(t, ast.PtrType):
            elem = self.resolve_type(t.elem, "elem")
            if t.space not in ("global", "shared"):
                self.err(
                    "type-error",
                    f"unknown address space `{t.space}`: pointers are `*global T` or `*shared T`",
                    t.span,
                )
                return ERROR
            if isinstance(elem, ErrorType):
                return ERROR
            if isinstance(elem, MBarrier) and t.space != "shared":
                self.err("type-error", "mbarriers live in shared memory: use `*shared mbarrier`", t.span)
                return ERROR
            if not isinstance(elem, (Scalar, MBarrier, Ptr)):
                self.err(
                    "type-error",
                    f"pointers point to scalars, pointers or mbarriers, not `{elem}`",
                    t.elem.span,
                )
                return ERROR
            if t.readonly and t.space != "global":
                self.err(
                    "type-error",
                    "`readonly` applies to global pointers (non-coherent loads, `ld.global.nc`)",
                    t.span,
                )
                return ERROR
            return Ptr(t.space, elem, t.readonly)
        if isinstance(t, ast.ArrayType):
            return self._array_type_expr(t, ctx)
        if isinstance(t, ast.UnsizedType):
            elem = self.resolve_type(t.elem, "elem")
            if isinstance(elem, ErrorType):
                return ERROR
            if ctx != "shared_dynamic":
                if ctx != "shared":  # a `shared` statement without `dynamic`: the parser reported it
                    self.err(
                        "type-error",
                        "an array without a length is only allowed as a `dynamic` shared array",
                        t.span,
                    )
                return ERROR
            if not isinstance(elem, Scalar) or elem.is_bool:
                self.err(
                    "type-error", f"dynamic shared array elements are numbers, not `{elem}`", t.elem.span
                )
                return ERROR
            return SharedArray(elem, (0,), dynamic=True)
        assert isinstance(t, ast.TensorMapType)
        return self._tensormap_type(t, ctx)

    def _array_type_expr(self, t: ast.ArrayType, ctx: str) -> Type:
        elem = self.resolve_type(t.elem, "shared" if ctx == "shared" else "elem")
        dims = [self._const_dim(d, "an array size") for d in t.dims]
        if isinstance(elem, ErrorType) or any(d is None for d in dims):
            return ERROR
        if ctx == "shared":
            if len(dims) > 3:
                self.err("type-error", f"shared arrays have 1 to 3 dimensions, found {len(dims)}", t.span)
                return ERROR
            if not isinstance(elem, (Scalar, MBarrier)):
                self.err(
                    "type-error", f"shared array elements are scalars or mbarriers, not `{elem}`", t.elem.span
                )
                return ERROR
            arr = SharedArray(elem, tuple(dims))
            most = max_shared_any_target()
            if arr.size > most:  # fuzz campaign: `[f32; 16, 2^64-1]` reached lowering and failed to verify
                self.err(
                    "shared-overflow",
                    f"shared array of {arr.size} bytes: no target allows more than {most} bytes per block",
                    t.span,
                    help="reduce the tile sizes (the per-target limits are in docs/limits.md)",
                )
                return ERROR
            return arr
        if ctx in ("value", "elem"):
            if len(dims) > 2:
                self.err(
                    "type-error",
                    f"register arrays have one or two dimensions (`[T; N]`, `[T; R, C]`), found {len(dims)}",
                    t.span,
                    help="more dimensions are for `shared` declarations",
                )
                return ERROR
            if not isinstance(elem, Scalar):
                self.err("type-error", f"register array elements must be scalars, not `{elem}`", t.elem.span)
                return ERROR
            total = dims[0] * (dims[1] if len(dims) == 2 else 1)
            if total > MAX_REG_ARRAY:
                self.err(
                    "limit-error",
                    f"register array of {total} elements exceeds the limit of {MAX_REG_ARRAY}",
                    t.span,
                )
                return ERROR
            return RegArray(elem, total, dims[1] if len(dims) == 2 else 0)
        self.err(
            "type-error",
            f"`{_type_text(t)}` is not allowed here",
            t.span,
            help="kernel parameters are scalars, `*global T` or `tensormap<...>`",
        )
        return ERROR

    def _tensormap_type(self, t: ast.TensorMapType, ctx: str) -> Type:
        elem = self.resolve_type(t.elem, "value")
        box = [self._const_dim(d, "a box extent") for d in t.box]
        if ctx != "kernel_param":
            self.err("type-error", "`tensormap<...>` is only allowed as a kernel parameter type", t.span)
            return ERROR
        if isinstance(elem, ErrorType) or any(b is None for b in box):
            return ERROR
        if not isinstance(elem, Scalar) or elem.is_bool:
            self.err("type-error", f"a tensormap's element type must be a number, not `{elem}`", t.elem.span)
            return ERROR
        if not 1 <= len(box) <= 5:
            self.err("type-error", f"a tensormap box has 1 to 5 dimensions, found {len(box)}", t.span)
            return ERROR
        return TensorMap(elem, tuple(box))

    def _const_dim(self, e: ast.Expr, what: str) -> int | None:
        t = self.finish(e, self.value_expr(e))
        if isinstance(t, ErrorType):
            return None
        v = self.const_of(e, what)
        if v is None:
            return None
        if not isinstance(v, int) or isinstance(v, bool) or v <= 0:
            self.err("const-error", f"{what} must be a positive integer, found {v}", e.span)
            return None
        return v

    # ---------------------------------------------------------------------------------------- globals
    def _global(self, name: str) -> Symbol | None:
        sym = self.globals.get(name)
        if sym is not None:
            return sym
        item = self.const_items.get(name)
        if item is None:
            return None
        kind = SPEC if item.spec else CONST
        if name in self.evaluating:
            cycle = self.evaluating[self.evaluating.index(name) :] + [name]
            self.err(
                "const-error", f"`{name}` is defined in terms of itself: {' -> '.join(cycle)}", item.name_span
            )
            sym = Symbol(name, kind, ERROR, item.name_span, decl=item)
            self.globals[name] = sym
            return sym
        self.evaluating.append(name)
        saved = (self.scopes, self.cur_fn, self.assigned, self.reachable, self.loops)
        self.scopes, self.cur_fn, self.assigned, self.reachable, self.loops = [], None, set(), True, []
        try:
            sym = self._const_item(item, kind)
        finally:
            self.scopes, self.cur_fn, self.assigned, self.reachable, self.loops = saved
            self.evaluating.pop()
        return self.globals.setdefault(name, sym)

    def _const_item(self, item: ast.ConstItem, kind: str) -> Symbol:
        declared = self.resolve_type(item.type, "value") if item.type is not None else None
        if declared is not None and not isinstance(declared, (Scalar, ErrorType)):
            self.err("type-error", f"constants are scalars, not `{declared}`", item.type.span)
            declared = ERROR
        t = self.value_expr(item.init)
        if declared is not None:
            t = self.expect(item.init, t, declared)
        elif isinstance(t, (Ptr, RegArray)):
            self.err("type-error", f"constants are scalars, not `{t}`", item.init.span)
            t = ERROR
        value = self.values.get(item.init)
        if value is None and not isinstance(t, ErrorType):
            self.err(
                "const-error",
                f"the value of `{item.name}` must be a compile-time constant",
                item.init.span,
                help="use literals, other `const`s and `param`s, and operators on them",
            )
            t = ERROR
        if item.spec and item.name in self.defines and not isinstance(t, ErrorType):
            t, value = self._apply_define(item, t, self.defines[item.name])
        sym = Symbol(item.name, kind, t, item.name_span, value=value, decl=item)
        self.decls[item] = sym
        return sym

    def _apply_define(self, item: ast.ConstItem, t: Type, dv: object) -> tuple[Type, Value | None]:
        what = f"`-D {item.name}={dv}`"
        if isinstance(t, Scalar):
            ok = (t.is_bool and isinstance(dv, bool)) or (
                not t.is_bool
                and not isinstance(dv, bool)
                and isinstance(dv, (int, float))
                and (t.is_float or isinstance(dv, int))
                and fits(dv, t)
            )
            if not ok:
                self.err(
                    "const-error",
                    f"{what} is not a valid `{t}` value for param `{item.name}`",
                    item.name_span,
                )
                return ERROR, None
            return t, round_to(float(dv), t) if t.is_float else dv
        if isinstance(dv, bool):
            return (BOOL, dv) if t == BOOL else (ERROR, None)
        if isinstance(dv, int):
            return (t if isinstance(t, UntypedInt) else t), dv
        if isinstance(dv, float):
            if isinstance(t, UntypedInt):
                self.err("const-error", f"{what}: param `{item.name}` is an integer", item.name_span)
                return ERROR, None
            return t, dv
        self.err("const-error", f"{what}: defines are integers, floats or booleans", item.name_span)
        return ERROR, None

    def global_const(self, e: ast.Expr, what: str) -> Value | None:
        """Evaluate a constant expression at the top level (attribute values)."""
        saved = self.scopes
        self.scopes = []
        try:
            t = self.finish(e, self.value_expr(e))
        finally:
            self.scopes = saved
        if isinstance(t, ErrorType):
            return None
        return self.const_of(e, what)

    # -------------------------------------------------------------------------------------- collect
    def collect(self) -> None:
        first: dict[str, ast.Item] = {}
        for item in self.program.items:
            name = item.name
            if name in first:
                self.err(
                    "name-error",
                    f"`{name}` is defined twice",
                    item.name_span,
                    labels=[Label(first[name].name_span, "first defined here")],
                )
                continue
            if name in INTRINSICS or name in BUILTIN_SCALARS or name in BUILTIN_VECTORS:
                what = "an intrinsic" if name in INTRINSICS else "a built-in value"
                self.err("name-error", f"`{name}` is {what} and cannot be redefined", item.name_span)
                continue
            first[name] = item
            if isinstance(item, ast.ConstItem):
                self.const_items[name] = item
            else:
                assert isinstance(item, ast.FnItem)
                self.fn_items[name] = item
        for name in self.defines:
            item = self.const_items.get(name)
            if item is None or not item.spec:
                params = sorted(n for n, i in self.const_items.items() if i.spec)
                why = (
                    "is a `const`, not a `param`" if item is not None else "is not a `param` of this program"
                )
                self.err(
                    "const-error",
                    f"define `{name}` {why}",
                    item.name_span if item else None,
                    help=f"params: {', '.join(params)}" if params else "this program declares no `param`s",
                )
        for item in self.fn_items.values():
            self._signature(item)

    def _signature(self, item: ast.FnItem) -> None:
        params: list[Symbol] = []
        seen: dict[str, Symbol] = {}
        for p in item.params:
            t = self.resolve_type(p.type, "kernel_param" if item.kernel else "value")
            if (
                item.kernel
                and isinstance(t, (Ptr, RegArray))
                and not (isinstance(t, Ptr) and t.space == "global")
            ):
                self.err(
                    "type-error",
                    f"kernel parameters are scalars, `*global T` or `tensormap<...>`, not `{t}`",
                    p.type.span,
                )
                t = ERROR
            sym = Symbol(p.name, ARG, t, p.span, decl=p)
            if p.name in seen:
                self.err(
                    "name-error",
                    f"parameter `{p.name}` is declared twice",
                    p.span,
                    labels=[Label(seen[p.name].span, "first declared here")],
                )
            seen[p.name] = sym
            self.decls[p] = sym
            params.append(sym)
        ret = VOID
        if item.ret is not None:
            ret = self.resolve_type(item.ret, "value")
        self.fn_infos[item.name] = FnInfo(item, params, ret)

    # ----------------------------------------------------------------------------------------- items
    def run(self) -> TypedProgram:
        self.collect()
        for name in self.const_items:
            self._global(name)
        self.module_static_asserts()
        for item in self.fn_items.values():
            info, allow = attrs.validate(self, item)
            self.fn_infos[item.name].allow = allow
            if item.kernel:
                self.kernels[item.name] = info
            self._body(item, info if item.kernel else None)
        self._recursion()
        for e, t in self.types.items():  # anything still untyped had no context at all
            if is_untyped(t):
                self.types[e] = default_type(t)
        if not any(d.is_error for d in self.diags):
            self._untyped_without_error()
        if any(d.is_error for d in self.diags):
            raise CompileError(sorted(self.diags + self.warnings, key=Diagnostic.sort_key))
        return TypedProgram(
            program=self.program,
            arch=self.arch,
            types=self.types,
            values=self.values,
            per_copy_const=self.per_copy,
            refs=self.refs,
            builtins=self.builtins,
            decls=self.decls,
            calls=self.calls,
            const_index_checks=self.const_index_checks,
            consts={n: s.value for n, s in self.globals.items() if s.value is not None},
            kernels=self.kernels,
            fns={n: i for n, i in self.fn_infos.items() if not i.item.kernel},
            warnings=sorted(self.warnings, key=Diagnostic.sort_key),
        )

    def _untyped_without_error(self) -> None:
        """Defence in depth: an expression left with the error type must come with an error diagnostic
        (every rule that gives up on a type reports why). If one slipped through without, lowering would
        meet a value it cannot build and stop with an internal error; a located error is better (the fuzz
        campaign found such a rule: a float array length)."""
        bad = [e for e, t in self.types.items() if isinstance(t, ErrorType) and getattr(e, "span", None)]
        if bad:
            e = min(bad, key=lambda x: (x.span.line, x.span.col))
            self.err("type-error", "this expression has no valid type here", e.span)

    def _body(self, item: ast.FnItem, kernel: KernelInfo | None) -> None:
        info = self.fn_infos[item.name]
        self.cur_fn, self.cur_kernel = item, kernel
        self.scopes = [{p.name: p for p in info.params}]
        self.assigned, self.reachable, self.loops = set(), True, []
        self.block(item.body)
        if not item.kernel and info.ret != VOID and not isinstance(info.ret, ErrorType) and self.reachable:
            end = item.body.span
            self.err(
                "type-error",
                f"`{item.name}` must return a `{info.ret}` on every path, but can reach its end",
                Span(end.file, end.end_line, max(1, end.end_col - 1), end.end_line, end.end_col),
                labels=[Label(item.ret.span, "return type declared here")],
            )
        self.cur_fn = self.cur_kernel = None
        self.scopes = []

    def _recursion(self) -> None:
        succ: dict[str, list[str]] = {}
        first_call: dict[tuple[str, str], ast.Call] = {}
        for caller, callee, call in self.call_edges:
            succ.setdefault(caller, [])
            succ.setdefault(callee, [])
            if (caller, callee) not in first_call:
                succ[caller].append(callee)
            first_call.setdefault((caller, callee), call)
        order = {name: i for i, name in enumerate(self.fn_items)}
        for comp in strongly_connected_components(list(succ), succ.__getitem__):
            start = min(comp, key=order.__getitem__)
            if len(comp) == 1 and start not in succ[start]:
                continue
            cycle = _find_cycle(start, comp, succ)
            names = [u for u, _ in cycle] + [cycle[0][0]]
            calls = [first_call[(u, v)] for u, v in cycle]
            self.err(
                "recursion",
                f"recursive call cycle: {' -> '.join(f'`{n}`' for n in names)}",
                calls[0].span,
                labels=[Label(c.span, f"`{u}` calls `{v}`") for c, (u, v) in zip(calls[1:], cycle[1:])],
                help="device functions are always inlined, so they cannot be recursive",
            )


def _type_text(t: ast.TypeExpr) -> str:
    if isinstance(t, ast.NamedType):
        return t.name
    if isinstance(t, ast.PtrType):
        return f"*{t.space} {'readonly ' if t.readonly else ''}{_type_text(t.elem)}"
    if isinstance(t, ast.ArrayType):
        return f"[{_type_text(t.elem)}; ...]"
    if isinstance(t, ast.UnsizedType):
        return f"[{_type_text(t.elem)}]"
    return "tensormap<...>"


def analyze(
    program: ast.Program, defines: dict[str, Value] | None = None, arch: str = "sm_80"
) -> TypedProgram:
    """Check `program` for target `arch` with `param` overrides `defines`; raises `CompileError` listing every
    error (warnings ride along). `arch` must be one of `intrinsics.TARGETS` (a usage error otherwise)."""
    if arch not in TARGETS:
        raise ValueError(f"unknown target {arch!r}; expected one of {', '.join(TARGETS)}")
    return run_deep(lambda: Analyzer(program, defines, arch).run(), span=program.span)


def _find_cycle(start: str, comp: set[str], succ: dict[str, list[str]]) -> list[tuple[str, str]]:
    """A simple cycle through `start` inside the strongly connected component `comp`, as its edges (depth
    first in call order, so the cycle reported is the first one the source spells)."""
    path = [start]
    on_path = {start}
    stack = [iter([s for s in succ[start] if s in comp])]
    while stack:
        for s in stack[-1]:
            if s == start:
                return list(zip(path, path[1:] + [start]))
            if s not in on_path:
                path.append(s)
                on_path.add(s)
                stack.append(iter([t for t in succ[s] if t in comp]))
                break
        else:
            stack.pop()
            on_path.discard(path.pop())
    raise AssertionError("a strongly connected component has a cycle through each member")
