"""Matrix multiplication through tensor descriptors (TMA on sm_90a and sm_100a): descriptors built on the
device with `tl.make_tensor_descriptor`, descriptors passed from the host, a persistent variant with the
epilogue overlapped, and the warp-specialised loop (`tl.range(..., warp_specialize=True)`)."""

from __future__ import annotations

import triton
import triton.language as tl
from suite import HOPPER_UP, Case

from kernels.matmul import tile_coords


@triton.jit
def tma_matmul(
    a_ptr, b_ptr, c_ptr, M, N, K,
    BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, GROUP_M: tl.constexpr,
):  # fmt: skip
    # A [M, K] and B [N, K] row-major (B is K-major), C [M, N]
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[K, 1], block_shape=[BM, BK])
    b_desc = tl.make_tensor_descriptor(b_ptr, shape=[N, K], strides=[K, 1], block_shape=[BN, BK])
    c_desc = tl.make_tensor_descriptor(c_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    pid_m, pid_n = tile_coords(tl.program_id(0), M, N, BM, BN, GROUP_M)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        a = a_desc.load([pid_m * BM, k * BK])
        b = b_desc.load([pid_n * BN, k * BK])
        acc = tl.dot(a, b.T, acc)
    c_desc.store([pid_m * BM, pid_n * BN], acc.to(c_desc.dtype))


@triton.jit
def tma_matmul_host(
    a_desc, b_desc, c_desc, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, WS: tl.constexpr
):
    # descriptors made on the host (triton.tools.tensor_descriptor.TensorDescriptor)
    off_m = tl.program_id(0) * BM
    off_n = tl.program_id(1) * BN
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in tl.range(0, tl.cdiv(K, BK), warp_specialize=WS):
        acc = tl.dot(a_desc.load([off_m, k * BK]), b_desc.load([off_n, k * BK]).T, acc)
    c_desc.store([off_m, off_n], acc.to(tl.float16))


@triton.jit
def tma_matmul_persistent(
    a_ptr, b_ptr, c_ptr, M, N, K,
    BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, GROUP_M: tl.constexpr, NUM_SMS: tl.constexpr,
    WS: tl.constexpr,
):  # fmt: skip
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[K, 1], block_shape=[BM, BK])
    b_desc = tl.make_tensor_descriptor(b_ptr, shape=[N, K], strides=[K, 1], block_shape=[BN, BK])
    c_desc = tl.make_tensor_descriptor(c_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN // 2])
    tiles = tl.cdiv(M, BM) * tl.cdiv(N, BN)
    for tile in tl.range(tl.program_id(0), tiles, NUM_SMS, flatten=True, warp_specialize=WS):
        pid_m, pid_n = tile_coords(tile, M, N, BM, BN, GROUP_M)
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for k in range(0, tl.cdiv(K, BK)):
            acc = tl.dot(a_desc.load([pid_m * BM, k * BK]), b_desc.load([pid_n * BN, k * BK]).T, acc)
        # the epilogue in two halves: smaller staging buffers, the second half's store overlaps the first
        halves = tl.reshape(acc, (BM, 2, BN // 2))
        lo, hi = tl.split(tl.permute(halves, (0, 2, 1)))
        c_desc.store([pid_m * BM, pid_n * BN], lo.to(tl.float16))
        c_desc.store([pid_m * BM, pid_n * BN + BN // 2], hi.to(tl.float16))


@triton.jit
def tma_matmul_ws(
    a_ptr, b_ptr, c_ptr, M, N, K,
    BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, GROUP_M: tl.constexpr, NUM_SMS: tl.constexpr,
):  # fmt: skip
    # persistent, with the K loop split into producer (TMA), MMA and epilogue partitions
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[K, 1], block_shape=[BM, BK])
    b_desc = tl.make_tensor_descriptor(b_ptr, shape=[N, K], strides=[K, 1], block_shape=[BN, BK])
    c_desc = tl.make_tensor_descriptor(c_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    tiles = tl.cdiv(M, BM) * tl.cdiv(N, BN)
    for tile in tl.range(tl.program_id(0), tiles, NUM_SMS, warp_specialize=True):
        pid_m, pid_n = tile_coords(tile, M, N, BM, BN, GROUP_M)
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for k in range(0, tl.cdiv(K, BK)):
            acc = tl.dot(a_desc.load([pid_m * BM, k * BK]), b_desc.load([pid_n * BN, k * BK]).T, acc)
        c_desc.store([pid_m * BM, pid_n * BN], acc.to(tl.float16))


TILE = {"BM": 128, "BN": 128, "BK": 64, "GROUP_M": 8}
HOST_SIG = {
    "a_desc": "tensordesc<fp16[128, 64]>",
    "b_desc": "tensordesc<fp16[128, 64]>",
    "c_desc": "tensordesc<fp16[128, 128]>",
}

CASES = [
    Case(
        "tma_matmul",
        tma_matmul,
        TILE,
        {"sm_90a": {"num_warps": 8, "num_stages": 4}, "sm_100a": {"num_warps": 4, "num_stages": 4}},
        aligned=("M", "N", "K"),
    ),
    Case(
        "tma_matmul_host",
        tma_matmul_host,
        {"BM": 128, "BN": 128, "BK": 64, "WS": False},
        {"sm_90a": {"num_warps": 4, "num_stages": 3}, "sm_100a": {"num_warps": 4, "num_stages": 3}},
        types=HOST_SIG,
    ),
    Case(
        "tma_matmul_host_ws",
        tma_matmul_host,
        {"BM": 128, "BN": 128, "BK": 64, "WS": True},
        {"sm_90a": {"num_warps": 8, "num_stages": 3}, "sm_100a": {"num_warps": 4, "num_stages": 3}},
        types=HOST_SIG,
        why="the host-descriptor kernel with its K loop warp-specialised",
    ),
    Case(
        "tma_matmul_persistent",
        tma_matmul_persistent,
        {**TILE, "NUM_SMS": 132, "WS": False},
        {"sm_90a": {"num_warps": 8, "num_stages": 3}, "sm_100a": {"num_warps": 4, "num_stages": 3}},
        aligned=("M", "N", "K"),
    ),
    Case(
        "tma_matmul_persistent_ws",
        tma_matmul_persistent,
        {**TILE, "NUM_SMS": 148, "WS": True},
        {"sm_100a": {"num_warps": 4, "num_stages": 4}},
        aligned=("M", "N", "K"),
        why="the flattened persistent loop, warp-specialised, with the split epilogue",
    ),
    Case(
        "tma_matmul_ws",
        tma_matmul_ws,
        {**TILE, "BN": 256, "NUM_SMS": 148},
        {"sm_100a": {"num_warps": 4, "num_stages": 3}, "sm_90a": {"num_warps": 8, "num_stages": 3}},
        aligned=("M", "N", "K"),
    ),
]


@triton.jit
def mxfp8_matmul(
    a_ptr, b_ptr, a_scale_ptr, b_scale_ptr, c_ptr, M, N, K,
    BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, GROUP_M: tl.constexpr, NUM_SMS: tl.constexpr,
):  # fmt: skip
    # block-scaled fp8 (MX: one e8m0 scale per 32 elements of K) on tcgen05, persistent and
    # warp-specialised; scales are [M, K // 32] and [N, K // 32] row-major
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[K, 1], block_shape=[BM, BK])
    b_desc = tl.make_tensor_descriptor(b_ptr, shape=[N, K], strides=[K, 1], block_shape=[BN, BK])
    c_desc = tl.make_tensor_descriptor(c_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    tiles = tl.cdiv(M, BM) * tl.cdiv(N, BN)
    SK: tl.constexpr = BK // 32
    for tile in tl.range(tl.program_id(0), tiles, NUM_SMS, flatten=True, warp_specialize=True):
        pid_m, pid_n = tile_coords(tile, M, N, BM, BN, GROUP_M)
        rm = pid_m * BM + tl.arange(0, BM)
        rn = pid_n * BN + tl.arange(0, BN)
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for k in range(0, tl.cdiv(K, BK)):
            a = a_desc.load([pid_m * BM, k * BK])
            b = b_desc.load([pid_n * BN, k * BK])
            sk = k * SK + tl.arange(0, SK)
            sa = tl.load(a_scale_ptr + rm[:, None] * (K // 32) + sk[None, :])
            sb = tl.load(b_scale_ptr + rn[:, None] * (K // 32) + sk[None, :])
            acc = tl.dot_scaled(a, sa, "e4m3", b.T, sb, "e4m3", acc)
        c_desc.store([pid_m * BM, pid_n * BN], acc.to(tl.bfloat16))


CASES.append(
    Case(
        "mxfp8_matmul",
        mxfp8_matmul,
        {"BM": 128, "BN": 128, "BK": 128, "GROUP_M": 8, "NUM_SMS": 148},
        {"sm_100a": {"num_warps": 4, "num_stages": 3}},
        dtype="fp8e4nv",
        types={"a_scale_ptr": "*u8", "b_scale_ptr": "*u8", "c_ptr": "*bf16"},
        aligned=("M", "N", "K"),
    )
)
assert all(set(c.targets) <= set(HOPPER_UP) for c in CASES)
