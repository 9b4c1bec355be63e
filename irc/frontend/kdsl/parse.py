"""Parse .kdsl text into an `ast.Program`.

Pipeline: `lexer.Lexer` tokenizes with the grammar's own terminal patterns; lark builds the LALR(1) tables
for `irc/grammar/kdsl.lark` at development time, and `tables.py` ships them as plain data in the package
(a compile never imports lark); `_Driver` runs the LR automaton over the tokens and calls
`builder.AstBuilder` on every reduction, so the AST is built bottom-up with no parse tree and no recursion
(1,000 nested parentheses cost 1,000 stack entries in a Python list, not 1,000 Python frames).

Why a driver of our own instead of `Lark.parse`: (1) every node needs a span, and lark propagates positions
only onto its own `Tree`s, not onto what an inline transformer returns, so the driver keeps a position stack
beside the value stack (the same thing `propagate_positions` does); (2) error recovery: on a syntax error the
driver reports the offending token with the precise list of acceptable tokens, skips to a synchronizing
token (`;`, a `}` closing the current construct, a statement keyword, an item keyword), pops the LR stack to
the enclosing statement list (or the top level) and continues, so every syntax error in a file is reported
without cascades (errors during recovery, before the next successful shift, are not reported).
"""

from __future__ import annotations

import functools

from irc import limits
from irc.diagnostics import CompileError, Diagnostic, InternalCompilerError, Span, error, note

from . import ast, tables
from .builder import AstBuilder
from .lexer import END, Lexer, Tok
from .parse_hints import c_style_for, cuda_syntax_hint, unclosed_delimiter
from .tables import grammar_text

MAX_PARSE_ERRORS = 100

_TERMINAL_NAMES = {
    "IDENT": "identifier",
    "INT": "integer literal",
    "FLOAT": "float literal",
    "STRING": "string literal",
    END: "end of file",
}
_STMT_KEYWORDS = (
    "let",
    "var",
    "shared",
    "if",
    "for",
    "unroll",
    "while",
    "break",
    "continue",
    "return",
    "static_assert",
)
_ITEM_KEYWORDS = ("fn", "kernel", "const", "param", "@")
_EXPR_START = ("(", "-", "!", "~", "&", "[", "true", "false", "inf", "nan", "bitcast")
_BINARY_OPS = (
    "||",
    "&&",
    "|",
    "^",
    "&",
    "==",
    "!=",
    "<",
    "<=",
    ">",
    ">=",
    "<<",
    ">>",
    "+",
    "-",
    "*",
    "/",
    "%",
    "?",
    "as",
)


class _Grammar:
    """LALR tables, lexer and token display names; built once per process from `tables.load` (plain data
    shipped in the package: no lark import).

    `table[state][symbol]` is a state (shift, or goto for a nonterminal) when >= 0 and `~rule_index` for a
    reduction. `rules[r]` is (size, lhs name, is_unit): unit rules are the `?rule: other` links of the
    precedence chain, whose reduction keeps the value as it is; most reductions in an expression are of
    this kind, and a whole chain of them costs one cached lookup instead of a callback per level.
    """

    def __init__(self) -> None:
        data = tables.load(grammar_text())
        self.table: list[dict[str, int]] = data["table"]
        self.start_state: int = data["start"]
        self.end_state: int = data["end"]
        self.rules: list[tuple[int, str, bool]] = [tuple(r) for r in data["rules"]]  # type: ignore[misc]
        self.actions: list[tuple] = data["actions"]
        self.rule_keys: list[str] = data["rule_keys"]
        self.terminals: list[tuple[str, str, str]] = data["terminals"]
        self.unit_chains: dict[tuple[int, int, str], int] = {}  # see follow_units
        self.lexer = Lexer(self.terminals)
        term = {**self.lexer.keywords, **self.lexer.punct}
        self.display = {name: f"`{text}`" for text, name in term.items()}
        self.display.update(_TERMINAL_NAMES)
        self.t_rbrace, self.t_semi, self.t_lbrace = term["}"], term[";"], term["{"]
        self.t_let, self.t_kernel = term["let"], term["kernel"]
        self.item_start = frozenset(term[k] for k in _ITEM_KEYWORDS)
        self.stmt_start = frozenset(term[k] for k in _STMT_KEYWORDS)
        self.expr_start = frozenset([*(term[k] for k in _EXPR_START), "IDENT", "INT", "FLOAT"])
        self.binary_ops = frozenset(term[k] for k in _BINARY_OPS)

    def follow_units(self, below: int, top: int, term: str) -> int:
        """The top state after every unit reduction that lookahead `term` triggers on `below, top`. The
        result depends only on these three, so the driver caches it in `unit_chains` (an atom in an
        expression otherwise walks the whole precedence chain, one reduction per level)."""
        table, rules = self.table, self.rules
        while True:
            act = table[top].get(term)
            if act is None or act >= 0 or not rules[~act][2]:
                return top
            top = table[below][rules[~act][1]]

    def callbacks(self, builder: AstBuilder) -> list:
        """Per-rule reduction callbacks bound to `builder` (lark's child filtering around our methods)."""
        return tables.reducers(self.actions, builder)

    def is_block_state(self, state: int) -> bool:
        """A state at a statement boundary inside `{ ... }`: it accepts both a statement and `}`."""
        row = self.table[state]
        return self.t_rbrace in row and self.t_let in row

    def is_top_state(self, state: int) -> bool:
        """Between items (not after attributes): accepts both an item and the end of the input."""
        row = self.table[state]
        return self.t_kernel in row and END in row


