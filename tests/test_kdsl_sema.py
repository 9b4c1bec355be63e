"""Semantic analysis of .kdsl: one test per diagnostic check with exact positions, literal typing, constants,
params and defines, attributes, scopes, definite assignment, every intrinsic of the table, recursion, many
errors per file without cascades, and fuzzing of well-formed but semantically random programs."""

from __future__ import annotations

import random
import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from irc.diagnostics import CompileError, Severity
from irc.frontend.kdsl import analyze, ast, parse_kdsl
from irc.frontend.kdsl.intrinsics import FAMILIES, INTRINSICS, TARGETS, Arg, Intrinsic
from irc.frontend.kdsl.types import F32, I32, U32, U64, Ptr, RegArray, Scalar

ROOT = Path(__file__).parents[1]
DATA = ROOT / "tests" / "data" / "kdsl"


# --------------------------------------------------------------------------------------------- helpers
def check(src: str, arch: str = "sm_80", defines=None):
    return analyze(parse_kdsl(src, "t.kdsl"), defines=defines, arch=arch)


def diags(src: str, arch: str = "sm_80", defines=None) -> list[tuple]:
    """(line, col, check, message) of every diagnostic (errors and warnings) of a failing program."""
    with pytest.raises(CompileError) as ei:
        check(src, arch, defines)
    return [
        (d.span.line, d.span.col, d.check, d.message) if d.span else (None, None, d.check, d.message)
        for d in ei.value.diagnostics
    ]


def kernel(body: str, params: str = "o: *global f32, n: u32") -> str:
    """A kernel whose body starts on line 2."""
    return f"kernel k({params}) {{\n{body}\n}}\n"


def find(prog: ast.Program, cls, pred=lambda n: True):
    """All nodes of class `cls` in the program (iterative walk)."""
    out, stack = [], [prog]
    while stack:
        n = stack.pop()
        if isinstance(n, cls) and pred(n):
            out.append(n)
        if isinstance(n, list):
            stack.extend(n)
        elif isinstance(n, ast.Node):
            for name in _fields(n):
                stack.append(getattr(n, name))
    return out


def _fields(n: ast.Node) -> list[str]:
    return [f for f in n.fields if f != "span"]


def typed_let(src_body: str, name: str, params: str = "o: *global f32, n: u32"):
    prog = parse_kdsl(kernel(src_body, params), "t.kdsl")
    tp = analyze(prog)
    (let,) = find(prog, ast.LetStmt, lambda s: s.name == name)
    return tp, let


# --------------------------------------------------------------------------------------------- examples
EXAMPLES = sorted(DATA.glob("*.kdsl")) + sorted((ROOT / "examples").glob("*.kdsl"))


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_example_kernels_type_check(path: Path) -> None:
    # tests/data/kdsl names its target (default sm_80); examples/ may use anything up to Blackwell
    arch = (
        "sm_90a"
        if "sm90a" in path.name
        else "sm_100a"
        if "sm100a" in path.name
        else "sm_80"
        if path.parent == DATA
        else "sm_100a"
    )
    tp = analyze(parse_kdsl(path.read_text(), str(path)), arch=arch)
    assert tp.kernels and not [w for w in tp.warnings if w.is_error]
    for e, t in tp.types.items():  # every expression has a concrete type
        assert t is not None and "literal" not in str(t), (e, t)


def test_required_example_set_exists() -> None:
    names = {p.stem for p in DATA.glob("*.kdsl")}
    assert {
        "softmax_row",
        "vector_add",
        "block_reduce",
        "online_softmax",
        "mma_cp_async_sm80",
        "tma_mbarrier_sm90a",
    } <= names


# --------------------------------------------------------------------------------------------- one per check
def test_name_error_unknown_and_redeclared() -> None:
    src = kernel("    let x = 1.0;\n    let x = 2.0;\n    o[0] = y;\n    foo(1);\n    let t: float = 1.0;")
    assert diags(src) == [
        (3, 9, "name-error", "`x` is already declared in this block"),
        (4, 12, "name-error", "unknown name `y`"),
        (5, 5, "name-error", "unknown function `foo`"),
        (6, 12, "name-error", "unknown type `float`"),
    ]


def test_name_error_duplicate_items_and_intrinsic_names() -> None:
    src = "const A = 1;\nconst A = 2;\nfn max(a: f32) -> f32 { return a; }\nkernel k() { }\n"
    assert diags(src) == [
        (2, 7, "name-error", "`A` is defined twice"),
        (3, 4, "name-error", "`max` is an intrinsic and cannot be redefined"),
    ]


def test_type_error_names_both_types() -> None:
    src = kernel("    let a = 1.0 * 2.0;\n    let b = n + 1;\n    let c = a + b;", "o: *global f32, n: i32")
    ((line, col, chk, msg),) = diags(src)
    assert (line, col, chk, msg) == (4, 13, "type-error", "mismatched types: `f32` and `i32`")


