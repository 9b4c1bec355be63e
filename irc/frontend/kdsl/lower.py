"""Lowering of a typed .kdsl program to the SSA IR (docs/ir.md, "Lowering conventions").

    module = compile_to_ir(text, "softmax.kdsl", defines={"N": 64}, arch="sm_80")   # parse + sema + lower
    module = lower(typed_program)

Design:
  * One IR `Function` per kernel; device functions are inlined at every call (the IR of a program holds
    kernels only). Parameters are the entry block's arguments.
  * SSA is built directly from the AST with Braun et al.'s algorithm (`lower_ssa.SSABuilder`): variables
    are names for SSA values, block arguments appear on demand at joins and trivial ones vanish.
  * Statements are lowered here, expressions in `lower_expr`, intrinsic calls in `lower_intr`.
  * Code after `return`/`break`/`continue` is not lowered (`self.cur is None`): sema's definite-assignment
    analysis treats it as unreachable too. Blocks that end up unreachable are removed at the end.
  * Errors that only show after unrolling (a register-array index that is not constant in a copy) are
    collected and raised together as a `CompileError`; anything the verifier rejects afterwards is a bug in
    irc and raises `InternalCompilerError`.
"""

from __future__ import annotations

from irc import limits
from irc.deep import run_deep
from irc.diagnostics import CompileError, Diagnostic, InternalCompilerError, Span, error
from irc.ir.builder import Builder
from irc.ir.core import Block, Function, Module, SharedDecl, Value
from irc.ir.types import MBARRIER, ArrayType
from irc.ir.verifier import verify
from irc.records import field, record

from . import ast, fold
from .lower_expr import ExprLowering
from .lower_intr import IntrinsicLowering
from .lower_ssa import SSABuilder
from .lower_unroll import PartialUnrollLowering
from .parse import parse_kdsl
from .sema import analyze
from .static_assert import constant_names, failure
from .typed import KernelInfo, Symbol, TypedProgram
from .types import MBarrier, RegArray, SharedArray

MAX_UNROLL = limits.get("max_unroll")


@record
class _Loop:
    """Targets of `break` / `continue` for the innermost loop (blocks created on demand for unrolled copies)."""

    break_block: Block | None = None
    cont_block: Block | None = None


@record
class _Inline:
    """An inlined device-function call in progress: `return` branches to `join` with the result values."""

    join: Block
    n_results: int
    saved_loops: list[_Loop] = field(default_factory=list)


