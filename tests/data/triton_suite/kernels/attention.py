"""Attention forward in the flash-attention style (online softmax over key blocks, causal or not, the
causal diagonal block handled in its own loop), a TMA-descriptor variant for sm_90a/sm_100a, and the
backward preprocessing (delta = rowsum(o * do))."""

from __future__ import annotations

import triton
import triton.language as tl
from suite import ALL_ARCHES, HOPPER_UP, Case, on

RCP_LN2 = tl.constexpr(1.4426950408889634)


@triton.jit
def _attn_blocks(
    acc,
    l_i,
    m_i,
    q,
    k_base,
    v_base,
    offs_m,
    lo,
    hi,
    qk_scale,
    DIAG: tl.constexpr,
    BN: tl.constexpr,
    D: tl.constexpr,
):
    offs_d = tl.arange(0, D)
    for start_n in tl.range(lo, hi, BN):
        offs_n = start_n + tl.arange(0, BN)
        k = tl.load(k_base + offs_n[None, :] * D + offs_d[:, None])
        s = tl.dot(q, k) * qk_scale
        if DIAG:
            s = tl.where(offs_m[:, None] >= offs_n[None, :], s, -1.0e6)
        m_new = tl.maximum(m_i, tl.max(s, 1))
        p = tl.math.exp2(s - m_new[:, None])
        alpha = tl.math.exp2(m_i - m_new)
        l_i = l_i * alpha + tl.sum(p, 1)
        v = tl.load(v_base + offs_n[:, None] * D + offs_d[None, :])
        acc = acc * alpha[:, None] + tl.dot(p.to(v.dtype), v)
        m_i = m_new
    return acc, l_i, m_i


@triton.jit
def attn_fwd(
    q_ptr,
    k_ptr,
    v_ptr,
    o_ptr,
    lse_ptr,
    seq_len,
    sm_scale,
    D: tl.constexpr,
    BM: tl.constexpr,
    BN: tl.constexpr,
    CAUSAL: tl.constexpr,
):
    # q, k, v, o: [batch*heads, seq_len, D] contiguous; seq_len is a multiple of BM and BN
    start = tl.program_id(0) * BM
    bh = tl.program_id(1).to(tl.int64)
    base = bh * seq_len * D
    offs_m = start + tl.arange(0, BM)
    offs_d = tl.arange(0, D)
    q = tl.load(q_ptr + base + offs_m[:, None] * D + offs_d[None, :])
    m_i = tl.full([BM], -float("inf"), tl.float32)
    l_i = tl.full([BM], 1.0, tl.float32)
    acc = tl.zeros([BM, D], tl.float32)
    qk_scale = sm_scale * RCP_LN2
    if CAUSAL:
        acc, l_i, m_i = _attn_blocks(
            acc, l_i, m_i, q, k_ptr + base, v_ptr + base, offs_m, 0, start, qk_scale, False, BN, D
        )
        acc, l_i, m_i = _attn_blocks(
            acc, l_i, m_i, q, k_ptr + base, v_ptr + base, offs_m, start, start + BM, qk_scale, True, BN, D
        )
    else:
        acc, l_i, m_i = _attn_blocks(
            acc, l_i, m_i, q, k_ptr + base, v_ptr + base, offs_m, 0, seq_len, qk_scale, False, BN, D
        )
    tl.store(lse_ptr + bh * seq_len + offs_m, m_i + tl.math.log2(l_i))
    tl.store(
        o_ptr + base + offs_m[:, None] * D + offs_d[None, :], (acc / l_i[:, None]).to(o_ptr.dtype.element_ty)
    )


