"""tcgen05 (Blackwell tensor memory) subset: alloc/dealloc/relinquish, mma kind::f16 with shared-memory
descriptors, commit to an mbarrier, ld/st 32x32b, wait and fences.

Why this subset: it is what a straightforward sm_100 GEMM needs. Tensor memory is 128 lanes x 512 columns
of 32-bit cells per CTA; an address is (lane << 16) | column. MMAs complete immediately (so commit is an
mbarrier arrive). Supported: cta_group::1, M = 128, f16/bf16 inputs, f32 accumulators, K-major operands
with no swizzle or 32/64/128-byte swizzle, and MN-major operands (transpose bits) with no swizzle (the
layout of a row-major V tile in O += P·V). Descriptor fields (PTX ISA "Shared memory descriptor"): start
address >> 4 in bits 0-13, leading byte offset >> 4 in 16-29, stride byte offset >> 4 in 32-45, swizzle
mode in 61-63 (0 none, 2 128B, 4 64B, 6 32B). Instruction descriptor: D format bits 4-5 (1 = f32),
A/B format bits 7-9 / 10-12 (0 f16, 1 bf16), transpose A/B bits 15/16, N >> 3 in 17-22, M >> 4 in 24-28.
"""

from __future__ import annotations

import numpy as np

from irc.emu import dtypes as D
from irc.emu.errors import EmuError, UnsupportedInstructionError
from irc.emu.memory import load, store
from irc.emu.ops_mbar import async_use, mbar_arrive, mbar_keys
from irc.emu.registry import op
from irc.ptxisa.model import Addr, Instr, Reg, Vec

LANES, COLS = 128, 512


def tmem_array(m) -> np.ndarray:
    t = m.extra.get("tmem")
    if t is None:
        t = m.extra["tmem"] = np.zeros((m.ncta, LANES, COLS), np.uint32)
        m.extra["tmem_next"] = np.zeros(m.ncta, np.int64)
    return t


@op("tcgen05")
def _tcgen05(m, ins: Instr):
    kind = ins.mods[0].split("::")[0]
    if kind in ("fence", "wait", "relinquish_alloc_permit"):
        return None
    if "cta_group::2" in ins.opcode:
        raise UnsupportedInstructionError("tcgen05 with cta_group::2 is not supported", line=ins.line)
    if kind == "alloc":
        return _alloc(m, ins)
    if kind == "dealloc":
        return None
    if kind == "mma":
        return _mma(m, ins)
    if kind == "commit":
        ad = m.addr(ins.operands[0])

        def commit(idx):
            ids = m.ids(idx)
            for i, k in enumerate(mbar_keys(m, ad, idx, ids).tolist()):
                async_use(m, k, ids[i : i + 1], ins)  # the tensor cores arrive: the async proxy
                mbar_arrive(m, k, 1, 0, ids[i : i + 1])

        return commit
    if kind in ("ld", "st"):
        return _ldst(m, ins, kind)
    raise UnsupportedInstructionError(f"{ins.opcode} is not supported", line=ins.line)


def _alloc(m, ins):
    ad = m.addr(ins.operands[0])
    ncols = m.read(ins.operands[1], "u32")

    def alloc(idx):
        ids = m.ids(idx)
        tmem_array(m)
        nxt = m.extra["tmem_next"]
        a = ad(idx)
        n = np.broadcast_to(np.asarray(ncols(idx), np.int64), (len(ids),))
        _, first = np.unique(m.gwarp[ids], return_index=True)  # one allocation per warp
        for i in first.tolist():
            c = int(m.cta[ids[i]])
            want = int(n[i])
            if want < 32 or want > COLS or want & (want - 1):
                raise m.error(
                    EmuError,
                    f"tcgen05.alloc of {want} columns (must be a power of 2 in 32..512)",
                    ids[i : i + 1],
                    kind="tmem-alloc",
                )
            base = int(nxt[c])
            if base + want > COLS:
                raise m.error(EmuError, "tensor memory exhausted", ids[i : i + 1], kind="tmem-alloc")
            nxt[c] = base + want
            store(
                m, "shared", a[i : i + 1], ids[i : i + 1], np.dtype(np.uint32), [np.array([base], np.uint32)]
            )

    return alloc


