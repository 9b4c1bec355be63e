"""`call`/`ret` through `.func`: the emulator inlines every call before it runs a kernel.

Why inlining (and not a call stack): the scheduler's reconvergence rule ("run the lowest block in the
weak topological order") makes diverged lanes wait at join points. A callee copied between its call and
the call's return label keeps that rule exact: lanes that skip a call wait for the lanes inside it, a
barrier or a warp collective inside a callee meets the same threads as on the GPU, and nothing in the
scheduler, the race checker or the async engine needs to know about frames. Each copy renames the
callee's registers, labels, `.local` variables (its frame: recursion gets a fresh one per level) and
call-sequence `.param` variables, so copies never share state.

Parameters: the caller's call-sequence `.param` variables (`{ .param .b32 param0; st.param [param0], ...;
call (retval0), f, (param0); ld.param ..., [retval0]; }`) become per-thread `.local` variables, and the
callee's formal `.param` names are renamed to them (its `ld.param [f_param_0]` reads the caller's
`param0`, its `st.param [func_retval0]` writes the caller's `retval0`). `.reg` formals get a `mov` in
and out. `ret` becomes a branch to the return label.

Indirect calls (`call %rd, (args), prototype;`, nvcc's virtual functions): every `.func` whose address
the module takes (`mov.u64 %rd, f`, a `.global` initializer such as a vtable) with the call's parameter
and return counts is inlined behind a compare of the pointer with the function's address
(`FWIN + 16 * index`); any other pointer traps with a located error.

Limits: a call chain deeper than `emu_max_call_depth`, or copies beyond `emu_max_inlined_instructions`,
is not inlined: the call becomes a `trap` carrying the limit, which raises `LimitError` only if a thread
actually executes it (a recursion that stays shallow at run time still runs).
"""

from __future__ import annotations

import itertools

from irc import limits
from irc.ptxisa.model import (
    Addr,
    Function,
    Imm,
    Instr,
    Label,
    Module,
    Neg,
    Operand,
    Pair,
    Reg,
    RegDecl,
    Scope,
    Stmt,
    Sym,
    VarDecl,
    Vec,
)
from irc.records import replace

#: Generic-address window of function addresses: `.func` number i lives at FWIN + 16 * i.
FWIN = 0x7C00_0000_0000


def function_addresses(module: Module) -> dict[str, int]:
    """The emulated address of every function of the module (targets of indirect calls, vtables)."""
    return {f.name: FWIN + 16 * i for i, f in enumerate(module.functions)}


def has_calls(fn: Function) -> bool:
    return any(i.base == "call" for i in fn.instructions())