@functools.cache
def _grammar() -> _Grammar:
    return _Grammar()


def parse_kdsl(text: str, path: str) -> ast.Program:
    """Parse `text` (the contents of `path`). Raises `CompileError` with every syntax error found."""
    limits.check_size(text, path, "max_kdsl_bytes")
    g = _grammar()
    lexed = g.lexer.tokenize(text, path)
    _allow_names(lexed.tokens, g)
    deep = limits.nesting_error(lexed.tokens, path)
    if deep is not None:
        raise CompileError([deep])
    builder = AstBuilder(path)
    driver = _Driver(g, lexed.tokens, builder, path, lexed.unterminated)
    program = driver.run()
    diags = sorted(lexed.diagnostics + driver.diagnostics + builder.diagnostics, key=Diagnostic.sort_key)
    if diags:
        if driver.truncated:
            diags.append(
                note("parse-error", f"too many syntax errors; stopped after {MAX_PARSE_ERRORS}", None)
            )
        raise CompileError(diags)
    if not isinstance(program, ast.Program):
        raise InternalCompilerError("the kdsl parser's error recovery did not terminate")
    program.allow_comments = lexed.allow_comments
    return program


def _allow_names(tokens: list[Tok], g: _Grammar) -> None:
    """Inside `@allow(...)` every word is part of a check name, keywords too: `@allow(shared-race)` and
    `@allow(const-error)` lex `shared` and `const` as names, so every check name can be written there (the
    arguments are dashed names, turned back into check names by `attrs.check_name`)."""
    term = {**g.lexer.keywords, **g.lexer.punct}
    at, lpar = term["@"], term["("]
    keywords = frozenset(g.lexer.keywords.values())
    inside = keywords | {"IDENT", "INT", term["-"], term[","]}  # a `)` or anything else ends the list
    i = 0
    while i + 2 < len(tokens):
        if tokens[i].type == at and tokens[i + 1].value == "allow" and tokens[i + 2].type == lpar:
            i += 3
            while i < len(tokens) and tokens[i].type in inside:
                if tokens[i].type in keywords:
                    tokens[i].type = "IDENT"
                i += 1
        else:
            i += 1