def _smem_matrix(
    m, desc: int, rows: int, k: int, one: np.ndarray, t: str, mn_major: bool = False
) -> np.ndarray:
    """The `rows` x `k` operand (M or N rows, K columns) a descriptor describes. K-major no swizzle: core
    matrices of 8 rows x 16 bytes of K, SBO between 8-row groups, LBO between 8-element K groups. MN-major
    no swizzle (PTX ISA canonical layout ((T,1,m),(8,k)) : ((1,T,SBO),(1T,LBO))): core matrices of 8 K rows
    x 16 bytes of M/N, SBO between 8-element M/N groups, LBO between 8-row K groups."""
    start = (desc & 0x3FFF) << 4
    lbo = ((desc >> 16) & 0x3FFF) << 4
    sbo = ((desc >> 32) & 0x3FFF) << 4
    swz = (desc >> 61) & 7
    r = np.arange(rows, dtype=np.int64)[:, None]
    kk = np.arange(k, dtype=np.int64)[None, :]
    if mn_major:
        if swz != 0:
            raise m.error(
                UnsupportedInstructionError,
                "tcgen05.mma: MN-major operands with swizzling are not supported",
                one,
            )
        addr = start + (r // 8) * sbo + (kk // 8) * lbo + (kk % 8) * 16 + (r % 8) * 2
    elif swz == 0:
        addr = start + (r // 8) * sbo + (kk // 8) * lbo + (r % 8) * 16 + (kk % 8) * 2
    else:
        pitch, bits = {2: (128, 3), 4: (64, 2), 6: (32, 1)}[int(swz)]
        addr = start + (r // 8) * sbo + (r % 8) * pitch + kk * 2
        addr = addr ^ (((addr >> 7) & ((1 << bits) - 1)) << 4)
    flat = addr.reshape(-1).astype(np.uint64)
    v = load(m, "shared", flat, np.repeat(one, flat.size), np.dtype(np.uint16))[0]
    f = D.bf16_to_f32(v) if t == "bf16" else v.view(np.float16).astype(np.float32)
    return f.reshape(rows, k).astype(np.float64)


def _mma(m, ins):
    if "kind::f16" not in ins.opcode:
        raise UnsupportedInstructionError("only tcgen05.mma kind::f16 is supported", line=ins.line)
    ops = list(ins.operands)
    dt = m.addr(ops[0])
    if isinstance(ops[1], Addr):
        raise UnsupportedInstructionError(
            "tcgen05.mma with A in tensor memory is not supported", line=ins.line
        )
    ad, bd, idr = m.read(ops[1], "u64"), m.read(ops[2], "u64"), m.read(ops[3], "u32")
    rest = [o for o in ops[4:] if not isinstance(o, Vec)]
    en = m.read(rest[-1], "pred") if rest and isinstance(rest[-1], Reg) else None

    def mma(idx):
        ids = m.ids(idx)
        tm = tmem_array(m)
        n = len(ids)
        da = np.broadcast_to(np.asarray(dt(idx), np.uint64), (n,))
        a_, b_ = (np.broadcast_to(np.asarray(x(idx), np.uint64), (n,)) for x in (ad, bd))
        ide = np.broadcast_to(np.asarray(idr(idx), np.uint32), (n,))
        acc = np.broadcast_to(en(idx), (n,)) if en is not None else np.ones(n, bool)
        for i in range(n):
            one = ids[i : i + 1]
            idesc = int(ide[i])
            dfmt, afmt, bfmt = (idesc >> 4) & 3, (idesc >> 7) & 7, (idesc >> 10) & 7
            N, M = ((idesc >> 17) & 0x3F) << 3, ((idesc >> 24) & 0x1F) << 4
            if dfmt != 1 or M != 128:
                raise m.error(
                    UnsupportedInstructionError,
                    f"tcgen05.mma instruction descriptor {idesc:#x}: only M=128 and f32 accumulators are supported",
                    one,
                )
            at = "bf16" if afmt == 1 else "f16"
            bt = "bf16" if bfmt == 1 else "f16"
            A = _smem_matrix(m, int(a_[i]), M, 16, one, at, mn_major=bool(idesc >> 15 & 1))
            B = _smem_matrix(m, int(b_[i]), N, 16, one, bt, mn_major=bool(idesc >> 16 & 1))
            lane0, col0 = int(da[i]) >> 16 & 0xFFFF, int(da[i]) & 0xFFFF
            if lane0 + M > LANES or col0 + N > COLS:
                raise m.error(
                    EmuError, "tcgen05.mma accumulator outside tensor memory", one, kind="tmem-access"
                )
            c = int(m.cta[ids[i]])
            cur = tm[c, lane0 : lane0 + M, col0 : col0 + N].view(np.float32).astype(np.float64)
            res = A @ B.T + (cur if acc[i] else 0.0)
            tm[c, lane0 : lane0 + M, col0 : col0 + N] = res.astype(np.float32).view(np.uint32)

    return mma


def _ldst(m, ins, kind):
    shape = next((mo for mo in ins.mods if "x" in mo and mo[0].isdigit()), "")
    if shape != "32x32b":
        raise UnsupportedInstructionError(
            f"tcgen05.{kind} shape {shape} is not supported (32x32b only)", line=ins.line
        )
    if kind == "ld":
        regs, addr_op = list(ins.operands[0].items), ins.operands[1]
    else:
        addr_op, regs = ins.operands[0], list(ins.operands[1].items)
    ta = m.read(addr_op.base, "u32") if isinstance(addr_op, Addr) else m.read(addr_op, "u32")
    off = addr_op.offset if isinstance(addr_op, Addr) else 0
    ws = [m.write(o, "b32") for o in regs] if kind == "ld" else None
    rs = [m.read(o, "b32") for o in regs] if kind == "st" else None

    def h(idx):
        ids = m.ids(idx)
        tm = tmem_array(m)
        n = len(ids)
        a = np.broadcast_to(np.asarray(ta(idx), np.int64) + off, (n,))
        lane = (a >> 16) + m.lane[ids].astype(np.int64)
        col = a & 0xFFFF
        quad = (m.lin[ids] // 32) % 4
        bad = (lane // 32 != quad) | (col + len(regs) > COLS) | (lane >= LANES)
        if bad.any():
            raise m.error(
                EmuError,
                f"tcgen05.{kind}: warp {int(quad[bad][0])} may only access tensor memory lanes "
                f"{32 * int(quad[bad][0])}..{32 * int(quad[bad][0]) + 31}",
                ids[bad],
                kind="tmem-access",
            )
        c = m.cta[ids]
        for j in range(len(regs)):
            if kind == "ld":
                ws[j](idx, tm[c, lane, col + j])
            else:
                tm[c, lane, col + j] = np.broadcast_to(np.asarray(rs[j](idx), np.uint32), (n,))

    return h
