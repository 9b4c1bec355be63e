"""Matrix multiplication with pointer arithmetic: multi-stage software pipelining (`num_stages` 2-4,
cp.async on sm_80, wgmma on sm_90a, tcgen05 on sm_100a), grouped ("super-tile") program ordering, a
persistent variant, split-K with atomics, int8 and fp8 inputs, and a grouped GEMM over a list of problems."""

from __future__ import annotations

import triton
import triton.language as tl
from suite import ALL_ARCHES, HOPPER_UP, Case, on


@triton.jit
def tile_coords(tile, M, N, BM: tl.constexpr, BN: tl.constexpr, GROUP_M: tl.constexpr):
    """Tile index -> (row block, column block), walking GROUP_M row blocks per column sweep so that
    consecutive programs share A rows and B columns in L2."""
    tiles_m = tl.cdiv(M, BM)
    tiles_n = tl.cdiv(N, BN)
    band = GROUP_M * tiles_n
    first_m = (tile // band) * GROUP_M
    rows_here = min(tiles_m - first_m, GROUP_M)
    pid_m = first_m + (tile % band) % rows_here
    pid_n = (tile % band) // rows_here
    return pid_m, pid_n


@triton.jit
def matmul(
    a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_cm,
    BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, GROUP_M: tl.constexpr,
):  # fmt: skip
    pid_m, pid_n = tile_coords(tl.program_id(0), M, N, BM, BN, GROUP_M)
    rm = (pid_m * BM + tl.arange(0, BM)) % M
    rn = (pid_n * BN + tl.arange(0, BN)) % N
    rk = tl.arange(0, BK)
    a_tile = a_ptr + rm[:, None] * stride_am + rk[None, :]
    b_tile = b_ptr + rk[:, None] * stride_bk + rn[None, :]
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        left = K - k * BK
        a = tl.load(a_tile, mask=rk[None, :] < left, other=0.0)
        b = tl.load(b_tile, mask=rk[:, None] < left, other=0.0)
        acc = tl.dot(a, b, acc)
        a_tile += BK
        b_tile += BK * stride_bk
    cm = pid_m * BM + tl.arange(0, BM)
    cn = pid_n * BN + tl.arange(0, BN)
    tl.store(
        c_ptr + cm[:, None] * stride_cm + cn[None, :],
        acc.to(c_ptr.dtype.element_ty),
        mask=(cm[:, None] < M) & (cn[None, :] < N),
    )


@triton.jit
def matmul_persistent(
    a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_cm,
    BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, GROUP_M: tl.constexpr, NUM_SMS: tl.constexpr,
):  # fmt: skip
    tiles = tl.cdiv(M, BM) * tl.cdiv(N, BN)
    for tile in tl.range(tl.program_id(0), tiles, NUM_SMS):
        pid_m, pid_n = tile_coords(tile, M, N, BM, BN, GROUP_M)
        rm = pid_m * BM + tl.arange(0, BM)
        rn = pid_n * BN + tl.arange(0, BN)
        rm_safe = tl.where(rm < M, rm, 0)
        rn_safe = tl.where(rn < N, rn, 0)
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for k in range(0, tl.cdiv(K, BK)):
            rk = k * BK + tl.arange(0, BK)
            a = tl.load(a_ptr + rm_safe[:, None] * stride_am + rk[None, :], mask=rk[None, :] < K, other=0.0)
            b = tl.load(b_ptr + rk[:, None] * stride_bk + rn_safe[None, :], mask=rk[:, None] < K, other=0.0)
            acc = tl.dot(a, b, acc)
        out = c_ptr + rm[:, None] * stride_cm + rn[None, :]
        tl.store(out, acc.to(c_ptr.dtype.element_ty), mask=(rm[:, None] < M) & (rn[None, :] < N))


@triton.jit
def matmul_splitk(
    a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_cm,
    BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, SPLIT_K: tl.constexpr,
):  # fmt: skip
    # program (m, n, s) multiplies every SPLIT_K-th K block starting at s and atomically adds into C (fp32)
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    split = tl.program_id(2)
    rm = (pid_m * BM + tl.arange(0, BM)) % M
    rn = (pid_n * BN + tl.arange(0, BN)) % N
    rk = split * BK + tl.arange(0, BK)
    a_tile = a_ptr + rm[:, None] * stride_am + rk[None, :]
    b_tile = b_ptr + rk[:, None] * stride_bk + rn[None, :]
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK * SPLIT_K)):
        left = K - (k * SPLIT_K + split) * BK
        a = tl.load(a_tile, mask=tl.arange(0, BK)[None, :] < left, other=0.0)
        b = tl.load(b_tile, mask=tl.arange(0, BK)[:, None] < left, other=0.0)
        acc = tl.dot(a, b, acc)
        a_tile += BK * SPLIT_K
        b_tile += BK * SPLIT_K * stride_bk
    cm = pid_m * BM + tl.arange(0, BM)
    cn = pid_n * BN + tl.arange(0, BN)
    tl.atomic_add(
        c_ptr + cm[:, None] * stride_cm + cn[None, :],
        acc,
        mask=(cm[:, None] < M) & (cn[None, :] < N),
        sem="relaxed",
    )


