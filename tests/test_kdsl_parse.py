"""The .kdsl grammar and parser: one test per grammar feature (structure of the AST), exact spans,
parse-error positions and messages, error recovery, deep nesting and large input, and fuzzing (random
token streams, mutations of valid programs): always an AST or a CompileError, never a traceback."""

from __future__ import annotations

import logging
import math
import random
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from irc.diagnostics import CompileError
from irc.frontend.kdsl import analyze, ast, parse_kdsl
from irc.frontend.kdsl.parse import grammar_text

DATA = Path(__file__).parent / "data" / "kdsl"


# --------------------------------------------------------------------------------------------- helpers
def parse(src: str) -> ast.Program:
    return parse_kdsl(src, "t.kdsl")


def body(src: str) -> list[ast.Stmt]:
    """Statements of a kernel whose body is `src`."""
    prog = parse("kernel k() {\n" + src + "\n}")
    return prog.items[0].body.stmts


def expr(src: str) -> ast.Expr:
    stmt = body(f"let v = {src};")[0]
    assert isinstance(stmt, ast.LetStmt)
    return stmt.init


def show(e: ast.Expr) -> str:
    """Fully parenthesized form, to test precedence and associativity."""
    if isinstance(e, ast.IntLit):
        return str(e.value)
    if isinstance(e, ast.FloatLit):
        return e.text
    if isinstance(e, ast.BoolLit):
        return str(e.value).lower()
    if isinstance(e, ast.Name):
        return e.ident
    if isinstance(e, ast.Binary):
        return f"({show(e.lhs)} {e.op} {show(e.rhs)})"
    if isinstance(e, ast.Unary):
        return f"({e.op}{show(e.operand)})"
    if isinstance(e, ast.AddrOf):
        return f"(&{show(e.operand)})"
    if isinstance(e, ast.Ternary):
        return f"({show(e.cond)} ? {show(e.then)} : {show(e.else_)})"
    if isinstance(e, ast.Cast):
        return f"({show(e.operand)} as {show_type(e.target)})"
    if isinstance(e, ast.Call):
        return f"{e.callee}({', '.join(map(show, e.args))})"
    if isinstance(e, ast.Index):
        return f"{show(e.base)}[{', '.join(map(show, e.indices))}]"
    if isinstance(e, ast.Member):
        return f"{show(e.base)}.{e.field}"
    if isinstance(e, ast.ArrayRepeat):
        return f"[{show(e.value)}; {show(e.count)}]"
    if isinstance(e, ast.ArrayList):
        return f"[{', '.join(map(show, e.elems))}]"
    raise AssertionError(e)


def show_type(t: ast.TypeExpr) -> str:
    if isinstance(t, ast.NamedType):
        return t.name
    if isinstance(t, ast.PtrType):
        return f"*{t.space} {show_type(t.elem)}"
    if isinstance(t, ast.ArrayType):
        return f"[{show_type(t.elem)}; {', '.join(map(show, t.dims))}]"
    assert isinstance(t, ast.TensorMapType)
    return f"tensormap<{show_type(t.elem)}; {', '.join(map(show, t.box))}>"


def errors(src: str) -> list[tuple[int, int, str, str]]:
    with pytest.raises(CompileError) as ei:
        parse(src)
    return [(d.span.line, d.span.col, d.check, d.message) for d in ei.value.diagnostics if d.span is not None]


def span(n: ast.Node) -> tuple[int, int, int, int]:
    return n.span.line, n.span.col, n.span.end_line, n.span.end_col


# --------------------------------------------------------------------------------------------- grammar
def test_grammar_is_lalr_without_conflicts(caplog) -> None:
    from lark import Lark, logger

    logger.setLevel(logging.DEBUG)
    try:
        with caplog.at_level(logging.DEBUG, logger="lark"):
            Lark(grammar_text(), parser="lalr", lexer="basic", maybe_placeholders=True, debug=True)
    finally:
        logger.setLevel(logging.WARNING)
    assert not [r for r in caplog.records if "conflict" in r.getMessage().lower()]


# --------------------------------------------------------------------------------------------- lexical
def test_comments_are_skipped_and_allow_comments_collected() -> None:
    prog = parse(
        "// line\n/* block\n * more */ const A = 1; // irc: allow(self-cancel, barrier-divergence)\n"
        "/* not /* nested */ const B = 2;\n"
    )
    assert [i.name for i in prog.items] == ["A", "B"]
    assert prog.items[0].span.line == 3
    assert [(a.line, a.checks) for a in prog.allow_comments] == [(3, ("self-cancel", "barrier-divergence"))]