class KernelLowering(ExprLowering, IntrinsicLowering, PartialUnrollLowering):
    """Lowers one kernel (and every function it calls, inlined) to an IR `Function`."""

    def __init__(self, typed: TypedProgram, info: KernelInfo, module: Module):
        self.typed = typed
        self.info = info
        self.module = module
        self.diags: list[Diagnostic] = []
        item = info.item
        params = [typed.decls[p] for p in item.params]
        self.fn = Function(
            item.name, [self.ir_type(p.type) for p in params], True, [p.name for p in params], span=item.span
        )
        self.ssa = SSABuilder(self.fn)
        self.b = Builder(self.fn.entry, item.span)
        self.cur: Block | None = self.fn.entry
        self.loops: list[_Loop] = []
        self.inlines: list[_Inline] = []
        self.unroll_vals: dict[Symbol, object] = {}
        self.unroll_copies = 1  # copies the enclosing unrolled loops make of the current statement
        self.max_ir_ops = limits.get("max_ir_ops")
        self.shared_names: dict[Symbol, str] = {}
        self._var_keys: dict[Symbol, list] = {}
        self.ssa.seal(self.fn.entry)
        for p, arg in zip(params, self.fn.params):
            self.ssa.declare(p, arg.type, p.name)
            self.ssa.write(p, self.fn.entry, arg)

    # ------------------------------------------------------------------------------------- driver
    def run(self) -> Function:
        info, fn = self.info, self.fn
        if info.block is not None:
            fn.attrs["launch"] = list(info.block)
        if info.max_registers is not None:
            fn.attrs["max_registers"] = info.max_registers
        if info.min_blocks_per_sm is not None:
            fn.attrs["min_blocks_per_sm"] = info.min_blocks_per_sm
        if info.cluster is not None:
            fn.attrs["cluster"] = list(info.cluster)
        if info.allow:
            fn.attrs["allow"] = sorted(info.allow)
        self._shared_decls()
        self.block(info.item.body)
        if self.b.created > self.max_ir_ops:  # the last statement alone may have gone over
            found = f"the function has {self.b.created} IR operations"
            raise CompileError([limits.limit_error("max_ir_ops", found, info.item.span)])
        if self.cur is not None:
            self.b.span = _end_span(info.item.body.span)
            self.b.ret()
        self._remove_unreachable()
        return fn

    def _shared_decls(self) -> None:
        """One `SharedDecl` per `shared` declaration (one allocation per block for the whole kernel)."""
        used: set[str] = set()
        for sym in self.info.shared:
            t = sym.type
            if isinstance(t, SharedArray):
                elem = self.ir_type(t.elem)
                ty = ArrayType(elem, tuple(t.shape))
                align = t.align or (8 if isinstance(t.elem, MBarrier) else t.elem.size)
                if t.dynamic:
                    align = max(align, 16)
            elif isinstance(t, MBarrier):
                ty, align = MBARRIER, 8
            else:
                continue
            # a `dynamic` array is a module-level `.extern .shared`: `$` keeps its PTX name apart from any
            # kernel's own (function-scope) shared names, which .kdsl identifiers cannot contain
            name, k = (f"dyn${sym.name}" if isinstance(t, SharedArray) and t.dynamic else sym.name), 1
            while name in used:  # shadowed declarations in different scopes
                name, k = f"{sym.name}_{k}", k + 1
            used.add(name)
            self.shared_names[sym] = name
            span = sym.decl.span if sym.decl is not None else sym.span
            dyn = isinstance(t, SharedArray) and t.dynamic
            self.fn.shared.append(SharedDecl(name, ty, align, span, dynamic=dyn))

    def _remove_unreachable(self) -> None:
        seen: set[Block] = set()
        stack = [self.fn.entry]
        while stack:
            b = stack.pop()
            if b in seen:
                continue
            seen.add(b)
            stack.extend(b.successors)
        for b in [b for b in self.fn.blocks if b not in seen]:
            self.fn.remove_block(b)

    # ------------------------------------------------------------------------------------- blocks
    def new_block(self, arg_types: list | None = None) -> Block:
        """A block not yet placed in the layout (it is appended when lowering starts filling it)."""
        return Block(arg_types or [])

    def start(self, block: Block) -> None:
        if block.function is None:
            self.fn.add_block(block)
        self.cur = block
        self.b.at_end(block)

    def dead_block(self) -> None:
        """Continue in a fresh unreachable block (code after a call that never returns)."""
        b = self.new_block()
        self.ssa.seal(b)
        self.ssa.dead()
        self.start(b)

    def br(self, dest: Block, args: list[Value] | None = None) -> None:
        assert self.cur is not None
        op = self.b.br(dest, args)
        self.ssa.add_edge(op, 0)
        self.cur = None

    def cbr(
        self,
        cond: Value,
        then: Block,
        els: Block,
        then_args: list[Value] | None = None,
        else_args: list[Value] | None = None,
    ) -> None:
        assert self.cur is not None
        op = self.b.cbr(cond, then, then_args, els, else_args)
        self.ssa.add_edge(op, 0)
        self.ssa.add_edge(op, 1)
        self.cur = None

    def has_preds(self, b: Block) -> bool:
        return bool(self.ssa.preds.get(b))

    def continue_in(self, b: Block) -> None:
        """Seal `b` and continue there, or mark the rest unreachable when nothing branches to it."""
        self.ssa.seal(b)
        if self.has_preds(b):
            self.start(b)
        else:
            self.cur = None

    # ------------------------------------------------------------------------------------- variables
    def var_keys(self, sym: Symbol) -> list:
        """SSA keys of a variable: the symbol, or one key per element of a register array (declared on
        the first call; the list is made once per variable, as every access to one element of a
        64-element array asks for it). Callers must not modify it."""
        got = self._var_keys.get(sym)
        if got is not None:
            return got
        t = sym.type
        if isinstance(t, RegArray):
            keys = [(sym, i) for i in range(t.n)]
            for k in keys:
                if k not in self.ssa.key_info:
                    self.ssa.declare(k, self.ir_type(t.elem), f"{sym.name}_{k[1]}")
        else:
            if sym not in self.ssa.key_info:
                self.ssa.declare(sym, self.ir_type(t), sym.name)
            keys = [sym]
        self._var_keys[sym] = keys
        return keys

    def read_var(self, sym: Symbol) -> Value | list[Value]:
        assert self.cur is not None
        self.ssa.undef_span = self.b.span
        vals = [self.ssa.read(k, self.cur) for k in self.var_keys(sym)]
        return vals if isinstance(sym.type, RegArray) else vals[0]

    def read_elems(self, sym: Symbol, slots: range) -> dict[int, Value]:
        """Only the named elements of a register array: reading `s[3]` of a 64-element array must not
        look up (and create merge arguments for) the other 63 (that made lowering quadratic in the
        array size on unrolled code, issue 15)."""
        assert self.cur is not None
        self.ssa.undef_span = self.b.span
        keys = self.var_keys(sym)
        return {k: self.ssa.read(keys[k], self.cur) for k in slots}

    def write_var(self, sym: Symbol, value: Value | list[Value]) -> None:
        assert self.cur is not None
        vals = value if isinstance(value, list) else [value]
        keys = self.var_keys(sym)
        for i, (k, v) in enumerate(zip(keys, vals)):
            if v.name is None:
                v.name = sym.name if len(keys) == 1 else f"{sym.name}_{i}"
            self.ssa.write(k, self.cur, v)

    def write_elem(self, sym: Symbol, index: int, value: Value) -> None:
        assert self.cur is not None
        key = self.var_keys(sym)[index]
        if value.name is None:
            value.name = f"{sym.name}_{index}"
        self.ssa.write(key, self.cur, value)

    def err(self, check: str, message: str, span: Span | None, **kw) -> None:
        self.diags.append(error(check, message, span, **kw))

    # ------------------------------------------------------------------------------------- statements
    def block(self, b: ast.Block) -> None:
        for s in b.stmts:
            if self.cur is None:
                return  # unreachable code after return/break/continue
            if self.b.created > self.max_ir_ops:
                found = f"the function has more than {self.max_ir_ops} IR operations here"
                raise CompileError([limits.limit_error("max_ir_ops", found, s.span)])
            self.b.span = s.span
            self._stmt_handlers[type(s)](self, s)

    def _let(self, s: ast.LetStmt) -> None:
        sym = self.typed.decls[s]
        self.var_keys(sym)
        if s.init is not None:
            self.write_var(sym, self.lower_value(s.init, sym.type))

    def _assign(self, s: ast.AssignStmt) -> None:
        tgt = s.target
        if isinstance(tgt, ast.Name):
            sym = self.typed.refs[tgt]
            if s.op == "=":
                val = self.lower_value(s.value, sym.type)
            else:
                cur = self.read_var(sym)
                rhs = self.lower_value(s.value, self.typed.types[tgt] if s.op not in ("<<", ">>") else None)
                self.b.span = s.span
                val = self.binop(s.op, cur, rhs, s.span)
            self.write_var(sym, val)
            return
        assert isinstance(tgt, ast.Index)
        bt = self.typed.types[tgt.base]
        if isinstance(bt, RegArray):
            slots = self.reg_slots(tgt, bt)
            if isinstance(tgt.base, ast.Name) and tgt.base in self.typed.refs:
                sym = self.typed.refs[tgt.base]
                if bt.cols and len(tgt.indices) == 1:  # a whole row of a two-dimensional array
                    row = self.lower_value(s.value, bt.row)
                    for k, v in zip(slots or (), row):
                        self.write_elem(sym, k, v)
                    return
                idx = slots[0] if slots is not None else None
                if s.op == "=":
                    val = self.lower_value(s.value, bt.elem)
                else:
                    cur = self.read_elems(sym, range(idx, idx + 1))[idx] if idx is not None else None
                    rhs = self.lower_value(s.value, bt.elem if s.op not in ("<<", ">>") else None)
                    self.b.span = s.span
                    val = self.binop(s.op, cur, rhs, s.span) if cur is not None else rhs
                if idx is not None:
                    self.write_elem(sym, idx, val)
            return
        addr = self.place_addr(tgt)
        if s.op == "=":
            val = self.lower_value(s.value, self.typed.types[tgt])
        else:
            self.b.span = tgt.span
            cur = self.b.value("load", [addr], addr.type.elem)
            rhs = self.lower_value(s.value, self.typed.types[tgt] if s.op not in ("<<", ">>") else None)
            self.b.span = s.span
            val = self.binop(s.op, cur, rhs, s.span)
        self.b.span = s.span
        self.b.create("store", [addr, val], [])

    def _expr_stmt(self, s: ast.ExprStmt) -> None:
        self.lower(s.expr)

    def _shared(self, s: ast.SharedStmt) -> None:
        pass  # allocations are per kernel: see _shared_decls

    def _if(self, s: ast.IfStmt) -> None:
        c = self.static_bool(s.cond)
        if isinstance(c, bool):  # constant condition: only the taken arm exists (as in sema)
            arm = s.then if c else s.else_
            if arm is not None:
                self._stmt_handlers[type(arm)](self, arm)
            return
        cond = self.lower(s.cond)
        then_b, join = self.new_block(), self.new_block()
        else_b = self.new_block() if s.else_ is not None else join
        self.b.span = s.cond.span
        head, start = self.cur, self.ssa.mark()
        self.cbr(cond, then_b, else_b)
        self.ssa.seal(then_b)
        self.start(then_b)
        self.block(s.then)
        if self.cur is not None:
            self.br(join)
        if s.else_ is not None:
            self.ssa.seal(else_b)
            self.start(else_b)
            self.b.span = s.else_.span
            self._stmt_handlers[type(s.else_)](self, s.else_)
            if self.cur is not None:
                self.br(join)
        self.ssa.close_region(join, head, start)
        self.continue_in(join)

    def _while(self, s: ast.WhileStmt) -> None:
        c = self.static_bool(s.cond)
        if c is False:
            return
        header, body, exit_ = self.new_block(), self.new_block(), self.new_block()
        self.br(header)
        self.start(header)
        if c is True:
            self.br(body)
        else:
            cond = self.lower(s.cond)
            self.b.span = s.cond.span
            self.cbr(cond, body, exit_)
        self.ssa.seal(body)
        self.start(body)
        self.loops.append(_Loop(exit_, header))
        self.block(s.body)
        self.loops.pop()
        if self.cur is not None:
            self.b.span = _end_span(s.body.span)
            self.br(header)
        self.ssa.seal(header)
        self.continue_in(exit_)

    def _for(self, s: ast.ForStmt) -> None:
        sym = self.typed.decls[s]
        if s.unroll:
            values = self._unroll_values(s, sym)
            if values is not None:
                self._unrolled(s, sym, values)
            return
        if s.factor is not None:
            self.partial_unroll(s, sym, int(self.typed.values[s.factor]), _Loop)
            return
        start = self.lower_value(s.start, sym.type)
        end = self.lower_value(s.end, sym.type)
        step = self.lower_value(s.step, sym.type) if s.step is not None else None
        if step is None:
            self.b.span = s.var_span
            step = self.b.const(1, start.type)
        self.write_var(sym, start)
        header, body, latch, exit_ = (self.new_block() for _ in range(4))
        self.b.span = s.span
        self.br(header)
        self.start(header)
        i = self.read_var(sym)
        self.b.span = s.end.span
        cond = self.b.value("cmp", [i, end], attrs={"pred": "lt"})
        self.cbr(cond, body, exit_)
        self.ssa.seal(body)
        self.start(body)
        self.loops.append(_Loop(exit_, latch))
        self.block(s.body)
        self.loops.pop()
        if self.cur is not None:
            self.b.span = _end_span(s.body.span)
            self.br(latch)
        self.ssa.seal(latch)
        if self.has_preds(latch):
            self.start(latch)
            self.b.span = s.step.span if s.step is not None else s.var_span
            nxt = self.b.value("add", [self.read_var(sym), step], hint=sym.name)
            self.ssa.write(sym, latch, nxt)
            self.br(header)
        self.ssa.seal(header)
        self.continue_in(exit_)

    def _unroll_values(self, s: ast.ForStmt, sym: Symbol) -> list | None:
        if sym.values is not None:
            return list(sym.values)
        bounds = [self.cval(x) if x is not None else 1 for x in (s.start, s.end, s.step)]
        if any(not isinstance(v, int) or isinstance(v, bool) for v in bounds):
            self.err("const-error", "the bounds of `unroll for` must be compile-time constants", s.span)
            return None
        a, b, step = bounds
        if step <= 0:
            self.err("const-error", f"the step of a loop must be positive, found {step}", s.span)
            return None
        if fold.trip_count(a, b, step) > MAX_UNROLL:
            self.err(
                "limit-error",
                f"`unroll for` would make {fold.trip_count(a, b, step)} copies; the limit is {MAX_UNROLL}",
                s.span,
                help="use a plain `for` loop, or unroll part of it",
            )
            return None
        return list(range(a, b, step))

    def _for_list(self, s: ast.ForListStmt) -> None:
        sym = self.typed.decls[s]
        values = list(sym.values) if sym.values is not None else [self.cval(x) for x in s.items]
        if any(v is None for v in values):
            self.err("const-error", "the elements of a `for ... in [...]` list must be constants", s.span)
            return
        if len(values) > MAX_UNROLL:
            self.err(
                "limit-error", f"the loop list has {len(values)} elements; the limit is {MAX_UNROLL}", s.span
            )
            return
        self._unrolled(s, sym, values)

    def _unrolled(self, s: ast.ForStmt | ast.ForListStmt, sym: Symbol, values: list) -> None:
        """Fully unrolled loop: one copy of the body per value, the loop variable a constant in each."""
        total = self.unroll_copies * len(values)
        if total > limits.get("max_unroll_total"):
            found = f"the nested unrolled loops here would make {total} copies"
            self.diags.append(limits.limit_error("max_unroll_total", found, s.span))
            return
        outer, self.unroll_copies = self.unroll_copies, total
        loop = _Loop()
        self.loops.append(loop)
        saved = self.unroll_vals.get(sym)
        for v in values:
            if self.cur is None:
                break
            self.unroll_vals[sym] = v
            loop.cont_block = None
            self.block(s.body)
            cont = loop.cont_block
            if cont is not None:
                if self.cur is not None:
                    self.br(cont)
                self.continue_in(cont)
        self.loops.pop()
        self.unroll_copies = outer
        if saved is None:
            self.unroll_vals.pop(sym, None)
        else:
            self.unroll_vals[sym] = saved
        if loop.break_block is not None:
            if self.cur is not None:
                self.br(loop.break_block)
            self.continue_in(loop.break_block)

    def _break(self, s: ast.BreakStmt) -> None:
        loop = self.loops[-1]
        if loop.break_block is None:
            loop.break_block = self.new_block()
        self.br(loop.break_block)

    def _continue(self, s: ast.ContinueStmt) -> None:
        loop = self.loops[-1]
        if loop.cont_block is None:
            loop.cont_block = self.new_block()
        self.br(loop.cont_block)

    def _return(self, s: ast.ReturnStmt) -> None:
        if not self.inlines:
            self.b.ret()
            self.cur = None
            return
        inl = self.inlines[-1]
        vals: list[Value] = []
        if s.value is not None and inl.n_results:
            v = self.lower_value(s.value, self.typed.types.get(s.value))
            vals = v if isinstance(v, list) else [v]
        self.b.span = s.span
        self.br(inl.join, vals)

    def _block_stmt(self, s: ast.Block) -> None:
        self.block(s)

    def _static_assert(self, s: ast.StaticAssert) -> None:
        """Sema checked every condition that is constant on its own; one that depends on an `unroll for`
        variable is checked here, once per copy."""
        if s.cond in self.typed.per_copy_const and self.cval(s.cond) is False:
            vals = {n: self.cval(n) for n in constant_names(s.cond)}
            self.diags.append(failure(s, {n: v for n, v in vals.items() if v is not None}))

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

    # ------------------------------------------------------------------------------------- inlining
    def inline_call(self, e: ast.Call, info) -> Value | list[Value] | None:
        """Inline a device function: parameters are bound by value, `return e` jumps to a join block whose
        arguments are the call's value."""
        args = [self.lower_value(a, p.type) for a, p in zip(e.args, info.params)]
        ret = info.ret
        rtypes = []
        if isinstance(ret, RegArray):
            rtypes = [self.ir_type(ret.elem)] * ret.n
        elif ret.is_value:
            rtypes = [self.ir_type(ret)]
        join = self.new_block(rtypes)
        for a in join.args:
            a.name = f"{info.item.name}_ret"
        inl = _Inline(join, len(rtypes), self.loops)
        self.loops = []
        self.inlines.append(inl)
        saved_unroll = self.unroll_vals
        self.unroll_vals = {}
        for p, v in zip(info.params, args):
            self.var_keys(p)
            self.write_var(p, v)
        saved_span = self.b.span
        head, start = self.cur, self.ssa.mark()
        self.block(info.item.body)
        if self.cur is not None:  # fell off the end of a function without a result
            self.b.span = _end_span(info.item.body.span)
            if rtypes:
                self.br(join, [self.ssa.undef(t) for t in rtypes])
            else:
                self.br(join)
        self.inlines.pop()
        self.loops = inl.saved_loops
        self.unroll_vals = saved_unroll
        self.b.span = saved_span
        self.ssa.close_region(join, head, start)
        self.continue_in(join)
        if self.cur is None:
            self.dead_block()
            vals: list[Value] = [self.ssa.undef(t) for t in rtypes]
        else:
            vals = list(join.args)
        if not rtypes:
            return None
        return vals if isinstance(ret, RegArray) else vals[0]


