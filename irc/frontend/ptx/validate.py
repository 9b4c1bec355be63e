"""Validate parsed PTX like ptxas does, for what irc parses: the header, declarations, opcode and modifier
combinations, operand types, and per-target availability.

Why: `irc check` runs in CI on nvcc and Triton output and on hand-written PTX. A file ptxas rejects must not
pass as "no findings" (`.target sm_999`, `atom.shared.frobnicate.u32`, an undeclared `%r999`, `wgmma` on
sm_100a), and a file ptxas accepts must never be rejected. So every rule here is one ptxas enforces
(measured with ptxas 13.5), and where irc's tables do not cover an instruction the validator says nothing
about it (the lifter's `unknown-instruction` warning still marks the gap).

What it reports (each a located error with a caret):
  * `invalid-ptx`: a missing, misplaced or unknown `.version`; an unknown `.target`; a `.version` too low for
    the target or for an instruction form; a bad `.address_size`; an unknown or misplaced modifier; operands
    of the wrong number, kind or type; an undeclared register, label or symbol; a duplicate declaration.
  * `unsupported-target`: an instruction form the module's target does not have (`wgmma` off sm_90a).
The instruction forms and their gates are the rows of `irc.ptxisa.syntax_table`; target facts come from
`irc.target` (`PTX_TARGETS`, `KNOWN_PTX_VERSIONS`, `family_admits_target`).
"""

from __future__ import annotations

import re

from irc.diagnostics import Diagnostic, Span, error
from irc.frontend.ptx.lift_types import SREG_NAMES
from irc.ptxisa import model as P
from irc.ptxisa import syntax as S
from irc.target import (
    ARCHES,
    KNOWN_PTX_VERSIONS,
    family_admits_target,
    family_text,
    format_version,
    ptx_target,
)

__all__ = ["validate", "validate_text", "rejects", "INVALID", "TARGET", "REJECTING_CHECKS"]

INVALID = "invalid-ptx"
TARGET = "unsupported-target"
#: Errors on a `.ptx` file that mean "ptxas rejects this file": `irc check` exits 2 for them (docs/cli.md).
#: `parse-error` (irc cannot read it) and `const-error` (an immediate outside the instruction's range) come
#: from the parser and the lifter.
REJECTING_CHECKS = frozenset({INVALID, TARGET, "parse-error", "const-error"})

_HELP = "ptxas rejects this file"
_HEADER = (".version", ".target", ".address_size")
_INDEX = re.compile(r"(.*?)(0|[1-9][0-9]*)")
_TARGET_EXTRAS = {"texmode_unified", "texmode_independent", "debug", "map_f64_to_f32"}
#: the newest `.version` whose instruction set `isa_list` lists completely
_ISA_LIST_VERSION = (9, 0)


class _Ctx:
    """What one validation run needs: the file, its lines (for columns), the module's target and version."""

    def __init__(self, ptx: P.Module, text: str) -> None:
        self.path = ptx.path
        self.lines = text.split("\n")
        self.ptx = ptx
        self.diags: list[Diagnostic] = []
        self.target = ptx_target(ptx.target)
        self.version: tuple[int, int] | None = None
        self.ok: set[tuple] = set()  # signatures of instructions found valid (`_Function.instr`)
        self.globals = {g.name: g.space for g in ptx.globals}
        self.functions = {fn.name for fn in ptx.functions} | set(ptx.meta.get("opaque_names", []))

    def span(self, line: int, needle: str | None = None, start: int = 0) -> Span:
        """The span of `needle` on `line` (searched from column `start`), else of the line's first token."""
        text = self.lines[line - 1] if 0 < line <= len(self.lines) else ""
        if needle:
            i = text.find(needle, start)
            if i >= 0:
                return Span(self.path, line, i + 1, line, i + 1 + len(needle))
        col = len(text) - len(text.lstrip()) + 1
        end = len(text.rstrip()) + 1
        semi = text.find(";", col - 1)
        if semi >= 0:
            end = semi + 2
        return Span(self.path, line, col, line, max(end, col + 1))

    def err(self, check: str, msg: str, span: Span, help: str = _HELP) -> None:
        self.diags.append(error(check, msg, span, help=help))


