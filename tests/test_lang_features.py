"""Language features of issue 16, end to end: each kernel compiles, assembles with ptxas (when installed) and
runs in the emulator against numpy; misuse gives a front-end diagnostic at the right place."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import irc
from irc.diagnostics import CompileError
from irc.ptxas import find_ptxas, run_ptxas

HAVE_PTXAS = find_ptxas() is not None


def build(src: str, arch: str = "sm_80", **kw):
    mod = irc.compile(src, arch=arch, cache=False, **kw)
    if HAVE_PTXAS:
        res = run_ptxas(mod.ptx_text, arch)
        assert res.ok, f"{arch}: {[(e.line, e.message) for e in res.errors]}\n{mod.ptx_text}"
    return mod


def errors_of(src: str, arch: str = "sm_80") -> list:
    with pytest.raises(CompileError) as ei:
        irc.compile(src, arch=arch, cache=False)
    return ei.value.diagnostics


# ------------------------------------------------------------------------------------------ erf
def test_erf_matches_math_erf() -> None:
    mod = build(
        """
kernel k(o: *global f32, x: *global f32) {
    let i = ctaid.x * ntid.x + tid.x;
    o[i] = erf(x[i]);
}
"""
    )
    x = np.concatenate([np.linspace(-6, 6, 250), [0.0, -0.0, 1e-8, -1e-8, 40.0, -40.0]]).astype(np.float32)
    x = np.resize(x, 256).astype(np.float32)
    out = np.zeros_like(x)
    mod["k"].launch(2, 128, [out, x])
    ref = np.array([math.erf(float(v)) for v in x])
    assert np.max(np.abs(out - ref)) < 1e-6


def test_erf_rejects_integers() -> None:
    d = errors_of("kernel k(o: *global i32) { o[0] = erf(o[1]); }")
    assert d[0].check == "type-error"


# ------------------------------------------------------------------------------------ lanemask_*
def test_lanemask_values() -> None:
    mod = build(
        """
kernel k(o: *global u32) {
    let i = tid.x * 4u32;
    o[i] = lanemask_lt;
    o[i + 1u32] = lanemask_le;
    o[i + 2u32] = lanemask_gt;
    o[i + 3u32] = lanemask_ge;
}
"""
    )
    out = np.zeros(64 * 4, np.uint32)
    mod["k"].launch(1, 64, [out])
    lane = np.arange(64) % 32
    eq = (np.uint64(1) << lane.astype(np.uint64)).astype(np.uint64)
    m32 = np.uint64(0xFFFFFFFF)
    np.testing.assert_array_equal(out[0::4], (eq - 1) & m32)
    np.testing.assert_array_equal(out[1::4], ((eq << np.uint64(1)) - 1) & m32)
    np.testing.assert_array_equal(out[2::4], ~((eq << np.uint64(1)) - 1) & m32)
    np.testing.assert_array_equal(out[3::4], ~(eq - 1) & m32)


def test_lanemask_prefix_count() -> None:
    """The classic use: a lane's rank among the lanes whose predicate holds (stream compaction)."""
    mod = build(
        """
kernel k(o: *global u32, x: *global u32) {
    let p = x[tid.x] > 5u32;
    let b = ballot(p);
    o[tid.x] = popc(b & lanemask_lt);
}
"""
    )
    x = np.random.default_rng(1).integers(0, 10, 32).astype(np.uint32)
    out = np.zeros(32, np.uint32)
    mod["k"].launch(1, 32, [out, x])
    p = x > 5
    np.testing.assert_array_equal(out, np.concatenate([[0], np.cumsum(p)[:-1]]))