def _end_span(span: Span) -> Span:
    """The closing brace of a block: where an implicit return or back edge is."""
    return Span(span.file, span.end_line, max(1, span.end_col - 1), span.end_line, span.end_col)


def lower(typed: TypedProgram) -> Module:
    """Lower every kernel of an analyzed program; raises `CompileError` for errors found only here."""

    def run() -> Module:
        module = Module(typed.program.path)
        module.attrs["arch"] = typed.arch
        diags: list[Diagnostic] = []
        for info in typed.kernels.values():
            kl = KernelLowering(typed, info, module)
            fn = kl.run()
            diags += kl.diags
            module.add_function(fn)
        if diags:
            raise CompileError(sorted(diags, key=Diagnostic.sort_key))
        return module

    return run_deep(run, span=typed.program.span)


def compile_to_ir(text: str, path: str, *, defines: dict | None = None, arch: str = "sm_80") -> Module:
    """Parse, analyze and lower .kdsl source to a verified IR module. Front-end errors raise `CompileError`;
    IR that fails verification is a bug in irc (`InternalCompilerError`)."""
    program = parse_kdsl(text, path)
    typed = analyze(program, defines or {}, arch)
    module = lower(typed)
    problems = verify(module)
    if problems:
        detail = "; ".join(d.message for d in problems[:5])
        raise InternalCompilerError(
            f"the lowered IR of {path} does not verify: {detail}", span=problems[0].span
        )
    module.warnings = list(typed.warnings)  # sema's warnings travel with the module to the driver
    return module
