"""Row softmax: the whole row in one block, the online (running max) form over column tiles, and the
backward pass. Each is a reduction across the warps of the program (shuffles, shared slots, bar.sync)."""

from __future__ import annotations

import triton
import triton.language as tl
from suite import ALL_ARCHES, Case, on

LOG2E = tl.constexpr(1.4426950408889634)


@triton.jit
def softmax_row(y_ptr, x_ptr, x_stride, y_stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    valid = cols < n_cols
    x = tl.load(x_ptr + row * x_stride + cols, mask=valid, other=-float("inf")).to(tl.float32)
    z = x - tl.max(x, axis=0)
    e = tl.exp2(z * LOG2E)
    tl.store(y_ptr + row * y_stride + cols, (e / tl.sum(e, axis=0)).to(y_ptr.dtype.element_ty), mask=valid)


@triton.jit
def softmax_online(y_ptr, x_ptr, stride, n_cols, TILE: tl.constexpr):
    # pass 1: running max and rescaled running sum per lane; pass 2: normalise
    row = tl.program_id(0).to(tl.int64)
    x_row = x_ptr + row * stride
    m = tl.full([TILE], -float("inf"), tl.float32)
    s = tl.zeros([TILE], tl.float32)
    for start in tl.range(0, n_cols, TILE, num_stages=2):
        cols = start + tl.arange(0, TILE)
        x = tl.load(x_row + cols, mask=cols < n_cols, other=-float("inf")).to(tl.float32)
        m_new = tl.maximum(m, x)
        safe = tl.where(m_new == -float("inf"), 0.0, m_new)
        s = s * tl.exp2((m - safe) * LOG2E) + tl.exp2((x - safe) * LOG2E)
        m = m_new
    row_max = tl.max(m, axis=0)
    row_sum = tl.sum(s * tl.exp2((m - row_max) * LOG2E), axis=0)
    inv = 1.0 / row_sum
    for start in tl.range(0, n_cols, TILE, num_stages=2):
        cols = start + tl.arange(0, TILE)
        valid = cols < n_cols
        x = tl.load(x_row + cols, mask=valid, other=-float("inf")).to(tl.float32)
        y = tl.exp2((x - row_max) * LOG2E) * inv
        tl.store(y_ptr + row * stride + cols, y.to(y_ptr.dtype.element_ty), mask=valid)


@triton.jit
def softmax_bwd(dx_ptr, dy_ptr, y_ptr, stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    valid = cols < n_cols
    base = row * stride + cols
    dy = tl.load(dy_ptr + base, mask=valid, other=0.0).to(tl.float32)
    y = tl.load(y_ptr + base, mask=valid, other=0.0).to(tl.float32)
    dot = tl.sum(dy * y, axis=0)
    tl.store(dx_ptr + base, ((dy - dot) * y).to(dx_ptr.dtype.element_ty), mask=valid)


CASES = [
    Case(
        "softmax_row",
        softmax_row,
        {"BLOCK": 4096},
        on(ALL_ARCHES, num_warps=16),
        types={"x_ptr": "*fp32", "y_ptr": "*fp32"},
        aligned=("x_stride", "y_stride"),
    ),
    Case("softmax_online", softmax_online, {"TILE": 1024}, on(ALL_ARCHES, num_warps=4), aligned=("stride",)),
    Case(
        "softmax_bwd",
        softmax_bwd,
        {"BLOCK": 2048},
        on(ALL_ARCHES, num_warps=8),
        dtype="bf16",
        aligned=("stride",),
    ),
]