def test_identifiers_and_keywords() -> None:
    stmts = body("let _x1 = 1; let letter = 2; let inff = 3; let step_size = 4;")
    assert [s.name for s in stmts] == ["_x1", "letter", "inff", "step_size"]
    assert errors("kernel k() { let let = 1; }")[0][:3] == (1, 18, "parse-error")


@pytest.mark.parametrize(
    "text,value,suffix",
    [
        ("42", 42, None),
        ("0x2A", 42, None),
        ("0X2a", 42, None),
        ("0b101010", 42, None),
        ("1_000_000", 1000000, None),
        ("7u64", 7, "u64"),
        ("7i32", 7, "i32"),
        ("0xFFu32", 255, "u32"),
        ("0b1_0i64", 2, "i64"),
        ("0x1f16", 0x1F16, None),
    ],
)
def test_integer_literals(text: str, value: int, suffix: str | None) -> None:
    e = expr(text)
    assert isinstance(e, ast.IntLit) and (e.value, e.suffix, e.text) == (value, suffix, text)


@pytest.mark.parametrize(
    "text,value,suffix",
    [
        ("1.0", 1.0, None),
        ("1e-6", 1e-6, None),
        ("2.5e3", 2500.0, None),
        ("0.5f16", 0.5, "f16"),
        ("1.5bf16", 1.5, "bf16"),
        ("3f32", 3.0, "f32"),
        ("2.0f64", 2.0, "f64"),
        ("1_0.2_5", 10.25, None),
    ],
)
def test_float_literals(text: str, value: float, suffix: str | None) -> None:
    e = expr(text)
    assert isinstance(e, ast.FloatLit) and (e.value, e.suffix) == (value, suffix)


def test_inf_nan_and_negative_inf() -> None:
    assert math.isinf(expr("inf").value) and math.isnan(expr("nan").value)
    neg = expr("-inf")
    assert isinstance(neg, ast.Unary) and neg.op == "-" and isinstance(neg.operand, ast.FloatLit)


@pytest.mark.parametrize(
    "text,col,message",
    [
        (".5", 27, "float literal `.5` needs a digit before the `.`"),
        ("7u8", 27, "invalid suffix `u8` on numeric literal `7u8`"),
        ("0b102", 27, "invalid binary literal `0b102`: binary digits are 0 and 1"),
        ("1.5e", 27, "invalid numeric literal `1.5e`"),
        ("0x", 27, "numeric literal `0x` has no digits"),
        ("1 $ 2", 29, "unexpected character `$`"),
    ],
)
def test_bad_literals_and_characters(text: str, col: int, message: str) -> None:
    errs = errors(f"kernel k() {{\n    let v = {text}; }}")
    assert errs[0] == (2, col - 14, "parse-error", message)


def test_range_dots_are_not_floats() -> None:
    (loop,) = body("for i in 0..8 { }")
    assert isinstance(loop, ast.ForStmt) and (loop.start.value, loop.end.value) == (0, 8)


def test_unterminated_block_comment_is_one_error() -> None:
    assert errors("kernel k() { /* never closed\n let x = 1; }") == [
        (1, 14, "parse-error", "unterminated block comment")
    ]


# --------------------------------------------------------------------------------------------- items
def test_const_and_param_items() -> None:
    prog = parse("const LOG2E: f32 = 1.44;\nparam HEAD_DIM: u32 = 128;\nconst N = 4;")
    a, b, c = prog.items
    assert isinstance(a, ast.ConstItem) and not a.spec and a.name == "LOG2E" and show_type(a.type) == "f32"
    assert isinstance(b, ast.ConstItem) and b.spec and b.init.value == 128
    assert c.type is None
    assert span(a) == (1, 1, 1, 25)
    assert (a.name_span.col, a.name_span.end_col) == (7, 12)


def test_fn_and_kernel_items() -> None:
    prog = parse(
        "fn warp_sum(x: f32, y: *global f32,) -> f32 { return x; }\n"
        "fn nothing() { }\nkernel k(out: *global f32, m: tensormap<f16; 64, 32>) { }"
    )
    f, g, k = prog.items
    assert isinstance(f, ast.FnItem) and not f.kernel and [p.name for p in f.params] == ["x", "y"]
    assert show_type(f.ret) == "f32" and show_type(f.params[1].type) == "*global f32"
    assert g.params == [] and g.ret is None
    assert k.kernel and show_type(k.params[1].type) == "tensormap<f16; 64, 32>"


