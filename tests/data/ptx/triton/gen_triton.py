"""Generate the Triton part of the PTX corpus (tests/data/ptx/triton/*.ptx).

Usage: python gen_triton.py [OUTDIR]   (default: the directory of this file)

Needs `pip install triton` (3.x; written against 3.9.0). No GPU is needed: the compilation goes through
tests/data/triton_suite/suite.py (`compile_ptx`, the one Triton-to-PTX path of this repository), which
runs triton.compile() for an explicit GPUTarget and pins the PTX version for sm_90a/sm_100a.
Every kernel here is correct; the analyzer must report no findings for these files.
"""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "triton_suite"))

import suite  # noqa: E402
import triton  # noqa: E402
import triton.language as tl  # noqa: E402


@triton.jit
def vector_add(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + y, mask=mask)


@triton.jit
def softmax(out_ptr, in_ptr, in_stride, out_stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(in_ptr + row * in_stride + cols, mask=mask, other=-float("inf"))
    x = x - tl.max(x, axis=0)
    num = tl.exp(x)
    y = num / tl.sum(num, axis=0)
    tl.store(out_ptr + row * out_stride + cols, y, mask=mask)


@triton.jit
def layernorm(x_ptr, y_ptr, w_ptr, b_ptr, stride, n_cols, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    x_ptr += row * stride
    y_ptr += row * stride
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for off in range(0, n_cols, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + cols, mask=cols < n_cols, other=0.0).to(tl.float32)
    mean = tl.sum(acc, axis=0) / n_cols
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for off in range(0, n_cols, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + cols, mask=cols < n_cols, other=0.0).to(tl.float32)
        x = tl.where(cols < n_cols, x - mean, 0.0)
        acc += x * x
    rstd = 1 / tl.sqrt(tl.sum(acc, axis=0) / n_cols + eps)
    for off in range(0, n_cols, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        mask = cols < n_cols
        w = tl.load(w_ptr + cols, mask=mask)
        b = tl.load(b_ptr + cols, mask=mask)
        x = tl.load(x_ptr + cols, mask=mask, other=0.0).to(tl.float32)
        tl.store(y_ptr + cols, (x - mean) * rstd * w + b, mask=mask)


@triton.jit
def matmul(
    a_ptr,
    b_ptr,
    c_ptr,
    M,
    N,
    K,
    stride_am,
    stride_ak,
    stride_bk,
    stride_bn,
    stride_cm,
    stride_cn,
    BLOCK_M: tl.constexpr,
    BLOCK_N: tl.constexpr,
    BLOCK_K: tl.constexpr,
):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    offs_m = (pid_m * BLOCK_M + tl.arange(0, BLOCK_M)) % M
    offs_n = (pid_n * BLOCK_N + tl.arange(0, BLOCK_N)) % N
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :] * stride_ak
    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :] * stride_bn
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_K, other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_K, other=0.0)
        acc = tl.dot(a, b, acc)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk
    offs_cm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_cn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    c_ptrs = c_ptr + offs_cm[:, None] * stride_cm + offs_cn[None, :] * stride_cn
    tl.store(c_ptrs, acc.to(tl.float16), mask=(offs_cm[:, None] < M) & (offs_cn[None, :] < N))


@triton.jit
def tma_matmul(
    a_desc,
    b_desc,
    c_desc,
    M,
    N,
    K,
    BLOCK_M: tl.constexpr,
    BLOCK_N: tl.constexpr,
    BLOCK_K: tl.constexpr,
    WARP_SPECIALIZE: tl.constexpr,
):
    # Host-side TensorDescriptor arguments: A is [M, K], B is [N, K] (K-major), C is [M, N].
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    off_m = pid_m * BLOCK_M
    off_n = pid_n * BLOCK_N
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in tl.range(0, tl.cdiv(K, BLOCK_K), warp_specialize=WARP_SPECIALIZE):
        a = a_desc.load([off_m, k * BLOCK_K])
        b = b_desc.load([off_n, k * BLOCK_K])
        acc = tl.dot(a, b.T, acc)
    c_desc.store([off_m, off_n], acc.to(tl.float16))


@triton.jit
def device_desc_matmul(
    a_ptr, b_ptr, c_ptr, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr
):
    # Device-side descriptors built with tl.make_tensor_descriptor (A [M, K], B [N, K], C [M, N]).
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[K, 1], block_shape=[BLOCK_M, BLOCK_K])
    b_desc = tl.make_tensor_descriptor(b_ptr, shape=[N, K], strides=[K, 1], block_shape=[BLOCK_N, BLOCK_K])
    c_desc = tl.make_tensor_descriptor(c_ptr, shape=[M, N], strides=[N, 1], block_shape=[BLOCK_M, BLOCK_N])
    off_m = tl.program_id(0) * BLOCK_M
    off_n = tl.program_id(1) * BLOCK_N
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        a = a_desc.load([off_m, k * BLOCK_K])
        b = b_desc.load([off_n, k * BLOCK_K])
        acc = tl.dot(a, b.T, acc)
    c_desc.store([off_m, off_n], acc.to(tl.float16))


