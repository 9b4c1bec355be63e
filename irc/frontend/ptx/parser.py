"""PTX text -> `irc.ptxisa.model.Module`, for PTX from any generator (nvcc, Triton/LLVM, builders).

Design (why it is shaped like this):
  * Speed. `irc check` runs on whole Triton/nvcc dumps, so the body loop first tries a *fast path*: a
    single regex recognises a plain one-line instruction (`@%p1 add.s32 %r1, %r2, 4;`), operands are
    split on commas and each spelling is looked up in a cache of already-built (frozen, shareable)
    operand objects. Anything the fast path does not fully understand (comments at the end of the line,
    vectors, call lists, several statements on one line, syntax errors) falls back to the general
    token-based path, which is the single authority on diagnostics.
  * Registers without `%`. Hand-written and builder PTX declares `.reg .b32 r<64>;` and uses `r5`; a bare
    identifier is a `Reg` exactly when a `.reg` declaration in scope names it, otherwise a `Sym`.
  * Representation choices (documented contract for lifter/analyzer/emulator):
      - `call (ret), f, (a, b);`: parenthesised lists are `Vec` operands; the callee is a `Sym`. In a
        `call` every `Vec` is a parenthesised list (the printer relies on this).
      - Tensor addresses `[%rd1, {%r1, %r2}]` are `Addr(base, 0, index=Vec(...))`.
      - `.param` declarations inside bodies (nvcc call sequences) are `VarDecl(space="param")`.
      - `prototype_0 : .callprototype ...;` goes to `Function.meta["prototypes"][name]` (its text);
        `.pragma` strings (one list per directive) to `Function.meta["pragmas"]` (in the header) or
        `["body_pragmas"]` (statement level, position not kept: hints only) (or `Module.meta["pragmas"]` at top level);
        `.weak`/`.common` linkage to `Function.meta["linkage"]`; `.alias a, b;` to
        `Module.meta["aliases"]`; `.target` extras (`debug`, `texmode_*`) to `Module.meta["target_extras"]`.
      - `.loc f l c[, function_name ..., inlined_at ...]` sets `Instr.loc` of the following instructions
        (only `f l c` are kept).
      - Notes for skipped constructs (unknown top-level directives, `.texref`) are in
        `Module.meta["diagnostics"]` (note severity); errors raise `CompileError`.
      - `Module.meta["top"]` lists every top-level directive as (spelling, line, col), in order.
"""

from __future__ import annotations

import re

from irc.diagnostics import CompileError, Diagnostic, Span, error, note
from irc.frontend.ptx.lexer import Lexer, Token, parse_number
from irc.ptxisa.model import (
    Addr,
    Function,
    Imm,
    Instr,
    Label,
    Loc,
    Module,
    Neg,
    Operand,
    Pair,
    Param,
    Reg,
    RegDecl,
    Scope,
    Sink,
    Stmt,
    Sym,
    VarDecl,
    Vec,
)

__all__ = ["parse_ptx"]

_MAX_DEPTH = 64

# Fast path: one plain instruction on a line, nothing after the `;`.
_FAST_RE = re.compile(r"\s*(?:@(!?)(\S+)\s+)?([A-Za-z_][\w$.:]*)(?:[ \t]+([^;()/\"!]*))?;\s*")
_OPCODE_RE = re.compile(r"[A-Za-z_][\w$]*(?:(?:\.|::)[\w$]+)*")
# Top-level comma-separated pieces of an operand list whose vectors/addresses do not nest.
_PIECES_RE = re.compile(r"(?:\{[^{}\[\]]*\}|\[[^\[\]{}]*\]|[^,{}\[\]])+")
_LOC_RE = re.compile(r"[ \t]*\.loc[ \t]+(\d+)[ \t]+(\d+)[ \t]+(\d+)[ \t\r]*(?:$|//|,)")
_INLINED_RE = re.compile(r"inlined_at[ \t]+(\d+)[ \t]+(\d+)[ \t]+(\d+)")
_REG_RE = re.compile(r"%[\w$]+(?:\.[\w$]+)?")
_IDENT_RE = re.compile(r"[$_A-Za-z][\w$]*")
_NUM_RE = re.compile(
    r"-?(?:0[fF][0-9a-fA-F]{8}|0[dD][0-9a-fA-F]{16}|0[xX][0-9a-fA-F]+U?|\d+\.\d*(?:[eE][+-]?\d+)?|\d+U?)"
)
_ADDR_RE = re.compile(
    r"\[[ \t]*(%?[$_A-Za-z][\w$]*)?[ \t]*(?:(\+|-|\+[ \t]*-)[ \t]*(0[xX][0-9a-fA-F]+|\d+))?[ \t]*\]"
)
_BARE_RE = re.compile(r"(?<![%\w$.])[A-Za-z_$]")
_TRAILING_DIGITS = re.compile(r"(.*?)(\d+)")
_SPACES = ("shared", "global", "const", "local", "param")
_FUNC_DIRECTIVES = {
    "reqntid",
    "maxntid",
    "maxnreg",
    "minnctapersm",
    "reqnctapercluster",
    "explicitcluster",
    "maxclusterrank",
    "noreturn",
    "blocksareclusters",
}


