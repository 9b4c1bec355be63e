"""Dynamic checks of the emulator: each one triggered once and not triggered once, plus launch errors."""

from __future__ import annotations

import numpy as np
import pytest
from emu_util import ptx_kernel

from irc.emu import (
    BarrierError,
    CollectiveMaskError,
    DeadlockError,
    EmuLaunchError,
    MemoryAccessError,
    MisalignedAccessError,
    StepLimitError,
    UninitSharedReadError,
    run_kernel,
)

PRO = """  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd1, %rd1;
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
"""


def test_barrier_after_exit_reported():
    k = ptx_kernel(
        PRO
        + """  setp.ge.u32 %p1, %r1, 16;
  @%p1 exit;
  bar.sync 0;
  st.global.u32 [%rd3], %r1;
  ret;"""
    )
    with pytest.raises(BarrierError) as e:
        run_kernel(k, "k", block=32, args=[np.zeros(32, np.uint32)])
    assert e.value.kind == "barrier-divergence" and e.value.block == (0, 0, 0)
    assert e.value.line > 0 and e.value.threads and e.value.threads[0][0] >= 16


def test_barrier_different_ids_reported():
    k = ptx_kernel(
        PRO
        + """  setp.ge.u32 %p1, %r1, 16;
  @%p1 bra $L1;
  bar.sync 0;
  bra $L2;
$L1:
  bar.sync 1;
$L2:
  st.global.u32 [%rd3], %r1;
  ret;"""
    )
    with pytest.raises(BarrierError, match="different barriers"):
        run_kernel(k, "k", block=32, args=[np.zeros(32, np.uint32)])


def test_barrier_in_both_branches_of_one_warp_reported():
    """`bar.sync` is `.aligned`: lanes 0-15 and 16-31 of one warp at two different `bar.sync 0` would
    complete the barrier together; reported at the barrier (line of the first), not at a later hang."""
    k = ptx_kernel(
        PRO
        + """  setp.ge.u32 %p1, %r1, 16;
  @%p1 bra $L1;
  bar.sync 0;
  bra $L2;
$L1:
  bar.sync 0;
$L2:
  st.global.u32 [%rd3], %r1;
  ret;"""
    )
    with pytest.raises(BarrierError, match="lanes of one warp reach different barriers") as e:
        run_kernel(k, "k", block=64, args=[np.zeros(64, np.uint32)])
    assert "line" in str(e.value) and e.value.threads


def test_barrier_in_both_branches_warp_uniform_ok():
    """Whole warps at different `bar.sync 0` (warp-specialised code) complete one barrier: allowed."""
    k = ptx_kernel(
        PRO
        + """  setp.ge.u32 %p1, %r1, 32;
  @%p1 bra $L1;
  bar.sync 0;
  bra $L2;
$L1:
  bar.sync 0;
$L2:
  st.global.u32 [%rd3], %r1;
  ret;"""
    )
    out = np.zeros(64, np.uint32)
    run_kernel(k, "k", block=64, args=[out])
    np.testing.assert_array_equal(out, np.arange(64))


def test_shared_exchange_through_barrier_ok():
    k = ptx_kernel(
        PRO
        + """  shl.b32 %r2, %r1, 2;
  mov.u32 %r3, sm;
  add.u32 %r4, %r3, %r2;
  st.shared.u32 [%r4], %r1;
  bar.sync 0;
  xor.b32 %r5, %r2, 4;
  add.u32 %r6, %r3, %r5;
  ld.shared.u32 %r7, [%r6];
  st.global.u32 [%rd3], %r7;
  ret;""",
        decls=".shared .align 4 .b8 sm[256];\n",
    )
    out = np.zeros(64, np.uint32)
    run_kernel(k, "k", grid=3, block=64, args=[out])
    np.testing.assert_array_equal(out, np.arange(64) ^ 1)


def test_uninit_shared_read_reported():
    k = ptx_kernel(
        PRO
        + """  setp.lt.u32 %p1, %r1, 8;
  shl.b32 %r2, %r1, 2;
  @%p1 st.shared.u32 [sm+0], %r1;
  bar.sync 0;
  ld.shared.u32 %r7, [sm+4];
  st.global.u32 [%rd3], %r7;
  ret;""",
        decls=".shared .align 4 .b8 sm[256];\n",
    )
    with pytest.raises(UninitSharedReadError) as e:  # threads 0-7 also race on sm+0: racecheck off
        run_kernel(k, "k", block=32, args=[np.zeros(32, np.uint32)], racecheck=False)
    assert "never written" in str(e.value)