@pytest.mark.parametrize(
    "stmt,col,message",
    [
        ("if n { }", 8, "the condition of `if` must be `bool`, found `u32`"),
        ("while 1 { }", 11, "the condition of `while` must be `bool`, found integer literal"),
        ("let b = o + 1.5;", 17, "pointer arithmetic needs an integer offset, found float literal"),
        ("let c = true + 1;", 13, "mismatched types: `bool` and integer literal"),
        ("let d = n as bool;", 13, "cannot convert `u32` to `bool` with `as`"),
        ("o[0] = n;", 12, "expected `f32`, found `u32`"),
        ("let e = -n;", 13, "`-` needs a signed integer or a float, found `u32`"),
        ("let f = 1.0 % 2.0;", 13, "`%` needs integer operands, found float literal"),
        ("let g = o * 2;", 13, "`*` is not defined on `*global f32` and integer literal"),
        ("let h = !n;", 13, "`!` needs `bool`, found `u32`"),
        ("let i = n && true;", 13, "`&&` needs `bool` operands, found `u32`"),
        ("let j = 1.5 as u32 as *global f32;", 13, "cannot convert `u32` to `*global f32` with `as`"),
        ("let l = n.x;", 13, "`u32` has no field `.x`"),
        ("let m = tid.w;", 13, "`tid` has no component `.w` (use .x, .y or .z)"),
        ("let p = tid;", 13, "`tid` is a vector: use `tid.x`, `tid.y` or `tid.z`"),
        ("let q = n[0];", 13, "cannot index a value of type `u32`"),
        ("n = 1;", 5, "cannot assign to `n`: it is a parameter"),
        ("let r = 1; r = 2;", 16, "cannot assign to `r`: it is a `let` binding"),
        ("break;", 5, "`break` outside of a loop"),
        ("return 1;", 12, "a kernel returns no value"),
        ("let s;", 5, "`let s` needs a type or a value"),
        ("let u = &n;", 13, "`&` applies to shared arrays, mbarriers and pointer elements (`&p[i]`)"),
        (
            "let v = shfl_xor(1.0f16, 1);",
            22,
            "argument `v` of `shfl_xor` must be `f32`, `f64`, `i32`, `i64`, `u32`, `u64`, found `f16`",
        ),
        ("let w = max(1.0, n);", 17, "expected `u32`, found float literal"),
        ("let x = sqrt(n);", 18, "argument `x` of `sqrt` must be `bf16`, `f16`, `f32`, `f64`, found `u32`"),
        (
            "let y = mma_m16n8k16_f16([0u32; 4], [0u32; 2], [0.0; 8]);",
            52,
            "argument `c` of `mma_m16n8k16_f16` must be `[f32; 4]`, found `[f32; 8]`",
        ),
        ("barrier(1, 2, 3);", 5, "`barrier` takes 0 to 2 arguments but 3 were given"),
        ("for i in 0..n { i = 1; }", 21, "cannot assign to `i`: it is a loop variable"),
    ],
)
def test_type_errors(stmt: str, col: int, message: str) -> None:
    errs = diags(kernel("    " + stmt))
    assert errs[0] == (2, col, "type-error", message), errs


def test_const_error_literals_and_constants() -> None:
    src = (
        "const A: i32 = 3000000000;\nconst B = C + 1;\nconst C = B;\nconst D: u32 = -1;\n"
        "kernel k(o: *global f32, n: u32) {\n    const_thing();\n}\n"
    )
    errs = [e for e in diags(src) if e[2] == "const-error"]
    assert errs == [
        (1, 16, "const-error", "literal `3000000000` does not fit in `i32`"),
        (2, 7, "const-error", "`B` is defined in terms of itself: B -> C -> B"),
        (4, 16, "const-error", "constant `-1` does not fit in `u32`"),
    ]


@pytest.mark.parametrize(
    "stmt,col,message",
    [
        ("var arr = [0.0; 4]; o[0] = arr[n];", 36, "a register array index must be a compile-time constant"),
        ("var arr = [0.0; 4]; o[0] = arr[4];", 36, "index 4 is out of bounds for `[f32; 4]`"),
        ("let y = 1 / 0;", 13, "division by zero in a constant expression"),
        ("let y = 1u32 - 2u32;", 13, "`-` overflows `u32` (the result -1 is outside 0..4294967295)"),
        ("let y = 1 << 40;", 13, "constant `1099511627776` does not fit in `i32`"),
        ("let y = 1u32 << 40;", 13, "shift by 40 is out of range for `u32`"),
        ("unroll for i in 0..n { }", 24, "the bounds of `unroll for` must be a compile-time constant"),
        ("let z = 1.0e39f32;", 13, "literal `1.0e39f32` does not fit in `f32`"),
        (
            "let z = 300u32 * 20000000u32;",
            13,
            "`*` overflows `u32` (the result 6000000000 is outside 0..4294967295)",
        ),
        ("shared s: [f32; 4] align 3;", 30, "an alignment must be a power of two, found 3"),
        ("shared s: [f32; 0];", 21, "an array size must be a positive integer, found 0"),
        ("let w: [f32; n] = [0.0; 1];", 18, "an array size must be a compile-time constant"),
        ("let q = load_vec(o, 3);", 25, "argument `n` of `load_vec` must be one of 2, 4, found 3"),
        ("cp_async_wait(n);", 19, "argument `n` of `cp_async_wait` must be a compile-time constant"),
        ("barrier(1, 48);", 16, "argument `nthreads` of `barrier` must be a multiple of 32, found 48"),
        ("for i in 0..n step 0 { }", 24, "the step of a loop must be positive, found 0"),
        (
            "for d in [1, n] { }",
            18,
            "an element of a `for ... in [...]` list must be a compile-time constant",
        ),
    ],
)
def test_const_errors(stmt: str, col: int, message: str) -> None:
    errs = [e for e in diags(kernel("    " + stmt)) if e[2] == "const-error"]
    assert errs[0] == (2, col, "const-error", message), errs


