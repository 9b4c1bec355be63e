"""`Module` -> canonical PTX text that ptxas accepts.

Canonical means one fixed layout (tab-indented statements, labels at column 0, one declaration per
line), so that `print(parse(print(parse(x)))) == print(parse(x))`: the printer is the structural equality
used by the parser's round-trip tests, and the backend's output is stable and diffable.

Conventions shared with `irc.frontend.ptx.parser` (see its docstring): inside a `call` every `Vec`
operand is a parenthesised return/argument list; `Function.meta["prototypes"]`,
`["branchtargets"]`/`["calltargets"]` and `["pragmas"]` are printed as declarations at the top of the
body / in the header; `Module.meta["aliases"]` after all functions. `.loc` lines are printed only for
files registered in `Module.files` (ptxas rejects a `.loc` naming an unknown file).
"""

from __future__ import annotations

import struct

from irc.diagnostics import InternalCompilerError
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
    Param,
    RegDecl,
    Scope,
    Stmt,
    VarDecl,
    Vec,
)

__all__ = ["print_ptx", "format_instr", "format_operand"]


def format_operand(op: Operand, paren_vec: bool = False) -> str:
    """One operand in PTX syntax; `paren_vec` prints a `Vec` as a call list `(a, b)`."""
    if isinstance(op, Vec):
        inner = ", ".join(format_operand(i) for i in op.items)
        return f"({inner})" if paren_vec else "{" + inner + "}"
    if isinstance(op, Imm):
        return op.text if op.text else str(op.value)
    if isinstance(op, Addr):
        # ptxas wants `[%rd1+-4]`, not `[%rd1-4]`.
        tail = f", {format_operand(op.index)}" if op.index is not None else ""
        if op.base is None:
            return f"[{op.offset}{tail}]"
        if op.offset == 0:
            return f"[{op.base}{tail}]"
        return f"[{op.base}+{op.offset}{tail}]"
    if isinstance(op, (Pair, Neg)):
        return str(op)
    return str(op)


def format_instr(ins: Instr) -> str:
    """`@%p1 add.s32 %r1, %r2, 4;` without indentation."""
    guard = f"@{'!' if ins.pred_neg else ''}{ins.pred} " if ins.pred is not None else ""
    paren = ins.opcode == "call" or ins.opcode.startswith("call.")
    ops = ", ".join(format_operand(o, paren) for o in ins.operands)
    return f"{guard}{ins.opcode}{(' ' + ops) if ops else ''};"


def _format_init_value(v: object, typ: str) -> str:
    if isinstance(v, float):
        if typ == ".f64":
            return "0d" + struct.pack(">d", v).hex().upper()
        if typ == ".f32":
            return "0f" + struct.pack(">f", v).hex().upper()
        return repr(v)
    return str(v)


def format_var(v: VarDecl) -> str:
    parts = []
    if v.extern:
        parts.append(".extern")
    if v.visible:
        parts.append(".visible")
    parts.append("." + v.space)
    if v.align is not None:
        parts.append(f".align {v.align}")
    parts.append(v.type)
    dims = "".join("[]" if d == 0 else f"[{d}]" for d in v.dims)
    text = " ".join(parts) + f" {v.name}{dims}"
    if v.init is not None:
        vals = [_format_init_value(x, v.type) for x in v.init]
        text += " = " + ("{" + ", ".join(vals) + "}" if v.dims else vals[0] if vals else "{}")
    return text + ";"


def format_param(p: Param) -> str:
    parts = [".param"]
    if p.align is not None:
        parts.append(f".align {p.align}")
    parts.append(p.type)
    if p.ptr_space is not None:
        parts.append(".ptr")
        if p.ptr_space != "generic":
            parts.append("." + p.ptr_space)
        if p.ptr_align is not None:
            parts.append(f".align {p.ptr_align}")
    dims = "".join(f"[{d}]" for d in p.dims)
    return " ".join(parts) + f" {p.name}{dims}"


def format_reg(d: RegDecl) -> str:
    if d.prefix is not None:
        return f".reg {d.type} {d.prefix}<{d.count}>;"
    return f".reg {d.type} {', '.join(d.names)};"