class _Driver:
    """The LR automaton over a token list, with span propagation and panic-mode recovery."""

    def __init__(self, g: _Grammar, tokens: list[Tok], builder: AstBuilder, path: str, eof_reported: bool):
        self.g = g
        self.tokens = tokens
        self.builder = builder
        self.path = path
        self.callbacks = g.callbacks(builder)
        self.diagnostics: list[Diagnostic] = []
        self.truncated = False
        self.recoveries = 0
        self.eof_reported = eof_reported  # the lexer already explained why the input ends early

    def run(self) -> object:
        g, toks, builder, callbacks = self.g, self.tokens, self.builder, self.callbacks
        table, rules, end_state, unit_chains = g.table, g.rules, g.end_state, g.unit_chains
        st = [g.start_state]  # LR states
        vals: list = []  # semantic values (tokens and AST nodes)
        sps: list = []  # (line, col, end_line, end_col) of each value, None for an empty reduction
        i = 0
        recovering = False
        while True:
            tok = toks[i]
            tt = tok.type
            act = table[st[-1]].get(tt)
            if act is None:
                self.recoveries += 1
                if (
                    self.recoveries > 4 * len(toks) + 16
                ):  # defensive: recovery always advances, but never hang
                    return None
                i, recovering = self._recover(st, vals, sps, i, report=not recovering)
                continue
            if act >= 0:
                st.append(act)
                vals.append(tok)
                sps.append((tok.line, tok.col, tok.end_line, tok.end_col))
                i += 1
                recovering = False
                continue
            r = ~act
            size, origin, unit = rules[r]
            if unit:  # value and span stay; only the top state changes, along a chain of unit rules
                key = (st[-2], st[-1], tt)
                top = unit_chains.get(key)
                if top is None:
                    top = unit_chains[key] = g.follow_units(st[-2], st[-1], tt)
                st[-1] = top
                continue
            if size:
                children = vals[-size:]
                first, last = sps[-size], sps[-1]
                if first is None or last is None:
                    inner = [x for x in sps[-size:] if x is not None]
                    first, last = (inner[0], inner[-1]) if inner else (None, None)
                span = (first[0], first[1], last[2], last[3]) if first is not None else None
                del st[-size:], vals[-size:], sps[-size:]
            else:
                children, span = [], None
            builder.span = span or (tok.line, tok.col, tok.line, tok.col)
            vals.append(callbacks[r](children))
            st.append(table[st[-1]][origin])
            sps.append(span)
            if st[-1] == end_state and tt == END:
                return vals[-1]

    # ------------------------------------------------------------------------------------- recovery
    def _recover(self, st: list, vals: list, sps: list, i: int, report: bool) -> tuple[int, bool]:
        """Report the error at token `i` (unless `report` is false) and resynchronize. Returns the index
        to continue at and whether errors there are still part of this one (not at a clean boundary)."""
        g, toks = self.g, self.tokens
        tok = toks[i]
        c_for = c_style_for(toks, i, self.path) if report else None
        if c_for is not None and len(self.diagnostics) < MAX_PARSE_ERRORS:
            self.diagnostics.append(c_for[0])
            k = self._find(st, g.is_block_state)
            if k >= 0:
                del st[k + 1 :], vals[k:], sps[k:]
                return c_for[1], False
        if report:
            if len(self.diagnostics) >= MAX_PARSE_ERRORS:
                self.truncated = True
            elif not (tok.type == END and self.eof_reported):
                self.diagnostics.append(self._syntax_error(st, i))
        else:
            i += 1  # an error right after a resync: drop the token, or recovery would not progress
        # Skip to a synchronizing token at nesting depth 0 (relative to the error).
        depth, j, n = 0, i, len(toks)
        target = "block"
        clean = False
        while j < n:
            t = toks[j].type
            if t == END or (depth == 0 and t in g.item_start):
                target = "top"
                break
            if depth == 0 and t in g.stmt_start and (j > i or self._find(st, g.is_block_state) >= 0):
                break
            if t == g.t_lbrace:
                depth += 1
            elif t == g.t_rbrace:
                if depth == 0:
                    break
                depth -= 1
                if depth == 0:
                    j += 1
                    clean = True
                    break
            elif t == g.t_semi and depth == 0:
                j += 1
                clean = True
                break
            j += 1
        k = self._find(st, g.is_block_state) if target == "block" else -1
        if k < 0:
            k = self._find(st, g.is_top_state)
        del st[k + 1 :], vals[k:], sps[k:]
        j = min(j, n - 1)
        if j == i and toks[j].type not in g.table[st[-1]] and toks[j].type != END:
            j += 1  # e.g. a stray `}` at the top level
            clean = False
        return j, not clean

    @staticmethod
    def _find(st: list, pred) -> int:
        for k in range(len(st) - 1, -1, -1):
            if pred(st[k]):
                return k
        return -1

    def _syntax_error(self, st: list, i: int) -> Diagnostic:
        g = self.g
        tok = self.tokens[i]
        if tok.type == END:
            d = unclosed_delimiter(self.tokens, i, self.path)
            if d is not None:
                return d
        expected = [t for t in g.table[st[-1]] if t.isupper() and self._accepts(st, t)]
        names = _describe(g, expected)
        found = "end of file" if tok.type == END else f"`{tok.value}`"
        if not names:
            msg = f"unexpected {found}"
        elif len(names) == 1:
            msg = f"expected {names[0]}, found {found}"
        else:
            msg = f"expected one of {', '.join(names)}, found {found}"
        span = Span(self.path, tok.line, tok.col, tok.end_line, max(tok.end_col, tok.col + 1))
        help = None
        prev = self.tokens[i - 1] if i > 0 else None
        if g.t_semi in expected and prev is not None and prev.end_line < tok.line:
            help = f"is a `;` missing after `{prev.value}` on line {prev.end_line}?"
        help = cuda_syntax_hint(self.tokens, i) or help
        return error("parse-error", msg, span, help=help)

    def _accepts(self, st: list, term: str) -> bool:
        """Would the parser shift `term` from this stack (after the reductions it implies)?"""
        table, rules = self.g.table, self.g.rules
        stack = list(st)
        while True:
            act = table[stack[-1]].get(term)
            if act is None:
                return False
            if act >= 0:
                return True
            size, origin, _ = rules[~act]
            if size:
                del stack[-size:]
            stack.append(table[stack[-1]][origin])
            if term == END and stack[-1] == self.g.end_state:
                return True


def _describe(g: _Grammar, expected: list[str]) -> list[str]:
    """Human names for a set of terminals, folding the big classes into 'an expression' / 'an operator'."""
    exp = set(expected)
    out: list[str] = []
    if g.expr_start <= exp:
        exp -= g.expr_start
        out.append("an expression")
    if len(g.binary_ops & exp) >= 6:
        exp -= g.binary_ops
        out.append("an operator")
    if g.stmt_start <= exp:
        exp -= g.stmt_start | g.expr_start | {g.t_lbrace}
        out = [o for o in out if o != "an expression"] + ["a statement"]
    return sorted(g.display.get(t, t) for t in exp) + out