# -------------------------------------------------------------------------------------- bitcast
def test_bitcast_roundtrip_and_sign_trick() -> None:
    """`__float_as_uint` / `__uint_as_float`: flip the sign bit of an f32 through u32, and i64 <-> f64."""
    mod = build(
        """
kernel k(o: *global f32, u: *global u32, d: *global f64, x: *global f32, y: *global i64) {
    let i = tid.x;
    let bits = bitcast<u32>(x[i]);
    u[i] = bits;
    o[i] = bitcast<f32>(bits ^ 0x80000000);
    d[i] = bitcast<f64>(y[i]);
    if i == 0u32 {
        o[32] = bitcast<f32>(0x3f800000);
    }
}
"""
    )
    x = np.random.default_rng(2).standard_normal(33).astype(np.float32)
    y = np.random.default_rng(3).standard_normal(32).view(np.int64)
    o, u, d = np.zeros(33, np.float32), np.zeros(32, np.uint32), np.zeros(32, np.float64)
    mod["k"].launch(1, 32, [o, u, d, x, y])
    np.testing.assert_array_equal(u, x[:32].view(np.uint32))
    np.testing.assert_array_equal(o[:32], -x[:32])
    np.testing.assert_array_equal(d, y.view(np.float64))
    assert o[32] == 1.0


def test_bitcast_f16_to_bf16_bits() -> None:
    mod = build("kernel k(o: *global bf16, x: *global f16) { o[tid.x] = bitcast<bf16>(x[tid.x]); }")
    x = np.random.default_rng(4).standard_normal(32).astype(np.float16)
    o = np.zeros(32, np.uint16)
    mod["k"].launch(1, 32, [o, x])
    np.testing.assert_array_equal(o, x.view(np.uint16))


@pytest.mark.parametrize(
    ("expr", "message", "col"),
    [
        ("bitcast<u64>(x[0])", "`bitcast` from `f32` (32 bits) to `u64` (64 bits): the widths differ", 51),
        ("bitcast<bool>(x[0])", "`bitcast` needs a numeric scalar target type, not `bool`", 59),
        ("bitcast<u32>(x)", "`bitcast` needs a numeric scalar operand, not `*global f32`", 64),
    ],
)
def test_bitcast_misuse(expr: str, message: str, col: int) -> None:
    d = errors_of(f"kernel k(o: *global u64, x: *global f32) {{ o[0] = {expr} as u64; }}")
    assert [(x.check, x.message) for x in d] == [("type-error", message)]
    assert (d[0].span.line, d[0].span.col) == (1, col)


# -------------------------------------------------------------------------------- static_assert
HEADS = """param D = 48;
static_assert(D % 32 == 0, "each lane owns D / 32 dims: D must be a multiple of 32");
kernel k(o: *global f32, x: *global f32) {
    static_assert(D <= 256, "at most 8 dims per lane");
    let lane = tid.x;
    unroll for j in 0..D / 32 {
        o[lane + j * 32u32] = x[lane + j * 32u32] * 2.0;
    }
}
"""


def test_static_assert_catches_dropped_dims() -> None:
    """The issue's kernel: with D = 48, `D / 32` lanes cover only dims 0..31; static_assert says so."""
    d = errors_of(HEADS)
    assert [(x.check, x.span.line, x.span.col) for x in d] == [("static-assert", 2, 15)]
    assert d[0].message == ("static assertion failed: each lane owns D / 32 dims: D must be a multiple of 32")
    assert [(lb.span.line, lb.span.col, lb.message) for lb in d[0].labels] == [(2, 15, "`D` is 48")]


def test_static_assert_passes_and_kernel_runs() -> None:
    mod = build(HEADS, defines={"D": 64})
    x = np.arange(64, dtype=np.float32)
    o = np.zeros(64, np.float32)
    mod["k"].launch(1, 32, [o, x])
    np.testing.assert_array_equal(o, 2 * x)


def test_static_assert_kernel_scope_and_override() -> None:
    d = errors_of(HEADS.replace("param D = 48;", "param D = 512;"))
    assert [(x.check, x.span.line, x.message) for x in d] == [
        ("static-assert", 4, "static assertion failed: at most 8 dims per lane")
    ]