class _Inliner:
    def __init__(self, module: Module, depth_limit: int, limit_name: str) -> None:
        self.module = module
        self.funcs = {f.name: f for f in module.functions if f.body is not None}
        self.addrs = function_addresses(module)
        self.taken = _address_taken(module)
        self.counter = itertools.count(1)
        self.depth_limit = depth_limit
        self.limit_name = limit_name  # the limit a call at depth_limit names when executed

    # ------------------------------------------------------------------ the kernel
    def kernel(self, fn: Function) -> Function:
        params = _call_params(fn.body or [])
        body = self.body(fn.body or [], _Names({}, {}, {p: p for p in params}), depth=0, calls=())
        return replace(fn, body=body)

    def body(self, stmts: list[Stmt], names: _Names, depth: int, calls: tuple) -> list[Stmt]:
        out: list[Stmt] = []
        for s in stmts:
            if isinstance(s, Scope):
                out.append(Scope(self.body(s.body, names, depth, calls), s.line))
            elif isinstance(s, Instr):
                ins = names.instr(s, calls)
                if ins.base == "call":
                    out.append(self.call(ins, s, names, depth, calls))
                else:
                    out.append(ins)
            elif isinstance(s, Label):
                out.append(Label(names.label(s.name), s.line))
            elif isinstance(s, RegDecl):
                out.append(names.regdecl(s))
            elif isinstance(s, VarDecl):
                out.append(names.vardecl(s))
            else:
                out.append(s)
        return out

    # ------------------------------------------------------------------ one call site
    def call(self, ins: Instr, orig: Instr, names: _Names, depth: int, calls: tuple) -> Stmt:
        ops = list(ins.operands)
        rets = list(ops.pop(0).items) if ops and isinstance(ops[0], Vec) else []
        target = ops.pop(0) if ops else None
        args = list(ops.pop(0).items) if ops and isinstance(ops[0], Vec) else []
        site = calls + ((orig.loc,) if orig.loc is not None else ())
        if isinstance(target, Sym) and target.name in self.funcs:
            return self.inline(ins, self.funcs[target.name], rets, args, names, depth, site)
        if isinstance(target, Sym):
            return self.trap(ins, f"call of `{target.name}`, which the module only declares", None)
        if isinstance(target, Reg):
            return self.dispatch(ins, target, rets, args, names, depth, site)
        return self.trap(ins, "call without a target", None)

    def inline(self, ins, callee: Function, rets, args, names: _Names, depth: int, site: tuple) -> Stmt:
        if depth >= self.depth_limit:
            return self.trap(ins, f"call of `{callee.name}` nested {depth + 1} deep", self.limit_name)
        k = next(self.counter)
        suffix = f"$i{k}"
        inner = _Names.for_callee(callee, suffix)
        pre: list[Stmt] = []
        post: list[Stmt] = []
        for formal, actual in zip(callee.params, args):
            if isinstance(actual, Sym):
                inner.params[formal.name] = actual.name
                if actual.name in names.local_params:
                    inner.local_params.add(actual.name)
            else:
                reg = Reg(formal.name + suffix)
                pre.append(RegDecl(formal.type, names=[reg.name]))
                pre.append(Instr(f"mov.{_movtype(formal.type)}", [reg, actual], line=ins.line, loc=ins.loc))
                inner.regs[formal.name] = reg.name
        for formal, actual in zip(callee.ret_params, rets):
            if isinstance(actual, Sym):
                inner.params[formal.name] = actual.name
                if actual.name in names.local_params:
                    inner.local_params.add(actual.name)
            else:
                reg = Reg(formal.name + suffix)
                pre.append(RegDecl(formal.type, names=[reg.name]))
                post.append(Instr(f"mov.{_movtype(formal.type)}", [actual, reg], line=ins.line, loc=ins.loc))
                inner.regs[formal.name] = reg.name
        ret_label = f"$Lret{suffix}"
        inner.ret_label = ret_label
        body = self.body(callee.body or [], inner, depth + 1, site)
        return Scope(pre + body + [Label(ret_label, ins.line)] + post, ins.line)

    def dispatch(self, ins, ptr: Reg, rets, args, names: _Names, depth: int, site: tuple) -> Stmt:
        """An indirect call: compare the pointer with each candidate's address, inline the match."""
        cands = [
            f
            for name, f in self.funcs.items()
            if name in self.taken and len(f.params) == len(args) and len(f.ret_params) == len(rets)
        ]
        k = next(self.counter)
        pred = Reg(f"%p$d{k}")
        stmts: list[Stmt] = [RegDecl(".pred", names=[pred.name])]
        done = f"$Ldone$d{k}"
        arms: list[Stmt] = []
        for j, f in enumerate(cands):
            lab = f"$Lcand$d{k}_{j}"
            stmts.append(
                Instr(
                    "setp.eq.u64",
                    [pred, ptr, Imm(self.addrs[f.name], str(self.addrs[f.name]))],
                    line=ins.line,
                )
            )
            stmts.append(Instr("bra", [Sym(lab)], pred=pred, line=ins.line, loc=ins.loc))
            arms.append(Label(lab, ins.line))
            arms.append(self.inline(ins, f, rets, args, names, depth, site))
            arms.append(Instr("bra.uni", [Sym(done)], line=ins.line, loc=ins.loc))
        stmts.append(
            self.trap(ins, "indirect call through a pointer that is no function of the module", None)
        )
        return Scope(stmts + arms + [Label(done, ins.line)], ins.line)

    @staticmethod
    def trap(ins: Instr, why: str, limit: str | None) -> Instr:
        """A `trap` that reports `why` (a `LimitError` naming `limit`, or a plain error) when executed."""
        t = Instr(
            "trap", [], pred=ins.pred, pred_neg=ins.pred_neg, line=ins.line, loc=ins.loc, meta=dict(ins.meta)
        )
        t.meta["call_error"] = (why, limit)
        return t