def test_const_error_cp_async_bytes() -> None:
    src = kernel("    shared s: [f32; 16];\n    cp_async(&s[0], &o[0], 12);")
    assert diags(src) == [
        (3, 28, "const-error", "argument `bytes` of `cp_async` must be one of 4, 8, 16, found 12")
    ]


def test_recursion_names_the_cycle() -> None:
    src = (
        "fn a(x: i32) -> i32 { return b(x); }\n"
        "fn b(x: i32) -> i32 { if x > 0 { return a(x - 1); } return 0; }\n"
        "fn c() { c(); }\nkernel k() { let v = a(1); c(); }\n"
    )
    assert diags(src) == [
        (1, 30, "recursion", "recursive call cycle: `a` -> `b` -> `a`"),
        (3, 10, "recursion", "recursive call cycle: `c` -> `c`"),
    ]


def test_limit_error_unroll_trips() -> None:
    assert diags(kernel("    unroll for i in 0..2000 { }\n    for d in [1, 2] { }")) == [
        (2, 5, "limit-error", "`unroll for` would make 2000 copies; the limit is 1024")
    ]
    check(kernel("    unroll for i in 0..1024 { }"))
    assert diags(kernel("    var a = [0.0; 2000];"))[0][2:] == (
        "limit-error",
        "register array of 2000 elements exceeds the limit of 1024",
    )


def test_uninitialized_at_the_read() -> None:
    src = kernel("""    var a: f32;
    var b: f32;
    var c: f32;
    var d: f32;
    var e: f32;
    if n > 0 { a = 1.0; b = 1.0; } else { a = 2.0; }
    o[0] = a;
    o[1] = b;
    for i in 0..n { c = 1.0; }
    o[2] = c;
    while true { d = 1.0; break; }
    o[3] = d;
    if n > 1 { return; } else { e = 3.0; }
    o[4] = e;
    var f: f32;
    f += 1.0;
    var g: [f32; 2];
    g[0] = 1.0;
    var h: f32;
    h = h + 1.0;
    o[5] = h;""")
    errs = diags(src)
    assert [(e[0], e[1], e[2]) for e in errs] == [
        (9, 12, "uninitialized"),
        (11, 12, "uninitialized"),
        (13, 12, "uninitialized"),
        (17, 5, "uninitialized"),
        (19, 5, "uninitialized"),
        (21, 9, "uninitialized"),
    ]
    assert errs[0][3] == "`b` is read before it is assigned on every path"


def test_definite_assignment_accepts_correct_code() -> None:
    check(
        kernel("""    var a: f32;
    if n > 0 { a = 1.0; } else if n > 5 { a = 2.0; } else { return; }
    o[0] = a;
    var b: f32;
    b = 2.0;
    for i in 0..n { o[i] = b; }
    var c: u32;
    while true { c = 1u32; if c > 0 { break; } }
    var d: f32;
    if true { d = 1.0; }
    o[1] = d;
    var e: f32;
    for i in 0..n {
        if i == 3 { continue; }
        e = 1.0;
        o[i] = e;
    }""")
    )


def test_unsupported_target_names_intrinsic_and_targets() -> None:
    src = kernel(
        """    shared t: [f16; 64, 64] align 128;
    shared b: mbarrier;
    mbarrier_init(&b, 1);
    tma_load(&t[0, 0], m, [0, 0], &b);
    let r = cluster_ctarank;
    tcgen05_fence_before();""",
        "m: tensormap<f16; 64, 64>",
    )
    assert diags(src) == [
        (5, 5, "unsupported-target", "`tma_load` requires sm_90 or newer; the target is sm_80"),
        (6, 13, "unsupported-target", "`cluster_ctarank` requires sm_90 or newer; the target is sm_80"),
        (
            7,
            5,
            "unsupported-target",
            "`tcgen05_fence_before` requires sm_100a or sm_103a; the target is sm_80",
        ),
    ]
    assert diags(src, arch="sm_90a") == [
        (
            7,
            5,
            "unsupported-target",
            "`tcgen05_fence_before` requires sm_100a or sm_103a; the target is sm_90a",
        )
    ]
    check(src, arch="sm_100a")
    assert diags("@cluster(2, 1, 1)\nkernel k() { }") == [
        (1, 1, "unsupported-target", "`@cluster` requires sm_90 or newer; the target is sm_80")
    ]