def test_static_assert_per_unrolled_copy() -> None:
    src = """kernel k(o: *global f32) {
    unroll for i in 0..4 {
        static_assert(i < 3u32);
        o[i] = 1.0;
    }
}"""
    d = errors_of(src)
    assert [(x.check, x.span.line, x.span.col, x.message) for x in d] == [
        ("static-assert", 3, 23, "static assertion failed")
    ]
    assert [lb.message for lb in d[0].labels] == ["`i` is 3"]


@pytest.mark.parametrize(
    ("body", "check", "message"),
    [
        (
            "static_assert(o[0] > 1.0);",
            "const-error",
            "the condition of `static_assert` must be a compile-time",
        ),
        (
            "static_assert(1u32);",
            "type-error",
            "the condition of `static_assert` must be `bool`, found `u32`",
        ),
    ],
)
def test_static_assert_misuse(body: str, check: str, message: str) -> None:
    d = errors_of(f"kernel k(o: *global f32) {{ {body} }}")
    assert d[0].check == check and d[0].message.startswith(message)


# ------------------------------------------------------------------------------- readonly / .nc
RO_SRC = """
fn scale(p: *global readonly f32, i: u32, s: f32) -> f32 { return p[i] * s; }
kernel k(o: *global f32, x: *global readonly f32, v: *global readonly f32) {
    let i = ctaid.x * ntid.x + tid.x;
    let q = load_vec(v + i * 4u32, 4);
    o[i] = scale(x, i, 2.0) + q[0] + q[3];
}
"""


def test_readonly_loads_are_non_coherent() -> None:
    mod = build(RO_SRC)
    ld = [ln.split()[0] for ln in mod.ptx_text.splitlines() if ln.strip().startswith("ld.global")]
    assert ld and all(".nc" in x for x in ld), ld
    x = np.arange(64, dtype=np.float32)
    v = np.arange(256, dtype=np.float32)
    o = np.zeros(64, np.float32)
    mod["k"].launch(2, 32, [o, x, v])
    np.testing.assert_array_equal(o, 2 * x + v[0::4] + v[3::4])


@pytest.mark.parametrize(
    ("stmt", "message", "col"),
    [
        ("x[0] = 1.0;", "cannot store through `*global readonly f32`: the pointer is `readonly`", 37),
        (
            "let a = atomic_add(x, 1.0);",
            "`atomic_add` writes through `*global readonly f32`: the pointer is `readonly`",
            56,
        ),
        (
            "store_vec(x, [1.0, 2.0]);",
            "`store_vec` writes through `*global readonly f32`: the pointer is `readonly`",
            47,
        ),
    ],
)
def test_store_through_readonly_is_an_error(stmt: str, message: str, col: int) -> None:
    d = errors_of(f"kernel k(x: *global readonly f32) {{ {stmt} }}")
    assert [(e.check, e.message, e.span.col) for e in d] == [("type-error", message, col)]


def test_readonly_shared_pointer_is_an_error() -> None:
    d = errors_of("fn f(p: *shared readonly f32) -> f32 { return p[0]; } kernel k() { }")
    assert d[0].check == "type-error" and "`readonly` applies to global pointers" in d[0].message


# ---------------------------------------------------------------------------------- unroll(N)
def _ref_loop(a: int, b: int, step: int, x: np.ndarray, skip: int | None, stop: int | None) -> float:
    acc = 0.0
    for i in range(a, b, step):
        if stop is not None and x[i] > stop:
            break
        if skip is not None and i % 3 == skip:
            continue
        acc = acc * 0.5 + x[i]
    return acc


UNROLL_SRC = """
kernel k(o: *global f32, x: *global f32, a: i32, b: i32, s: i32) {
    var acc = 0.0;
    unroll(N) for i in a..b step STEP {
        if x[i] > 100.0 { break; }
        if i % 3 == SKIP { continue; }
        acc = acc * 0.5 + x[i];
    }
    o[tid.x] = acc;
}
"""


