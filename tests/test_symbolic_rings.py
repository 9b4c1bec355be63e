"""The symbolic encoding of stage counters (`irc.analysis.symbolic.encode`): a loop counter that wraps to
0 at n (`t = s + 1; s = t > n-1 ? 0 : t`, Triton's and CUTLASS's ring index) is `(c + k) % n` in
iteration k, through a residue symbol the solver relates linearly to k; a value computed from it and
carried to the next iteration is that value one iteration back. Checked against a plain simulation of
the loop for every iteration up to 3n, by asking the solver whether any other value is possible."""

from __future__ import annotations

import pytest

pytest.importorskip("z3")

from irc.analysis.checks.common import FunctionContext  # noqa: E402
from irc.analysis.symbolic.queries import symbolic  # noqa: E402
from irc.frontend.ptx.lift import lift_ptx  # noqa: E402

_PTX = """\
.version 8.0
.target sm_80
.address_size 64
.shared .align 4 .b8 buf[4096];

.visible .entry k(.param .u32 trips)
.reqntid 32, 1, 1
{{
  .reg .pred %p<4>;
  .reg .b32 %r<20>;
  ld.param.u32 %r10, [trips];
  mov.u32 %r9, buf;
  mov.b32 %r1, {init};
  mov.b32 %r3, %r9;
  mov.u32 %r5, 0;
$L_k:
  add.s32 %r2, %r1, 1;
  setp.{cmp}.s32 %p1, %r2, {bound};
  selp.b32 %r1, {sel};
  st.shared.u32 [%r3], %r1;
  shl.b32 %r4, %r1, 8;
  add.s32 %r3, %r9, %r4;
  add.s32 %r5, %r5, 1;
  setp.lt.u32 %p2, %r5, %r10;
  @%p2 bra $L_k;
  ret;
}}
"""

# (compare, bound, selp operands) spelling `s = (s + 1) wrapped at n`, for n
FORMS = {
    "gt": lambda n: ("gt", n - 1, "0, %r2, %p1"),
    "eq": lambda n: ("eq", n, "0, %r2, %p1"),
    "lt": lambda n: ("lt", n, "%r2, 0, %p1"),
}


def _simulate(init: int, n: int, k: int) -> tuple[int, int]:
    """(the stored stage, the store's address offset) in iteration k."""
    s, addr = init, 0
    for _ in range(k + 1):
        t = s + 1
        s = 0 if t > n - 1 else t
        stored, at = s, addr
        addr = s << 8
    return stored, at


@pytest.mark.parametrize("form", sorted(FORMS))
@pytest.mark.parametrize(("init", "n"), [(-1, 3), (0, 3), (2, 3), (-1, 4), (1, 2)])
def test_ring_counter_and_its_carried_address(form: str, init: int, n: int) -> None:
    cmp, bound, sel = FORMS[form](n)
    text = _PTX.format(init=init, cmp=cmp, bound=bound, sel=sel)
    m, _ = lift_ptx(text, "k.ptx")
    fn = next(f for f in m.functions if f.is_kernel)
    ctx = FunctionContext(fn, m, arch="sm_80")
    sym = symbolic(ctx)
    assert sym is not None
    enc, z = sym.enc, sym.enc.z
    st = next(op for b in fn.blocks for op in b.ops if op.name == "store")
    lp = ctx.cfg.loops_containing(st.block)[0]
    th = enc.thread("a")
    stored = enc.value(st.operands[1], th)
    addr = enc.value(st.operands[0], th)
    base = enc.value(next(op for b in fn.blocks for op in b.ops if op.name == "shared_addr").results[0], th)
    k = enc.iteration(lp, th)
    for kv in range(3 * n + 1):
        want_s, want_at = _simulate(init, n, kv)
        s = z.SolverFor("QF_UFBV")
        s.add(*th.side, k == kv)
        s.add(z.Or(stored != want_s, addr - base != want_at))
        assert s.check() == z.unsat, (kv, want_s, want_at)
