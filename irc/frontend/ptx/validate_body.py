"""The body of a PTX function for the validator: declarations in their scopes (every register, label and
variable named exists, none is declared twice), special registers, and each instruction's form, gates and
operands (`irc.ptxisa.syntax`, checked by `irc.frontend.ptx.validate_operands`)."""

from __future__ import annotations

import re

from irc.diagnostics import Diagnostic
from irc.frontend.ptx.lift_types import SREG_NAMES
from irc.frontend.ptx.validate_ctx import INVALID, TARGET, Ctx, opcode_col, opcode_end
from irc.frontend.ptx.validate_operands import Operands, imm_class
from irc.ptxisa import model as P
from irc.ptxisa import syntax as S
from irc.target import family_admits_target, family_text, format_version

_INDEX = re.compile(r"(.*?)(0|[1-9][0-9]*)")
_SPLIT: dict[str, tuple[str, int] | None] = {}


def _split_index(name: str) -> tuple[str, int] | None:
    """`%r12` -> ("%r", 12) (the name a `.reg .b32 %r<N>` range gives), None for other names (memoised:
    a file names the same registers again and again)."""
    try:
        return _SPLIT[name]
    except KeyError:
        pass
    m = _INDEX.fullmatch(name)
    out = (m.group(1), int(m.group(2))) if m is not None else None
    if len(_SPLIT) < 1 << 16:
        _SPLIT[name] = out
    return out


#: the newest `.version` whose instruction set `isa_list` lists completely
_ISA_LIST_VERSION = (9, 0)

#: identifiers PTX predefines (`mov.u32 %r1, WARP_SZ;`)
_PREDEFINED = frozenset({"WARP_SZ"})
_REG_TYPES = frozenset("pred b8 u8 s8 b16 u16 s16 f16 f16x2 b32 u32 s32 f32 b64 u64 s64 f64 b128".split())


class Scope:
    __slots__ = ("names", "prefixes", "vars", "labels")

    def __init__(self) -> None:
        self.names: dict[str, str] = {}  # register name -> type (no dot)
        self.prefixes: dict[str, tuple[int, str]] = {}  # `%r` -> (count, type)
        self.vars: dict[str, str] = {}  # variable -> state space
        self.labels: set[str] = set()