class _Printer:
    def __init__(self, module: Module):
        self.m = module
        self.out: list[str] = []
        self.last_loc: tuple[int, int, int] | None = None

    def emit(self, s: str) -> None:
        self.out.append(s)

    def run(self) -> str:
        m = self.m
        self.emit(f".version {m.version}")
        extras = "".join(f", {e}" for e in m.meta.get("target_extras", []))
        self.emit(f".target {m.target}{extras}")
        self.emit(f".address_size {m.address_size}")
        self.emit("")
        for idx in sorted(m.files):
            path = m.files[idx].replace("\\", "\\\\").replace('"', '\\"')
            self.emit(f'.file {idx} "{path}"')
        for p in m.meta.get("pragmas", []):
            self.emit(_pragma(p))
        # Order: plain globals, function declarations, globals initialised with symbol addresses (ptxas
        # wants the functions they name declared first; a defined one gets a forward declaration), then
        # function definitions.
        sym_globals = [v for v in m.globals if v.init and any(isinstance(x, str) for x in v.init)]
        for v in m.globals:
            if v not in sym_globals:
                self.emit(format_var(v))
        declared = {f.name for f in m.functions if f.body is None}
        decls = [f for f in m.functions if f.body is None]
        referenced = {str(x).split("(")[-1].split(")")[0].split("+")[0] for v in sym_globals for x in v.init}
        decls += [f for f in m.functions if f.body is not None and f.name in referenced - declared]
        for f in decls:
            self.emit("")
            self.function(f, declaration_only=True)
        if sym_globals:
            self.emit("")
        for v in sym_globals:
            self.emit(format_var(v))
        for f in m.functions:
            if f.body is not None:
                self.emit("")
                self.function(f)
        for a, b in m.meta.get("aliases", []):
            self.emit(f".alias {a}, {b};")
        return "\n".join(self.out) + "\n"

    def function(self, f: Function, declaration_only: bool = False) -> None:
        link = []
        if f.extern:
            link.append(".extern")
        if f.visible:
            link.append(".visible")
        if f.meta.get("linkage"):
            link.append("." + f.meta["linkage"])
        if f.kind not in ("entry", "func"):
            raise InternalCompilerError(f"function {f.name} has kind {f.kind!r}")
        head = " ".join([*link, "." + f.kind])
        if f.ret_params:
            head += " (" + ", ".join(format_param(p) for p in f.ret_params) + ")"
        head += f" {f.name}"
        if f.params:
            self.emit(head + "(")
            for i, p in enumerate(f.params):
                self.emit("\t" + format_param(p) + ("," if i + 1 < len(f.params) else ""))
            self.emit(")")
        else:
            self.emit(head + "()")
        for name, vals in f.directives.items():
            self.emit(f".{name} {', '.join(str(v) for v in vals)}" if vals else f".{name}")
        for p in f.meta.get("pragmas", []):
            self.emit(_pragma(p))
        if f.body is None or declaration_only:
            self.out[-1] += ";"
            return
        self.emit("{")
        self.last_loc = None
        for p in f.meta.get("body_pragmas", []):
            self.emit("\t" + _pragma(p))
        for name, text in f.meta.get("prototypes", {}).items():
            self.emit(f"\t{name} : {text};")
        for kind in ("branchtargets", "calltargets"):
            for name, labels in f.meta.get(kind, {}).items():
                self.emit(f"{name}: .{kind} {', '.join(labels)};")
        self.body(f.body)
        self.emit("}")

    def body(self, stmts: list[Stmt]) -> None:
        for s in stmts:
            if isinstance(s, Instr):
                loc = s.loc
                if loc is not None and loc.file in self.m.files:
                    key = (loc.file, loc.line, loc.col)
                    if key != self.last_loc:
                        self.emit(f"\t.loc {loc.file} {loc.line} {loc.col}")
                        self.last_loc = key
                self.emit("\t" + format_instr(s))
            elif isinstance(s, Label):
                self.emit(f"{s.name}:")
            elif isinstance(s, RegDecl):
                self.emit("\t" + format_reg(s))
            elif isinstance(s, VarDecl):
                self.emit("\t" + format_var(s))
            elif isinstance(s, Scope):
                self.emit("\t{")
                self.body(s.body)
                self.emit("\t}")
            else:
                raise InternalCompilerError(f"unknown PTX statement {type(s).__name__}")


def _pragma(strings: list[str]) -> str:
    return (
        ".pragma " + ", ".join('"' + x.replace("\\", "\\\\").replace('"', '\\"') + '"' for x in strings) + ";"
    )


def print_ptx(module: Module) -> str:
    """Canonical PTX text for `module`."""
    return _Printer(module).run()