# --------------------------------------------------------------------------------------------- many errors
def test_many_errors_in_one_file_and_no_cascade() -> None:
    src = kernel("""    let h = undefined_thing + 1;
    let q = h * 2.0;
    o[0] = q + h;
    let z: u32 = h;
    let bad = 1.0 + n;
    if bad { }
    var u: f32;
    o[1] = u;
    o[2] = missing(h, q);""")
    assert [e[:3] for e in diags(src)] == [
        (2, 13, "name-error"),
        (6, 15, "type-error"),
        (9, 12, "uninitialized"),
        (10, 12, "name-error"),
    ]


def test_errors_in_several_functions_are_all_reported() -> None:
    src = (
        "fn f(x: f32) -> f32 { return x + 1u32; }\n"
        "fn g() -> i32 { }\n"
        "kernel k(o: *global f32) { o[0] = f(1); o[1] = g(); }\n"
        "kernel j() { nothing(); }\n"
    )
    assert [e[:3] for e in diags(src)] == [
        (1, 30, "type-error"),
        (2, 17, "type-error"),
        (3, 48, "type-error"),
        (4, 14, "name-error"),
    ]


# --------------------------------------------------------------------------------------------- literal typing
@pytest.mark.parametrize(
    "init,params,expected",
    [
        ("1", "", I32),
        ("1.5", "", F32),
        ("1 + 2", "", I32),
        ("n + 1", "n: u32", U32),
        ("1 + n", "n: u32", U32),
        ("x * 2", "x: f32", F32),
        ("0xFFFFFFFFu32", "", U32),
        ("7u64", "", U64),
        ("n as f32", "n: u32", F32),
        ("-2147483648", "", I32),
        ("1 < 2", "", Scalar("bool")),
        ("[0.0; 4]", "", RegArray(F32, 4)),
        ("[1, 2]", "", RegArray(I32, 2)),
        ("&s[1]", "", Ptr("shared", F32)),
        ("p + 1", "p: *global f32", Ptr("global", F32)),
        ("tid.x", "", U32),
        ("laneid * 2", "", U32),
        ("select(true, 1.0, x)", "x: f32", F32),
        ("fma(x, 2, 1)", "x: f32", F32),
        ("shfl_xor(x, 1)", "x: f32", F32),
        ("ballot(true)", "", U32),
        ("mbarrier_arrive(&b)", "", U64),
        ("unpack_half2(0u32)", "", RegArray(F32, 2)),
        ("load_vec(p, 4)", "p: *global f32", RegArray(F32, 4)),
        ("n << 1", "n: u64", U64),
        ("1 << n", "n: u64", I32),
    ],
)
def test_literal_typing_from_context(init: str, params: str, expected) -> None:
    body = f"    shared s: [f32; 8];\n    shared b: mbarrier;\n    let v = {init};"
    tp, let = typed_let(body, "v", params)
    assert tp.types[let.init] == expected
    assert tp.decls[let].type == expected


def test_literal_takes_declared_and_parameter_type() -> None:
    prog = parse_kdsl(
        "fn f(a: u64, b: f16) -> u64 { return a; }\n"
        "kernel k() { let x: u64 = 5000000000; let y = f(3, 1); let z: f16 = 0.5; }",
        "t.kdsl",
    )
    tp = analyze(prog)
    lits = {lit.text: tp.types[lit] for lit in find(prog, ast.IntLit) + find(prog, ast.FloatLit)}
    assert lits == {"5000000000": U64, "3": U64, "1": Scalar("f16"), "0.5": Scalar("f16")}


def test_constant_folding_and_values() -> None:
    tp = check(
        "const A: u32 = 1 << 4;\nconst B = A * 3 + 1;\nconst C: f32 = 1.0 / 3.0;\nconst D = -7 / 2;\n"
        "const E = -7 % 2;\nconst F: i32 = 3.9 as i32;\nconst G: u32 = (-1) as u32;\n"
        "const H: i32 = (-1e30) as i32;\nconst I: f16 = 65519.0;\nkernel k() { }"
    )
    assert tp.consts == {
        "A": 16,
        "B": 49,
        "C": float(np.float32(1 / 3)),
        "D": -3,
        "E": -1,
        "F": 3,
        "G": 0xFFFFFFFF,
        "H": -(2**31),
        "I": 65504.0,
    }
    assert diags("const X: u32 = N;\nkernel k(n: u32) { }")[0][2] == "name-error"
    assert diags("kernel k(n: u32) { }\nconst X: u32 = tid.x;") == [
        (2, 16, "const-error", "the value of `X` must be a compile-time constant")
    ]