@pytest.mark.parametrize("n", [1, 3, 4])
@pytest.mark.parametrize("step", ["1", "2", "s"])
def test_partial_unroll_matches_plain_loop(n: int, step: str) -> None:
    """Every trip count from 0 to 13 (multiples of N and not), with break and continue in the body."""
    src = UNROLL_SRC.replace("N", str(n)).replace("STEP", step).replace("SKIP", "1")
    mod = build(src)
    x = np.arange(64, dtype=np.float32)
    for a in (0, 5):
        for trips in range(14):
            st = 3 if step == "s" else int(step)
            b = a + trips * st - (st - 1 if trips else 0)
            o = np.zeros(1, np.float32)
            xs = x.copy()
            stop = None
            if trips == 11:  # a break in the middle of an unrolled group
                xs[a + 6 * st] = 500.0
                stop = 100
            mod["k"].launch(1, 1, [o, xs, a, b, 3])
            assert o[0] == np.float32(_ref_loop(a, b, st, xs, 1, stop)), (n, step, a, b)


def test_partial_unroll_near_type_maximum() -> None:
    """`i + (N-1)*step` would wrap near the maximum: the unsigned distance test does not."""
    mod = build(
        """
kernel k(o: *global u32, a: u32, b: u32) {
    var c = 0u32;
    unroll(4) for i in a..b { c += 1u32; o[c] = i; }
    o[0] = c;
}
"""
    )
    o = np.zeros(8, np.uint32)
    mod["k"].launch(1, 1, [o, 0xFFFFFFF9, 0xFFFFFFFF])
    assert o[0] == 6
    np.testing.assert_array_equal(
        o[1:7], np.arange(0xFFFFFFF9, 0xFFFFFFFF, dtype=np.uint64).astype(np.uint32)
    )


def test_partial_unroll_copies_the_body() -> None:
    mod = irc.compile(
        "kernel k(o: *global f32, n: u32) { unroll(4) for i in 0u32..n { o[i] = 1.0; } }", cache=False
    )
    stores = [ln for ln in mod.ptx_text.splitlines() if ln.strip().startswith("st.global")]
    assert len(stores) == 5  # 4 copies in the main loop, 1 in the remainder


@pytest.mark.parametrize(
    ("factor", "check", "message"),
    [
        ("0", "const-error", "an unroll factor must be a positive integer, found 0"),
        ("n", "const-error", "an unroll factor must be a compile-time constant"),
        ("2000", "limit-error", "`unroll(2000)` exceeds the limit of 1024 copies"),
    ],
)
def test_unroll_factor_misuse(factor: str, check: str, message: str) -> None:
    d = errors_of(
        f"kernel k(o: *global f32, n: u32) {{ unroll({factor}) for i in 0u32..n {{ o[i] = 1.0; }} }}"
    )
    assert [(e.check, e.message, e.span.col) for e in d] == [(check, message, 43)]


# ------------------------------------------------------------------------------ dynamic shared
DYN_SRC = """
kernel reverse(o: *global f32, x: *global f32, n: u32) {
    shared flag: [u32; 4];
    shared buf: [f32] dynamic;
    let i = tid.x;
    if i < 4u32 { flag[i] = i; }
    buf[i] = x[ctaid.x * n + i];
    barrier();
    o[ctaid.x * n + i] = buf[n - 1u32 - i] + (flag[i % 4u32] as f32);
}
"""


@pytest.mark.parametrize("n", [32, 96])
def test_dynamic_shared_sized_at_launch(n: int) -> None:
    mod = build(DYN_SRC)
    assert ".extern .shared .align 16 .b8 dyn$buf[];" in mod.ptx_text
    x = np.random.default_rng(5).standard_normal(2 * n).astype(np.float32)
    o = np.zeros_like(x)
    mod["reverse"].launch(2, n, [o, x, n], dynamic_shared_bytes=4 * n)
    ref = x.reshape(2, n)[:, ::-1] + (np.arange(n) % 4).astype(np.float32)
    np.testing.assert_array_equal(o.reshape(2, n), ref)