@triton.jit
def attn_fwd_tma(
    q_ptr,
    k_ptr,
    v_ptr,
    o_ptr,
    seq_len,
    sm_scale,
    D: tl.constexpr,
    BM: tl.constexpr,
    BN: tl.constexpr,
    CAUSAL: tl.constexpr,
):
    # q, k, v, o viewed as 2-D [batch*heads*seq_len, D] through device-side descriptors
    rows = tl.num_programs(1) * seq_len
    q_desc = tl.make_tensor_descriptor(q_ptr, shape=[rows, D], strides=[D, 1], block_shape=[BM, D])
    k_desc = tl.make_tensor_descriptor(k_ptr, shape=[rows, D], strides=[D, 1], block_shape=[BN, D])
    v_desc = tl.make_tensor_descriptor(v_ptr, shape=[rows, D], strides=[D, 1], block_shape=[BN, D])
    o_desc = tl.make_tensor_descriptor(o_ptr, shape=[rows, D], strides=[D, 1], block_shape=[BM, D])
    start = tl.program_id(0) * BM
    row0 = tl.program_id(1) * seq_len
    q = q_desc.load([row0 + start, 0])
    m_i = tl.full([BM], -float("inf"), tl.float32)
    l_i = tl.full([BM], 1.0, tl.float32)
    acc = tl.zeros([BM, D], tl.float32)
    qk_scale = sm_scale * RCP_LN2
    offs_m = start + tl.arange(0, BM)
    hi = start + BM if CAUSAL else seq_len
    for start_n in tl.range(0, hi, BN):
        k = k_desc.load([row0 + start_n, 0])
        s = tl.dot(q, k.T) * qk_scale
        if CAUSAL:
            s = tl.where(offs_m[:, None] >= (start_n + tl.arange(0, BN))[None, :], s, -1.0e6)
        m_new = tl.maximum(m_i, tl.max(s, 1))
        p = tl.math.exp2(s - m_new[:, None])
        alpha = tl.math.exp2(m_i - m_new)
        l_i = l_i * alpha + tl.sum(p, 1)
        v = v_desc.load([row0 + start_n, 0])
        acc = acc * alpha[:, None] + tl.dot(p.to(tl.float16), v)
        m_i = m_new
    o_desc.store([row0 + start, 0], (acc / l_i[:, None]).to(tl.float16))


@triton.jit
def attn_bwd_delta(o_ptr, do_ptr, delta_ptr, rows, D: tl.constexpr, BM: tl.constexpr):
    offs_m = tl.program_id(0) * BM + tl.arange(0, BM)
    offs_d = tl.arange(0, D)
    m = offs_m[:, None] < rows
    o = tl.load(o_ptr + offs_m[:, None] * D + offs_d[None, :], mask=m, other=0.0).to(tl.float32)
    do = tl.load(do_ptr + offs_m[:, None] * D + offs_d[None, :], mask=m, other=0.0).to(tl.float32)
    tl.store(delta_ptr + offs_m, tl.sum(o * do, axis=1), mask=offs_m < rows)


ATTN_T = {"lse_ptr": "*fp32", "sm_scale": "fp32"}
ATTN_OPTS = {
    "sm_80": {"num_warps": 4, "num_stages": 3},
    "sm_90a": {"num_warps": 4, "num_stages": 3},
    "sm_100a": {"num_warps": 4, "num_stages": 3},
}

CASES = [
    Case(
        "attn_fwd",
        attn_fwd,
        {"D": 64, "BM": 128, "BN": 64, "CAUSAL": False},
        ATTN_OPTS,
        types=ATTN_T,
        aligned=("seq_len",),
    ),
    Case(
        "attn_fwd_causal",
        attn_fwd,
        {"D": 128, "BM": 128, "BN": 64, "CAUSAL": True},
        {
            **ATTN_OPTS,
            "sm_90a": {"num_warps": 8, "num_stages": 2},
            "sm_100a": {"num_warps": 8, "num_stages": 2},
        },
        types=ATTN_T,
        aligned=("seq_len",),
        why="the causal instance: an off-diagonal loop and a masked diagonal loop",
    ),
    Case(
        "attn_fwd_tma",
        attn_fwd_tma,
        {"D": 64, "BM": 128, "BN": 128, "CAUSAL": False},
        on(HOPPER_UP, num_warps=8, num_stages=2),
        types={"sm_scale": "fp32"},
        aligned=("seq_len",),
    ),
    Case(
        "attn_fwd_tma_causal",
        attn_fwd_tma,
        {"D": 64, "BM": 128, "BN": 64, "CAUSAL": True},
        on(HOPPER_UP, num_warps=4, num_stages=3),
        types={"sm_scale": "fp32"},
        aligned=("seq_len",),
        why="the causal instance of the descriptor kernel",
    ),
    Case(
        "attn_bwd_delta",
        attn_bwd_delta,
        {"D": 128, "BM": 64},
        on(ALL_ARCHES, num_warps=4),
        types={"delta_ptr": "*fp32"},
    ),
]


