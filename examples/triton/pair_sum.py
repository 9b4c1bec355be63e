"""irc on a Triton kernel, without a GPU: `python examples/triton/pair_sum.py` (exit 1: one finding).

`pair_sum` adds each element's neighbour, fetched with a butterfly shuffle written as inline PTX. The
shuffle runs only in the lanes whose element is in range (a predicate inside the asm) while its mask
names all 32 lanes: a partial-warp shuffle. irc reports it at the `tl.inline_asm_elementwise` line, on
every target, naming the kernel and its constexprs. `pair_sum_fixed` shuffles in every lane and is clean.
`test_pair_sum.py` beside this file shows the same through `pytest --irc`.
"""

import os
import sys

os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")  # Triton 3.9 warns when it is unset

import triton  # noqa: E402
import triton.language as tl  # noqa: E402

SIGNATURE = {"x_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32"}


@triton.jit
def pair_sum(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    valid = offs < n
    x = tl.load(x_ptr + offs, mask=valid, other=0.0)
    y = tl.inline_asm_elementwise(
        "{ .reg .pred p; setp.ne.s32 p, $2, 0; mov.b32 $0, $1; @p shfl.sync.bfly.b32 $0, $1, 1, 0x1f, -1; }",
        "=r,r,r",
        [x, valid.to(tl.int32)],
        dtype=tl.float32,
        is_pure=True,
        pack=1,
    )
    tl.store(out_ptr + offs, x + y, mask=valid)


@triton.jit
def pair_sum_fixed(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    valid = offs < n
    x = tl.load(x_ptr + offs, mask=valid, other=0.0)
    y = tl.inline_asm_elementwise(
        "shfl.sync.bfly.b32 $0, $1, 1, 0x1f, -1;", "=r,r", [x], dtype=tl.float32, is_pure=True, pack=1
    )
    tl.store(out_ptr + offs, x + tl.where(valid, y, 0.0), mask=valid)


if __name__ == "__main__":
    import irc.triton

    found = []
    for kernel in (pair_sum, pair_sum_fixed):
        found += irc.triton.check(
            kernel,
            signature=SIGNATURE,
            constexprs={"BLOCK": 256},
            targets=["sm_80", "sm_90a"],
            options={"num_warps": 4},
        )
    sys.stderr.write(irc.triton.render(found))
    sys.exit(1 if found else 0)