def test_attributes() -> None:
    prog = parse(
        "@launch(block = 128)\n@launch(block = (16, 8, 1))\n@max_registers(64)\n@min_blocks_per_sm(2)\n"
        "@cluster(2, 1, 1)\n@allow(barrier-divergence, self-cancel)\nkernel k() { }"
    )
    attrs = prog.items[0].attrs
    assert [a.name for a in attrs] == [
        "launch",
        "launch",
        "max_registers",
        "min_blocks_per_sm",
        "cluster",
        "allow",
    ]
    assert attrs[0].args[0].key == "block" and attrs[0].args[0].value.value == 128
    assert [d.value for d in attrs[1].args[0].value] == [16, 8, 1]
    assert [a.value.value for a in attrs[4].args] == [2, 1, 1]
    from irc.frontend.kdsl.attrs import check_name

    assert [check_name(a.value) for a in attrs[5].args] == ["barrier-divergence", "self-cancel"]


def test_types() -> None:
    stmts = body(
        "let a: *shared mbarrier = x; let b: [f32; 8] = y; let c: *global *global u32 = z;let d: bool = w;"
    )
    assert [show_type(s.type) for s in stmts] == [
        "*shared mbarrier",
        "[f32; 8]",
        "*global *global u32",
        "bool",
    ]


# --------------------------------------------------------------------------------------------- statements
def test_let_and_var_forms() -> None:
    s = body("let a = 1; let b: f32 = 2.0; var c: f32 = 0.0; var d = 0u32; var e: f32;")
    assert [(x.name, x.mutable, x.type is not None, x.init is not None) for x in s] == [
        ("a", False, False, True),
        ("b", False, True, True),
        ("c", True, True, True),
        ("d", True, False, True),
        ("e", True, True, False),
    ]


@pytest.mark.parametrize("op", ["=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>="])
def test_assignment_operators(op: str) -> None:
    (s,) = body(f"acc {op} e;")
    assert isinstance(s, ast.AssignStmt) and s.op == (op[:-1] or "=") and s.target.ident == "acc"


def test_indexed_stores() -> None:
    a, b, c = body("p[i] = e; tile[r, c] = e; frag[3] = e;")
    assert show(a.target) == "p[i]" and show(b.target) == "tile[r, c]" and show(c.target) == "frag[3]"


def test_shared_declarations() -> None:
    a, b, c, d = body(
        "shared tile: [f16; 16, 128]; shared t2: [f16; 64, 64] align 128;"
        "shared bar: mbarrier; shared bars: [mbarrier; 4];"
    )
    assert isinstance(a, ast.SharedStmt) and show_type(a.type) == "[f16; 16, 128]" and a.align is None
    assert b.align.value == 128 and show_type(c.type) == "mbarrier" and show_type(d.type) == "[mbarrier; 4]"
    assert (
        errors("kernel k() { shared t: [f32; 4] aligned 16; }")[0][3]
        == "expected `align`, `dynamic` or `;`, found `aligned`"
    )


def test_if_else_chain() -> None:
    (s,) = body("if a { } else if b { x(); } else { y(); }")
    assert (
        isinstance(s, ast.IfStmt) and isinstance(s.else_, ast.IfStmt) and isinstance(s.else_.else_, ast.Block)
    )
    (t,) = body("if a { }")
    assert t.else_ is None


def test_loops() -> None:
    a, b, c, d, e = body(
        "for i in a..b { } for i in 0..n step 4 { } for d in [16, 8, 4, 2, 1] { }"
        "unroll for j in 0..8 { } while c { break; continue; }"
    )
    assert isinstance(a, ast.ForStmt) and not a.unroll and a.step is None
    assert b.step.value == 4
    assert isinstance(c, ast.ForListStmt) and [x.value for x in c.items] == [16, 8, 4, 2, 1]
    assert d.unroll and d.var == "j"
    assert isinstance(e, ast.WhileStmt) and [type(x) for x in e.body.stmts] == [
        ast.BreakStmt,
        ast.ContinueStmt,
    ]


def test_return_call_and_block_statements() -> None:
    a, b, c, d = body("return; return e; f(a, b); { let x = 1; }")
    assert a.value is None and b.value.ident == "e"
    assert isinstance(c, ast.ExprStmt) and c.expr.callee == "f" and len(c.expr.args) == 2
    assert isinstance(d, ast.Block) and len(d.stmts) == 1


def test_expression_statement_must_be_a_call() -> None:
    (err,) = errors("kernel k() {\n  x == 1;\n}")
    assert err == (2, 3, "parse-error", "this expression is not a statement: only calls can stand alone")


