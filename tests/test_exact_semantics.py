"""Issue 27's "exact semantics" behaviours end to end: float constants compare bitwise, f64
transcendentals are located errors, `self-cancel` reports what the source says, and the race evaluator
computes what the lifted instruction computes (the op table's semantics, not a wrapping approximation).
"""

from __future__ import annotations

import math
import struct

import numpy as np
import pytest

from irc import CompileError
from irc.compiler import CompileOptions, check_kdsl, check_ptx, compile_kdsl
from irc.emu import run_kernel
from irc.frontend.ptx.parser import parse_ptx
from irc.ir.parser import parse_module
from irc.ir.printer import print_module
from irc.passes.gvn import GVN
from irc.ptxas import find_ptxas, run_ptxas

needs_ptxas = pytest.mark.skipif(find_ptxas() is None, reason="ptxas not available")


def _compile(src: str, optimize: bool):  # type: ignore[no-untyped-def]
    return compile_kdsl(src, "t.kdsl", CompileOptions(optimize=optimize))


def _run_bits(ptx: str, n: int, *arrays: np.ndarray) -> np.ndarray:
    out = np.zeros(n, np.uint32)
    run_kernel(parse_ptx(ptx, "<t>"), "k", 1, n, (out, *arrays))
    return out


# -- float constants are bits ----------------------------------------------------------------------
NAN_SELECT = """
kernel k(out: *global u32, inp: *global u32) {
    let c = inp[tid.x] != 0u32;
    let x = select(c, -(nan as f32), nan as f32);
    let y = c ? -0.0 : 0.0;
    out[tid.x] = bitcast<u32>(x) ^ (bitcast<u32>(y) >> 1u32);
}
"""


def test_nan_select_agrees_between_o0_and_o2() -> None:
    """GVN keyed float constants by `repr`, which prints -nan as `nan`: the two arms became one constant
    and a false `c` gave -nan at -O2 only."""
    inp = np.array([0, 1] * 16, np.uint32)
    got = [_run_bits(_compile(NAN_SELECT, o).ptx_text, 32, inp.copy()) for o in (False, True)]
    np.testing.assert_array_equal(got[0], got[1])
    assert got[0][0] == 0x7FC00000 and got[0][1] == 0xFFC00000 ^ 0x40000000  # (-0.0 >> 1 = 0x40000000)


def test_the_analyzer_does_not_merge_nan_constants() -> None:
    src = "kernel k(out: *global f32) {\n    out[tid.x] = max(-(nan as f32), nan as f32);\n}\n"
    assert not [d for d in check_kdsl(src, "t.kdsl") if d.check == "self-cancel"]
    src2 = (
        "kernel k(out: *global f32) {\n    out[tid.x] = (-0.0) - 0.0 + max(-(0.0 as f32), 0.0 as f32);\n}\n"
    )
    assert not [d for d in check_kdsl(src2, "t.kdsl") if d.check == "self-cancel"]


def _bits(x: float) -> int:
    return struct.unpack("<Q", struct.pack("<d", x))[0]


def test_gvn_keys_floats_by_their_bits_and_the_text_keeps_them() -> None:
    payload = struct.unpack("<d", struct.pack("<Q", 0x7FF8000000000123))[0]
    src = (
        'module "t.kdsl" {\nkernel @k(%o: *global f32) {\n^bb0:\n'
        "  %a = const {value = nan} : f32\n  %b = const {value = -nan} : f32\n"
        "  %c = const {value = 0d7FF8000000000123} : f32\n  %d = const {value = 0.0} : f32\n"
        "  %e = const {value = -0.0} : f32\n  %f = const {value = nan} : f32\n"
        "  %s1 = add %a, %b : f32\n  %s2 = add %c, %d : f32\n  %s3 = add %e, %f : f32\n"
        "  %s4 = add %s1, %s2 : f32\n  %s5 = add %s4, %s3 : f32\n  store %o, %s5\n  ret\n}\n}\n"
    )
    m = parse_module(src, "t.kdsl")
    GVN().run_function(m.functions[0])
    consts = [op.attrs["value"] for op in m.functions[0].ops() if op.name == "const"]
    assert sorted(map(_bits, consts)) == sorted(map(_bits, [math.nan, -math.nan, payload, 0.0, -0.0]))
    again = parse_module(print_module(m), "t.kdsl")  # the printed text keeps signs and payloads
    assert sorted(
        _bits(op.attrs["value"]) for op in again.functions[0].ops() if op.name == "const"
    ) == sorted(map(_bits, consts))


# -- f64 transcendentals ----------------------------------------------------------------------------
@pytest.mark.parametrize("fn", ["sin", "cos", "tanh", "exp2", "log2", "exp", "log"])
def test_f64_transcendentals_are_located_errors(fn: str) -> None:
    src = f"kernel k(out: *global f64, x: *global f64) {{\n    out[tid.x] = {fn}(x[tid.x]) * 2.0;\n}}\n"
    with pytest.raises(CompileError) as e:
        compile_kdsl(src, "t.kdsl")
    (d,) = [d for d in e.value.diagnostics if d.severity.value == "error"]
    assert d.check == "unsupported-target" and (d.span.line, d.span.col) == (2, 18), d
    assert "f64" in d.message and fn in d.message


