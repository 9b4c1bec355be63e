"""Bug twins written in Triton itself. Triton inserts every barrier, shuffle and wait on its own, so the
only place a Triton user can write these defects is `tl.inline_asm_elementwise`; each kernel below is
what someone reaching for a warp primitive there plausibly writes. `CASES` is empty: none is clean."""

from __future__ import annotations

import triton
import triton.language as tl
from bugs import Twin
from suite import Case, on


@triton.jit
def pair_sum_nonzero(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    # adds each element to its neighbour lane's, but "skips the shuffle" for zeros: a full-mask
    # shfl.sync under a data-dependent predicate, which lanes holding zeros never reach
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    other = tl.inline_asm_elementwise(
        "{ .reg .pred nz; setp.ne.f32 nz, $1, 0f00000000; mov.b32 $0, 0; "
        "@nz shfl.sync.bfly.b32 $0, $1, 1, 0x1f, 0xffffffff; }",
        "=r,r",
        [x],
        dtype=tl.float32,
        is_pure=True,
        pack=1,
    )
    tl.store(y_ptr + offs, x + other, mask=offs < n)


@triton.jit
def half_warp_swap(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    # swaps values between lanes i and i^8 of each half warp, naming only lanes 0-15 in the member mask
    # although all 32 lanes execute the shuffle (undefined behaviour for lanes 16-31)
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    y = tl.inline_asm_elementwise(
        "shfl.sync.bfly.b32 $0, $1, 8, 0x1f, 0x0000ffff;", "=r,r", [x], dtype=tl.float32, is_pure=True, pack=1
    )
    tl.store(y_ptr + offs, y, mask=offs < n)


@triton.jit
def accumulate_asm(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    # meant as y += x in place, but the output is declared "=f" (write-only) instead of tied to an input:
    # the asm reads a register nothing wrote
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    y = tl.inline_asm_elementwise("add.f32 $0, $0, $1;", "=f,f", [x], dtype=tl.float32, is_pure=True, pack=1)
    tl.store(y_ptr + offs, y, mask=offs < n)


@triton.jit
def sync_if_positive(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    # a block barrier "only where needed": bar.sync under a data-dependent predicate
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    y = tl.inline_asm_elementwise(
        "{ .reg .pred pos; setp.gt.f32 pos, $1, 0f00000000; @pos bar.sync 0; mov.b32 $0, $1; }",
        "=r,r",
        [x],
        dtype=tl.float32,
        is_pure=False,
        pack=1,
    )
    tl.store(y_ptr + offs, y * 2.0, mask=offs < n)


def _case(name: str, fn, block: int = 1024) -> Case:
    return Case(name, fn, {"BLOCK": block}, on(("sm_80", "sm_90a"), num_warps=4), dtype="fp32")


CASES: list[Case] = []
TWINS = [
    Twin(
        "inline-shfl-pred",
        "pair_sum_nonzero",
        "sm_80",
        "warp-sync-divergence",
        "inline asm: a full-mask shfl.sync predicated on the lane's own data",
        at=("next", r"@nz shfl\.sync"),
        triton=_case("pair_sum_nonzero", pair_sum_nonzero),
    ),
    Twin(
        "inline-shfl-half-mask",
        "half_warp_swap",
        "sm_90a",
        "warp-sync-divergence",
        "inline asm: member mask 0x0000ffff on a shuffle every lane executes",
        at=("next", r"shfl\.sync\.bfly\.b32.*0x0000ffff"),
        triton=_case("half_warp_swap", half_warp_swap),
    ),
    Twin(
        "inline-write-only-acc",
        "accumulate_asm",
        "sm_80",
        "uninitialized",
        "inline asm: an output constraint `=f` used as an accumulator (read before written)",
        at=("next", r"add\.f32 .*"),
        triton=_case("accumulate_asm", accumulate_asm),
    ),
    Twin(
        "inline-bar-pred",
        "sync_if_positive",
        "sm_90a",
        "barrier-divergence",
        "inline asm: bar.sync predicated on the thread's own data",
        at=("next", r"@pos bar\.sync"),
        triton=_case("sync_if_positive", sync_if_positive),
    ),
]