@triton.jit
def _attn_ws_blocks(
    acc, l_i, m_i, q, k_desc, v_desc, kv0, offs_m, lo, hi, qk_scale, DIAG: tl.constexpr, BN: tl.constexpr
):
    # one warp-specialised key loop (TMA loads, MMAs and the softmax in separate partitions)
    for start_n in tl.range(lo, hi, BN, warp_specialize=True):
        s = tl.dot(q, k_desc.load([kv0 + start_n, 0]).T) * qk_scale
        if DIAG:
            s = tl.where(offs_m[:, None] >= (start_n + tl.arange(0, BN))[None, :], s, -1.0e6)
        m_new = tl.maximum(m_i, tl.max(s, 1))
        p = tl.math.exp2(s - m_new[:, None])
        alpha = tl.math.exp2(m_i - m_new)
        l_i = l_i * alpha + tl.sum(p, 1)
        acc = acc * alpha[:, None] + tl.dot(p.to(tl.float16), v_desc.load([kv0 + start_n, 0]))
        m_i = m_new
    return acc, l_i, m_i


@triton.jit
def attn_fwd_ws(
    q_ptr, k_ptr, v_ptr, o_ptr, seq_len, sm_scale,
    D: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr, CAUSAL: tl.constexpr,
):  # fmt: skip
    # the key loops warp-specialised; causal: the blocks left of the diagonal, then the diagonal block
    rows = tl.num_programs(1) * seq_len
    q_desc = tl.make_tensor_descriptor(q_ptr, shape=[rows, D], strides=[D, 1], block_shape=[BM, D])
    k_desc = tl.make_tensor_descriptor(k_ptr, shape=[rows, D], strides=[D, 1], block_shape=[BN, D])
    v_desc = tl.make_tensor_descriptor(v_ptr, shape=[rows, D], strides=[D, 1], block_shape=[BN, D])
    o_desc = tl.make_tensor_descriptor(o_ptr, shape=[rows, D], strides=[D, 1], block_shape=[BM, D])
    start = tl.program_id(0) * BM
    kv0 = tl.program_id(1) * seq_len
    q = q_desc.load([kv0 + start, 0])
    m_i = tl.full([BM], -float("inf"), tl.float32)
    l_i = tl.full([BM], 1.0, tl.float32)
    acc = tl.zeros([BM, D], tl.float32)
    qk_scale = sm_scale * RCP_LN2
    offs_m = start + tl.arange(0, BM)
    if CAUSAL:
        acc, l_i, m_i = _attn_ws_blocks(
            acc, l_i, m_i, q, k_desc, v_desc, kv0, offs_m, 0, start, qk_scale, False, BN
        )
        acc, l_i, m_i = _attn_ws_blocks(
            acc, l_i, m_i, q, k_desc, v_desc, kv0, offs_m, start, start + BM, qk_scale, True, BN
        )
    else:
        acc, l_i, m_i = _attn_ws_blocks(
            acc, l_i, m_i, q, k_desc, v_desc, kv0, offs_m, 0, seq_len, qk_scale, False, BN
        )
    o_desc.store([kv0 + start, 0], (acc / l_i[:, None]).to(tl.float16))


