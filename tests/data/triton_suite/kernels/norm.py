"""LayerNorm forward and backward (dx fused with partial dw/db sums under a per-group spin lock, then a
column reduction of the partials), RMSNorm forward and backward."""

from __future__ import annotations

import triton
import triton.language as tl
from suite import ALL_ARCHES, Case, on


@triton.jit
def layernorm_fwd(y_ptr, x_ptr, w_ptr, b_ptr, mean_ptr, rstd_ptr, stride, n_cols, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    valid = cols < n_cols
    x = tl.load(x_ptr + row * stride + cols, mask=valid, other=0.0).to(tl.float32)
    mean = tl.sum(x, axis=0) / n_cols
    centred = tl.where(valid, x - mean, 0.0)
    var = tl.sum(centred * centred, axis=0) / n_cols
    rstd = tl.rsqrt(var + eps)
    tl.store(mean_ptr + row, mean)
    tl.store(rstd_ptr + row, rstd)
    w = tl.load(w_ptr + cols, mask=valid, other=0.0).to(tl.float32)
    b = tl.load(b_ptr + cols, mask=valid, other=0.0).to(tl.float32)
    y = centred * rstd * w + b
    tl.store(y_ptr + row * stride + cols, y.to(y_ptr.dtype.element_ty), mask=valid)


@triton.jit
def layernorm_bwd_dx(
    dx_ptr, dy_ptr, x_ptr, w_ptr, mean_ptr, rstd_ptr, dw_part_ptr, db_part_ptr, lock_ptr, stride, n_cols,
    GROUPS: tl.constexpr, BLOCK: tl.constexpr,
):  # fmt: skip
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    valid = cols < n_cols
    x = tl.load(x_ptr + row * stride + cols, mask=valid, other=0.0).to(tl.float32)
    dy = tl.load(dy_ptr + row * stride + cols, mask=valid, other=0.0).to(tl.float32)
    w = tl.load(w_ptr + cols, mask=valid, other=0.0).to(tl.float32)
    mean = tl.load(mean_ptr + row)
    rstd = tl.load(rstd_ptr + row)
    xhat = tl.where(valid, (x - mean) * rstd, 0.0)
    wdy = tl.where(valid, w * dy, 0.0)
    c1 = tl.sum(xhat * wdy, axis=0) / n_cols
    c2 = tl.sum(wdy, axis=0) / n_cols
    dx = (wdy - (xhat * c1 + c2)) * rstd
    tl.store(dx_ptr + row * stride + cols, dx.to(dx_ptr.dtype.element_ty), mask=valid)
    # rows sharing `group` add their dw/db into one partial row; the first writer stores instead of adding
    group = row % GROUPS
    lock = lock_ptr + group
    first = lock_ptr + GROUPS + group
    while tl.atomic_cas(lock, 0, 1) == 1:
        pass
    dw = (dy * xhat).to(w_ptr.dtype.element_ty)
    db = dy.to(w_ptr.dtype.element_ty)
    part = group * n_cols + cols
    if tl.load(first) == 0:
        tl.atomic_xchg(first, 1)
    else:
        dw += tl.load(dw_part_ptr + part, mask=valid)
        db += tl.load(db_part_ptr + part, mask=valid)
    tl.store(dw_part_ptr + part, dw, mask=valid)
    tl.store(db_part_ptr + part, db, mask=valid)
    tl.debug_barrier()
    tl.atomic_xchg(lock, 0)


@triton.jit
def layernorm_bwd_dwdb(
    dw_part_ptr, db_part_ptr, dw_ptr, db_ptr, groups, n_cols, BG: tl.constexpr, BN: tl.constexpr
):
    cols = tl.program_id(0) * BN + tl.arange(0, BN)
    dw = tl.zeros((BG, BN), dtype=tl.float32)
    db = tl.zeros((BG, BN), dtype=tl.float32)
    for g in range(0, groups, BG):
        rows = g + tl.arange(0, BG)
        m = (rows[:, None] < groups) & (cols[None, :] < n_cols)
        offs = rows[:, None] * n_cols + cols[None, :]
        dw += tl.load(dw_part_ptr + offs, mask=m, other=0.0).to(tl.float32)
        db += tl.load(db_part_ptr + offs, mask=m, other=0.0).to(tl.float32)
    tl.store(dw_ptr + cols, tl.sum(dw, axis=0).to(dw_ptr.dtype.element_ty), mask=cols < n_cols)
    tl.store(db_ptr + cols, tl.sum(db, axis=0).to(db_ptr.dtype.element_ty), mask=cols < n_cols)


@triton.jit
def rmsnorm_fwd(y_ptr, x_ptr, w_ptr, rstd_ptr, stride, n_cols, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    valid = cols < n_cols
    x = tl.load(x_ptr + row * stride + cols, mask=valid, other=0.0).to(tl.float32)
    rstd = tl.rsqrt(tl.sum(x * x, axis=0) / n_cols + eps)
    tl.store(rstd_ptr + row, rstd)
    w = tl.load(w_ptr + cols, mask=valid, other=0.0).to(tl.float32)
    tl.store(y_ptr + row * stride + cols, (x * rstd * w).to(y_ptr.dtype.element_ty), mask=valid)


@triton.jit
def rmsnorm_bwd(
    dx_ptr,
    dw_part_ptr,
    dy_ptr,
    x_ptr,
    w_ptr,
    rstd_ptr,
    stride,
    n_rows,
    n_cols,
    ROWS_PER: tl.constexpr,
    BLOCK: tl.constexpr,
):
    # each program walks ROWS_PER rows and keeps its own partial dw row (summed by a later kernel)
    pid = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    valid = cols < n_cols
    w = tl.load(w_ptr + cols, mask=valid, other=0.0).to(tl.float32)
    dw = tl.zeros([BLOCK], dtype=tl.float32)
    for r in range(pid * ROWS_PER, min((pid + 1) * ROWS_PER, n_rows)):
        x = tl.load(x_ptr + r * stride + cols, mask=valid, other=0.0).to(tl.float32)
        dy = tl.load(dy_ptr + r * stride + cols, mask=valid, other=0.0).to(tl.float32)
        rstd = tl.load(rstd_ptr + r)
        xhat = x * rstd
        wdy = w * dy
        c = tl.sum(xhat * wdy, axis=0) / n_cols
        tl.store(
            dx_ptr + r * stride + cols, ((wdy - xhat * c) * rstd).to(dx_ptr.dtype.element_ty), mask=valid
        )
        dw += dy * xhat
    tl.store(dw_part_ptr + pid * n_cols + cols, dw, mask=valid)


F32_STATS = {"mean_ptr": "*fp32", "rstd_ptr": "*fp32", "eps": "fp32"}

CASES = [
    Case(
        "layernorm_fwd",
        layernorm_fwd,
        {"BLOCK": 4096},
        on(ALL_ARCHES, num_warps=8),
        types=F32_STATS,
        aligned=("stride",),
    ),
    Case(
        "layernorm_bwd_dx",
        layernorm_bwd_dx,
        {"GROUPS": 64, "BLOCK": 1024},
        on(ALL_ARCHES, num_warps=8),
        types={**F32_STATS, "lock_ptr": "*i32"},
        aligned=("stride", "n_cols"),
    ),
    Case(
        "layernorm_bwd_dwdb",
        layernorm_bwd_dwdb,
        {"BG": 32, "BN": 128},
        on(ALL_ARCHES, num_warps=4),
        types={"dw_part_ptr": "*fp16", "db_part_ptr": "*fp16"},
        aligned=("n_cols",),
    ),
    Case(
        "rmsnorm_fwd",
        rmsnorm_fwd,
        {"BLOCK": 8192},
        on(ALL_ARCHES, num_warps=16),
        dtype="bf16",
        types=F32_STATS,
        aligned=("stride",),
    ),
    Case(
        "rmsnorm_bwd",
        rmsnorm_bwd,
        {"ROWS_PER": 16, "BLOCK": 4096},
        on(ALL_ARCHES, num_warps=8),
        dtype="bf16",
        types={**F32_STATS, "dw_part_ptr": "*fp32"},
        aligned=("stride", "n_cols"),
    ),
]