class _Names:
    """Renaming of one inlined copy: registers, labels, `.local`/`.param` variables, formal parameters."""

    def __init__(self, regs: dict[str, str], labels: dict[str, str], params: dict[str, str]) -> None:
        self.regs = regs  # callee register -> copy register
        self.labels = labels
        self.params = params  # symbol -> renamed symbol (.local frame, call-sequence .param, formals)
        self.local_params: set[str] = set(params.values())  # symbols that were .param: accesses go local
        self.ret_label: str | None = None

    @classmethod
    def for_callee(cls, callee: Function, suffix: str) -> _Names:
        regs: dict[str, str] = {}
        labels: dict[str, str] = {}
        syms: dict[str, str] = {}
        local_params: set[str] = set()

        def walk(stmts: list[Stmt]) -> None:
            for s in stmts:
                if isinstance(s, RegDecl):
                    for n in s.reg_names():
                        regs[n] = n + suffix
                elif isinstance(s, Label):
                    labels[s.name] = s.name + suffix
                elif isinstance(s, VarDecl) and s.space in ("local", "param"):
                    syms[s.name] = s.name + suffix
                    if s.space == "param":
                        local_params.add(s.name + suffix)
                elif isinstance(s, Scope):
                    walk(s.body)

        walk(callee.body or [])
        n = cls(regs, labels, syms)
        n.local_params = local_params
        return n

    def label(self, name: str) -> str:
        return self.labels.get(name, name)

    def regdecl(self, d: RegDecl) -> RegDecl:
        if not self.regs:
            return d
        return RegDecl(d.type, names=[self.regs.get(n, n) for n in d.reg_names()], line=d.line)

    def vardecl(self, v: VarDecl) -> VarDecl:
        if v.space == "param":  # a call-sequence parameter: per-thread storage
            return replace(v, space="local", name=self.params.get(v.name, v.name))
        if v.name in self.params:
            return replace(v, name=self.params[v.name])
        return v

    def op(self, o: Operand) -> Operand:
        if isinstance(o, Reg):
            n = self.regs.get(o.name)
            return o if n is None else Reg(n)
        if isinstance(o, Sym):
            if o.name in self.regs:  # a `.reg` formal parameter named without `%`
                return Reg(self.regs[o.name])
            n = self.labels.get(o.name) or self.params.get(o.name)
            return o if n is None else Sym(n)
        if isinstance(o, Addr):
            base = self.op(o.base) if o.base is not None else None
            idx = self.op(o.index) if o.index is not None else None
            return Addr(base, o.offset, idx)  # type: ignore[arg-type]
        if isinstance(o, Vec):
            return Vec(tuple(self.op(i) for i in o.items))
        if isinstance(o, Pair):
            return Pair(self.op(o.first), self.op(o.second))
        if isinstance(o, Neg):
            return Neg(self.op(o.inner))
        return o

    def instr(self, s: Instr, calls: tuple) -> Instr:
        ops = [self.op(o) for o in s.operands]
        opcode = s.opcode
        if s.base in ("ld", "st") and ".param" in opcode:
            base = ops[1 if s.base == "ld" else 0]
            if isinstance(base, Addr) and isinstance(base.base, Sym) and base.base.name in self.local_params:
                opcode = opcode.replace(".param", ".local", 1)
        pred = self.op(s.pred) if s.pred is not None else None
        if s.base == "ret" and self.ret_label is not None:
            meta = dict(s.meta)
            if calls:
                meta["calls"] = calls
            return Instr("bra", [Sym(self.ret_label)], pred, s.pred_neg, s.line, s.loc, meta)  # type: ignore[arg-type]
        if ops == s.operands and opcode == s.opcode and pred is s.pred and not calls:
            return s
        meta = dict(s.meta)
        if calls:
            meta["calls"] = calls
        return Instr(opcode, ops, pred, s.pred_neg, s.line, s.loc, meta)  # type: ignore[arg-type]