@triton.jit
def attn_fwd_varlen(
    q_ptr, k_ptr, v_ptr, o_ptr, cu_seqlens_ptr, sm_scale, D: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr
):
    # packed variable-length sequences: sequence b spans rows cu_seqlens[b] .. cu_seqlens[b+1] of q, k, v
    # ([total_rows, heads, D]); causal within each sequence, keys and queries past its end masked
    b = tl.program_id(1)
    head = tl.program_id(2)
    heads = tl.num_programs(2)
    first = tl.load(cu_seqlens_ptr + b)
    length = tl.load(cu_seqlens_ptr + b + 1) - first
    start = tl.program_id(0) * BM
    if start < length:
        offs_m = start + tl.arange(0, BM)
        offs_d = tl.arange(0, D)
        row_stride = heads * D
        base = first.to(tl.int64) * row_stride + head * D
        q = tl.load(
            q_ptr + base + offs_m[:, None] * row_stride + offs_d[None, :],
            mask=offs_m[:, None] < length,
            other=0.0,
        )
        m_i = tl.full([BM], -float("inf"), tl.float32)
        l_i = tl.zeros([BM], tl.float32)
        acc = tl.zeros([BM, D], tl.float32)
        qk_scale = sm_scale * RCP_LN2
        for start_n in range(0, tl.minimum(start + BM, length), BN):
            offs_n = start_n + tl.arange(0, BN)
            kv_live = offs_n[:, None] < length
            k = tl.load(
                k_ptr + base + offs_n[:, None] * row_stride + offs_d[None, :], mask=kv_live, other=0.0
            )
            s = tl.dot(q, tl.trans(k)) * qk_scale
            s = tl.where((offs_m[:, None] >= offs_n[None, :]) & (offs_n[None, :] < length), s, -float("inf"))
            m_new = tl.maximum(m_i, tl.max(s, 1))
            m_safe = tl.where(m_new == -float("inf"), 0.0, m_new)
            p = tl.math.exp2(s - m_safe[:, None])
            alpha = tl.math.exp2(m_i - m_safe)
            l_i = l_i * alpha + tl.sum(p, 1)
            v = tl.load(
                v_ptr + base + offs_n[:, None] * row_stride + offs_d[None, :], mask=kv_live, other=0.0
            )
            acc = acc * alpha[:, None] + tl.dot(p.to(tl.float16), v)
            m_i = m_new
        out = acc / tl.where(l_i == 0.0, 1.0, l_i)[:, None]
        tl.store(
            o_ptr + base + offs_m[:, None] * row_stride + offs_d[None, :],
            out.to(tl.float16),
            mask=offs_m[:, None] < length,
        )


CASES += [
    Case(
        "attn_fwd_ws",
        attn_fwd_ws,
        {"D": 64, "BM": 128, "BN": 128, "CAUSAL": False},
        on(("sm_100a",), num_warps=4, num_stages=2),
        types={"sm_scale": "fp32"},
        aligned=("seq_len",),
    ),
    Case(
        "attn_fwd_ws_causal",
        attn_fwd_ws,
        {"D": 64, "BM": 128, "BN": 128, "CAUSAL": True},
        on(("sm_100a",), num_warps=4, num_stages=2),
        types={"sm_scale": "fp32"},
        aligned=("seq_len",),
        why="two warp-specialised loops one after the other (off-diagonal, diagonal)",
    ),
    Case(
        "attn_fwd_varlen",
        attn_fwd_varlen,
        {"D": 64, "BM": 64, "BN": 64},
        {
            "sm_80": {"num_warps": 4, "num_stages": 2},
            "sm_90a": {"num_warps": 4, "num_stages": 2},
            "sm_100a": {"num_warps": 4, "num_stages": 2},
        },
        types={"sm_scale": "fp32", "cu_seqlens_ptr": "*i32"},
    ),
]