# --------------------------------------------------------------------------------------------- expressions
@pytest.mark.parametrize(
    "src,expected",
    [
        ("a || b && c", "(a || (b && c))"),
        ("a && b | c", "(a && (b | c))"),
        ("a | b ^ c", "(a | (b ^ c))"),
        ("a ^ b & c", "(a ^ (b & c))"),
        ("a & b == c", "(a & (b == c))"),
        ("a == b < c", "(a == (b < c))"),
        ("a < b << c", "(a < (b << c))"),
        ("a << b + c", "(a << (b + c))"),
        ("a + b * c", "(a + (b * c))"),
        ("a - b - c", "((a - b) - c)"),
        ("a / b % c", "((a / b) % c)"),
        ("-a * b", "((-a) * b)"),
        ("-x as f32", "(-(x as f32))"),
        ("!a as bool", "(!(a as bool))"),
        ("x as u32 as f32", "((x as u32) as f32)"),
        ("x as u32 < y", "((x as u32) < y)"),
        ("p as *global u32", "(p as *global u32)"),
        ("c ? a : b ? d : e", "(c ? a : (b ? d : e))"),
        ("a || b ? x + 1 : y", "((a || b) ? (x + 1) : y)"),
        ("~f(2)[1]", "(~f(2)[1])"),
        ("a.x[1]", "a.x[1]"),
        ("&tile[r, c] + 1", "((&tile[r, c]) + 1)"),
        ("&bar", "(&bar)"),
        ("tid.x + ctaid.y * ntid.z", "(tid.x + (ctaid.y * ntid.z))"),
        ("(a + b) * c", "((a + b) * c)"),
        ("f(a, g(b))[2]", "f(a, g(b))[2]"),
        ("[0.0; 8]", "[0.0; 8]"),
        ("[a, b, c, d]", "[a, b, c, d]"),
        ("[1, 2,]", "[1, 2]"),
        ("-inf", "(-inf)"),
        ("a != b >= c", "(a != (b >= c))"),
        ("a >> 1 & 3", "((a >> 1) & 3)"),
    ],
)
def test_precedence(src: str, expected: str) -> None:
    assert show(expr(src)) == expected


def test_only_names_can_be_called() -> None:
    assert errors("kernel k() { let v = a.x(2); }") == [
        (1, 22, "parse-error", "only functions and intrinsics can be called, by name")
    ]


def test_spans_are_exact() -> None:
    prog = parse("kernel k(o: *global f32) {\n    let v = a + b * 2.0;\n    o[0] = -v;\n}\n")
    let, store = prog.items[0].body.stmts
    assert span(let) == (2, 5, 2, 25)
    assert span(let.init) == (2, 13, 2, 24)
    assert span(let.init.rhs) == (2, 17, 2, 24)
    assert (let.init.op_span.col, let.init.op_span.end_col) == (15, 16)
    assert span(store.target) == (3, 5, 3, 9) and span(store.value) == (3, 12, 3, 14)
    assert span(prog.items[0]) == (1, 1, 4, 2)
    assert prog.items[0].span.file == "t.kdsl"


# --------------------------------------------------------------------------------------------- errors
def test_parse_error_lists_expected_tokens() -> None:
    assert errors("kernel k() { let x = (1 + 2; }") == [(1, 28, "parse-error", "expected `)`, found `;`")]
    assert errors("kernel k(a: i32,, b: u32) { }") == [
        (1, 17, "parse-error", "expected one of `)`, identifier, found `,`")
    ]
    assert errors("kernel k() {") == [(1, 12, "parse-error", "unclosed `{`: the file ends before its `}`")]
    assert errors("let x = 1;")[0][3] == (
        "expected one of `@`, `const`, `fn`, `kernel`, `param`, `static_assert`, end of file, found `let`"
    )


def test_missing_semicolon_has_a_help_line() -> None:
    with pytest.raises(CompileError) as ei:
        parse("kernel k() {\n  let x = 1\n  let y = 2;\n}")
    (d,) = ei.value.diagnostics
    assert (d.span.line, d.span.col) == (3, 3) and d.message.startswith("expected one of `(`, `.`, `;`")
    assert d.help == "is a `;` missing after `1` on line 2?"


def test_every_syntax_error_is_reported_without_cascades() -> None:
    src = """kernel k() {
  let x = 1
  let y = 2;
  y = ;
  if x = 3 { foo(); }
  let z = 1 +;
  ok(z);
}
kernel j(a: i32,, b: u32) { }
fn f() -> { }
}
kernel fine() { let q = 1; }
"""
    assert [e[:2] for e in errors(src)] == [(3, 3), (4, 7), (5, 8), (6, 14), (9, 17), (10, 11), (11, 1)]


