"""Two Triton kernels for irc's Triton tests (tests/test_triton_check.py): each lane adds its neighbour's
value, fetched with a butterfly shuffle written as inline PTX (Triton has no shuffle primitive).

`pair_sum_bug`: lanes whose element is past `n` skip the shuffle (a predicate inside the asm), yet the
shuffle's mask names all 32 lanes -- a partial-warp shuffle, undefined behaviour on the GPU.
`pair_sum_fixed`: every lane shuffles; the result is selected afterwards.
"""

import triton
import triton.language as tl

SIGNATURE = {"x_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32"}


@triton.jit
def pair_sum_bug(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    valid = offs < n
    x = tl.load(x_ptr + offs, mask=valid, other=0.0)
    # only lanes with a valid element exchange values
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
    # every lane exchanges values; the invalid ones are dropped afterwards
    y = tl.inline_asm_elementwise(
        "shfl.sync.bfly.b32 $0, $1, 1, 0x1f, -1;",
        "=r,r",
        [x],
        dtype=tl.float32,
        is_pure=True,
        pack=1,
    )
    tl.store(out_ptr + offs, x + tl.where(valid, y, 0.0), mask=valid)