def validate(ptx: P.Module, text: str, *, text_checks: bool = True) -> list[Diagnostic]:
    """Every reason ptxas would reject `ptx` (parsed from `text`) that irc's tables know of. `text_checks`:
    also the labels of `.loc` and `.section` (off for one function cut out of a large file, whose debug
    sections stay behind: `validate_text` checks them once on the whole file)."""
    ctx = _Ctx(ptx, text)
    _header(ctx)
    if text_checks:
        _text_checks(ctx, text)
    _module_names(ctx)
    for f in ptx.functions:
        _Function(ctx, f).run()
    return ctx.diags


def validate_text(text: str, path: str) -> list[Diagnostic]:
    """The checks `validate` makes on the text alone (`.file` numbers, `.loc` and `.section` labels), for a
    file checked one function at a time."""
    ctx = _Ctx(P.Module(path=path), text)
    _text_checks(ctx, text)
    return ctx.diags


def _text_checks(ctx: _Ctx, text: str) -> None:
    _file_numbers(ctx, text)
    _loc_labels(ctx, text)
    _section_labels(ctx, text)


_FILE = re.compile(r"^[ \t]*\.file[ \t]+(\d+)", re.M)


def _file_numbers(ctx: _Ctx, text: str) -> None:
    """Each `.file N` once (ptxas: "Duplicate file index")."""
    seen: set[str] = set()
    for m in _FILE.finditer(text):
        if m.group(1) in seen:
            line = text.count("\n", 0, m.start(1)) + 1
            ctx.err(INVALID, f"duplicate file index `{m.group(1)}`", ctx.span(line, m.group(1)))
        seen.add(m.group(1))


def rejects(d: Diagnostic) -> bool:
    """Whether `d`, found in a `.ptx` file, says that ptxas rejects the file."""
    return d.is_error and d.check in REJECTING_CHECKS


# ------------------------------------------------------------------------------------------------ header


def _header(ctx: _Ctx) -> None:
    top: list[tuple[str, int, int]] = ctx.ptx.meta.get("top", [])
    seen: dict[str, int] = {}
    for i, (d, line, col) in enumerate(top):
        if d in _HEADER:
            if d in seen:
                ctx.err(
                    INVALID,
                    f"`{d}` appears twice (first on line {seen[d]})",
                    Span.point(ctx.path, line, col, len(d)),
                )
            seen.setdefault(d, line)
        if i == 0 and d != ".version":
            ctx.err(
                INVALID,
                "a PTX module must begin with `.version`"
                + ("" if ".version" in (t[0] for t in top) else " (there is none)"),
                Span.point(ctx.path, line, col, len(d)),
                help="write `.version 8.0` (or the version the target needs) as the first directive",
            )
    if not top:
        ctx.err(INVALID, "a PTX module must begin with `.version`", Span.point(ctx.path, 1, 1))
    vline = seen.get(".version")
    if vline is not None:
        try:
            v = tuple(int(p) for p in ctx.ptx.version.split("."))
        except ValueError:
            v = ()
        if len(v) == 2 and v in KNOWN_PTX_VERSIONS:
            ctx.version = (v[0], v[1])
        else:
            newest = format_version(KNOWN_PTX_VERSIONS[-1])
            ctx.err(
                INVALID,
                f"unknown PTX ISA version `{ctx.ptx.version}` (ptxas knows up to {newest})",
                ctx.span(vline, ctx.ptx.version),
            )
    tline = seen.get(".target")
    if tline is None:
        if top:
            ctx.err(
                INVALID, "the module has no `.target` directive", Span.point(ctx.path, top[0][1], top[0][2])
            )
        return
    if ctx.target is None:
        ctx.err(
            INVALID,
            f"unknown target `{ctx.ptx.target}`",
            ctx.span(tline, ctx.ptx.target),
            help=f"use a target ptxas knows: {', '.join(ARCHES)}, ...",
        )
    else:
        for extra in ctx.ptx.meta.get("target_extras", []):
            if extra not in _TARGET_EXTRAS:
                ctx.err(INVALID, f"unknown `.target` option `{extra}`", ctx.span(tline, extra))
            elif extra == "map_f64_to_f32" and ctx.target.number >= 13:
                ctx.err(
                    INVALID, "`map_f64_to_f32` is not supported on sm_13 or newer", ctx.span(tline, extra)
                )
        content = bool(ctx.ptx.globals or ctx.ptx.functions)  # (ptxas checks nothing in a bare header)
        if content and ctx.version is not None and ctx.version < ctx.target.min_version:
            need = format_version(ctx.target.min_version)
            ctx.err(
                INVALID,
                f"PTX ISA {format_version(ctx.version)} does not support `.target {ctx.target.name}` (it needs {need})",
                ctx.span(vline or tline, ctx.ptx.version),
                help=f"raise `.version` to {need} or more",
            )
    aline = seen.get(".address_size")
    if aline is not None and ctx.ptx.address_size != 64:
        size = ctx.ptx.address_size
        why = "32-bit compilation is no longer supported" if size == 32 else "it must be 64 (or 32)"
        ctx.err(INVALID, f"`.address_size {size}`: {why}", ctx.span(aline, str(size)))


