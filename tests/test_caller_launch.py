"""`shared-race` inside a device function (`.func`, a `__noinline__` block reduction), judged in the launch
its callers give it (`irc.analysis.caller_launch`): every call from a kernel of one known block shape,
from control all threads of the block take alike, with block-uniform arguments wherever they steer an
address or a branch. Near misses stay silent: the barrier in place, a call by some threads only, a kernel
with no block shape, a per-thread argument in an address."""

from __future__ import annotations

import pytest

from irc.analysis.caller_launch import caller_launch
from irc.compiler import check_ptx
from irc.frontend.ptx.lift import lift_module
from irc.frontend.ptx.parser import parse_ptx
from irc.ptxas import find_ptxas, run_ptxas

_PTX = """\
.version 8.0
.target sm_80
.address_size 64
.shared .align 4 .b8 sdata[512];

.func (.param .b32 ret) reduce(.param .b32 v, .param .b32 base)
{{
  .reg .pred %p<3>;
  .reg .b32 %r<12>;
  .reg .f32 %f<6>;
  ld.param.f32 %f1, [v];
  ld.param.u32 %r11, [base];
  mov.u32 %r1, %tid.x;
  shl.b32 %r2, %r1, 2;
  mov.u32 %r3, sdata;
  add.u32 %r3, %r3, %r11;
  add.u32 %r4, %r3, %r2;
  st.shared.f32 [%r4], %f1;
  bar.sync 0;
  mov.u32 %r5, 64;
$L_step:
  setp.ge.u32 %p1, %r1, %r5;
  @%p1 bra $L_skip;
  shl.b32 %r6, %r5, 2;
  add.u32 %r7, %r4, %r6;
  ld.shared.f32 %f2, [%r4];
  ld.shared.f32 %f3, [%r7];
  add.f32 %f4, %f2, %f3;
  st.shared.f32 [%r4], %f4;
$L_skip:
{sync}
  shr.u32 %r5, %r5, 1;
  setp.ne.u32 %p2, %r5, 0;
  @%p2 bra $L_step;
  ld.shared.f32 %f5, [%r3];
  bar.sync 0;
  st.param.f32 [ret], %f5;
  ret;
}}

.visible .entry k(.param .u64 x, .param .u64 out, .param .u32 off)
{bound}
{{
  .reg .pred %p<2>;
  .reg .b32 %r<6>;
  .reg .b64 %rd<6>;
  .reg .f32 %f<4>;
  ld.param.u64 %rd1, [x];
  ld.param.u64 %rd2, [out];
  ld.param.u32 %r4, [off];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd3, %r1, 4;
  add.u64 %rd4, %rd1, %rd3;
  ld.global.f32 %f1, [%rd4];
{guard}
  {{
  .param .b32 a0;
  .param .b32 a1;
  .param .b32 r0;
  st.param.f32 [a0], %f1;
  st.param.b32 [a1], {arg};
  call.uni (r0), reduce, (a0, a1);
  ld.param.f32 %f2, [r0];
  }}
$L_after:
  add.u64 %rd5, %rd2, %rd3;
  st.global.f32 [%rd5], %f2;
  ret;
}}
"""


def _text(sync: str = "", bound: str = ".maxntid 128, 1, 1", guard: str = "", arg: str = "0") -> str:
    text = _PTX.format(sync=sync, bound=bound, guard=guard, arg=arg)
    if find_ptxas():
        r = run_ptxas(text, "sm_80")
        assert r.ok, r.stderr
    return text


GUARD = "  setp.ge.u32 %p1, %r1, 64;\n  @%p1 bra $L_after;"
# the reduction's addresses without the parameter offset (the per-thread evaluation decides them)
PLAIN = ("  add.u32 %r3, %r3, %r11;\n", "")


@pytest.mark.parametrize("sync,racy", [("", True), ("  bar.sync 0;", False)])
def test_race_in_a_device_function(sync: str, racy: bool) -> None:
    text = _text(sync=sync).replace(*PLAIN)
    found = [d for d in check_ptx(text, "k.ptx") if d.check == "shared-race"]
    assert bool(found) == racy, [d.message for d in found]
    if racy:
        d = found[0]
        assert "sdata" in d.message and d.span is not None and d.span.line > 20
        assert d.witness is not None and "the launch of its caller `k`" in d.witness["text"]


@pytest.mark.parametrize(
    "kw,plain,inherits",
    [
        ({}, True, True),  # every thread of a 128-thread block calls it; no parameter steers anything
        ({"arg": "%r1"}, True, True),  # a per-thread argument that is only stored (the value reduced)
        # a parameter offsets the address: lifted PTX passes arguments through .param memory, which the
        # call does not carry, so whether they are uniform is unknown: not judged, whatever is passed
        ({"arg": "%r4"}, False, False),
        ({"arg": "0"}, False, False),
        ({"guard": GUARD}, True, False),  # only threads 0..63 call it: not whole blocks
        ({"bound": ""}, True, False),  # the kernel gives no block shape
    ],
)
def test_which_device_functions_inherit_a_launch(kw: dict, plain: bool, inherits: bool) -> None:
    text = _text(**kw)
    if plain:
        text = text.replace(*PLAIN)
    module, _ = lift_module(parse_ptx(text, "k.ptx"), text)
    fn = next(f for f in module.functions if not f.is_kernel)
    got = caller_launch(fn, module)
    assert (got == ((128, 1, 1), "k")) if inherits else got is None, got


def test_a_device_function_outside_any_inherited_launch_is_not_judged() -> None:
    """The racy reduction called by threads 0..63 only: silent (no launch of whole blocks to judge it in)."""
    text = _text(guard=GUARD).replace(*PLAIN)
    assert [d for d in check_ptx(text, "k.ptx") if d.check == "shared-race"] == []
