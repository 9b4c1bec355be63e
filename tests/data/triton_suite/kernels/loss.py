"""Cross-entropy over a large vocabulary: the forward pass streams the logits of one row in tiles with an
online log-sum-exp, the backward pass writes softmax minus the one-hot target, scaled by the upstream
gradient; ignored targets (-100) give zero loss and zero gradient."""

from __future__ import annotations

import triton
import triton.language as tl
from suite import ALL_ARCHES, Case, on

IGNORE = tl.constexpr(-100)


@triton.jit
def cross_entropy_fwd(logits_ptr, target_ptr, loss_ptr, lse_ptr, vocab, stride, TILE: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    base = logits_ptr + row * stride
    target = tl.load(target_ptr + row)
    m = -float("inf")
    s = 0.0
    for start in range(0, vocab, TILE):
        cols = start + tl.arange(0, TILE)
        z = tl.load(base + cols, mask=cols < vocab, other=-float("inf")).to(tl.float32)
        m_new = tl.maximum(m, tl.max(z, axis=0))
        s = s * tl.exp(m - m_new) + tl.sum(tl.exp(z - m_new), axis=0)
        m = m_new
    lse = m + tl.log(s)
    tl.store(lse_ptr + row, lse)
    picked = tl.load(base + target, mask=target != IGNORE, other=0.0).to(tl.float32)
    tl.store(loss_ptr + row, tl.where(target == IGNORE, 0.0, lse - picked))


@triton.jit
def cross_entropy_bwd(
    dlogits_ptr, logits_ptr, target_ptr, lse_ptr, dloss_ptr, vocab, stride, TILE: tl.constexpr
):
    row = tl.program_id(0).to(tl.int64)
    target = tl.load(target_ptr + row)
    lse = tl.load(lse_ptr + row)
    g = tl.where(target == IGNORE, 0.0, tl.load(dloss_ptr + row))
    for start in range(0, vocab, TILE):
        cols = start + tl.arange(0, TILE)
        live = cols < vocab
        z = tl.load(logits_ptr + row * stride + cols, mask=live, other=0.0).to(tl.float32)
        p = tl.exp(z - lse) - (cols == target).to(tl.float32)
        tl.store(dlogits_ptr + row * stride + cols, (p * g).to(dlogits_ptr.dtype.element_ty), mask=live)


CE_T = {"target_ptr": "*i64", "loss_ptr": "*fp32", "lse_ptr": "*fp32", "dloss_ptr": "*fp32"}

CASES = [
    Case(
        "cross_entropy_fwd",
        cross_entropy_fwd,
        {"TILE": 4096},
        on(ALL_ARCHES, num_warps=16),
        dtype="bf16",
        types=CE_T,
        aligned=("stride",),
    ),
    Case(
        "cross_entropy_bwd",
        cross_entropy_bwd,
        {"TILE": 4096},
        on(ALL_ARCHES, num_warps=8),
        dtype="bf16",
        types=CE_T,
        aligned=("stride",),
    ),
]
