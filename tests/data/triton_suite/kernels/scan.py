"""Scans: an inclusive cumulative sum along rows, a first-order linear recurrence h[t] = a[t] * h[t-1] + x[t]
as an associative scan over (a, x) pairs, and a chunked cumulative sum that carries the prefix across
column tiles in a loop."""

from __future__ import annotations

import triton
import triton.language as tl
from suite import ALL_ARCHES, Case, on


@triton.jit
def cumsum_rows(x_ptr, y_ptr, n_cols, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * stride + cols, mask=cols < n_cols, other=0.0)
    tl.store(y_ptr + row * stride + cols, tl.cumsum(x, axis=0), mask=cols < n_cols)


@triton.jit
def _affine(a1, x1, a2, x2):
    # (a1, x1) then (a2, x2): h -> a2 * (a1 * h + x1) + x2
    return a1 * a2, a2 * x1 + x2


@triton.jit
def linear_recurrence(a_ptr, x_ptr, h_ptr, seq_len, BLOCK: tl.constexpr):
    # one channel per program; the sequence fits one block
    base = tl.program_id(0) * seq_len
    t = tl.arange(0, BLOCK)
    live = t < seq_len
    a = tl.load(a_ptr + base + t, mask=live, other=1.0)
    x = tl.load(x_ptr + base + t, mask=live, other=0.0)
    _, h = tl.associative_scan((a, x), axis=0, combine_fn=_affine)
    tl.store(h_ptr + base + t, h, mask=live)


@triton.jit
def cumsum_chunked(x_ptr, y_ptr, n_cols, stride, TILE: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    carry = tl.zeros([1], dtype=tl.float32)
    for start in range(0, n_cols, TILE):
        cols = start + tl.arange(0, TILE)
        x = tl.load(x_ptr + row * stride + cols, mask=cols < n_cols, other=0.0).to(tl.float32)
        part = tl.cumsum(x, axis=0) + carry
        tl.store(y_ptr + row * stride + cols, part.to(y_ptr.dtype.element_ty), mask=cols < n_cols)
        carry += tl.sum(x, axis=0)


F32 = {"x_ptr": "*fp32", "y_ptr": "*fp32", "a_ptr": "*fp32", "h_ptr": "*fp32"}

CASES = [
    Case(
        "cumsum_rows",
        cumsum_rows,
        {"BLOCK": 2048},
        on(ALL_ARCHES, num_warps=8),
        types=F32,
        aligned=("stride",),
    ),
    Case(
        "linear_recurrence",
        linear_recurrence,
        {"BLOCK": 1024},
        on(ALL_ARCHES, num_warps=4),
        types=F32,
        aligned=("seq_len",),
    ),
    Case(
        "cumsum_chunked",
        cumsum_chunked,
        {"TILE": 512},
        on(ALL_ARCHES, num_warps=4),
        dtype="fp16",
        aligned=("stride",),
    ),
]