def _call_params(stmts: list[Stmt]) -> list[str]:
    """Names of the call-sequence `.param` variables declared in a body (any scope)."""
    out: list[str] = []
    for s in stmts:
        if isinstance(s, VarDecl) and s.space == "param":
            out.append(s.name)
        elif isinstance(s, Scope):
            out.extend(_call_params(s.body))
    return out


def _address_taken(module: Module) -> set[str]:
    """Functions whose address appears outside a direct call: in an operand or a variable initializer."""
    names = {f.name for f in module.functions}
    taken: set[str] = set()
    for v in module.globals:
        for x in v.init or []:
            if isinstance(x, str) and x in names:
                taken.add(x)
    for f in module.functions:
        for ins in f.instructions():
            ops = ins.operands[1:] if ins.base != "call" else []
            if ins.base == "call" and ins.operands and isinstance(ins.operands[0], Vec):
                ops = []
            for o in ops:
                if isinstance(o, Sym) and o.name in names:
                    taken.add(o.name)
    return taken


def _movtype(t: str) -> str:
    t = t.lstrip(".")
    if t == "pred":
        return "pred"
    size = {"8": 16}.get(t[1:], t[1:]) if t[0] in "bsuf" else "32"
    return f"b{size}" if t[0] != "f" else t


def _sizes(module: Module, fn: Function, top: int) -> list[int]:
    """Instructions of `fn` with its calls inlined to depth 0..top (a call counted once per copy), from
    the call graph alone: the inliner then builds the deepest level that fits, once."""
    funcs = {f.name: f for f in module.functions if f.body is not None}
    taken = _address_taken(module)
    own: dict[str, int] = {}
    calls: dict[str, list[list[str]]] = {}  # function -> per call site, the functions it may reach
    for f in [fn, *funcs.values()]:
        ins = f.instructions()
        own[f.name] = len(ins)
        sites = []
        for i in ins:
            if i.base != "call":
                continue
            ops = list(i.operands)
            if ops and isinstance(ops[0], Vec):
                ops.pop(0)
            t = ops[0] if ops else None
            if isinstance(t, Sym):
                sites.append([t.name] if t.name in funcs else [])
            elif isinstance(t, Reg):
                sites.append(sorted(taken & set(funcs)))
        calls[f.name] = sites
    prev = {name: own[name] for name in own}  # depth 0: calls not inlined
    out = [prev[fn.name]]
    for _ in range(top):
        cur = {name: own[name] + sum(prev[c] for site in calls[name] for c in site) for name in own}
        out.append(cur[fn.name])
        prev = cur
    return out


def inline_calls(module: Module, fn: Function) -> Function:
    """`fn` with every call inlined (itself when it makes no call).

    A recursion is cut at the same depth on every path: the deepest level whose copies fit
    `emu_max_inlined_instructions`, at most `emu_max_call_depth`. A call below the cut traps with a
    `LimitError` naming the limit that cut it, and only if a thread reaches it at run time."""
    if not has_calls(fn):
        return fn
    top = limits.get("emu_max_call_depth")
    budget = limits.get("emu_max_inlined_instructions")
    sizes = _sizes(module, fn, top)
    depth = top
    name = "emu_max_call_depth"
    for d, n in enumerate(sizes):
        if n - sizes[0] > budget:
            depth, name = max(d - 1, 0), "emu_max_inlined_instructions"
            break
    return _Inliner(module, depth, name).kernel(fn)
