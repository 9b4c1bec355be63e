"""The emulator's TMA tensor-map descriptor (the 128-byte `.param .b8 tmap[128]`) and tile copies.

Why our own encoding: the real CUtensorMap is opaque and driver-defined; the emulator only needs a stable,
documented layout that host code can build. Layout (little endian, 128 bytes):

    0   u32  magic 0x50414D54 ("TMAP")      4  u16 version (1)        6  u16 element size in bytes
    8   u64  global address (kind 1) or array token (kind 2, resolved by run_kernel)
    16  u32  rank (1..5)                     20 u32 oob fill (0: zeros, 1: NaN)
    24  u64  dims[5]     element counts, dim 0 innermost (CUDA order)
    64  u64  strides[4]  byte strides of dims 1..4 (dim 0 is contiguous)
    96  u32  box[5]      box extent per dim, dim 0 innermost
    116 u16  kind (1: address, 2: token)      118 u16 reserved        120..127 zero

Coordinates in `cp.async.bulk.tensor` are in the same order as dims (c0 innermost). A box lands in shared
memory densely, dim 0 fastest; out-of-bounds elements are filled on loads and skipped on stores.
"""

from __future__ import annotations

import itertools
import struct
import weakref

import numpy as np

from irc.records import record

MAGIC = 0x50414D54
_FMT = "<IHHQII5Q4Q5IHH8x"
assert struct.calcsize(_FMT) == 128

_TOKENS: weakref.WeakValueDictionary = weakref.WeakValueDictionary()
_counter = itertools.count(1)


@record
class TensorMap:
    elem_size: int
    address: int
    rank: int
    oob_nan: bool
    dims: list[int]
    strides: list[int]  # byte strides for dims 0..rank-1 (dim 0 = elem_size)
    box: list[int]
    kind: int = 1


def encode_tensormap(global_addr, shape, strides_bytes, box, dtype, oob_fill: str = "zero") -> bytes:
    """Build a 128-byte descriptor. `global_addr` is an emulated global address (int) or a C-contiguous
    numpy array (resolved to its address when passed to run_kernel, and written back after the launch).
    `shape` and `box` are innermost-first (CUDA order); `strides_bytes` has rank-1 entries for dims 1..
    (CUDA order), or rank entries whose first is the element size."""
    esize = np.dtype(dtype).itemsize
    shape, box = [int(x) for x in shape], [int(x) for x in box]
    rank = len(shape)
    if not 1 <= rank <= 5 or len(box) != rank:
        raise ValueError("tensor map rank must be 1..5 and box must match it")
    strides = [int(s) for s in strides_bytes]
    if len(strides) == rank:
        strides = strides[1:]
    if len(strides) != rank - 1:
        raise ValueError("strides_bytes must have rank-1 (or rank) entries")
    kind, addr = 1, 0
    if isinstance(global_addr, np.ndarray):
        tok = next(_counter)
        _TOKENS[tok] = global_addr
        kind, addr = 2, tok
    else:
        addr = int(global_addr)
    return struct.pack(
        _FMT,
        MAGIC,
        1,
        esize,
        addr,
        rank,
        1 if oob_fill == "nan" else 0,
        *(shape + [1] * (5 - rank)),
        *(strides + [0] * (4 - len(strides))),
        *(box + [1] * (5 - rank)),
        kind,
        0,
    )


def token_array(data: bytes) -> np.ndarray | None:
    """The numpy array a kind-2 descriptor refers to (None for address descriptors or other bytes)."""
    if len(data) < 128 or struct.unpack_from("<I", data, 0)[0] != MAGIC:
        return None
    f = struct.unpack(_FMT, bytes(data[:128]))
    if f[-2] != 2:
        return None
    arr = _TOKENS.get(f[3])
    if arr is None:
        raise ValueError("tensor map refers to an array that no longer exists")
    return arr


def patch_address(data: bytes, addr: int) -> bytes:
    f = list(struct.unpack(_FMT, bytes(data[:128])))
    f[3], f[-2] = addr, 1
    return struct.pack(_FMT, *f) + bytes(data[128:])


