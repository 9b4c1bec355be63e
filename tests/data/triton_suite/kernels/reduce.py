"""Reductions: one row per program (sum, max), a whole tensor with atomics, argmax and top-k along rows.

Triton lowers `tl.sum`/`tl.max` over a block that spans several warps to butterfly shuffles inside each
warp, one shared-memory slot per warp, a `bar.sync`, and a second shuffle round over the slots.
"""

from __future__ import annotations

import triton
import triton.language as tl
from suite import ALL_ARCHES, Case, on


@triton.jit
def row_sum(x_ptr, out_ptr, n_cols, stride_row, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + row * stride_row + cols, mask=cols < n_cols, other=0.0).to(tl.float32)
    tl.store(out_ptr + row, tl.sum(acc, axis=0))


@triton.jit
def row_max(x_ptr, out_ptr, n_cols, stride_row, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * stride_row + cols, mask=cols < n_cols, other=-float("inf"))
    tl.store(out_ptr + row, tl.max(x, axis=0))


@triton.jit
def atomic_sum(x_ptr, out_ptr, n, BLOCK: tl.constexpr, ITERS: tl.constexpr):
    # each program folds ITERS consecutive blocks, then adds its partial to the global total
    pid = tl.program_id(0)
    base = pid * BLOCK * ITERS
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for i in tl.static_range(ITERS):
        offs = base + i * BLOCK + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    tl.atomic_add(out_ptr, tl.sum(acc, axis=0), sem="relaxed")


@triton.jit
def argmax_rows(x_ptr, idx_ptr, val_ptr, n_cols, stride_row, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * stride_row + cols, mask=cols < n_cols, other=-float("inf")).to(tl.float32)
    best, where = tl.max(x, axis=0, return_indices=True)
    tl.store(idx_ptr + row, where)
    tl.store(val_ptr + row, best)


@triton.jit
def topk_rows(x_ptr, out_ptr, n_cols, stride_row, BLOCK: tl.constexpr, K: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * stride_row + cols, mask=cols < n_cols, other=-float("inf"))
    top = tl.topk(x, K, dim=0)
    tl.store(out_ptr + row * K + tl.arange(0, K), top)


F32 = {"val_ptr": "*fp32", "out_ptr": "*fp32", "x_ptr": "*fp32"}

CASES = [
    Case(
        "row_sum", row_sum, {"BLOCK": 1024}, on(ALL_ARCHES, num_warps=4), types=F32, aligned=("stride_row",)
    ),
    Case(
        "row_max", row_max, {"BLOCK": 2048}, on(ALL_ARCHES, num_warps=8), types=F32, aligned=("stride_row",)
    ),
    Case("atomic_sum", atomic_sum, {"BLOCK": 1024, "ITERS": 4}, on(ALL_ARCHES, num_warps=4), types=F32),
    Case(
        "argmax_rows",
        argmax_rows,
        {"BLOCK": 4096},
        on(ALL_ARCHES, num_warps=8),
        types={"idx_ptr": "*i32", "val_ptr": "*fp32"},
        aligned=("stride_row",),
    ),
    Case("topk_rows", topk_rows, {"BLOCK": 1024, "K": 16}, on(ALL_ARCHES, num_warps=4), types=F32),
]