@needs_ptxas
def test_f64_sqrt_rsqrt_rcp_compile_and_match_numpy() -> None:
    src = (
        "kernel k(out: *global f64, x: *global f64) {\n    let v = x[tid.x];\n"
        "    out[tid.x] = sqrt(v) + rcp(v) + 0.0 * rsqrt(v);\n}\n"
    )
    r = compile_kdsl(src, "t.kdsl")
    assert run_ptxas(r.ptx_text, "sm_80").ok
    x = np.linspace(0.5, 9.0, 32)
    out = np.zeros(32)
    run_kernel(parse_ptx(r.ptx_text), "k", 1, 32, (out, x))
    np.testing.assert_allclose(out, np.sqrt(x) + 1 / x, rtol=1e-15)


def test_ir_f64_math_is_refused_by_the_backend_too() -> None:
    src = (
        'module "t.kdsl" {\nkernel @k(%o: *global f64, %x: f64) {\n^bb0:\n'
        "  %s = sin %x : f64\n  store %o, %s\n  ret\n}\n}\n"
    )
    from irc.backends.ptx.emit import compile_module

    with pytest.raises(CompileError) as e:
        compile_module(parse_module(src, "t.kdsl"), "sm_80")
    assert any(d.check == "unsupported-target" and "sin" in d.message for d in e.value.diagnostics)


# -- self-cancel reports what the source says --------------------------------------------------------
ACCEPTED = [
    "out[i] = min(v | 0u32, v);",
    "out[i] = min(ident(v), v);",
    "out[i] = max(a[0], a[1]);",
    "out[i] = min(v + 0u32, v) - (v ^ 0u32) + v;",
]


@pytest.mark.parametrize("line", ACCEPTED)
def test_self_cancel_accepts_at_o2_what_o0_accepts(line: str) -> None:
    src = (
        "fn ident(x: u32) -> u32 { return x; }\n"
        "kernel k(out: *global u32, inp: *global u32) {\n    let i = tid.x;\n    let v = inp[i];\n"
        f"    let a = [v; 4];\n    {line}\n}}\n"
    )
    for o in (False, True):
        r = _compile(src, o)  # no CompileError
        assert all(d.severity.value != "error" for d in r.diagnostics), r.diagnostics


def test_collapsing_to_a_constant_is_still_an_error_and_idempotence_a_note() -> None:
    src = (
        "kernel k(out: *global u32, inp: *global u32) {\n    let v = inp[tid.x];\n    let a = [v; 4];\n"
        "    let t = v;\n    out[tid.x] = (v - t) + max(a[0], a[1]) + (a[2] ^ a[3]);\n}\n"
    )
    for o in (False, True):
        with pytest.raises(CompileError) as e:
            _compile(src, o)
        got = sorted(
            (d.severity.value, d.message.split(":")[0])
            for d in e.value.diagnostics
            if d.check == "self-cancel"
        )
        assert got == [("error", "`v - v` is always 0"), ("error", "`v ^ v` is always 0"),
                       ("note", "`max(v, v)` is always `v`")], got  # fmt: skip


def test_ptx_self_cancel_still_reported() -> None:
    """The hand-built PTX of the old_max bug: `sub.f32 %f27, %f8, %f8` after the in-place max."""
    text = (
        ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k(.param .u64 p)\n{\n"
        "  .reg .f32 %f<32>;\n  .reg .b64 %rd<4>;\n  ld.param.u64 %rd1, [p];\n  cvta.to.global.u64 %rd1, %rd1;\n"
        "  ld.global.f32 %f8, [%rd1];\n  ld.global.f32 %f9, [%rd1+4];\n  max.f32 %f8, %f8, %f9;\n"
        "  sub.f32 %f27, %f8, %f8;\n  ex2.approx.f32 %f28, %f27;\n  st.global.f32 [%rd1], %f28;\n  ret;\n}\n"
    )
    (d,) = [d for d in check_ptx(text, "t.ptx") if d.check == "self-cancel"]
    assert d.severity.value == "error" and "always 0" in d.message and d.span.line == 13


# -- the race evaluator uses the table's semantics -------------------------------------------------
SAT_RACE = """.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 p)
.reqntid 64, 1, 1
{{
  .reg .b32 %r<8>;
  .shared .align 4 .b8 tile[256];
  mov.u32 %r1, %tid.x;
  {op}.s32 %r2, %r1, 2147483632;
  and.b32 %r3, %r2, 63;
  shl.b32 %r4, %r3, 2;
  mov.u32 %r5, tile;
  add.u32 %r6, %r5, %r4;
  st.shared.u32 [%r6], %r1;
  ret;
}}
"""


def test_race_evaluator_saturates_like_the_hardware() -> None:
    """`add.sat.s32 tid, 0x7FFFFFF0` is INT_MAX for tid >= 15, so threads 15..63 all store to `tile[63]`:
    a race. Read as a wrapping add (the old lifter) every thread has its own slot and nothing is found."""
    sat = [d for d in check_ptx(SAT_RACE.format(op="add.sat"), "t.ptx") if d.check == "shared-race"]
    assert sat and "tile" in sat[0].message, sat
    wrap = [d for d in check_ptx(SAT_RACE.format(op="add"), "t.ptx") if d.check == "shared-race"]
    assert not wrap, wrap
    # and the emulator agrees that the saturating kernel races
    from irc.emu import RaceError

    with pytest.raises(RaceError):
        run_kernel(parse_ptx(SAT_RACE.format(op="add.sat")), "k", 1, 64, (np.zeros(1, np.uint32),))
