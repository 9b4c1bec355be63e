"""Element-wise kernels with a twist: dropout with Philox random numbers (seeded, reproducible), rotary
position embedding applied to the two halves of each head, and the SwiGLU gate of a gated MLP."""

from __future__ import annotations

import triton
import triton.language as tl
from suite import ALL_ARCHES, Case, on


@triton.jit
def dropout(x_ptr, y_ptr, n, p, seed, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    live = offs < n
    x = tl.load(x_ptr + offs, mask=live)
    keep = tl.rand(seed, offs) > p
    tl.store(y_ptr + offs, tl.where(keep, x / (1 - p), 0.0), mask=live)


@triton.jit
def rotary(x_ptr, cos_ptr, sin_ptr, seq_len, heads, stride_tok, HALF: tl.constexpr, BT: tl.constexpr):
    # x: [tokens, heads, 2 * HALF]; cos/sin: [seq_len, HALF]; rotates (x1, x2) -> (x1 c - x2 s, x2 c + x1 s)
    tok = tl.program_id(0) * BT + tl.arange(0, BT)
    head = tl.program_id(1)
    d = tl.arange(0, HALF)
    pos = tok % seq_len
    c = tl.load(cos_ptr + pos[:, None] * HALF + d[None, :]).to(tl.float32)
    s = tl.load(sin_ptr + pos[:, None] * HALF + d[None, :]).to(tl.float32)
    row = x_ptr + tok[:, None] * stride_tok + head * 2 * HALF
    x1 = tl.load(row + d[None, :]).to(tl.float32)
    x2 = tl.load(row + HALF + d[None, :]).to(tl.float32)
    tl.store(row + d[None, :], (x1 * c - x2 * s).to(x_ptr.dtype.element_ty))
    tl.store(row + HALF + d[None, :], (x2 * c + x1 * s).to(x_ptr.dtype.element_ty))


@triton.jit
def swiglu(gate_up_ptr, out_ptr, n_rows, inner, BLOCK: tl.constexpr):
    # gate_up: [rows, 2 * inner] (gate | up); out: [rows, inner]
    row = tl.program_id(0)
    cols = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    live = (cols < inner) & (row < n_rows)
    g = tl.load(gate_up_ptr + row * 2 * inner + cols, mask=live, other=0.0).to(tl.float32)
    u = tl.load(gate_up_ptr + row * 2 * inner + inner + cols, mask=live, other=0.0).to(tl.float32)
    tl.store(out_ptr + row * inner + cols, (g * tl.sigmoid(g) * u).to(out_ptr.dtype.element_ty), mask=live)


CASES = [
    Case("dropout", dropout, {"BLOCK": 1024}, on(ALL_ARCHES, num_warps=4), dtype="fp32", types={"p": "fp32"}),
    Case(
        "rotary",
        rotary,
        {"HALF": 64, "BT": 16},
        on(ALL_ARCHES, num_warps=4),
        dtype="bf16",
        aligned=("stride_tok",),
    ),
    Case("swiglu", swiglu, {"BLOCK": 1024}, on(ALL_ARCHES, num_warps=4), dtype="bf16", aligned=("inner",)),
]