_LABEL_DEF = re.compile(r"^[ \t]*([$\w]+)[ \t]*:", re.M)
_FUNCTION_NAME = re.compile(r"^[ \t]*\.loc\b[^\n]*?\bfunction_name\s+([$\w]+)", re.M)


_SECTION = re.compile(r"^[ \t]*\.section\b[^{]*\{(.*?)\}", re.M | re.S)


def _section_labels(ctx: _Ctx, text: str) -> None:
    """Labels defined twice in the `.section` blocks (debug information; the parser skips them)."""
    if ".section" not in text:
        return
    seen: set[str] = set()
    for sec in _SECTION.finditer(text):
        for m in _LABEL_DEF.finditer(sec.group(1)):
            name = m.group(1)
            if name in seen:
                line = text.count("\n", 0, sec.start(1) + m.start(1)) + 1
                ctx.err(INVALID, f"duplicate label `{name}`", ctx.span(line, name))
            seen.add(name)


def _loc_labels(ctx: _Ctx, text: str) -> None:
    """`.loc 1 2 3, function_name $L__info_string0, inlined_at ...`: the label must exist (it is defined in
    a `.section .debug_str`, which the parser skips, so the text is searched). ptxas resolves the labels of
    the `.loc` lines that the instructions of an `.entry` keep after its optimizer ran, so a label whose
    every `.loc` precedes only a constant materialization (`mov.f32 %f2, 0f00000000`,
    `add.u64 %rd1, %SPL, 0`) or inline assembly may go unresolved: that case is not reported (measured)."""
    if "function_name" not in text:
        return
    from irc.frontend.ptx.split import items

    defined = set(_LABEL_DEF.findall(text))
    called = set(_CALLEE.findall(text))
    missing: dict[str, int] = {}  # label -> offset of its first `.loc`, for labels some kept `.loc` names
    for it in items(text):
        body = text[it.start : it.end]
        if not it.is_function or (".entry" not in body.split("{", 1)[0] and it.name not in called):
            continue  # (ptxas drops a .func nobody calls before it looks at its debug information)
        chain: list[tuple[str, int]] = []  # (label, offset) of the `.loc` lines before the next instruction
        pos = 0
        for line in body.split("\n"):
            s = line.strip()
            if s.startswith(".loc"):
                m = _FUNCTION_NAME.match(line)
                if m is not None:
                    chain.append((m.group(1), it.start + pos + m.start(1)))
            elif s and s[0] != "." and not s.endswith(":") and (s[:2] != "//" or "inline asm" in s):
                if chain and not _droppable(s):
                    for name, off in chain:
                        if name not in defined:
                            missing.setdefault(name, off)
                chain = []
            pos += len(line) + 1
    for name, off in missing.items():
        line_no = text.count("\n", 0, off) + 1
        ctx.err(INVALID, f"`.loc` names the label `{name}`, which is not defined", ctx.span(line_no, name))