def test_too_many_errors_stops_with_a_note() -> None:
    with pytest.raises(CompileError) as ei:
        parse("kernel k() {\n" + "let = ;\n" * 300 + "}")
    diags = ei.value.diagnostics
    assert len(diags) == 101 and diags[-1].severity.value == "note"


# --------------------------------------------------------------------------------------------- depth, size
def test_thousand_nested_parentheses_and_blocks() -> None:
    n = 1000
    p = parse(
        "kernel k(o: *global i32) { o[0] = " + "(" * n + "1" + ")" * n + "; " + "{" * n + "}" * n + " }"
    )
    analyze(p)
    q = parse("kernel k(o: *global i32, c: bool) { " + "if c { " * n + "o[0] = 1;" + " }" * n + " }")
    analyze(q)
    r = parse("kernel k(o: *global i32) { o[0] = " + "-" * n + "1; }")
    assert analyze(r).values[r.items[0].body.stmts[0].value] == 1


def test_long_operator_chain() -> None:
    src = "kernel k(o: *global i32, x: i32) { o[0] = x" + " + x" * 20000 + "; }"
    analyze(parse(src))


@pytest.mark.slow
def test_one_megabyte_file() -> None:
    import sys

    sys.path.insert(0, str(Path(__file__).parents[1] / "bench"))
    from bench_frontend import generate

    src = generate(33_000)
    assert len(src) > 1_000_000
    typed = analyze(parse_kdsl(src, "big.kdsl"))
    assert "big" in typed.kernels


def test_example_kernels_parse() -> None:
    files = sorted(DATA.glob("*.kdsl"))
    assert len(files) >= 6
    for f in files:
        prog = parse_kdsl(f.read_text(), str(f))
        assert any(isinstance(i, ast.FnItem) and i.kernel for i in prog.items)


# --------------------------------------------------------------------------------------------- fuzzing
_TOKENS = [
    "kernel",
    "fn",
    "k",
    "(",
    ")",
    "{",
    "}",
    "[",
    "]",
    ";",
    ",",
    ":",
    "=",
    "+",
    "-",
    "*",
    "/",
    "<",
    ">",
    "<<",
    "..",
    ".",
    "let",
    "var",
    "if",
    "else",
    "for",
    "in",
    "while",
    "return",
    "break",
    "x",
    "y",
    "1",
    "2.0",
    "0x1F",
    "f32",
    "*global",
    "shared",
    "as",
    "&",
    "&&",
    "?",
    "@launch",
    "inf",
    "unroll",
    "step",
    "[0.0; 4]",
    "tid.x",
    "barrier()",
    "/*",
    "*/",
    "//",
    "\n",
    "$",
    "'",
    '"',
    "0b2",
    "1e",
    ".5",
    "bitcast",
    "static_assert",
    '"msg"',
    "readonly",
    "dynamic",
    "unroll(4)",
]


def _outcome(src: str) -> None:
    try:
        analyze(parse_kdsl(src, "fuzz.kdsl"))
    except CompileError as e:
        assert e.diagnostics and all(d.check for d in e.diagnostics)


@given(st.lists(st.sampled_from(_TOKENS), max_size=60))
def test_fuzz_random_token_streams(tokens: list[str]) -> None:
    _outcome(" ".join(tokens))


@given(st.text(max_size=200))
def test_fuzz_random_text(text: str) -> None:
    _outcome(text)


_VALID = sorted(DATA.glob("*.kdsl"))


@given(st.sampled_from(_VALID), st.integers(0, 2**32), st.integers(1, 6))
def test_fuzz_mutations_of_valid_programs(path: Path, seed: int, n: int) -> None:
    _outcome(_mutate(path.read_text(), random.Random(seed), n))


def _mutate(src: str, rng: random.Random, n: int) -> str:
    for _ in range(n):
        i = rng.randrange(len(src) + 1)
        how = rng.randrange(4)
        if how == 0:
            src = src[:i] + src[i + rng.randrange(1, 8) :]
        elif how == 1:
            src = src[:i] + rng.choice(_TOKENS) + src[i:]
        elif how == 2:
            j = rng.randrange(len(src) + 1)
            src = src[:i] + src[j : j + rng.randrange(1, 40)] + src[i:]
        else:
            src = src[:i] + rng.choice("(){}[];,.=+-*&|<>!~?:0123456789abxyz \n") + src[i:]
    return src


@pytest.mark.fuzz
@given(st.sampled_from(_VALID), st.integers(0, 2**32), st.integers(1, 30))
def test_fuzz_mutations_long(path: Path, seed: int, n: int) -> None:
    _outcome(_mutate(path.read_text(), random.Random(seed), n))