def test_params_and_defines() -> None:
    src = "param N: u32 = 128;\nparam SCALE: f32 = 0.5;\nparam DEBUG: bool = false;\nkernel k() { }"
    assert check(src).consts == {"N": 128, "SCALE": 0.5, "DEBUG": False}
    assert check(src, defines={"N": 64, "SCALE": 2, "DEBUG": True}).consts == {
        "N": 64,
        "SCALE": 2.0,
        "DEBUG": True,
    }
    assert diags(src, defines={"M": 1}) == [
        (None, None, "const-error", "define `M` is not a `param` of this program")
    ]
    assert diags(src, defines={"N": -1}) == [
        (1, 7, "const-error", "`-D N=-1` is not a valid `u32` value for param `N`")
    ]
    assert diags(src, defines={"N": 1.5})[0][2] == "const-error"
    assert diags("const C = 1;\nkernel k() { }", defines={"C": 2}) == [
        (1, 7, "const-error", "define `C` is a `const`, not a `param`")
    ]


def test_param_used_in_shapes_and_attributes() -> None:
    src = "param B: u32 = 128;\n@launch(block = B)\nkernel k() { shared s: [f32; B / 32]; }"
    assert check(src).kernels["k"].block == (128, 1, 1)
    tp = check(src, defines={"B": 256})
    assert tp.kernels["k"].block == (256, 1, 1)
    assert tp.kernels["k"].shared[0].type.shape == (8,)


# --------------------------------------------------------------------------------------------- attributes
def test_attributes_are_validated() -> None:
    src = (
        "const B = 64;\n@launch(block = (B, 32, 1))\n@max_registers(300)\n@min_blocks_per_sm(2)\n"
        "@allow(barrier-divergence, foo-bar, 3)\n@bogus\nkernel k() { }\n"
        "@launch(block = 2000)\nkernel j() { }\n@min_blocks_per_sm(2)\nkernel m() { }\n"
        "@launch(block = 32)\nfn f() { }\n"
    )
    assert diags(src) == [
        (2, 9, "const-error", "a block has at most 1024 threads, found 2048"),
        (3, 16, "const-error", "`@max_registers` must be an integer in 1..255, found 300"),
        (5, 28, "name-error", "`foo-bar` is not a check `@allow` can waive; `@allow` ignores it"),
        (5, 37, "const-error", "`@allow` takes check names, e.g. `@allow(barrier-divergence)`"),
        (6, 1, "name-error", "unknown attribute `@bogus`"),
        (8, 17, "const-error", "the block size must be an integer in 1..1024, found 2000"),
        (10, 1, "const-error", "`@min_blocks_per_sm` needs `@launch(block = ...)`"),
        (12, 1, "const-error", "`@launch` applies to kernels only"),
    ]


def test_attribute_values_are_recorded() -> None:
    tp = check(
        "@launch(block = (16, 8))\n@max_registers(64)\n@min_blocks_per_sm(2)\n@cluster(2, 1, 1)\n"
        "@allow(self-cancel)\nkernel k() { }\n@allow(barrier-divergence)\nfn f() { }",
        arch="sm_90a",
    )
    k = tp.kernels["k"]
    assert (k.block, k.max_registers, k.min_blocks_per_sm, k.cluster, k.allow) == (
        (16, 8, 1),
        64,
        2,
        (2, 1, 1),
        frozenset({"self-cancel"}),
    )
    assert tp.fns["f"].allow == frozenset({"barrier-divergence"})


def test_unknown_allow_name_is_a_warning_only() -> None:
    tp = check("@allow(made-up)\nkernel k() { }")
    assert [(w.severity, w.check) for w in tp.warnings] == [(Severity.WARNING, "name-error")]


# --------------------------------------------------------------------------------------------- scopes
def test_shadowing_in_inner_blocks_and_params() -> None:
    prog = parse_kdsl(
        kernel("    let n = n * 2;\n    { let n = 1.0; o[0] = n; }\n    o[1] = n as f32;"), "t.kdsl"
    )
    tp = analyze(prog)
    uses = find(prog, ast.Name, lambda x: x.ident == "n")
    kinds = sorted({(u.span.line, tp.refs[u].kind, str(tp.refs[u].type)) for u in uses})
    assert kinds == [(2, "arg", "u32"), (3, "let", "f32"), (4, "let", "u32")]


def test_declarations_are_order_independent_at_top_level() -> None:
    tp = check(
        "kernel k(o: *global f32) { o[0] = f(A); }\nfn f(x: f32) -> f32 { return x * B; }\n"
        "const A: f32 = B * 2.0;\nconst B: f32 = 1.5;"
    )
    assert tp.consts == {"A": 3.0, "B": 1.5}


def test_shared_symbols_and_addresses() -> None:
    prog = parse_kdsl(
        kernel("""    shared tile: [f16; 16, 128] align 128;
    shared bar: mbarrier;
    shared bars: [mbarrier; 4];
    let a = &tile[1, 2];
    let b = &bar;
    let c = &bars[3];
    let d = &o[n];
    let e = &tile;
    tile[0, n] = 1.0;
    let f = tile[1, 1];"""),
        "t.kdsl",
    )
    tp = analyze(prog)
    got = {s.name: str(tp.decls[s].type) for s in find(prog, ast.LetStmt)}
    assert got == {
        "a": "*shared f16",
        "b": "*shared mbarrier",
        "c": "*shared mbarrier",
        "d": "*global f32",
        "e": "*shared f16",
        "f": "f16",
    }
    k = tp.kernels["k"]
    assert [(s.name, str(s.type)) for s in k.shared] == [
        ("tile", "[f16; 16, 128]"),
        ("bar", "mbarrier"),
        ("bars", "[mbarrier; 4]"),
    ]
    assert k.shared[0].type.align == 128