def decode_tensormap(data: bytes) -> TensorMap:
    f = struct.unpack(_FMT, bytes(data[:128]))
    if f[0] != MAGIC:
        raise ValueError("not an emulator tensor map (bad magic); build it with encode_tensormap")
    esize, addr, rank, oob = f[2], f[3], f[4], f[5]
    dims = list(f[6:11])[:rank]
    strides = [esize] + list(f[11:15])[: rank - 1]
    box = list(f[15:20])[:rank]
    return TensorMap(esize, addr, rank, bool(oob), dims, strides, box, f[20])


def driver_problem(desc: TensorMap) -> str | None:
    """Why `cuTensorMapEncodeTiled` would reject this map (interleave none, no swizzle), or None: the global
    address 16-byte aligned, every global stride a multiple of 16 below 2^40, every dimension 1..2^32, every
    box extent 1..256, and the box's innermost row a multiple of 16 bytes."""
    if desc.address % 16:
        return f"the global address {desc.address:#x} is not 16-byte aligned"
    for d, st in enumerate(desc.strides[1:], 1):
        if st % 16 or not 0 < st < (1 << 40):
            return (
                f"the global stride of dimension {d} is {st} bytes: it must be a multiple of 16 "
                "(pad the rows of the array, e.g. to a pitch that is a multiple of 16 bytes)"
            )
    for d, n in enumerate(desc.dims):
        if not 1 <= n <= (1 << 32):
            return f"dimension {d} has {n} elements (it must be 1..2^32)"
    for d, b in enumerate(desc.box):
        if not 1 <= b <= 256:
            return f"box dimension {d} is {b} (it must be 1..256)"
    if desc.box[0] * desc.elem_size % 16:
        return (
            f"the box's innermost extent is {desc.box[0] * desc.elem_size} bytes: it must be a multiple of 16"
        )
    return None


def tma_copy(
    m,
    desc: TensorMap,
    coords: list[int],
    smem_addr: int,
    one: np.ndarray,
    to_shared: bool,
    reduce_op: str | None = None,
) -> int:
    """Copy one box between global (through `desc`) and shared at `smem_addr`; return the box bytes."""
    from irc.emu.atomics import atomic
    from irc.emu.errors import EmuError
    from irc.emu.memory import load, store

    if desc.kind != 1:
        raise m.error(EmuError, "tensor map with an unresolved array token", one, kind="tensormap")
    E = {1: np.dtype(np.uint8), 2: np.dtype(np.uint16), 4: np.dtype(np.uint32), 8: np.dtype(np.uint64)}[
        desc.elem_size
    ]
    axes = [np.arange(b, dtype=np.int64) + c for b, c in zip(desc.box, coords)]
    grids = np.meshgrid(*axes[::-1], indexing="ij")[::-1]  # grids[d] over shape box[::-1]
    inb = np.ones(grids[0].shape, bool)
    gaddr = np.full(grids[0].shape, desc.address, np.int64)
    for d in range(desc.rank):
        inb &= (grids[d] >= 0) & (grids[d] < desc.dims[d])
        gaddr += grids[d] * desc.strides[d]
    inb, gaddr = inb.reshape(-1), gaddr.reshape(-1)
    n = inb.size
    saddr = np.uint64(smem_addr) + np.arange(n, dtype=np.uint64) * np.uint64(desc.elem_size)
    ids = np.repeat(one, n)
    if to_shared:
        vals = np.zeros(n, E)
        if desc.oob_nan:
            vals[:] = {2: 0x7E00, 4: 0x7FC00000, 8: 0x7FF8000000000000}.get(desc.elem_size, 0)
        if inb.any():
            vals[inb] = load(m, "global", gaddr[inb].astype(np.uint64), ids[inb], E)[0]
        store(m, "shared", saddr, ids, E, [vals])
    else:
        vals = load(m, "shared", saddr[inb], ids[inb], E)[0]
        if reduce_op is None:
            store(m, "global", gaddr[inb].astype(np.uint64), ids[inb], E, [vals])
        else:
            T = {4: np.dtype(np.float32), 8: np.dtype(np.float64), 2: np.dtype(np.float16)}[desc.elem_size]
            atomic(m, "global", gaddr[inb].astype(np.uint64), ids[inb], T, reduce_op, vals.view(T))
    return n * desc.elem_size