def test_dynamic_shared_too_small_is_caught_by_the_emulator() -> None:
    mod = build(DYN_SRC)
    x = np.zeros(64, np.float32)
    from irc.emu.errors import MemoryAccessError

    with pytest.raises(MemoryAccessError, match="out-of-bounds 4-byte shared access"):
        mod["reverse"].launch(1, 64, [np.zeros_like(x), x, 64], dynamic_shared_bytes=4 * 32)


def test_dynamic_shared_after_a_large_static_layout() -> None:
    """Static shared memory above 48 KB moves into the dynamic window; the `dynamic` array follows it."""
    src = """
kernel k(o: *global f32, n: u32) {
    shared big: [f32; 16384];
    shared tail: [f32] dynamic;
    big[tid.x * 128u32] = 1.0;
    tail[tid.x] = (tid.x as f32) + big[tid.x * 128u32];
    barrier();
    o[tid.x] = tail[n - 1u32 - tid.x];
}
"""
    mod = build(src)
    assert mod["k"].stats["dynamic_shared_bytes"] == 65536
    o = np.zeros(128, np.float32)
    mod["k"].launch(1, 128, [o, 128], dynamic_shared_bytes=512)
    np.testing.assert_array_equal(o, 1.0 + np.arange(128)[::-1])


def test_irc_run_dynamic_shared_bytes(tmp_path) -> None:
    from irc.cli import main

    src = tmp_path / "r.kdsl"
    src.write_text(DYN_SRC)
    x = np.arange(64, dtype=np.float32)
    np.save(tmp_path / "x.npy", x)
    np.save(tmp_path / "o.npy", np.zeros_like(x))
    (tmp_path / "out").mkdir()
    rc = main(
        [
            "run", str(src), "--grid", "1", "--block", "64",
            "--arg", f"o={tmp_path / 'o.npy'}", "--arg", f"x={tmp_path / 'x.npy'}", "--arg", "n=64",
            "--dynamic-shared-bytes", "256", "--out-dir", str(tmp_path / "out"),
        ]
    )  # fmt: skip
    assert rc == 0
    o = np.load(tmp_path / "out" / "o.npy")
    np.testing.assert_array_equal(o, x[::-1] + (np.arange(64) % 4))


@pytest.mark.parametrize(
    ("decl", "check", "message"),
    [
        (
            "shared b: [f32; 4] dynamic;",
            "type-error",
            "a `dynamic` shared array has no length: write `[f32]`",
        ),
        (
            "shared b: [f32];",
            "parse-error",
            "an array without a length is only allowed as `shared NAME: [T] dynamic;`",
        ),
        (
            "shared b: [f32] dynamic; shared c: [u32] dynamic;",
            "type-error",
            "a kernel has at most one `dynamic` shared array",
        ),
        (
            "shared b: [mbarrier] dynamic;",
            "type-error",
            "dynamic shared array elements are numbers, not `mbarrier`",
        ),
        (
            "let b: [f32] = 1.0;",
            "type-error",
            "an array without a length is only allowed as a `dynamic` shared array",
        ),
    ],
)
def test_dynamic_shared_misuse(decl: str, check: str, message: str) -> None:
    d = errors_of(f"kernel k() {{ {decl} }}")
    assert d[0].check == check and d[0].message.startswith(message), d