@triton.jit
def flash_attn_fwd(
    q_ptr, k_ptr, v_ptr, o_ptr, seq_len, scale, D: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr
):
    """One (batch*head, query block) per program; online softmax over key blocks with a causal mask.
    Rows whose keys are all masked keep m = -inf (Triton writes it as the integer pattern 0fFF800000)."""
    bh = tl.program_id(1)
    start_m = tl.program_id(0) * BM
    offs_m = start_m + tl.arange(0, BM)
    offs_d = tl.arange(0, D)
    base = bh * seq_len * D
    q = tl.load(
        q_ptr + base + offs_m[:, None] * D + offs_d[None, :], mask=offs_m[:, None] < seq_len, other=0.0
    )
    m_i = tl.full((BM,), float("-inf"), tl.float32)
    l_i = tl.zeros((BM,), tl.float32)
    acc = tl.zeros((BM, D), tl.float32)
    for start_n in range(0, start_m + BM, BN):
        offs_n = start_n + tl.arange(0, BN)
        kv_mask = offs_n[:, None] < seq_len
        k = tl.load(k_ptr + base + offs_n[:, None] * D + offs_d[None, :], mask=kv_mask, other=0.0)
        s = tl.dot(q, tl.trans(k)) * scale
        causal = (offs_m[:, None] >= offs_n[None, :]) & (offs_n[None, :] < seq_len)
        s = tl.where(causal, s, float("-inf"))
        m_new = tl.maximum(m_i, tl.max(s, 1))
        m_safe = tl.where(m_new == float("-inf"), 0.0, m_new)
        p = tl.exp2((s - m_safe[:, None]) * 1.4426950408889634)
        alpha = tl.exp2((m_i - m_safe) * 1.4426950408889634)
        l_i = l_i * alpha + tl.sum(p, 1)
        v = tl.load(v_ptr + base + offs_n[:, None] * D + offs_d[None, :], mask=kv_mask, other=0.0)
        acc = acc * alpha[:, None] + tl.dot(p.to(tl.float16), v)
        m_i = m_new
    out = acc / tl.where(l_i == 0.0, 1.0, l_i)[:, None]
    tl.store(
        o_ptr + base + offs_m[:, None] * D + offs_d[None, :],
        out.to(tl.float16),
        mask=offs_m[:, None] < seq_len,
    )


FA_SIG = {
    "q_ptr": "*fp16",
    "k_ptr": "*fp16",
    "v_ptr": "*fp16",
    "o_ptr": "*fp16",
    "seq_len": "i32",
    "scale": "fp32",
    "D": "constexpr",
    "BM": "constexpr",
    "BN": "constexpr",
}
FA_CONST = {"D": 64, "BM": 64, "BN": 64}

MM_SIG = {
    "a_ptr": "*fp16",
    "b_ptr": "*fp16",
    "c_ptr": "*fp16",
    "M": "i32",
    "N": "i32",
    "K": "i32",
    "stride_am": "i32",
    "stride_ak": "i32",
    "stride_bk": "i32",
    "stride_bn": "i32",
    "stride_cm": "i32",
    "stride_cn": "i32",
    "BLOCK_M": "constexpr",
    "BLOCK_N": "constexpr",
    "BLOCK_K": "constexpr",
}
# Unit strides as constexpr and 16-divisible pointers/strides (what the JIT's specialization would infer)
# so that the sm_80 pipeliner uses cp.async for the num_stages=3 software pipeline.
MM_SIG_ALIGNED = {**MM_SIG, "stride_ak": "constexpr", "stride_bn": "constexpr", "stride_cn": "constexpr"}
MM_ALIGNED_ARGS = ("a_ptr", "b_ptr", "c_ptr", "N", "K", "stride_am", "stride_bk", "stride_cm")
MM_ATTRS = {(list(MM_SIG_ALIGNED).index(n),): [["tt.divisibility", 16]] for n in MM_ALIGNED_ARGS}