class Function:
    def __init__(self, ctx: Ctx, f: P.Function) -> None:
        self.ctx = ctx
        self.f = f
        self.scopes: list[Scope] = []
        self.globals = ctx.globals
        self.functions = ctx.functions
        self.params: dict[str, str] = {}
        self.all_labels: set[str] = set()
        self.reg_cache: dict[str, str | None] = {}
        # the same operand objects (the parser shares them) under the same declarations: the same verdict
        self.ok_ids: set[tuple] = set()
        self.scope_key = 0  # which declarations are in scope (a new number per scope that declares)
        self.sig_cache: dict[int, object] = {}  # id(operand) -> `sig`, under the current declarations
        self.scopes_made = 0
        meta = f.meta
        self.other_names = (
            set(meta.get("prototypes", {}))
            | set(meta.get("branchtargets", {}))
            | set(meta.get("calltargets", {}))
        )

    def run(self) -> None:
        ctx = self.ctx
        for p in list(self.f.ret_params) + list(self.f.params):
            if p.name in self.params:
                ctx.err(INVALID, f"duplicate parameter `{p.name}`", ctx.span(p.line, p.name))
            self.params[p.name] = "param"
        if self.f.kind == "entry":
            self.param_space()
        if self.f.body is None:
            return
        collect_labels(self.f.body, self.all_labels)
        for kind in ("branchtargets", "calltargets"):  # `JTI0_0: .branchtargets ...` names a label too
            for name in self.f.meta.get(kind, {}):
                if name in self.all_labels:
                    ctx.err(INVALID, f"duplicate label `{name}`", ctx.span(self.f.line, name))
        self.block(self.f.body)

    def param_space(self) -> None:
        """A kernel's parameters take at most 4352 bytes (32764 from PTX 8.1 on), laid out in order with
        each one aligned (measured: ptxas "uses too much parameter space")."""
        ctx = self.ctx
        offset = 0
        for p in self.f.params:
            try:
                size = p.size_bytes()
            except KeyError:
                return  # a type irc does not size: not decided
            align = p.align or (1 if p.type.lstrip(".") == "pred" else P.type_size(p.type))
            offset = -(-offset // align) * align + size
        limit = 32764 if ctx.version is not None and ctx.version >= (8, 1) else 4352
        if offset > limit:
            more = " (up to 32764 from PTX ISA 8.1)" if limit == 4352 else ""
            ctx.err(
                INVALID,
                f"kernel `{self.f.name}` has {offset} bytes of parameters; at most {limit}{more}",
                ctx.span(self.f.line, self.f.name),
            )

    # -- scopes
    def block(self, body: list[P.Stmt]) -> None:
        sc = Scope()
        self.scopes.append(sc)
        outer_cache, outer_key, outer_sigs = self.reg_cache, self.scope_key, self.sig_cache
        ctx = self.ctx
        for s in body:  # declarations and labels of this scope first: a later use may precede them
            if isinstance(s, P.RegDecl):
                self.declare_regs(sc, s)
            elif isinstance(s, P.VarDecl):
                if s.name in sc.vars or (len(self.scopes) == 1 and s.name in self.params):
                    ctx.err(INVALID, f"duplicate definition of `{s.name}`", ctx.span(s.line, s.name))
                sc.vars[s.name] = s.space
            elif isinstance(s, P.Label):
                if s.name in sc.labels:
                    ctx.err(INVALID, f"duplicate label `{s.name}`", ctx.span(s.line, s.name))
                sc.labels.add(s.name)
        if sc.names or sc.prefixes or sc.vars:  # names resolve differently in here
            self.reg_cache = {}
            self.sig_cache = {}
            self.scopes_made += 1
            self.scope_key = self.scopes_made
        for s in body:
            if isinstance(s, P.Instr):
                self.instr(s)
            elif isinstance(s, P.Scope):
                self.block(s.body)
        self.scopes.pop()
        self.reg_cache, self.scope_key, self.sig_cache = outer_cache, outer_key, outer_sigs

    def declare_regs(self, sc: Scope, d: P.RegDecl) -> None:
        ctx = self.ctx
        typ = d.type.lstrip(".")
        if typ not in _REG_TYPES:
            ctx.err(INVALID, f"`.reg .{typ}`: no register has this type", ctx.span(d.line, d.type))
        elif typ == "b128":  # measured: 128-bit registers need PTX 8.3 and sm_70
            if ctx.version is not None and ctx.version < (8, 3):
                ctx.err(INVALID, "`.b128` registers require PTX ISA 8.3", ctx.span(d.line, d.type))
            if ctx.target is not None and not family_admits_target("sm_70", ctx.target.name):
                ctx.err(TARGET, "`.b128` registers require sm_70 or newer", ctx.span(d.line, d.type))
        if d.prefix is not None:
            if d.prefix in sc.prefixes or d.prefix in sc.names:
                ctx.err(
                    INVALID,
                    f"duplicate definition of registers `{d.prefix}<...>`",
                    ctx.span(d.line, d.prefix),
                )
            clash = [n for n in sc.names if self.in_range(n, d.prefix, d.count)]
            if clash:
                ctx.err(INVALID, f"duplicate definition of register `{clash[0]}`", ctx.span(d.line, d.prefix))
            sc.prefixes[d.prefix] = (d.count, typ)
            return
        for n in d.names:
            if n in sc.names or self.ranged(sc, n) is not None:
                ctx.err(INVALID, f"duplicate definition of register `{n}`", ctx.span(d.line, n))
            sc.names[n] = typ

    @staticmethod
    def in_range(name: str, prefix: str, count: int) -> bool:
        pi = _split_index(name)
        return pi is not None and pi[0] == prefix and pi[1] < count

    @staticmethod
    def ranged(sc: Scope, name: str) -> str | None:
        if not sc.prefixes:
            return None
        pi = _split_index(name)
        if pi is None:
            return None
        hit = sc.prefixes.get(pi[0])
        if hit is not None and pi[1] < hit[0]:
            return hit[1]
        return None

    def selected(self, name: str) -> bool:
        """`%r1.b0`, `%r2.h10`: a declared register with a byte or half selector (video instructions)."""
        base, dot, sel = name.partition(".")
        return bool(dot) and sel[:1] in ("b", "h") and sel[1:].isdigit() and self.reg_type(base) is not None

    def reg_type(self, name: str) -> str | None:
        """The declared type of register `name` in scope, or None (memoised while the scopes stay)."""
        try:
            return self.reg_cache[name]
        except KeyError:
            pass
        t = self._reg_type(name)
        self.reg_cache[name] = t
        return t

    def _reg_type(self, name: str) -> str | None:
        for sc in reversed(self.scopes):
            t = sc.names.get(name)
            if t is not None:
                return t
            t = self.ranged(sc, name)
            if t is not None:
                return t
        return None

    def var_space(self, name: str) -> str | None:
        for sc in reversed(self.scopes):
            s = sc.vars.get(name)
            if s is not None:
                return s
        if name in self.params:
            return "param"
        return self.globals.get(name)

    def symbol_known(self, name: str) -> bool:
        return (
            name in _PREDEFINED
            or name in self.all_labels
            or self.var_space(name) is not None
            or name in self.functions
            or name in self.other_names
        )

    # -- instructions
    def instr(self, ins: P.Instr) -> None:
        """Validate one instruction. Instructions that differ only in which registers of the same types
        they name get the same verdict: a valid one's signature (`sig`) is remembered, so the common case
        costs a few dictionary look-ups; the very same operands (the parser shares operand objects) under
        the same declarations cost one."""
        key = (ins.opcode, id(ins.pred), tuple(map(id, ins.operands)), self.scope_key)
        if key in self.ok_ids:
            return
        memo = self.sig_cache
        sigs = []
        for o in ins.operands:
            got = memo.get(id(o))
            if got is None:
                got = memo[id(o)] = self.sig(o)
            sigs.append(got)
        sig = (ins.opcode, None if ins.pred is None else self.reg_type(ins.pred.name), tuple(sigs))
        ok = self.ctx.ok
        if sig in ok:
            self.ok_ids.add(key)
            return
        ctx = self.ctx
        n = len(ctx.diags)
        self.check_instr(ins)
        if len(ctx.diags) == n:
            ok.add(sig)
            self.ok_ids.add(key)

    def sig(self, o: P.Operand) -> object:
        """What the checks of an operand depend on: a register's type, an immediate's spelling class, a
        symbol's kind, the shape of vectors and addresses."""
        k = type(o)
        if k is P.Reg:
            name = o.name  # type: ignore[union-attr]
            t = self.reg_cache.get(name)
            if t is None:
                t = self.reg_type(name)
            return t if t is not None else name  # a special register (or an undeclared one): by name
        if k is P.Imm:
            return ("I", imm_class(o.text))  # type: ignore[union-attr]
        if k is P.Addr:
            b, i = o.base, o.index  # type: ignore[union-attr]
            return ("A", None if b is None else self.sig(b), None if i is None else self.sig(i))
        if k is P.Vec:
            return ("V", tuple(map(self.sig, o.items)))  # type: ignore[union-attr]
        if k is P.Sym:
            n = o.name  # type: ignore[union-attr]
            return ("S", self.var_space(n) or (n in self.all_labels or n in self.functions) or n)
        if isinstance(o, P.Pair):
            return ("P", self.sig(o.first), self.sig(o.second))
        if isinstance(o, P.Neg):
            return ("N", self.sig(o.inner))
        return ("_",)

    def check_instr(self, ins: P.Instr) -> None:
        ctx = self.ctx
        n = len(ctx.diags)
        self.names(ins)
        if len(ctx.diags) > n:
            return  # undeclared names: ptxas's type errors on them say nothing more
        op = ins.opcode
        m = S.match(op)
        if m is None:
            if not S.known_opcode(op) and ctx.version is not None and ctx.version <= _ISA_LIST_VERSION:
                ctx.err(INVALID, f"unknown instruction `{op}`", ctx.span(ins.line, op.split(".", 1)[0]))
            return
        if isinstance(m, S.Mismatch):
            start = opcode_col(ctx, ins)
            ctx.err(INVALID, m.message, ctx.span(ins.line, m.culprit or op, start))
            return
        cands = S.match_all(op)
        if len(cands) > 1:  # forms told apart by their operands: the first whose operands fit
            first_errors: list[Diagnostic] | None = None
            for c in cands:
                saved = ctx.diags
                ctx.diags = []
                if c.form.operands is not None:
                    Operands(self, ins, c).check()
                got, ctx.diags = ctx.diags, saved
                if not got:
                    m = c
                    break
                if first_errors is None:
                    first_errors = got
            else:
                ctx.diags.extend(first_errors or [])
                return
        self.gates(ins, m)
        if m.form.operands is not None:
            Operands(self, ins, m).check()

    def names(self, ins: P.Instr) -> None:
        """Every register and symbol the instruction names must be declared."""
        ctx = self.ctx
        if ins.pred is not None:
            t = self.reg_type(ins.pred.name)
            if t is None and not is_special(ins.pred.name):
                ctx.err(INVALID, f"undeclared register `{ins.pred.name}`", ctx.span(ins.line, ins.pred.name))
            elif t is not None and t != "pred":
                ctx.err(
                    INVALID,
                    f"the guard `{ins.pred.name}` is a .{t} register, not a predicate",
                    ctx.span(ins.line, ins.pred.name),
                )
        for i, o in enumerate(ins.operands):
            self.operand_names(ins, o, dest=i == 0)

    def special(self, ins: P.Instr, name: str, dest: bool) -> None:
        """A register nobody declared must be a special register that this instruction may read."""
        ctx = self.ctx
        span = ctx.span(ins.line, name, opcode_end(ctx, ins))
        if not name.startswith("%") or not is_special(name.split(".", 1)[0] if "." in name else name):
            ctx.err(INVALID, f"undeclared register `{name}`", span)
            return
        reg, why = S.special_register(name)
        if reg is None:
            ctx.err(INVALID, why, span)
            return
        if ins.base not in ("mov", "cvt"):
            ctx.err(
                INVALID,
                f"{ins.opcode}: a special register (`{name}`) is an operand only of mov and cvt",
                span,
            )
            return
        if dest:
            ctx.err(INVALID, f"`{name}` is read-only", span)
            return
        need = reg.need
        if (
            need is not None
            and need.version is not None
            and ctx.version is not None
            and ctx.version < need.version
        ):
            ctx.err(INVALID, f"`{name}` requires PTX ISA {format_version(need.version)}", span)
        if (
            need is not None
            and need.family
            and ctx.target is not None
            and not family_admits_target(need.family, ctx.target.name)
        ):
            ctx.err(
                TARGET,
                f"`{name}` is not available on `.target {ctx.target.name}` (it needs {family_text(need.family)})",
                span,
            )

    def operand_names(self, ins: P.Instr, o: P.Operand, dest: bool = False) -> None:
        ctx = self.ctx
        if isinstance(o, P.Reg):
            if self.reg_type(o.name) is None and not self.selected(o.name):
                self.special(ins, o.name, dest)
        elif isinstance(o, P.Sym):
            if not self.symbol_known(o.name) and not ins.opcode.startswith(("call", "prototype")):
                what = "label" if ins.opcode.startswith(("bra", "brx")) else "symbol"
                ctx.err(
                    INVALID,
                    f"undeclared {what} `{o.name}`",
                    ctx.span(ins.line, o.name, opcode_end(ctx, ins)),
                )
            elif ins.opcode.startswith("call") and not self.symbol_known(o.name):
                ctx.err(
                    INVALID,
                    f"undeclared function `{o.name}`",
                    ctx.span(ins.line, o.name, opcode_end(ctx, ins)),
                )
        elif isinstance(o, P.Addr):
            if o.base is not None:
                self.operand_names(ins, o.base)
            if o.index is not None:
                self.operand_names(ins, o.index)
        elif isinstance(o, P.Vec):
            for i in o.items:
                self.operand_names(ins, i)
            if ins.base != "call":  # (a call's parenthesised lists are parameters, of any sizes)
                regs = (self.reg_type(i.name) for i in o.items if isinstance(i, P.Reg))
                sizes = {S.type_size(t) for t in regs if t and t != "pred"}  # (ptxas takes a %p in mma)
                if len(sizes) > 1:
                    ctx.err(
                        INVALID,
                        f"the elements of `{o}` differ in size",
                        ctx.span(ins.line, "{", opcode_end(ctx, ins)),
                    )
        elif isinstance(o, P.Pair):
            self.operand_names(ins, o.first)
            self.operand_names(ins, o.second)
        elif isinstance(o, P.Neg):
            self.operand_names(ins, o.inner)

    def gates(self, ins: P.Instr, m: S.Match) -> None:
        ctx = self.ctx
        for what, g in m.gates:
            if g.removed:
                if (
                    ctx.version is not None
                    and g.version is not None
                    and ctx.version >= g.version
                    and ctx.target is not None
                    and g.family is not None
                    and family_admits_target(g.family, ctx.target.name)
                ):
                    ctx.err(
                        TARGET,
                        f"`{what}` is not supported on {g.family} and newer from PTX ISA {format_version(g.version)}",
                        ctx.span(ins.line, None, opcode_col(ctx, ins)),
                        help="use the `.sync` form with a member mask",
                    )
                continue
            if g.version is not None and ctx.version is not None and ctx.version < g.version:
                ctx.err(
                    INVALID,
                    f"`{what}` requires PTX ISA {format_version(g.version)} (the module is {format_version(ctx.version)})",
                    ctx.span(ins.line, what if what.startswith(".") else None, opcode_col(ctx, ins)),
                    help=f"raise `.version` to {format_version(g.version)} or more",
                )
            if (
                g.family is not None
                and ctx.target is not None
                and not family_admits_target(g.family, ctx.target.name)
            ):
                ctx.err(
                    TARGET,
                    f"`{what}` is not available on `.target {ctx.target.name}` (it needs {family_text(g.family)})",
                    ctx.span(ins.line, what if what.startswith(".") else None, opcode_col(ctx, ins)),
                    help="ptxas rejects this instruction for this target",
                )


def collect_labels(body: list[P.Stmt], out: set[str]) -> None:
    for s in body:
        if isinstance(s, P.Label):
            out.add(s.name)
        elif isinstance(s, P.Scope):
            collect_labels(s.body, out)


def is_special(name: str) -> bool:
    if not name.startswith("%"):
        return False
    base = name[1:].split(".", 1)[0]
    i = len(base)
    while i > 0 and base[i - 1].isdigit():
        i -= 1
    return base in SREG_NAMES or (base[:i] in ("pm", "envreg") and i < len(base))
