"""Emulator throughput: thread-instructions per second on a compute loop (target >= 20 M/s).

Run: python bench/bench_emu.py [threads] [iters]
"""

from __future__ import annotations

import sys

import numpy as np

from irc.emu import run_kernel
from irc.frontend.ptx.parser import parse_ptx

PTX = """
.version 8.0
.target sm_80
.address_size 64
.visible .entry loop(.param .u64 out, .param .u32 iters)
{
  .reg .pred %p<2>;
  .reg .b32 %r<8>;
  .reg .f32 %f<8>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  ld.param.u32 %r1, [iters];
  mov.u32 %r2, %tid.x;
  mov.u32 %r3, %ctaid.x;
  mov.u32 %r4, %ntid.x;
  mad.lo.s32 %r5, %r3, %r4, %r2;
  cvt.rn.f32.s32 %f1, %r5;
  mov.f32 %f2, 0f3F800000;
  mov.u32 %r6, 0;
$L:
  fma.rn.f32 %f2, %f2, 0f3F7FBE77, %f1;
  mul.f32 %f3, %f2, 0f3A83126F;
  add.f32 %f1, %f1, %f3;
  xor.b32 %r5, %r5, %r6;
  add.s32 %r6, %r6, 1;
  setp.lt.u32 %p1, %r6, %r1;
  @%p1 bra $L;
  mul.wide.s32 %rd2, %r2, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.f32 [%rd3], %f2;
  ret;
}
"""


def main(threads: int = 1 << 16, iters: int = 200) -> float:
    mod = parse_ptx(PTX)
    block = 256
    out = np.zeros(block, np.float32)
    # every CTA writes the same 256 floats (a race: racecheck off); fine for a throughput measurement
    st = run_kernel(mod, "loop", grid=threads // block, block=block, args=[out, iters], racecheck=False)
    rate = st.rate
    print(
        f"{st.thread_instructions:,} thread-instructions in {st.wall_time:.3f}s = {rate / 1e6:.1f} M/s "
        f"({threads} threads, {iters} iterations)"
    )
    return rate


if __name__ == "__main__":
    a = [int(x) for x in sys.argv[1:]]
    main(*a)