_CALLEE = re.compile(r"\bcall(?:\.uni)?\s+(?:\([^)]*\)\s*,\s*)?([$\w]+)")
_CONSTANT = re.compile(r"^\s*(?:-?[0-9]|0[fFdDxX]|%SP[LH]?\b|[A-Za-z_$][\w$]*$)")


def _droppable(line: str) -> bool:
    """An instruction ptxas may fold away (all of its sources constants, symbols or the stack pointer), or
    inline assembly (not looked into)."""
    if line.startswith(("//", "{")):
        return True
    parts = line.rstrip(";").split(None, 1)
    if parts and parts[0].startswith("@"):
        return False
    if len(parts) < 2 or "[" in parts[1]:
        return False
    ops = [o.strip() for o in parts[1].split(",")]
    return len(ops) > 1 and all(_CONSTANT.match(o) for o in ops[1:])


# ----------------------------------------------------------------------------------------- declarations


def _module_names(ctx: _Ctx) -> None:
    """Duplicate module-scope names: globals and function definitions (a prototype may repeat)."""
    seen: dict[str, int] = {}
    for g in ctx.ptx.globals:
        if g.name in seen:
            ctx.err(
                INVALID,
                f"duplicate definition of `{g.name}` (first on line {seen[g.name]})",
                ctx.span(g.line, g.name),
            )
        seen.setdefault(g.name, g.line)
    bodies: dict[str, int] = {}
    for f in ctx.ptx.functions:
        if (
            f.name in seen
            and f.name not in bodies
            and f.name not in {x.name for x in ctx.ptx.functions if x is not f}
        ):
            ctx.err(
                INVALID, f"`{f.name}` is defined as a variable and as a function", ctx.span(f.line, f.name)
            )
        if f.body is not None:
            if f.name in bodies:
                ctx.err(
                    INVALID,
                    f"duplicate definition of function `{f.name}` (first on line {bodies[f.name]})",
                    ctx.span(f.line, f.name),
                )
            bodies.setdefault(f.name, f.line)


class _Scope:
    __slots__ = ("names", "prefixes", "vars", "labels")

    def __init__(self) -> None:
        self.names: dict[str, str] = {}  # register name -> type (no dot)
        self.prefixes: dict[str, tuple[int, str]] = {}  # `%r` -> (count, type)
        self.vars: dict[str, str] = {}  # variable -> state space
        self.labels: set[str] = set()