_INSTR_FIELDS = ("opcode", "operands", "pred", "pred_neg", "line", "loc", "meta")


def _make_instr_factory():
    """Instr construction dominates parse time; filling `__dict__` directly is ~1.6x faster than the
    dataclass `__init__`. Used only while `Instr` has exactly the fields this module knows about, so a
    field added to the model later silently falls back to the real constructor."""
    from irc import records

    if tuple(f.name for f in records.fields(Instr)) != _INSTR_FIELDS or hasattr(Instr, "__slots__"):
        return lambda op, ops, pred, neg, line, loc: Instr(op, ops, pred, neg, line, loc)
    new = object.__new__

    def make(op: str, ops: list, pred: Reg | None, neg: bool, line: int, loc: Loc | None) -> Instr:
        i = new(Instr)
        i.__dict__ = {
            "opcode": op, "operands": ops, "pred": pred, "pred_neg": neg, "line": line, "loc": loc, "meta": {}
        }  # fmt: skip
        return i

    return make


_new_instr = _make_instr_factory()


class _Scopes:
    """Register names visible at the current point, for resolving bare identifiers."""

    __slots__ = ("names", "prefixes", "stack")

    def __init__(self) -> None:
        self.names: set[str] = set()
        self.prefixes: dict[str, int] = {}
        self.stack: list[tuple[set[str], dict[str, int]]] = []

    def push(self) -> None:
        self.stack.append((set(self.names), dict(self.prefixes)))

    def pop(self) -> None:
        self.names, self.prefixes = self.stack.pop()

    def declare(self, d: RegDecl) -> None:
        if d.prefix is not None:
            self.prefixes[d.prefix] = max(d.count, self.prefixes.get(d.prefix, 0))
        else:
            self.names.update(d.names)

    def is_reg(self, name: str) -> bool:
        if name in self.names:
            return True
        m = _TRAILING_DIGITS.fullmatch(name)
        if m is None:
            return False
        count = self.prefixes.get(m.group(1))
        return count is not None and int(m.group(2)) < count