def test_oob_global_reported_and_inbounds_ok():
    body = (
        PRO
        + """  ld.global.u32 %r2, [%rd3+{off}];
  st.global.u32 [%rd3], %r2;
  ret;"""
    )
    out = np.arange(32, dtype=np.uint32)
    run_kernel(ptx_kernel(body.format(off=0)), "k", block=32, args=[out])
    with pytest.raises(MemoryAccessError) as e:
        run_kernel(ptx_kernel(body.format(off=4)), "k", block=32, args=[out])
    assert e.value.kind == "out-of-bounds" and e.value.threads == [(31, 0, 0)]


def test_misaligned_reported():
    k = ptx_kernel(
        PRO
        + """  ld.global.u32 %r2, [%rd3+2];
  st.global.u32 [%rd3], %r2;
  ret;"""
    )
    with pytest.raises(MisalignedAccessError):
        run_kernel(k, "k", block=4, args=[np.zeros(8, np.uint32)])


def test_oob_shared_reported():
    k = ptx_kernel(
        PRO
        + """  shl.b32 %r2, %r1, 3;
  st.shared.u32 [%r2], %r1;
  ret;""",
        decls=".shared .align 4 .b8 sm[128];\n",
    )
    run_kernel(k, "k", block=16, args=[np.zeros(16, np.uint32)])
    with pytest.raises(MemoryAccessError, match="shared"):
        run_kernel(k, "k", block=17, args=[np.zeros(17, np.uint32)])


def test_null_pointer_reported():
    k = ptx_kernel("""  mov.u64 %rd1, 0;
  ld.global.u32 %r1, [%rd1];
  ret;""")
    with pytest.raises(MemoryAccessError):
        run_kernel(k, "k", block=1, args=[np.zeros(1, np.uint32)])


SHFL = (
    PRO
    + """  setp.lt.u32 %p1, %r1, {lim};
  @!%p1 bra $L1;
  shfl.sync.bfly.b32 %r2, %r1, 1, 31, -1;
  st.global.u32 [%rd3], %r2;
$L1:
  ret;"""
)


def test_collective_full_mask_with_inactive_lanes_reported():
    with pytest.raises(CollectiveMaskError) as e:
        run_kernel(ptx_kernel(SHFL.format(lim=16)), "k", block=32, args=[np.zeros(32, np.uint32)])
    assert e.value.kind == "collective-mask" and "16" in str(e.value)


def test_collective_full_warp_ok():
    out = np.zeros(64, np.uint32)
    run_kernel(ptx_kernel(SHFL.format(lim=64)), "k", block=64, args=[out])
    np.testing.assert_array_equal(out, np.arange(64) ^ 1)


def test_step_limit():
    k = ptx_kernel("""$L0:
  bra $L0;""")
    with pytest.raises(StepLimitError):
        run_kernel(k, "k", block=4, args=[np.zeros(1, np.uint32)], max_steps=1000)


MBAR = """  mov.u32 %r1, %tid.x;
  setp.eq.u32 %p1, %r1, 0;
  @%p1 mbarrier.init.shared::cta.b64 [bar], {count};
  bar.sync 0;
  mbarrier.arrive.shared::cta.b64 %rd5, [bar];
  mov.u32 %r6, 0;
$W:
  mbarrier.try_wait.parity.shared::cta.b64 %p2, [bar], %r6;
  @!%p2 bra $W;
  ret;"""


def test_mbarrier_completes():
    k = ptx_kernel(MBAR.format(count=64), decls=".shared .align 8 .b64 bar;\n")
    run_kernel(k, "k", grid=2, block=64, args=[np.zeros(1, np.uint32)])


def test_mbarrier_wait_that_never_completes_reported():
    k = ptx_kernel(MBAR.format(count=65), decls=".shared .align 8 .b64 bar;\n")
    with pytest.raises(DeadlockError) as e:
        run_kernel(k, "k", block=64, args=[np.zeros(1, np.uint32)])
    assert e.value.kind == "deadlock"