@triton.jit
def matmul_int8(
    a_ptr, b_ptr, c_ptr, scale_a_ptr, scale_b_ptr, M, N, K, stride_am, stride_bk, stride_cm,
    BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, GROUP_M: tl.constexpr,
):  # fmt: skip
    # int8 x int8 -> int32 accumulation, then per-row and per-column dequantisation scales
    pid_m, pid_n = tile_coords(tl.program_id(0), M, N, BM, BN, GROUP_M)
    rm = (pid_m * BM + tl.arange(0, BM)) % M
    rn = (pid_n * BN + tl.arange(0, BN)) % N
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.int32)
    for k in range(0, tl.cdiv(K, BK)):
        a = tl.load(
            a_ptr + rm[:, None] * stride_am + (k * BK + rk)[None, :], mask=(k * BK + rk)[None, :] < K, other=0
        )
        b = tl.load(
            b_ptr + (k * BK + rk)[:, None] * stride_bk + rn[None, :], mask=(k * BK + rk)[:, None] < K, other=0
        )
        acc = tl.dot(a, b, acc)
    sa = tl.load(scale_a_ptr + rm)
    sb = tl.load(scale_b_ptr + rn)
    out = acc.to(tl.float32) * sa[:, None] * sb[None, :]
    cm = pid_m * BM + tl.arange(0, BM)
    cn = pid_n * BN + tl.arange(0, BN)
    tl.store(
        c_ptr + cm[:, None] * stride_cm + cn[None, :],
        out.to(tl.float16),
        mask=(cm[:, None] < M) & (cn[None, :] < N),
    )


@triton.jit
def matmul_fp8(
    a_ptr, b_ptr, c_ptr, scale, M, N, K, stride_am, stride_bn, stride_cm,
    BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, GROUP_M: tl.constexpr,
):  # fmt: skip
    # fp8 (e4m3) A [M, K] times B given K-major as [N, K]; one per-tensor scale
    pid_m, pid_n = tile_coords(tl.program_id(0), M, N, BM, BN, GROUP_M)
    rm = (pid_m * BM + tl.arange(0, BM)) % M
    rn = (pid_n * BN + tl.arange(0, BN)) % N
    rk = tl.arange(0, BK)
    a_tile = a_ptr + rm[:, None] * stride_am + rk[None, :]
    b_tile = b_ptr + rn[None, :] * stride_bn + rk[:, None]
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for _ in range(0, tl.cdiv(K, BK)):
        acc = tl.dot(tl.load(a_tile), tl.load(b_tile), acc)
        a_tile += BK
        b_tile += BK
    cm = pid_m * BM + tl.arange(0, BM)
    cn = pid_n * BN + tl.arange(0, BN)
    out = (acc * scale).to(tl.bfloat16)
    tl.store(c_ptr + cm[:, None] * stride_cm + cn[None, :], out, mask=(cm[:, None] < M) & (cn[None, :] < N))