class _Parser:
    def __init__(self, text: str, path: str):
        self.path = path
        self.lines = text.split("\n")
        self.lex = Lexer(self.lines)
        self.module = Module(path=path)
        self.notes: list[Diagnostic] = []
        self.scopes = _Scopes()
        # Operand spelling -> operand. Entries that contain a bare identifier depend on the `.reg`
        # declarations in scope and are listed in `bare_keys` so they can be forgotten when those change;
        # `%`-registers, immediates and their addresses stay cached for the whole parse.
        self.cache: dict[str, Operand] = {}
        self.bare_keys: list[str] = []
        self.loc: Loc | None = None
        # `.loc F L C, ..., inlined_at F2 L2 C2`: (F, L, C) -> its call site, so a call site that is itself
        # inlined (nvcc repeats the `.loc` of every level, outermost first) links further up
        self.loc_up: dict[tuple[int, int, int], Loc] = {}
        self.func: Function | None = None

    # ---------------------------------------------------------------- errors
    def _span(self, tok: Token) -> Span:
        return Span.point(self.path, tok.line, tok.col, len(tok.text))

    def fail(self, tok: Token, expected: str) -> CompileError:
        found = "end of input" if tok.kind == "eof" else f"`{tok.text}`"
        return CompileError([error("parse-error", f"expected {expected}, found {found}", self._span(tok))])

    def expect(self, text: str) -> Token:
        tok = self.lex.next()
        if tok.text != text or tok.kind not in ("punct", "dir", "id"):
            raise self.fail(tok, f"`{text}`")
        return tok

    def expect_kind(self, kind: str, what: str) -> Token:
        tok = self.lex.next()
        if tok.kind != kind:
            raise self.fail(tok, what)
        return tok

    def expect_int(self, what: str) -> int:
        tok = self.lex.next()
        neg = False
        if tok.kind == "punct" and tok.text == "-":
            neg = True
            tok = self.lex.next()
        if tok.kind != "num":
            raise self.fail(tok, what)
        v = parse_number(tok.text)
        if not isinstance(v, int) or tok.text[:2] in ("0f", "0F", "0d", "0D"):
            raise self.fail(tok, what)
        return -v if neg else v

    def accept(self, text: str) -> bool:
        tok = self.lex.peek()
        if tok.text == text and tok.kind in ("punct", "dir"):
            self.lex.next()
            return True
        return False

    # ---------------------------------------------------------------- top level
    def parse(self) -> Module:
        lex = self.lex
        while True:
            tok = lex.peek()
            if tok.kind == "eof":
                break
            if tok.kind != "dir":
                raise self.fail(tok, "a directive (`.version`, `.entry`, `.func`, a variable, ...)")
            self.top_directive(tok)
        if self.notes:
            self.module.meta["diagnostics"] = self.notes
        return self.module

    def top_directive(self, tok: Token) -> None:
        lex = self.lex
        d = tok.text
        m = self.module
        # the order of the top-level directives, with their positions: the validator checks that `.version`
        # comes first and that the header is not repeated (`irc.frontend.ptx.validate`)
        m.meta.setdefault("top", []).append((d, tok.line, tok.col))
        if d == ".version":
            lex.next()
            m.version = self.expect_kind("num", "a version number such as `8.0`").text
        elif d == ".target":
            lex.next()
            m.target = self.expect_kind("id", "a target such as `sm_90a`").text
            while self.accept(","):
                m.meta.setdefault("target_extras", []).append(self.expect_kind("id", "a target option").text)
        elif d == ".address_size":
            lex.next()
            m.address_size = self.expect_int("an address size (32 or 64)")
        elif d == ".file":
            self.file_directive()
        elif d == ".loc":
            self.loc_directive()
        elif d == ".section":
            lex.next()
            while lex.peek().kind in ("dir", "id"):
                lex.next()
            self.expect("{")
            lex.skip_braced(1)
        elif d == ".pragma":
            lex.next()
            m.meta.setdefault("pragmas", []).append(self.pragma_strings())
        elif d == ".alias":
            lex.next()
            a = self.expect_kind("id", "an alias name").text
            self.expect(",")
            b = self.expect_kind("id", "an aliased function name").text
            self.expect(";")
            m.meta.setdefault("aliases", []).append((a, b))
        elif d in (".visible", ".extern", ".weak", ".common", ".entry", ".func") or d[1:] in _SPACES:
            self.linked_decl()
        else:
            lex.next()
            self.notes.append(
                note("parse-note", f"skipped unsupported top-level directive `{d}`", self._span(tok))
            )
            self.skip_statement()

    def skip_statement(self) -> None:
        """Skip to the end of the current statement: a `;`, or a balanced `{ ... }` block."""
        lex = self.lex
        while True:
            tok = lex.next()
            if tok.kind == "eof":
                return
            if tok.kind == "punct" and tok.text == ";":
                return
            if tok.kind == "punct" and tok.text == "{":
                lex.skip_braced(1)
                return

    def file_directive(self) -> None:
        self.lex.next()
        idx = self.expect_int("a file index")
        path = self.expect_kind("str", "a quoted file name").text
        while self.accept(","):
            self.expect_int("a timestamp or size")
        self.module.files[idx] = _unquote(path)

    def loc_directive(self) -> None:
        lex = self.lex
        start = lex.next()
        f = self.expect_int("a file index")
        ln = self.expect_int("a line number")
        col = self.expect_int("a column number")
        # LLVM appends `, function_name $L__info_stringN, inlined_at F L C` on the same line: only the
        # call site is kept (`Loc.up`).
        while lex.pos < len(lex.buf) and lex.buf[lex.pos].line == start.line:
            nxt = lex.peek()
            if nxt.kind == "punct" and nxt.text in ";{}":
                break
            lex.next()
        self.loc = self.make_loc(f, ln, col, self.lines[start.line - 1])

    def make_loc(self, f: int, ln: int, col: int, raw: str) -> Loc:
        """The `Loc` of a `.loc` line, with its `inlined_at` call site chained (`Loc.up`)."""
        if "inlined_at" not in raw:
            return Loc(f, ln, col)
        m = _INLINED_RE.search(raw)
        if m is None:
            return Loc(f, ln, col)
        where = (int(m.group(1)), int(m.group(2)), int(m.group(3)))
        up = Loc(*where, self.loc_up.get(where))
        self.loc_up[(f, ln, col)] = up
        return Loc(f, ln, col, up)

    def pragma_strings(self) -> list[str]:
        parts = [_unquote(self.expect_kind("str", "a pragma string").text)]
        while self.accept(","):
            parts.append(_unquote(self.expect_kind("str", "a pragma string").text))
        self.expect(";")
        return parts

    def linked_decl(self) -> None:
        lex = self.lex
        visible = extern = False
        linkage: str | None = None
        while True:
            tok = lex.peek()
            if tok.text == ".visible":
                visible = True
            elif tok.text == ".extern":
                extern = True
            elif tok.text in (".weak", ".common"):
                linkage = tok.text[1:]
            else:
                break
            lex.next()
        tok = lex.peek()
        if tok.text in (".entry", ".func"):
            self.function(visible, extern, linkage)
        elif tok.kind == "dir" and tok.text[1:] in _SPACES:
            for v in self.var_decl(visible=visible, extern=extern):
                self.module.globals.append(v)
        else:
            raise self.fail(tok, "`.entry`, `.func` or a state space after the linkage directive")

    # ---------------------------------------------------------------- declarations
    def var_decl(self, visible: bool = False, extern: bool = False) -> list[VarDecl]:
        """`.shared .align 16 .b8 smem[4096];` and friends; returns one VarDecl per declared name.
        `.texref`/`.samplerref`/`.surfref` variables are skipped with a note (no model for them)."""
        lex = self.lex
        space_tok = lex.next()
        space = space_tok.text[1:]
        align: int | None = None
        typ: str | None = None
        while True:
            tok = lex.peek()
            if tok.text == ".align":
                lex.next()
                align = self.expect_int("an alignment")
            elif tok.text in (".texref", ".samplerref", ".surfref"):
                self.notes.append(note("parse-note", f"skipped `{tok.text}` variable", self._span(tok)))
                lex.next()
                name = lex.peek()
                if name.kind == "id":  # the validator still needs to know the name is declared
                    self.module.meta.setdefault("opaque_names", []).append(name.text)
                self.skip_statement()
                return []
            elif tok.text in (".v2", ".v4", ".v8"):
                raise self.fail(tok, "a scalar variable type (vector variables are not supported)")
            elif tok.kind == "dir" and tok.text in (".ptr",) or tok.text.startswith(".attribute"):
                raise self.fail(tok, "a variable type")
            elif tok.kind == "dir":
                lex.next()
                typ = tok.text
                if _is_type(typ):
                    break
                raise self.fail(tok, "a variable type such as `.b32`")
            else:
                raise self.fail(tok, "a variable type such as `.b32`")
        out: list[VarDecl] = []
        while True:
            name = self.expect_kind("id", "a variable name")
            dims: list[int] = []
            while self.accept("["):
                if self.accept("]"):
                    dims.append(0)
                    continue
                dims.append(self.expect_int("an array size"))
                self.expect("]")
            init = None
            if self.accept("="):
                init = self.initializer()
            out.append(
                VarDecl(space, typ, name.text, align, dims, init, extern, visible, line=space_tok.line)
            )
            if not self.accept(","):
                break
        self.expect(";")
        return out

    def initializer(self) -> list:
        out: list = []

        def item() -> None:
            tok = self.lex.peek()
            if tok.text == "{" and tok.kind == "punct":
                self.lex.next()
                if not self.accept("}"):
                    item()
                    while self.accept(","):
                        item()
                    self.expect("}")
                return
            if tok.kind == "punct" and tok.text == "-":
                self.lex.next()
                num = self.expect_kind("num", "a number")
                out.append(-parse_number(num.text))
                return
            if tok.kind == "num":
                self.lex.next()
                out.append(parse_number(tok.text))
                return
            if tok.kind == "id":
                # symbol address: `foo`, `foo+8`, `generic(foo)`, `generic(foo)+8`
                self.lex.next()
                text = tok.text
                if self.accept("("):
                    text += "(" + self.expect_kind("id", "a symbol").text + ")"
                    self.expect(")")
                if self.lex.peek().text in ("+", "-") and self.lex.peek().kind == "punct":
                    sign = self.lex.next().text
                    text += sign + self.expect_kind("num", "an offset").text
                out.append(text)
                return
            raise self.fail(tok, "an initializer value")

        item()
        return out

    def param(self) -> Param:
        lex = self.lex
        start = lex.next()
        if start.text not in (".param", ".reg"):
            raise self.fail(start, "`.param`")
        p = Param(name="", type="", line=start.line)
        after_ptr = False
        while True:
            tok = lex.peek()
            if tok.kind != "dir":
                break
            lex.next()
            if tok.text == ".align":
                a = self.expect_int("an alignment")
                if after_ptr:
                    p.ptr_align = a
                else:
                    p.align = a
            elif tok.text == ".ptr":
                after_ptr = True
                p.ptr_space = p.ptr_space or "generic"
            elif after_ptr and tok.text[1:] in _SPACES:
                p.ptr_space = tok.text[1:]
            elif _is_type(tok.text):
                p.type = tok.text
            else:
                raise self.fail(tok, "a parameter type, `.ptr` or `.align`")
        if not p.type:
            raise self.fail(lex.peek(), "a parameter type such as `.u64`")
        p.name = self.expect_kind("id", "a parameter name").text
        while self.accept("["):
            p.dims.append(self.expect_int("an array size"))
            self.expect("]")
        return p

    def param_list(self) -> list[Param]:
        self.expect("(")
        out: list[Param] = []
        if self.accept(")"):
            return out
        out.append(self.param())
        while self.accept(","):
            out.append(self.param())
        self.expect(")")
        return out

    def function(self, visible: bool, extern: bool, linkage: str | None) -> None:
        lex = self.lex
        kw = lex.next()
        ret: list[Param] = []
        if kw.text == ".func" and lex.peek().text == "(":
            ret = self.param_list()
        name = self.expect_kind("id", "a function name")
        f = Function(name.text, kw.text[1:], visible=visible, extern=extern, line=kw.line, ret_params=ret)
        if linkage:
            f.meta["linkage"] = linkage
        if lex.peek().text == "(":
            f.params = self.param_list()
        self.module.functions.append(f)
        while True:
            tok = lex.peek()
            if tok.kind == "dir" and tok.text == ".pragma":
                lex.next()
                f.meta.setdefault("pragmas", []).append(self.pragma_strings())
            elif tok.kind == "dir" and tok.text not in _DECL_STARTERS:
                lex.next()
                vals: list[int] = []
                if lex.peek().kind == "num":
                    vals.append(self.expect_int("a number"))
                    while self.accept(","):
                        vals.append(self.expect_int("a number"))
                f.directives[tok.text[1:]] = vals
            else:
                break
        if self.accept(";"):
            return
        self.expect("{")
        self.func = f
        self.scopes = _Scopes()
        self.forget_bare()
        self.loc = None
        f.body = self.body(depth=1)
        self.func = None

    # ---------------------------------------------------------------- bodies
    def body(self, depth: int) -> list[Stmt]:
        """Statements up to and including the closing `}`."""
        if depth > _MAX_DEPTH:
            raise self.fail(self.lex.peek(), f"at most {_MAX_DEPTH} nested scopes")
        lex = self.lex
        lines = self.lines
        nlines = len(lines)
        out: list[Stmt] = []
        while True:
            if lex.pos >= len(lex.buf) and not lex.in_block_comment and lex.li < nlines:
                self.fast_lines(out)
            # ---- general path
            tok = lex.peek()
            if tok.kind == "eof":
                raise self.fail(tok, "`}` closing the function body")
            if tok.kind == "punct":
                if tok.text == "}":
                    lex.next()
                    return out
                if tok.text == "{":
                    lex.next()
                    self.scopes.push()
                    self.forget_bare()
                    out.append(Scope(self.body(depth + 1), line=tok.line))
                    self.scopes.pop()
                    self.forget_bare()
                    continue
                if tok.text == "@":
                    out.append(self.instruction())
                    continue
                raise self.fail(tok, "an instruction, label, declaration or `}`")
            if tok.kind == "dir":
                self.body_directive(tok, out)
                continue
            if tok.kind == "id":
                nxt = lex.peek2()
                if nxt.kind == "punct" and nxt.text == ":":
                    lex.next()
                    lex.next()
                    # Look at the rest of this line only, so the next line can still take the fast path.
                    if lex.pos < len(lex.buf):
                        after = lex.buf[lex.pos].text
                    elif lex.li < nlines and lines[lex.li].lstrip()[:5] in (".bran", ".call"):
                        after = lex.peek().text
                    else:
                        after = ""
                    if after == ".callprototype":
                        self.prototype(tok)
                    elif after in (".branchtargets", ".calltargets"):
                        self.target_list(tok)
                    else:
                        out.append(Label(tok.text, line=tok.line))
                    continue
                out.append(self.instruction())
                continue
            raise self.fail(tok, "an instruction, label, declaration or `}`")

    def fast_lines(self, out: list[Stmt]) -> None:
        """The fast path: consume whole raw lines (plain instructions, blank and comment lines, `.loc`)
        until one needs the general path; leaves `lex.li` at that line."""
        lex = self.lex
        lines = self.lines
        nlines = len(lines)
        fast = _FAST_RE.fullmatch
        opcode_ok = _OPCODE_RE.fullmatch
        locm = _LOC_RE.match
        atom = self.fast_atom
        cget = self.cache.get
        new_instr = _new_instr
        append = out.append
        li = lex.li
        loc = self.loc
        try:
            while li < nlines:
                raw = lines[li]
                m = fast(raw)
                if m is not None:
                    neg, guard, opcode, ops = m.groups()
                    if (":" in opcode or opcode[-1] == ".") and not opcode_ok(opcode):
                        return  # e.g. `L1: ret;`: a label, for the general path
                    operands: list[Operand] = []
                    if ops:
                        if "{" in ops:
                            pieces = _PIECES_RE.findall(ops)
                            inner = sum(p.count(",") for p in pieces)
                            if ops.count(",") - inner != len(pieces) - 1 or sum(map(len, pieces)) + len(
                                pieces
                            ) - 1 != len(ops):
                                return  # malformed: the general path reports it
                        else:
                            pieces = ops.split(",")
                        for piece in pieces:
                            o = cget(piece)
                            if o is None:
                                o = atom(piece)
                                if o is None:
                                    return
                            operands.append(o)
                    if guard is None:
                        append(new_instr(opcode, operands, None, False, li + 1, loc))
                    else:
                        g = cget(guard) or atom(guard)
                        if not isinstance(g, Reg):
                            return
                        append(new_instr(opcode, operands, g, neg == "!", li + 1, loc))
                    li += 1
                    continue
                s = raw.lstrip()
                if not s or (s[:2] == "//" and "/*" not in s):
                    li += 1
                    continue
                if s[:4] == ".loc":
                    lm = locm(raw)
                    if lm is not None:
                        loc = self.loc = self.make_loc(
                            int(lm.group(1)), int(lm.group(2)), int(lm.group(3)), raw
                        )
                        li += 1
                        continue
                return
        finally:
            lex.li = li

    def body_directive(self, tok: Token, out: list[Stmt]) -> None:
        d = tok.text
        lex = self.lex
        if d == ".reg":
            out.append(self.reg_decl())
        elif d[1:] in _SPACES:
            out.extend(self.var_decl())
        elif d == ".loc":
            self.loc_directive()
        elif d == ".pragma":
            lex.next()
            assert self.func is not None
            self.func.meta.setdefault("body_pragmas", []).append(self.pragma_strings())
        elif d == ".file":
            self.file_directive()
        else:
            raise self.fail(tok, "an instruction, label, declaration or `}`")

    def reg_decl(self) -> RegDecl:
        lex = self.lex
        start = lex.next()
        typ = lex.next()
        if typ.text in (".v2", ".v4"):
            raise self.fail(typ, "a scalar register type (vector registers are not supported)")
        if typ.kind != "dir" or not _is_type(typ.text):
            raise self.fail(typ, "a register type such as `.b32`")
        name = self.expect_kind("id", "a register name")
        if self.accept("<"):
            count = self.expect_int("a register count")
            self.expect(">")
            d = RegDecl(typ.text, prefix=name.text, count=count, line=start.line)
            self.expect(";")
        else:
            names = [name.text]
            while self.accept(","):
                names.append(self.expect_kind("id", "a register name").text)
            self.expect(";")
            d = RegDecl(typ.text, names=names, line=start.line)
        self.scopes.declare(d)
        self.forget_bare()
        return d

    def prototype(self, name: Token) -> None:
        """`prototype_0 : .callprototype (.param .b32 _) _ (.param .b64 _);` kept as text."""
        lex = self.lex
        parts: list[str] = []
        while True:
            tok = lex.next()
            if tok.kind == "eof":
                raise self.fail(tok, "`;` ending the call prototype")
            if tok.kind == "punct" and tok.text == ";":
                break
            parts.append(tok.text)
        text = " ".join(parts).replace("( ", "(").replace(" )", ")").replace(" ,", ",")
        text = re.sub(r" ([\[\]])", r"\1", text).replace("[ ", "[")
        assert self.func is not None
        self.func.meta.setdefault("prototypes", {})[name.text] = text

    def target_list(self, name: Token) -> None:
        """`JTI0_0: .branchtargets L1, L2;` (for `brx.idx`) -> `Function.meta[kind][name] = [labels]`."""
        kind = self.lex.next().text[1:]
        names = [self.expect_kind("id", "a label name").text]
        while self.accept(","):
            names.append(self.expect_kind("id", "a label name").text)
        self.expect(";")
        assert self.func is not None
        self.func.meta.setdefault(kind, {})[name.text] = names

    # ---------------------------------------------------------------- instructions
    def instruction(self) -> Instr:
        lex = self.lex
        pred: Reg | None = None
        neg = False
        first = lex.peek()
        if self.accept("@"):
            if self.accept("!"):
                neg = True
            g = self.expect_kind("id", "a guard predicate register")
            o = self.ident(g.text)
            if not isinstance(o, Reg):
                raise self.fail(g, "a declared predicate register")
            pred = o
        op = lex.next()
        if op.kind != "id" or op.text[0] in "%$":
            raise self.fail(op, "an instruction opcode")
        operands: list[Operand] = []
        if not self.accept(";"):
            operands.append(self.operand())
            while self.accept(","):
                operands.append(self.operand())
            self.expect(";")
        return Instr(op.text, operands, pred, neg, first.line, self.loc)

    def operand(self) -> Operand:
        lex = self.lex
        tok = lex.peek()
        if tok.kind == "punct":
            t = tok.text
            if t == "[":
                return self.address()
            if t == "{":
                lex.next()
                items = [self.operand()]
                while self.accept(","):
                    items.append(self.operand())
                self.expect("}")
                return Vec(tuple(items))
            if t == "(":
                lex.next()
                items = []
                if not self.accept(")"):
                    items.append(self.operand())
                    while self.accept(","):
                        items.append(self.operand())
                    self.expect(")")
                return Vec(tuple(items))
            if t == "!":
                lex.next()
                return Neg(self.simple_operand())
            if t == "-":
                lex.next()
                num = self.expect_kind("num", "a number after `-`")
                return Imm(-parse_number(num.text), "-" + num.text)
        o = self.simple_operand()
        if lex.peek().text == "|" and lex.peek().kind == "punct":
            lex.next()
            return Pair(o, self.simple_operand())
        return o

    def simple_operand(self) -> Operand:
        tok = self.lex.next()
        if tok.kind == "num":
            return Imm(parse_number(tok.text), tok.text)
        if tok.kind == "id":
            return self.ident(tok.text)
        raise self.fail(tok, "an operand (register, immediate, symbol, address or vector)")

    def ident(self, name: str) -> Operand:
        if name[0] == "%":
            return Reg(name)
        if name == "_":
            return Sink()
        if self.scopes.is_reg(name):
            return Reg(name)
        return Sym(name)

    def address(self) -> Addr:
        lex = self.lex
        lex.next()
        base: Reg | Sym | None = None
        offset = 0
        tok = lex.peek()
        if tok.kind == "id":
            lex.next()
            b = self.ident(tok.text)
            if not isinstance(b, (Reg, Sym)):
                raise self.fail(tok, "an address base (register or symbol)")
            base = b
            if lex.peek().kind == "punct" and lex.peek().text in "+-":
                sign = -1 if lex.next().text == "-" else 1
                offset = sign * self.expect_int("an address offset")
        elif tok.kind == "num" or tok.text == "-":
            offset = self.expect_int("an address")
        else:
            raise self.fail(tok, "an address base (register, symbol or number)")
        index = None
        if self.accept(","):
            o = self.operand()
            index = o if isinstance(o, Vec) else Vec((o,))
        self.expect("]")
        return Addr(base, offset, index) if index is not None else Addr(base, offset)

    def forget_bare(self) -> None:
        cache = self.cache
        for k in self.bare_keys:
            cache.pop(k, None)
        self.bare_keys.clear()

    def fast_atom(self, piece: str) -> Operand | None:
        """One comma-separated operand spelling from the fast path, or None to fall back."""
        o = self.cache.get(piece)
        if o is not None:
            return o
        s = piece.strip()
        if not s:
            return None
        c = s[0]
        o = None
        if "|" in s:
            a, _, b = s.partition("|")
            x = self.fast_atom(a)
            y = self.fast_atom(b)
            if x is None or y is None or isinstance(x, (Pair, Vec, Addr)) or isinstance(y, (Pair, Vec, Addr)):
                return None
            o = Pair(x, y)
        elif c == "{":
            if s[-1] != "}" or "[" in s:
                return None
            items = []
            for part in s[1:-1].split(","):
                x = self.fast_atom(part)
                if x is None or isinstance(x, (Pair, Vec, Addr)):
                    return None
                items.append(x)
            o = Vec(tuple(items))
        elif c == "%":
            if _REG_RE.fullmatch(s):
                o = Reg(s)
        elif c == "[":
            m = _ADDR_RE.fullmatch(s)
            if m is not None:
                bname, sign, num = m.groups()
                if bname is None and sign is not None:
                    return None
                base = self.ident(bname) if bname else None
                if base is not None and not isinstance(base, (Reg, Sym)):
                    return None
                off = 0
                if num is not None:
                    off = int(num, 0) if num[:2] in ("0x", "0X") else int(num)
                    if sign != "+":
                        off = -off
                elif bname is None:
                    return None
                o = Addr(base, off)
            else:
                m2 = re.fullmatch(r"\[[ \t]*(-?(?:0[xX][0-9a-fA-F]+|\d+))[ \t]*\]", s)
                if m2 is not None:
                    o = Addr(None, int(m2.group(1), 0) if "x" in m2.group(1).lower() else int(m2.group(1)))
        elif c.isdigit() or c == "-":
            if _NUM_RE.fullmatch(s):
                o = Imm(-parse_number(s[1:]), s) if c == "-" else Imm(parse_number(s), s)
        elif _IDENT_RE.fullmatch(s):
            o = self.ident(s)
        if o is not None:
            self.cache[piece] = o
            if _BARE_RE.search(s):
                self.bare_keys.append(piece)
        return o


_DECL_STARTERS = frozenset({".reg", ".shared", ".local", ".param", ".global", ".const"})
_TYPES = frozenset(
    "b8 b16 b32 b64 b128 u8 u16 u32 u64 s8 s16 s32 s64 f16 f16x2 bf16 bf16x2 f32 f64 tf32 pred e4m3 e5m2"
    " e4m3x2 e5m2x2".split()
)


def _is_type(t: str) -> bool:
    return t[1:] in _TYPES


def _unquote(s: str) -> str:
    return s[1:-1].replace('\\"', '"').replace("\\\\", "\\")


def parse_ptx(text: str, path: str = "<ptx>") -> Module:
    """Parse PTX text into a Module. Syntax errors raise `CompileError` with a `parse-error` diagnostic
    at file:line:col naming what was expected; skipped constructs leave notes in
    `Module.meta["diagnostics"]`."""
    p = _Parser(text, path)
    try:
        return p.parse()
    except RecursionError:
        raise CompileError(
            [error("parse-error", "input nests too deeply to parse", Span.point(path, 1, 1))]
        ) from None