TMA_SIG = {
    "a_desc": "tensordesc<fp16[128, 64]>",
    "b_desc": "tensordesc<fp16[128, 64]>",
    "c_desc": "tensordesc<fp16[128, 128]>",
    "M": "i32",
    "N": "i32",
    "K": "i32",
    "BLOCK_M": "constexpr",
    "BLOCK_N": "constexpr",
    "BLOCK_K": "constexpr",
    "WARP_SPECIALIZE": "constexpr",
}
TMA_CONST = {"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64}
DEV_SIG = {
    "a_ptr": "*fp16",
    "b_ptr": "*fp16",
    "c_ptr": "*fp16",
    "M": "i32",
    "N": "i32",
    "K": "i32",
    "BLOCK_M": "constexpr",
    "BLOCK_N": "constexpr",
    "BLOCK_K": "constexpr",
}

# (output name, kernel, signature, constexprs, compute capability, options)
KERNELS = [
    (
        "vector_add.sm_80",
        vector_add,
        {"x_ptr": "*fp32", "y_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32", "BLOCK": "constexpr"},
        {"BLOCK": 1024},
        80,
        {"num_warps": 4},
    ),
    (
        "softmax.sm_80",
        softmax,
        {
            "out_ptr": "*fp32",
            "in_ptr": "*fp32",
            "in_stride": "i32",
            "out_stride": "i32",
            "n_cols": "i32",
            "BLOCK": "constexpr",
        },
        {"BLOCK": 1024},
        80,
        {"num_warps": 8},
    ),
    (
        "layernorm.sm_80",
        layernorm,
        {
            "x_ptr": "*fp32",
            "y_ptr": "*fp32",
            "w_ptr": "*fp32",
            "b_ptr": "*fp32",
            "stride": "i32",
            "n_cols": "i32",
            "eps": "fp32",
            "BLOCK": "constexpr",
        },
        {"BLOCK": 512},
        80,
        {"num_warps": 4},
    ),
    (
        "matmul.sm_80",
        matmul,
        MM_SIG_ALIGNED,
        {"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 32, "stride_ak": 1, "stride_bn": 1, "stride_cn": 1},
        80,
        {"num_warps": 4, "num_stages": 3},
    ),
    (
        "tma_matmul.sm_90a",
        tma_matmul,
        TMA_SIG,
        {**TMA_CONST, "WARP_SPECIALIZE": False},
        90,
        {"num_warps": 4, "num_stages": 3},
    ),
    (
        "tma_matmul_ws8.sm_90a",
        tma_matmul,
        TMA_SIG,
        {**TMA_CONST, "WARP_SPECIALIZE": True},
        90,
        {"num_warps": 8, "num_stages": 3},
    ),
    (
        "device_desc_matmul.sm_90a",
        device_desc_matmul,
        DEV_SIG,
        TMA_CONST,
        90,
        {"num_warps": 4, "num_stages": 3},
    ),
    (
        "tma_matmul.sm_100a",
        tma_matmul,
        TMA_SIG,
        {**TMA_CONST, "WARP_SPECIALIZE": False},
        100,
        {"num_warps": 4, "num_stages": 3},
    ),
    # flash attention (own kernel, a stand-in for the tutorial's): sm_80 (mma.sync), sm_90a (wgmma), sm_100a
    ("flash_attn.sm_80", flash_attn_fwd, FA_SIG, FA_CONST, 80, {"num_warps": 4, "num_stages": 2}),
    (
        "flash_attn.sm_90a",
        flash_attn_fwd,
        FA_SIG,
        FA_CONST,
        90,
        {"num_warps": 4, "num_stages": 2},
    ),
    (
        "flash_attn.sm_100a",
        flash_attn_fwd,
        FA_SIG,
        FA_CONST,
        100,
        {"num_warps": 4, "num_stages": 2},
    ),
    (
        "tma_matmul_ws.sm_100a",
        tma_matmul,
        TMA_SIG,
        {**TMA_CONST, "WARP_SPECIALIZE": True},
        100,
        {"num_warps": 4, "num_stages": 3},
    ),
]


def main(argv: list[str]) -> int:
    """gen_triton.py [OUTDIR [NAME-PREFIX...]]: all kernels, or only those whose name starts with a prefix."""
    outdir = argv[1] if len(argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    only = tuple(argv[2:])
    print(f"triton {triton.__version__}")
    failed = []
    for name, fn, sig, consts, cc, opts in KERNELS:
        if only and not name.startswith(only):
            continue
        attrs = MM_ATTRS if sig is MM_SIG_ALIGNED else None
        arch = {80: "sm_80", 90: "sm_90a", 100: "sm_100a"}[cc]
        try:
            ptx = suite.portable_paths(suite.compile_ptx(fn, sig, consts, arch, opts, attrs))
        except Exception as exc:  # report and continue: some variants may need a newer Triton
            print(f"FAILED {name}: {type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}")
            failed.append(name)
            continue
        with open(os.path.join(outdir, f"{name}.ptx"), "w") as f:
            f.write(ptx)
        print(f"wrote {name}.ptx ({len(ptx)} bytes)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