@triton.jit
def grouped_gemm(
    a_ptrs, b_ptrs, c_ptrs, sizes_ptr, lds_ptr, n_problems,
    BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, NUM_SMS: tl.constexpr,
):  # fmt: skip
    # a list of independent GEMMs (addresses as int64, sizes [g, 3] = M, N, K, leading dims [g, 3]),
    # walked by NUM_SMS persistent programs over the concatenated tile space
    tile = tl.program_id(0)
    seen = 0
    for g in range(n_problems):
        M = tl.load(sizes_ptr + g * 3)
        N = tl.load(sizes_ptr + g * 3 + 1)
        K = tl.load(sizes_ptr + g * 3 + 2)
        tiles_n = tl.cdiv(N, BN)
        count = tl.cdiv(M, BM) * tiles_n
        while tile >= seen and tile < seen + count:
            a = tl.load(a_ptrs + g).to(tl.pointer_type(tl.float16))
            b = tl.load(b_ptrs + g).to(tl.pointer_type(tl.float16))
            c = tl.load(c_ptrs + g).to(tl.pointer_type(tl.float16))
            lda = tl.load(lds_ptr + g * 3)
            ldb = tl.load(lds_ptr + g * 3 + 1)
            ldc = tl.load(lds_ptr + g * 3 + 2)
            local = tile - seen
            rm = (local // tiles_n) * BM + tl.arange(0, BM)
            rn = (local % tiles_n) * BN + tl.arange(0, BN)
            rk = tl.arange(0, BK)
            acc = tl.zeros((BM, BN), dtype=tl.float32)
            for k in range(0, tl.cdiv(K, BK)):
                ka = k * BK + rk
                x = tl.load(
                    a + rm[:, None] * lda + ka[None, :], mask=(rm[:, None] < M) & (ka[None, :] < K), other=0.0
                )
                y = tl.load(
                    b + ka[:, None] * ldb + rn[None, :], mask=(ka[:, None] < K) & (rn[None, :] < N), other=0.0
                )
                acc += tl.dot(x, y)
            tl.store(
                c + rm[:, None] * ldc + rn[None, :],
                acc.to(tl.float16),
                mask=(rm[:, None] < M) & (rn[None, :] < N),
            )
            tile += NUM_SMS
        seen += count


MM_ALIGNED = ("N", "K", "stride_am", "stride_bk", "stride_cm")
GEMM = {"BM": 128, "BN": 128, "BK": 64, "GROUP_M": 8}

CASES = [
    Case(
        "matmul",
        matmul,
        GEMM,
        {
            "sm_80": {"num_warps": 8, "num_stages": 3},
            "sm_90a": {"num_warps": 8, "num_stages": 4},
            "sm_100a": {"num_warps": 4, "num_stages": 3},
        },
        aligned=MM_ALIGNED,
    ),
    Case(
        "matmul_s2",
        matmul,
        {"BM": 64, "BN": 64, "BK": 32, "GROUP_M": 8},
        on(ALL_ARCHES, num_warps=4, num_stages=2),
        aligned=MM_ALIGNED,
        why="the same kernel with a two-stage pipeline and small tiles",
    ),
    Case(
        "matmul_s4",
        matmul,
        {"BM": 128, "BN": 64, "BK": 32, "GROUP_M": 8},
        on(("sm_80",), num_warps=4, num_stages=4),
        aligned=MM_ALIGNED,
        why="four cp.async stages",
    ),
    Case(
        "matmul_persistent",
        matmul_persistent,
        {**GEMM, "NUM_SMS": 132},
        {
            "sm_80": {"num_warps": 8, "num_stages": 3},
            "sm_90a": {"num_warps": 8, "num_stages": 3},
            "sm_100a": {"num_warps": 4, "num_stages": 3},
        },
        aligned=MM_ALIGNED,
    ),
    Case(
        "matmul_splitk",
        matmul_splitk,
        {"BM": 64, "BN": 64, "BK": 64, "SPLIT_K": 4},
        on(ALL_ARCHES, num_warps=4, num_stages=3),
        types={"c_ptr": "*fp32"},
        aligned=MM_ALIGNED,
    ),
    Case(
        "matmul_int8",
        matmul_int8,
        {"BM": 128, "BN": 128, "BK": 64, "GROUP_M": 8},
        on(ALL_ARCHES, num_warps=8, num_stages=3),
        dtype="i8",
        types={"c_ptr": "*fp16", "scale_a_ptr": "*fp32", "scale_b_ptr": "*fp32"},
        aligned=MM_ALIGNED,
    ),
    Case(
        "matmul_fp8",
        matmul_fp8,
        {"BM": 128, "BN": 128, "BK": 128, "GROUP_M": 8},
        on(HOPPER_UP, num_warps=8, num_stages=3),
        dtype="fp8e4nv",
        types={"c_ptr": "*bf16", "scale": "fp32"},
        aligned=("N", "K", "stride_am", "stride_bn", "stride_cm"),
    ),
    Case(
        "grouped_gemm",
        grouped_gemm,
        {"BM": 128, "BN": 128, "BK": 32, "NUM_SMS": 132},
        on(ALL_ARCHES, num_warps=4, num_stages=2),
        types={"a_ptrs": "*i64", "b_ptrs": "*i64", "c_ptrs": "*i64", "sizes_ptr": "*i32", "lds_ptr": "*i32"},
    ),
]