# ------------------------------------------------------------------------- 2-D register arrays
def test_two_dimensional_register_array_outer_product() -> None:
    """A per-thread 4x4 accumulator tile: acc[i, j] += a[i] * b[j] over K, rows stored one by one."""
    mod = build(
        """
const R: u32 = 4;
fn row_sum(r: [f32; 4]) -> f32 { return r[0] + r[1] + r[2] + r[3]; }
kernel k(o: *global f32, s: *global f32, a: *global f32, b: *global f32, kk: u32) {
    var acc: [f32; 4, 4] = [[0.0; 4]; 4];
    let t = tid.x;
    for k in 0u32..kk {
        unroll for i in 0..R {
            let ai = a[(t * kk + k) * R + i];
            unroll for j in 0..R {
                acc[i, j] += ai * b[k * R + j];
            }
        }
    }
    let diag: [f32; 2, 2] = [[acc[0, 0], acc[1, 1]], [acc[2, 2], acc[3, 3]]];
    acc[3] = [diag[0, 0], diag[0, 1], diag[1][0], diag[1, 1]];
    unroll for i in 0..R {
        unroll for j in 0..R {
            o[(t * R + i) * R + j] = acc[i, j];
        }
        s[t * R + i] = row_sum(acc[i]);
    }
}
"""
    )
    rng = np.random.default_rng(6)
    nt, kk = 8, 5
    a = rng.standard_normal((nt, kk, 4)).astype(np.float32)
    b = rng.standard_normal((kk, 4)).astype(np.float32)
    o = np.zeros((nt, 4, 4), np.float32)
    s = np.zeros((nt, 4), np.float32)
    mod["k"].launch(1, nt, [o, s, a, b, kk])
    ref = np.zeros((nt, 4, 4), np.float32)
    for k in range(kk):
        ref += a[:, k, :, None] * b[k][None, None, :]
    ref[:, 3, :] = np.stack([ref[:, 0, 0], ref[:, 1, 1], ref[:, 2, 2], ref[:, 3, 3]], axis=1)
    np.testing.assert_allclose(o, ref, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(s, ref.sum(axis=2), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize(
    ("body", "check", "message"),
    [
        (
            "var a: [f32; 2, 3] = [[0.0; 3]; 2]; o[0] = a[2, 0];",
            "const-error",
            "index 2 is out of bounds for the rows of `[f32; 2, 3]`",
        ),
        (
            "var a: [f32; 2, 3] = [[0.0; 3]; 2]; o[0] = a[0, 3];",
            "const-error",
            "index 3 is out of bounds for the columns of `[f32; 2, 3]`",
        ),
        (
            "var a: [f32; 2, 3] = [[0.0; 3]; 2]; o[0] = a[0, 0, 0];",
            "type-error",
            "`[f32; 2, 3]` takes one or two indices, found 3",
        ),
        (
            "let a = [[1.0, 2.0], [3.0]];",
            "type-error",
            "the rows of a two-dimensional array must all be `[f32; 2]`, found `[f32; 1]`",
        ),
        ("let a: [f32; 2, 2, 2] = [0.0; 8];", "type-error", "register arrays have one or two dimensions"),
        ("var a: [f32; 2, 3] = [0.0; 6];", "type-error", "expected `[f32; 2, 3]`, found `[f32; 6]`"),
        (
            "var a: [u32; 2, 4] = [[0u32; 4]; 2]; store_vec(o as *global u32, a);",
            "type-error",
            "argument `arr` of `store_vec` must be a one-dimensional register array",
        ),
    ],
)
def test_two_dimensional_misuse(body: str, check: str, message: str) -> None:
    d = errors_of(f"kernel k(o: *global f32) {{ {body} }}")
    assert d[0].check == check and d[0].message.startswith(message), d


# ---------------------------------------------------------------------------------------- half2
HALF2 = {
    "hadd2(a, b)": lambda a, b, c: a + b,
    "hsub2(a, b)": lambda a, b, c: a - b,
    "hmul2(a, b)": lambda a, b, c: a * b,
    "hfma2(a, b, c)": lambda a, b, c: a * b + c,
    "hmin2(a, b)": lambda a, b, c: np.minimum(a, b),
    "hmax2(a, b)": lambda a, b, c: np.maximum(a, b),
    "hneg2(a)": lambda a, b, c: -a,
    "habs2(a)": lambda a, b, c: np.abs(a),
}


@pytest.mark.parametrize("arch", ["sm_80", "sm_90", "sm_100a"])
@pytest.mark.parametrize("expr", list(HALF2))
def test_half2_arithmetic(expr: str, arch: str) -> None:
    mod = build(
        f"""
kernel k(o: *global u32, x: *global u32, y: *global u32, z: *global u32) {{
    let i = tid.x;
    let a = x[i];
    let b = y[i];
    let c = z[i];
    o[i] = {expr};
}}
""",
        arch,
    )
    rng = np.random.default_rng(7)
    a, b, c = (rng.standard_normal(128).astype(np.float16) for _ in range(3))
    o = np.zeros(64, np.uint32)
    mod["k"].launch(1, 64, [o, a.view(np.uint32), b.view(np.uint32), c.view(np.uint32)])
    got = o.view(np.float16)
    f32 = [v.astype(np.float32) for v in (a, b, c)]
    if expr.startswith("hfma2"):
        ref = (f32[0].astype(np.float64) * f32[1] + f32[2]).astype(np.float16)
    else:
        ref = HALF2[expr](*f32).astype(np.float16)
    np.testing.assert_array_equal(got, ref)


def test_half2_in_a_dot_product() -> None:
    """Packed halves through pack/unpack: two dot products at once, accumulated in f16x2."""
    mod = build(
        """
kernel k(o: *global f32, x: *global f32, y: *global f32, n: u32) {
    var acc = pack_half2(0.0, 0.0);
    for j in 0u32..n {
        let a = pack_half2(x[2u32 * j], x[2u32 * j + 1u32]);
        let b = pack_half2(y[2u32 * j], y[2u32 * j + 1u32]);
        acc = hfma2(a, b, acc);
    }
    let r = unpack_half2(acc);
    o[0] = r[0];
    o[1] = r[1];
}
"""
    )
    x = np.array([1, 2, 3, 4, 0.5, -1], np.float32)
    y = np.array([2, 0.5, -1, 1, 4, 3], np.float32)
    o = np.zeros(2, np.float32)
    mod["k"].launch(1, 1, [o, x, y, 3])
    np.testing.assert_array_equal(o, [1 * 2 + 3 * -1 + 0.5 * 4, 2 * 0.5 + 4 * 1 + -1 * 3])


def test_half2_needs_packed_u32() -> None:
    d = errors_of("kernel k(o: *global f16) { let h = hadd2(o[0], o[1]); }")
    assert [(x.check, x.message, x.span.col) for x in d] == [
        ("type-error", "argument `a` of `hadd2` must be `u32`, found `f16`", 42),
        ("type-error", "argument `b` of `hadd2` must be `u32`, found `f16`", 48),
    ]


def test_bitcast_of_constants_folds() -> None:
    mod = build(
        """
const ONE: f32 = bitcast<f32>(0x3f800000u32);
static_assert(bitcast<u32>(-0.0) == 0x80000000u32, "the sign bit");
static_assert(bitcast<i64>(bitcast<f64>(-5i64)) == -5i64);
kernel k(o: *global f32) { o[0] = ONE; }
"""
    )
    o = np.zeros(1, np.float32)
    mod["k"].launch(1, 1, [o])
    assert o[0] == 1.0


def test_dynamic_shared_name_does_not_capture_another_kernels_array() -> None:
    """Kernel `a`'s own `buf` and kernel `b`'s dynamic `buf` (a module-level extern) stay apart."""
    mod = build(
        """
kernel a(o: *global f32) { shared buf: [f32; 4]; buf[tid.x] = 1.0; barrier(); o[tid.x] = buf[3u32 - tid.x]; }
kernel b(o: *global f32) { shared buf: [f32] dynamic; buf[tid.x] = 2.0; barrier(); o[tid.x] = buf[0]; }
"""
    )
    o = np.zeros(4, np.float32)
    mod["a"].launch(1, 4, [o])
    np.testing.assert_array_equal(o, 1.0)
    mod["b"].launch(1, 4, [o], dynamic_shared_bytes=16)
    np.testing.assert_array_equal(o, 2.0)


@pytest.mark.parametrize("name", ["laneid", "lanemask_lt"])
def test_assigning_a_builtin_value_is_an_error(name: str) -> None:
    d = errors_of(f"kernel k(o: *global u32) {{ {name} = 3u32; }}")
    assert [(e.check, e.message, e.span.col) for e in d] == [
        ("type-error", f"cannot assign to `{name}`: it is a built-in value", 28)
    ]


def test_compound_assignment_to_a_builtin_value_is_an_error() -> None:
    d = errors_of("kernel k(o: *global u32) { laneid += 3u32; }")
    assert [(e.check, e.message) for e in d] == [
        ("type-error", "cannot assign to `laneid`: it is a built-in value")
    ]


BF16X2 = {
    "hadd2_bf16(a, b)": lambda a, b, c: a + b,
    "hsub2_bf16(a, b)": lambda a, b, c: a - b,
    "hmul2_bf16(a, b)": lambda a, b, c: a * b,
    "hfma2_bf16(a, b, c)": lambda a, b, c: a * b + c,
    "hmin2_bf16(a, b)": lambda a, b, c: np.minimum(a, b),
    "hmax2_bf16(a, b)": lambda a, b, c: np.maximum(a, b),
    "hneg2_bf16(a)": lambda a, b, c: -a,
    "habs2_bf16(a)": lambda a, b, c: np.abs(a),
}


@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
@pytest.mark.parametrize("expr", list(BF16X2))
def test_bf16x2_arithmetic(expr: str, arch: str) -> None:
    """bf16x2: native on sm_90+; add/sub/mul are fma forms on sm_80 (same single rounding)."""
    from test_backend_half import bf16_bits_to_f32, f32_to_bf16_bits

    mod = build(
        f"""
kernel k(o: *global u32, x: *global u32, y: *global u32, z: *global u32) {{
    let a = x[tid.x];
    let b = y[tid.x];
    let c = z[tid.x];
    o[tid.x] = {expr};
}}
""",
        arch,
    )
    head = expr.split("(")[0]
    ptx_ops = [ln.split()[0] for ln in mod.ptx_text.splitlines() if "bf16x2" in ln]
    native = arch == "sm_90" or head[1:4] not in ("add", "sub", "mul")
    assert ptx_ops and all(op.startswith(head[1:4] if native else "fma.rn") for op in ptx_ops), ptx_ops
    rng = np.random.default_rng(8)
    a, b, c = (f32_to_bf16_bits(rng.standard_normal(128).astype(np.float32)) for _ in range(3))
    b[:8] = a[:8]  # x - x = +0, min/max of equal values
    o = np.zeros(64, np.uint32)
    mod["k"].launch(1, 64, [o, a.view(np.uint32), b.view(np.uint32), c.view(np.uint32)])
    ref = f32_to_bf16_bits(BF16X2[expr](*(bf16_bits_to_f32(v) for v in (a, b, c))).astype(np.float32))
    np.testing.assert_array_equal(o.view(np.uint16), ref)


_TRACE = None


@settings(max_examples=40, deadline=None)
@given(
    st.sampled_from([0, 7, 0x7FFFFFF0, 0xFFFFFFE0]),
    st.integers(0, 17),
    st.integers(1, 4),
    st.integers(0, 3),
)
def test_partial_unroll_visits_exactly_the_range(a: int, trips: int, step: int, slack: int) -> None:
    """Hypothesis: `unroll(3)` visits a, a+s, ... < b in order, for any bounds (near 2^32 too)."""
    global _TRACE
    if _TRACE is None:
        _TRACE = build(
            """
kernel k(o: *global u32, a: u32, b: u32, s: u32) {
    var c = 0u32;
    unroll(3) for i in a..b step s { c += 1u32; o[c] = i; }
    o[0] = c;
}
"""
        )
    b = min(a + trips * step + slack, 0xFFFFFFFF)
    want = list(range(a, b, step))
    if want and want[-1] + step > 0xFFFFFFFF:
        return  # the loop variable itself would wrap after the last trip (as in a plain `for`)
    o = np.zeros(32, np.uint32)
    _TRACE["k"].launch(1, 1, [o, a, b, step])
    assert o[0] == len(want) and list(o[1 : 1 + len(want)]) == want