def test_launch_errors():
    k = ptx_kernel(PRO + "  ret;", params=".param .u64 out, .param .f32 s", directives=" .reqntid 64, 1, 1")
    a = np.zeros(64, np.uint32)
    with pytest.raises(EmuLaunchError, match="arguments"):
        run_kernel(k, "k", block=64, args=[a])
    with pytest.raises(EmuLaunchError, match="reqntid"):
        run_kernel(k, "k", block=32, args=[a, 1.0])
    with pytest.raises(EmuLaunchError, match="contiguous"):
        run_kernel(k, "k", block=64, args=[np.zeros((8, 8), np.uint32)[:, ::2], 1.0])
    with pytest.raises(EmuLaunchError):
        run_kernel(k, "k", block=64, args=[a, a])
    with pytest.raises(EmuLaunchError, match="no kernel"):
        run_kernel(k, "nope", block=64, args=[a, 1.0])
    assert isinstance(EmuLaunchError("x"), ValueError)
    run_kernel(k, "k", block=64, args=[a, 1.0])


def test_reconverge_after_loop_whose_exit_precedes_it_in_text():
    """Lanes leave the loop after different trip counts; the shuffle after it must see the whole warp."""
    k = ptx_kernel(
        PRO
        + """  and.b32 %r2, %r1, 7;
  mov.u32 %r3, 0;
  mov.u32 %r4, 0;
  bra $head;
$exit:
  shfl.sync.bfly.b32 %r5, %r4, 1, 31, -1;
  st.global.u32 [%rd3], %r5;
  ret;
$head:
  setp.ge.u32 %p1, %r3, %r2;
  @%p1 bra $exit;
  add.u32 %r4, %r4, %r3;
  add.u32 %r3, %r3, 1;
  bra $head;"""
    )
    out = np.zeros(64, np.uint32)
    run_kernel(k, "k", block=64, args=[out])
    t = np.arange(64) ^ 1
    np.testing.assert_array_equal(out, (t & 7) * ((t & 7) - 1) // 2)


def test_hand_built_module_without_parser():
    """The emulator needs only the program model: build `out[tid] = tid * 3` from Instr objects."""
    from irc.ptxisa.model import Addr, Function, Imm, Instr, Module, Param, Reg, RegDecl, Sym

    body = [
        RegDecl(".b32", "%r", 4),
        RegDecl(".b64", "%rd", 4),
        Instr("ld.param.u64", [Reg("%rd1"), Addr(Sym("out"))]),
        Instr("mov.u32", [Reg("%r1"), Reg("%tid.x")]),
        Instr("mul.lo.u32", [Reg("%r2"), Reg("%r1"), Imm(3, "3")]),
        Instr("mul.wide.u32", [Reg("%rd2"), Reg("%r1"), Imm(4, "4")]),
        Instr("add.s64", [Reg("%rd3"), Reg("%rd1"), Reg("%rd2")]),
        Instr("st.global.u32", [Addr(Reg("%rd3")), Reg("%r2")]),
        Instr("ret"),
    ]
    mod = Module(functions=[Function("k", "entry", params=[Param("out", ".u64")], body=body)])
    out = np.zeros(40, np.uint32)
    st = run_kernel(mod, "k", block=40, args=[out])
    np.testing.assert_array_equal(out, np.arange(40) * 3)
    assert st.thread_instructions == 7 * 40


def test_starvation_relief_runs_a_warps_lanes_together() -> None:
    """Lanes leave a loop nest at different times and meet at `shfl.sync` (full mask). Lockstep's
    starvation relief used to run only the lanes that had waited there since its last look, without the
    ones that had just arrived: a false `CollectiveMaskError` (tests/fuzz/differential.py found it). The
    unoptimized and the optimized PTX run clean and agree."""
    from pathlib import Path

    from irc.compiler import CompileOptions, compile_kdsl
    from irc.emu import run_kernel
    from irc.frontend.ptx.parser import parse_ptx

    src = (Path(__file__).parent / "data" / "emu" / "relief_collective.kdsl").read_text()
    outs = []
    for optimize in (False, True):
        r = compile_kdsl(src, "gen.kdsl", CompileOptions(optimize=optimize, check=False))
        args = [
            np.zeros(64 * 8, np.uint32),
            np.zeros(64 * 4, np.float32),
            np.arange(256, dtype=np.uint32) * 2654435761 % 1000,
            np.zeros(256, np.float32),
            0,
            0,
            np.float32("nan"),
        ]
        run_kernel(parse_ptx(r.ptx_text, "gen.ptx"), "k", grid=(2, 1, 1), block=(32, 1, 1), args=args)
        outs.append(args[0])
    np.testing.assert_array_equal(outs[0], outs[1])