class _Function:
    def __init__(self, ctx: _Ctx, f: P.Function) -> None:
        self.ctx = ctx
        self.f = f
        self.scopes: list[_Scope] = []
        self.globals = ctx.globals
        self.functions = ctx.functions
        self.params: dict[str, str] = {}
        self.all_labels: set[str] = set()
        self.reg_cache: dict[str, str | None] = {}
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
        if self.f.body is None:
            return
        _collect_labels(self.f.body, self.all_labels)
        self.block(self.f.body)

    # -- scopes
    def block(self, body: list[P.Stmt]) -> None:
        sc = _Scope()
        self.scopes.append(sc)
        outer_cache = self.reg_cache
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
        if sc.names or sc.prefixes:  # names resolve differently in here: a cache of this scope's own
            self.reg_cache = {}
        for s in body:
            if isinstance(s, P.Instr):
                self.instr(s)
            elif isinstance(s, P.Scope):
                self.block(s.body)
        self.scopes.pop()
        self.reg_cache = outer_cache

    def declare_regs(self, sc: _Scope, d: P.RegDecl) -> None:
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
        m = _INDEX.fullmatch(name)
        return m is not None and m.group(1) == prefix and int(m.group(2)) < count

    @staticmethod
    def ranged(sc: _Scope, name: str) -> str | None:
        m = _INDEX.fullmatch(name)
        if m is None:
            return None
        hit = sc.prefixes.get(m.group(1))
        if hit is not None and int(m.group(2)) < hit[0]:
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
        costs a few dictionary look-ups."""
        sig = (
            ins.opcode,
            None if ins.pred is None else self.reg_type(ins.pred.name),
            tuple(map(self.sig, ins.operands)),
        )
        ok = self.ctx.ok
        if sig in ok:
            return
        ctx = self.ctx
        n = len(ctx.diags)
        self.check_instr(ins)
        if len(ctx.diags) == n:
            ok.add(sig)

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
            return ("I", _imm_class(o.text))  # type: ignore[union-attr]
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
            start = _opcode_col(ctx, ins)
            ctx.err(INVALID, m.message, ctx.span(ins.line, m.culprit or op, start))
            return
        cands = S.match_all(op)
        if len(cands) > 1:  # forms told apart by their operands: the first whose operands fit
            first_errors: list[Diagnostic] | None = None
            for c in cands:
                saved = ctx.diags
                ctx.diags = []
                if c.form.operands is not None:
                    _Operands(self, ins, c).check()
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
            _Operands(self, ins, m).check()

    def names(self, ins: P.Instr) -> None:
        """Every register and symbol the instruction names must be declared."""
        ctx = self.ctx
        if ins.pred is not None:
            t = self.reg_type(ins.pred.name)
            if t is None and not _special(ins.pred.name):
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
        span = ctx.span(ins.line, name, _opcode_end(ctx, ins))
        if not name.startswith("%") or not _special(name.split(".", 1)[0] if "." in name else name):
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
                    ctx.span(ins.line, o.name, _opcode_end(ctx, ins)),
                )
            elif ins.opcode.startswith("call") and not self.symbol_known(o.name):
                ctx.err(
                    INVALID,
                    f"undeclared function `{o.name}`",
                    ctx.span(ins.line, o.name, _opcode_end(ctx, ins)),
                )
        elif isinstance(o, P.Addr):
            if o.base is not None:
                self.operand_names(ins, o.base)
            if o.index is not None:
                self.operand_names(ins, o.index)
        elif isinstance(o, P.Vec):
            for i in o.items:
                self.operand_names(ins, i)
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
                        ctx.span(ins.line, None, _opcode_col(ctx, ins)),
                        help="use the `.sync` form with a member mask",
                    )
                continue
            if g.version is not None and ctx.version is not None and ctx.version < g.version:
                ctx.err(
                    INVALID,
                    f"`{what}` requires PTX ISA {format_version(g.version)} (the module is {format_version(ctx.version)})",
                    ctx.span(ins.line, what if what.startswith(".") else None, _opcode_col(ctx, ins)),
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
                    ctx.span(ins.line, what if what.startswith(".") else None, _opcode_col(ctx, ins)),
                    help="ptxas rejects this instruction for this target",
                )


def _collect_labels(body: list[P.Stmt], out: set[str]) -> None:
    for s in body:
        if isinstance(s, P.Label):
            out.add(s.name)
        elif isinstance(s, P.Scope):
            _collect_labels(s.body, out)


def _special(name: str) -> bool:
    if not name.startswith("%"):
        return False
    base = name[1:].split(".", 1)[0]
    i = len(base)
    while i > 0 and base[i - 1].isdigit():
        i -= 1
    return base in SREG_NAMES or (base[:i] in ("pm", "envreg") and i < len(base))


def _opcode_col(ctx: _Ctx, ins: P.Instr) -> int:
    text = ctx.lines[ins.line - 1] if 0 < ins.line <= len(ctx.lines) else ""
    i = text.find(ins.opcode)
    return max(i, 0)


def _opcode_end(ctx: _Ctx, ins: P.Instr) -> int:
    return _opcode_col(ctx, ins) + len(ins.opcode)


#: identifiers PTX predefines (`mov.u32 %r1, WARP_SZ;`)
_PREDEFINED = frozenset({"WARP_SZ"})
_REG_TYPES = frozenset("pred b8 u8 s8 b16 u16 s16 f16 f16x2 b32 u32 s32 f32 b64 u64 s64 f64 b128".split())


# ---------------------------------------------------------------------------------------------- operands


class _Operands:
    """Check one instruction's operands against its matched form."""

    def __init__(self, fn: _Function, ins: P.Instr, m: S.Match) -> None:
        self.fn = fn
        self.ins = ins
        self.m = m
        self.ctx = fn.ctx

    def fail(self, msg: str, needle: str | None = None) -> None:
        ctx = self.ctx
        ctx.err(
            INVALID, f"{self.ins.opcode}: {msg}", ctx.span(self.ins.line, needle, _opcode_end(ctx, self.ins))
        )

    def want(self, spec: S.OpSpec) -> str | None:
        t = spec.type
        types = self.m.types
        if t == "*":
            return None
        if t == "T":
            return types[-1].lstrip(".") if types else None
        if t[0] == "T" and t[1:].isdigit():
            i = int(t[1:])
            return types[i].lstrip(".") if i < len(types) else None
        if t == "2T":
            base = types[-1].lstrip(".") if types else None
            return _double(base) if base else None
        return t

    def check(self) -> None:
        """Report every operand that does not fit the form."""
        specs = self.m.form.operands
        assert specs is not None
        ops = self.ins.operands
        mods = self.ins.opcode.split(".")
        for i, spec in enumerate(specs):
            if spec.iff is not None and (spec.iff[1:] in mods) != (i < len(ops)):
                if spec.iff[1:] in mods:
                    self.fail(f"`{spec.iff}` needs its operand (operand {i + 1})")
                else:
                    self.fail(f"operand {i + 1} is allowed only with `{spec.iff}`")
                return
        need = sum(1 for s in specs if not s.optional)
        if not need <= len(ops) <= len(specs):
            exp = str(need) if need == len(specs) else f"{need} to {len(specs)}"
            self.fail(f"expected {exp} operands, found {len(ops)}")
            return
        for spec, o in zip(specs, ops):
            if not self.one(spec, o):
                return

    def one(self, spec: S.OpSpec, o: P.Operand) -> bool:
        k = spec.kind
        want = self.want(spec)
        relaxed = self.m.form.relaxed
        if k == "x":
            return True
        if k in ("m", "mt"):
            if not isinstance(o, P.Addr):
                self.fail(f"expected an address `[...]`, found `{o}`", str(o))
                return False
            if k == "mt" and isinstance(o.base, P.Reg):
                rt = self.fn.reg_type(o.base.name)
                if rt is not None and S.type_size(rt) != 32:
                    self.fail(
                        f"`{o.base.name}` is .{rt}: a tensor-memory address is a 32-bit register", o.base.name
                    )
                    return False
            return self.address(o)
        if isinstance(o, P.Addr) and k not in ("m",):
            self.fail(f"an address `{o}` where a {_kind_text(k)} is expected", "[")
            return False
        if k in ("vd", "vs"):
            n = self.m.vec
            if n > 1 or isinstance(o, P.Vec):
                items = o.items if isinstance(o, P.Vec) else None
                if items is None:
                    self.fail(f"expected a vector of {n} elements, found `{o}`", str(o))
                    return False
                if len(items) != n:
                    self.fail(f"expected a vector of {n} elements, found {len(items)}", "{")
                    return False
                sizes = {S.type_size(t) for t in map(self._reg_of, items) if t is not None}
                if len(sizes) > 1:
                    self.fail(f"the elements of `{o}` differ in size", "{")
                    return False
                return all(
                    self.scalar(it, "d" if k == "vd" else "s", want, relaxed, sink_ok=True) for it in items
                )
            return self.scalar(o, "d" if k == "vd" else "s", want, relaxed)
        if k in ("dp", "sp") and isinstance(o, P.Vec):
            return self.packed(o, k == "dp", want)
        if isinstance(o, P.Vec):
            self.fail(f"a vector `{o}` where a {_kind_text(k)} is expected", "{")
            return False
        if k == "z":
            if isinstance(o, P.Sink):
                return True
            self.fail(f"`{o}`: this form writes to the sink `_` only", str(o))
            return False
        if k == "dP" and not isinstance(o, P.Pair):
            self.fail(f"`{o}`: the destination is a pair `d|p` (a value and a predicate)", str(o))
            return False
        if k in ("dq", "dP"):
            if isinstance(o, P.Pair):
                return self.scalar(o.first, "d", want, relaxed, sink_ok=True) and self.scalar(
                    o.second, "d", "pred", False
                )
            return self.scalar(o, "d", want, relaxed, sink_ok=True)
        if k in ("dp", "sp"):
            k = k[0]
        if k == "p":
            if isinstance(o, P.Pair):
                if not spec.pair:
                    self.fail(f"`{o}`: this form has one predicate destination", str(o.first))
                    return False
                return self.scalar(o.first, "d", "pred", False) and self.scalar(o.second, "d", "pred", False)
            return self.scalar(o, "d", "pred", False)
        if isinstance(o, P.Pair):
            if spec.pair:  # `d|p`: a value and a predicate (shfl.sync, elect.sync, match.all)
                return self.scalar(o.first, "d", want, relaxed, sink_ok=True) and self.scalar(
                    o.second, "d", "pred", False
                )
            self.fail(f"`{o}` is not allowed here", str(o.first))
            return False
        if k == "n":
            inner = o.inner if isinstance(o, P.Neg) else o
            return self.scalar(inner, "s", "pred", False)
        if isinstance(o, P.Neg):
            self.fail(f"`{o}`: negation is allowed only on predicate operands", "!")
            return False
        return self.scalar(o, k, want, relaxed, sink_ok=k == "d_")

    def scalar(self, o: P.Operand, k: str, want: str | None, relaxed: bool, sink_ok: bool = False) -> bool:
        if isinstance(o, P.Sink):
            if sink_ok or k == "d_":
                return True
            self.fail("`_` is not allowed here", "_")
            return False
        if isinstance(o, (P.Vec, P.Pair, P.Addr, P.Neg)):
            self.fail(f"unexpected operand `{o}`", str(o)[:1])
            return False
        dest = k in ("d", "d_")
        if isinstance(o, P.Imm):
            if dest or k == "r":
                self.fail(f"`{o.text}`: a register is required here", o.text)
                return False
            if want is not None and not S.imm_compatible(o.text, want):
                self.fail(f"the immediate `{o.text}` does not fit type .{want}", o.text)
                return False
            return True
        if isinstance(o, P.Sym):
            if k == "i":
                self.fail(f"`{o.name}`: an immediate is required here", o.name)
                return False
            if self.ins.base == "mov" and want is not None and (want[0] == "f" or want.startswith("bf")):
                self.fail(f"`{o.name}` is an address: it is no .{want} value", o.name)
                return False
            return not dest or self._dest_sym(o)
        if isinstance(o, P.Reg):
            if k == "i":
                self.fail(f"`{o.name}`: an immediate is required here", o.name)
                return False
            rt = self.fn.reg_type(o.name)
            if rt is None:  # a special register (`names` checked that it exists)
                reg, _ = S.special_register(o.name)
                if reg is None or want is None or _special_fits(reg.type, want):
                    return True
                self.fail(f"`{o.name}` is .{reg.type}; .{want} expected", o.name)
                return False
            if want is not None and not S.reg_compatible(rt, want, relaxed):
                self.fail(f"`{o.name}` is a .{rt} register; .{want} expected", o.name)
                return False
            return True
        return True

    def _reg_of(self, o: P.Operand) -> str | None:
        return self.fn.reg_type(o.name) if isinstance(o, P.Reg) else None

    def packed(self, v: P.Vec, dest: bool, want: str | None) -> bool:
        """`mov.b64 {%r1, %r2}, %rd1`: the elements are registers of one size that add up to the type."""
        size = S.type_size(want) if want else None
        sizes = set()
        for it in v.items:
            if isinstance(it, P.Sink) and dest:
                continue
            if not isinstance(it, P.Reg):
                self.fail(f"`{it}`: a vector here holds registers", str(it))
                return False
            rt = self.fn.reg_type(it.name)
            if rt is not None:
                sizes.add(S.type_size(rt))
        if len(sizes) > 1:
            self.fail(f"the elements of `{v}` differ in size", "{")
            return False
        if size is not None and sizes and None not in sizes and sizes.pop() * len(v.items) != size:
            self.fail(f"`{v}` does not pack into .{want}", "{")
            return False
        return True

    def _dest_sym(self, o: P.Sym) -> bool:
        self.fail(f"`{o.name}`: a register is required as the destination", o.name)
        return False

    def address(self, a: P.Addr) -> bool:
        b = a.base
        space = _instr_space(self.ins.opcode)
        # the space rules of ordinary memory accesses (not cp.async's global source, which ptxas takes in
        # 32 bits, nor tensor-memory or tensor-map addresses)
        checked = self.ins.base in _SPACE_CHECKED
        if b is None and space != "local" and checked:
            self.fail("an immediate address is allowed only in .local", "[")
            return False
        if isinstance(b, P.Reg):
            rt = self.fn.reg_type(b.name)
            if rt is not None and rt[0] not in "bus":
                self.fail(f"`{b.name}` is a .{rt} register; an address needs an integer register", b.name)
                return False
            if rt is not None and checked and space in (None, "global") and S.type_size(rt) == 32:
                self.fail(
                    f"`{b.name}` is 32 bits wide: a 64-bit address is required (32-bit compilation is no longer supported)",
                    b.name,
                )
                return False
        elif isinstance(b, P.Sym):
            var = self.fn.var_space(b.name)
            if var is not None and space is not None and _space_clash(var, space):
                self.fail(f"`{b.name}` is in .{var}, the instruction accesses .{space}", b.name)
                return False
            if (
                var == "param"
                and self.ins.base == "st"
                and self.fn.f.kind == "entry"
                and b.name in self.fn.params
            ):
                self.fail(f"`{b.name}` is a kernel parameter: it cannot be written", b.name)
                return False
            if var == "param" and space is None and checked:  # a generic address is never a parameter
                self.fail(
                    f"`{b.name}` is a parameter: a generic access cannot name it (write `.param`)", b.name
                )
                return False
        return True


