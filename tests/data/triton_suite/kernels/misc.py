"""Small kernels that exercise other lowering paths: a histogram per program merged with atomics, an
embedding-bag lookup (gathered rows summed per bag), and a row-wise int8 quantiser (absmax, scale, round)."""

from __future__ import annotations

import triton
import triton.language as tl
from suite import ALL_ARCHES, Case, on


@triton.jit
def histogram(x_ptr, hist_ptr, n, BLOCK: tl.constexpr, BINS: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0)
    x = tl.where(offs < n, x, BINS)  # out-of-range lanes fall in an extra bin that is dropped below
    h = tl.histogram(x, BINS + 1)
    bins = tl.arange(0, BINS + 1)
    tl.atomic_add(hist_ptr + bins, h, mask=bins < BINS, sem="relaxed")


@triton.jit
def embedding_bag(idx_ptr, offsets_ptr, table_ptr, out_ptr, dim, DIM_BLOCK: tl.constexpr):
    bag = tl.program_id(0)
    d = tl.program_id(1) * DIM_BLOCK + tl.arange(0, DIM_BLOCK)
    first = tl.load(offsets_ptr + bag)
    last = tl.load(offsets_ptr + bag + 1)
    acc = tl.zeros([DIM_BLOCK], dtype=tl.float32)
    for i in range(first, last):
        row = tl.load(idx_ptr + i).to(tl.int64)
        acc += tl.load(table_ptr + row * dim + d, mask=d < dim, other=0.0).to(tl.float32)
    tl.store(out_ptr + bag * dim + d, acc.to(out_ptr.dtype.element_ty), mask=d < dim)


@triton.jit
def quantize_rows(x_ptr, q_ptr, scale_ptr, n_cols, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * stride + cols, mask=cols < n_cols, other=0.0).to(tl.float32)
    scale = tl.maximum(tl.max(tl.abs(x), axis=0), 1e-8) / 127.0
    q = tl.extra.cuda.libdevice.rint(x / scale)
    tl.store(q_ptr + row * stride + cols, q.to(tl.int8), mask=cols < n_cols)
    tl.store(scale_ptr + row, scale)


CASES = [
    Case(
        "histogram",
        histogram,
        {"BLOCK": 2048, "BINS": 255},
        on(ALL_ARCHES, num_warps=8),
        types={"x_ptr": "*i32", "hist_ptr": "*i32"},
    ),
    Case(
        "embedding_bag",
        embedding_bag,
        {"DIM_BLOCK": 256},
        on(ALL_ARCHES, num_warps=2),
        types={"idx_ptr": "*i32", "offsets_ptr": "*i32"},
        aligned=("dim",),
    ),
    Case(
        "quantize_rows",
        quantize_rows,
        {"BLOCK": 4096},
        on(ALL_ARCHES, num_warps=8),
        types={"q_ptr": "*i8", "scale_ptr": "*fp32"},
        aligned=("stride",),
    ),
]