def test_shared_misuse() -> None:
    src = kernel("""    shared tile: [f32; 4, 4];
    shared bar: mbarrier;
    let a = tile;
    let b = bar;
    let c = tile[1];
    mbarrier_init(bar, 1);
    shared x: f32;""")
    assert [e[:3] for e in diags(src)] == [
        (4, 13, "type-error"),
        (5, 13, "type-error"),
        (6, 13, "type-error"),
        (7, 19, "type-error"),
        (8, 15, "type-error"),
    ]


def test_register_arrays_in_unrolled_loops() -> None:
    prog = parse_kdsl(
        kernel("""    var acc = [0.0; 8];
    unroll for i in 0..8 { acc[i] = acc[i] + 1.0; }
    for d in [0, 2, 4] { acc[d + 1] = 2.0; }
    unroll for j in 0..4 { acc[j * 2] = 0.0; }"""),
        "t.kdsl",
    )
    tp = analyze(prog)
    assert len(tp.const_index_checks) == 2 and {n for _, n in tp.const_index_checks} == {8}
    assert diags(kernel("    var acc = [0.0; 4];\n    unroll for i in 0..8 { acc[i] = 1.0; }")) == [
        (3, 32, "const-error", "index `i` reaches 4, out of bounds for `[f32; 4]`")
    ]


def test_pointer_tables_and_casts() -> None:
    tp, let = typed_let(
        "    let row = tables[n] + 4;\n    let addr = row as u64;",
        "row",
        "tables: *global *global f32, n: u32",
    )
    assert str(tp.types[let.init]) == "*global f32"


# --------------------------------------------------------------------------------------------- intrinsics
def _arg_expr(k: Arg, tvars: dict, lvars: dict) -> str:
    """A valid argument for parameter kind `k`, using the variables that `_env` declares."""
    if k.kind == "scalar":
        name = tvars.get(k.var) if k.var else None
        if name is None:
            allowed = sorted(k.allowed or {"f32"})
            name = "f32" if "f32" in allowed else "u32" if "u32" in allowed else allowed[0]
            if k.var:
                tvars[k.var] = name
        if k.values or k.const:
            v = min(k.values) if k.values else 0
            if k.binds:
                lvars[k.binds] = v
            return f"{v}{'' if name == 'bool' else name}"
        if k.multiple_of:
            return f"{k.multiple_of}{name}"
        return f"v_{name}"
    if k.kind == "ptr":
        elem = tvars.get(k.var) if k.var else None
        if elem is None:
            elem = (
                "mbarrier"
                if k.allowed == {"mbarrier"}
                else (
                    "f16"
                    if not k.allowed or "f16" in k.allowed
                    else "f32"
                    if "f32" in k.allowed
                    else sorted(k.allowed)[0]
                )
            )
            if k.var:
                tvars[k.var] = elem
        if elem == "mbarrier":
            return "&bar"
        return f"g_{elem}" if "global" in k.spaces else f"&s_{elem}[0]"
    if k.kind == "array":
        elem = next(iter(k.allowed)) if k.allowed else tvars.get(k.var, "f32")
        n = k.length if isinstance(k.length, int) else min(k.lengths)
        if isinstance(k.length, str):
            lvars[k.length] = n
        return f"a_{elem}_{n}"
    if k.kind == "tensormap":
        tvars[k.var] = "f16"
        lvars["R"] = 2
        return "tm"
    return "[0, 0]"


def _env(call: str) -> str:
    decls = ["    shared bar: mbarrier;"]
    for t in ("bool", "i32", "u32", "i64", "u64", "f16", "bf16", "f32", "f64"):
        zero = "false" if t == "bool" else f"0{t}"
        decls.append(f"    let v_{t} = {zero};")
        if t != "bool":
            decls.append(f"    shared s_{t}: [{t}; 64] align 128;")
            for n in (1, 2, 4, 8):
                decls.append(f"    let a_{t}_{n} = [{zero}; {n}];")
    params = ", ".join(
        f"g_{t}: *global {t}" for t in ("i32", "u32", "i64", "u64", "f16", "bf16", "f32", "f64")
    )
    return (
        f"kernel k({params}, tm: tensormap<f16; 64, 64>) {{\n"
        + "\n".join(decls)
        + f"\n    let r = {call};\n}}\n"
    )


def _valid_call(intr: Intrinsic) -> tuple[str, dict, dict]:
    tvars: dict = {}
    lvars: dict = {}
    args = [_arg_expr(k, tvars, lvars) for k in intr.args]
    return f"{intr.name}({', '.join(args)})", tvars, lvars