def _imm_class(text: str) -> str:
    """The part of an immediate's spelling `syntax.imm_compatible` depends on."""
    t = text.lstrip("-")
    neg = "-" if t is not text and text.startswith("-") else ""
    if t[:2] in ("0f", "0F"):
        return neg + "f"
    if t[:2] in ("0d", "0D"):
        return neg + "d"
    if t[:2] in ("0x", "0X"):
        return "i"
    return "x" if ("." in t or "e" in t or "E" in t) else "i"


def _special_fits(reg: str, want: str) -> bool:
    """mov/cvt from a special register (measured): no float type; a 32- or 64-bit type of the register's
    own size (a 16-bit one takes the low half of a 32-bit register)."""
    if reg == "pred" or want == "pred":
        return reg == want
    if want[0] == "f" or want.startswith("bf"):
        return False
    ws, rs = S.type_size(want), S.type_size(reg)
    return ws == rs or (ws == 16 and rs == 32)


def _kind_text(k: str) -> str:
    return {"d": "destination register", "d_": "destination register", "r": "register", "i": "immediate"}.get(
        k, "register or immediate"
    )


def _double(t: str) -> str | None:
    size = S.type_size(t)
    if size is None:
        return None
    return t[0] + str(2 * size)


_SPACE_MODS = ("global", "shared", "local", "param", "const")
_SPACE_CHECKED = frozenset({"ld", "ldu", "st", "atom", "red", "prefetch", "prefetchu", "mbarrier", "wmma"})


def _instr_space(opcode: str) -> str | None:
    for m in opcode.split(".")[1:]:
        base = m.split("::", 1)[0]
        if base in _SPACE_MODS:
            return base
    return None


def _space_clash(var_space: str, ins_space: str) -> bool:
    return var_space.split("::", 1)[0] != ins_space