def _expected_ret(intr: Intrinsic, tvars: dict, lvars: dict) -> str:
    r = intr.ret
    if r.kind == "void":
        return "()"
    if r.kind == "scalar":
        return r.name
    if r.kind == "var":
        return tvars[r.name]
    n = r.length if isinstance(r.length, int) else lvars[r.length]
    return f"[{tvars.get(r.name, r.name)}; {n}]"


@pytest.mark.parametrize("name", sorted(INTRINSICS))
def test_every_intrinsic_signature(name: str) -> None:
    intr = INTRINSICS[name]
    call, tvars, lvars = _valid_call(intr)
    src = _env(call).replace("    let r = ", "    ") if intr.ret.kind == "void" else _env(call)
    prog = parse_kdsl(src, "t.kdsl")
    tp = analyze(prog, arch="sm_100a")
    (c,) = find(prog, ast.Call, lambda x: x.callee == name)
    assert tp.calls[c] is intr
    assert str(tp.types[c]) == _expected_ret(intr, tvars, lvars)
    # below its minimum target: unsupported-target naming the intrinsic and both targets
    for arch in TARGETS:
        if arch not in FAMILIES[intr.target] and arch in ("sm_80", "sm_90a", "sm_120a"):
            errs = diags(src, arch=arch)
            assert (
                errs[0][2] == "unsupported-target"
                and f"`{name}` requires" in errs[0][3]
                and arch in errs[0][3]
            )
    # a missing required argument (or one too many) is a type-error, not a traceback
    bad = call.replace(f"{name}(", f"{name}(v_f32, ", 1) if len(intr.args) == 0 else f"{name}()"
    if len(intr.args) - intr.optional == 0:
        bad = f"{name}({', '.join(['v_u32'] * (len(intr.args) + 1))})"
    errs = diags(_env(bad), arch="sm_100a")
    assert any(e[2] == "type-error" and "takes" in e[3] for e in errs), errs


def test_intrinsic_table_flags() -> None:
    assert INTRINSICS["barrier"].barrier and INTRINSICS["shfl_xor"].collective
    assert INTRINSICS["mma_m16n8k16_f16"].collective and INTRINSICS["ldmatrix_x4"].collective
    assert INTRINSICS["exp2"].pure and not INTRINSICS["atomic_add"].pure
    assert INTRINSICS["tma_load"].target == "sm_90" and INTRINSICS["tcgen05_mma_f16"].target == "sm_100a"
    assert INTRINSICS["cp_async"].target == "sm_80" and INTRINSICS["mbarrier_try_wait"].target == "sm_90"
    spec_names = (
        "min max abs fma sqrt rsqrt rcp exp2 log2 exp log sin cos tanh floor ceil trunc round select "
        "popc clz barrier syncwarp fence_block fence_gpu fence_system shfl_down shfl_up shfl_xor shfl_idx "
        "vote_all vote_any ballot activemask elect_one atomic_add atomic_min atomic_max atomic_and "
        "atomic_or atomic_xor atomic_exch atomic_cas load_vec store_vec pack_half2 unpack_half2 cp_async "
        "cp_async_commit cp_async_wait mbarrier_init mbarrier_arrive mbarrier_test_wait mbarrier_wait "
        "mbarrier_inval mbarrier_arrive_expect_tx mbarrier_expect_tx mbarrier_try_wait "
        "fence_mbarrier_init tma_load tma_store tma_store_commit tma_store_wait tma_prefetch "
        "fence_proxy_async ldmatrix_x1 ldmatrix_x2 ldmatrix_x4 ldmatrix_x2_trans ldmatrix_x4_trans "
        "mma_m16n8k16_f16 mma_m16n8k16_bf16 wmma_load_a wmma_load_b wmma_mma wmma_store tmem_alloc "
        "tmem_relinquish tmem_dealloc smem_desc tcgen05_mma_f16 tcgen05_commit tcgen05_ld_32x32b "
        "tcgen05_wait_ld tcgen05_fence_before tcgen05_fence_after tcgen05_ld_32x32b_f32 tcgen05_st_32x32b tcgen05_wait_st"
    ).split()
    # irc's additions beyond the spec's list (docs/language.md): one op-table op each
    spec_names += "mulhi redux_add redux_min redux_max redux_and redux_or redux_xor".split()
    half2 = ["hadd2", "hsub2", "hmul2", "hfma2", "hmin2", "hmax2", "hneg2", "habs2"]
    spec_names += ["erf", *half2, *(f"{n}_bf16" for n in half2)]  # language additions
    assert sorted(spec_names) == sorted(INTRINSICS)


def test_intrinsic_argument_errors() -> None:
    src = kernel(
        """    shared s: [f16; 64];
    shared bar: mbarrier;
    cp_async(&s[0], o, 16);
    tma_load(&s[0], m, [0], &bar);
    let x = atomic_add(o, 1u32);
    mbarrier_wait(bar, 0);""",
        "o: *global f32, m: tensormap<f16; 8, 8>",
    )
    assert [e[:4] for e in diags(src, arch="sm_90")] == [
        (4, 21, "type-error", "mismatched types: `f16` and `f32`"),
        (
            5,
            24,
            "type-error",
            "argument `coords` of `tma_load` must be `[i32; 2]` (one coordinate per box "
            "dimension), found `[i32; 1]`",
        ),
        (6, 27, "type-error", "mismatched types: `f32` and `u32`"),
        (
            7,
            19,
            "type-error",
            "argument `b` of `mbarrier_wait` must be a `*shared` pointer, found `mbarrier`",
        ),
    ]


# --------------------------------------------------------------------------------------------- functions
def test_device_function_calls() -> None:
    src = (
        "fn f(a: f32, b: *global f32) -> f32 { return a + b[0]; }\nfn g() { }\n"
        "kernel k(o: *global f32) {\n    let x = f(1, o);\n    let y = f(1.0);\n    let z = g();\n"
        "    let w = f(o, o);\n}\n"
    )
    assert diags(src) == [
        (5, 13, "type-error", "`f` takes 2 arguments but 1 was given"),
        (6, 13, "type-error", "this call returns no value"),
        (7, 15, "type-error", "expected `f32`, found `*global f32` (argument `a` of `f`)"),
    ]


def test_missing_return_and_return_type() -> None:
    src = "fn f(x: f32) -> f32 {\n    if x > 0.0 { return x; }\n}\nfn g() { return 1; }\nkernel k() { }"
    assert diags(src) == [
        (3, 1, "type-error", "`f` must return a `f32` on every path, but can reach its end"),
        (4, 17, "type-error", "`g` returns no value"),
    ]
    check("fn f(x: f32) -> f32 { while true { return x; } }\nkernel k() { }")


def test_kernel_parameter_types() -> None:
    src = "kernel k(a: *shared f32, b: [f32; 4], c: tensormap<f16; 64>) { }\nfn f(m: tensormap<f16; 8>) { }"
    assert [e[:3] for e in diags(src)] == [(1, 13, "type-error"), (1, 29, "type-error"), (2, 9, "type-error")]


def test_bad_arch_is_a_usage_error() -> None:
    with pytest.raises(ValueError):
        check("kernel k() { }", arch="sm_70")


# --------------------------------------------------------------------------------------------- fuzzing
_IDENTS = [
    "o",
    "n",
    "x",
    "acc",
    "tid",
    "laneid",
    "max",
    "shfl_xor",
    "tile",
    "bar",
    "f32",
    "u32",
    "mbarrier",
    "barrier",
    "k",
    "warp_sum",
    "i",
    "m",
    "LOG2E",
    "BLOCK",
    "undefined",
    "cp_async",
    "s",
    "inf",
]
_LITS = ["0", "1", "7u64", "4294967296", "-1", "0.5", "1e39f32", "nan", "true", "0xFFFFFFFF", "2.5f16", "255"]
_OPS = ["+", "-", "*", "/", "%", "<<", ">>", "&", "|", "^", "<", "==", "&&", "||"]
_TOKEN_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|\d[\w.]*|<<|>>|&&|\|\||==|[-+*/%&|^<]")
_KEYWORDS = {
    "let",
    "var",
    "fn",
    "kernel",
    "const",
    "param",
    "shared",
    "if",
    "else",
    "for",
    "in",
    "step",
    "unroll",
    "while",
    "break",
    "continue",
    "return",
    "as",
    "true",
    "false",
    "align",
}


def _semantic_mutation(src: str, rng: random.Random, n: int) -> str:
    """Swap identifiers, literals and operators for others of the same class: the program usually stays
    well-formed, so this exercises semantic analysis rather than the parser."""
    toks = [m for m in _TOKEN_RE.finditer(src) if m.group() not in _KEYWORDS]
    for m in sorted(rng.sample(toks, min(n, len(toks))), key=lambda m: -m.start()):
        t = m.group()
        pool = _LITS if t[0].isdigit() else _OPS if not t[0].isalpha() and t[0] != "_" else _IDENTS
        src = src[: m.start()] + rng.choice(pool) + src[m.end() :]
    return src


_VALID = sorted(DATA.glob("*.kdsl"))


@given(
    st.sampled_from(_VALID),
    st.integers(0, 2**32),
    st.integers(1, 5),
    st.sampled_from(["sm_80", "sm_90a", "sm_100a"]),
)
def test_fuzz_semantic_mutations(path: Path, seed: int, n: int, arch: str) -> None:
    _semantic_outcome(path, seed, n, arch)


def _semantic_outcome(path: Path, seed: int, n: int, arch: str) -> None:
    src = _semantic_mutation(path.read_text(), random.Random(seed), n)
    try:
        analyze(parse_kdsl(src, "fuzz.kdsl"), arch=arch)
    except CompileError as e:
        assert e.diagnostics
        assert all(d.span is None or d.span.line >= 1 for d in e.diagnostics)


@pytest.mark.fuzz
@given(
    st.sampled_from(_VALID),
    st.integers(0, 2**32),
    st.integers(1, 25),
    st.sampled_from(["sm_80", "sm_90a", "sm_100a"]),
)
def test_fuzz_semantic_mutations_long(path: Path, seed: int, n: int, arch: str) -> None:
    _semantic_outcome(path, seed, n, arch)
