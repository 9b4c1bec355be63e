"""Tensor-core forms: ldmatrix, mma.sync (m16n8k16 / m16n8k8, f16/bf16 inputs) and wmma m16n16k16.

Why per-warp gathers: a warp-wide matrix op reads every lane's registers, so the executing group is
grouped into whole warps (a partial warp is a collective-mask error) and the fragments are scattered into
(warps, rows, cols) arrays with the exact PTX ISA mma.m16n8k16 fragment layout, multiplied in float64 and
rounded once to the accumulator type.

wmma fragments (our own layout; only our code reads it): for A (16x16), B (16x16) and C/D (16x16), lane
l holds logical row-major elements l*8 .. l*8+7 in fragment elements 0..7 (A/B: f16 halves of registers
0..3, registers 4..7 repeat 0..3; C/D f32: registers 0..7; C/D f16: halves of registers 0..3).
"""

from __future__ import annotations

import numpy as np

from irc.emu import dtypes as D
from irc.emu.errors import UnsupportedInstructionError
from irc.emu.memory import load, store
from irc.emu.ops_mem import space_of
from irc.emu.ops_sync import coll_prologue
from irc.emu.registry import op
from irc.ptxisa.model import Instr, Vec


def _warps(m, ins, idx):
    """Check the whole warp executes; return (ids, warp index per thread in 0..nw-1, lane, nw)."""
    ids, _, _ = coll_prologue(m, ins, idx, None)
    gw = m.gwarp[ids]
    uw, wi = np.unique(gw, return_inverse=True)
    return ids, wi, m.lane[ids].astype(np.int64), len(uw)


def _halves(v, t):
    v = np.asarray(v, np.uint32)
    lo, hi = (v & np.uint32(0xFFFF)).astype(np.uint16), (v >> np.uint32(16)).astype(np.uint16)
    if t == "bf16":
        return D.bf16_to_f32(lo).astype(np.float64), D.bf16_to_f32(hi).astype(np.float64)
    return lo.view(np.float16).astype(np.float64), hi.view(np.float16).astype(np.float64)


def _pack_f16(lo, hi):
    lb = np.asarray(lo).astype(np.float16).view(np.uint16).astype(np.uint32)
    hb = np.asarray(hi).astype(np.float16).view(np.uint16).astype(np.uint32)
    return lb | (hb << np.uint32(16))


@op("ldmatrix")
def _ldmatrix(m, ins: Instr):
    num = int(next(mo for mo in ins.mods if mo in ("x1", "x2", "x4"))[1])
    trans = "trans" in ins.mods
    ws = [m.write(o, "b32") for o in ins.operands[0].items]
    ad = m.addr(ins.operands[1])
    sp = space_of(ins)
    u16 = np.dtype(np.uint16)

    def h(idx):
        ids, wi, lane, nw = _warps(m, ins, idx)
        addrs = np.zeros((nw, 32), np.uint64)
        addrs[wi, lane] = ad(idx)
        for j in range(num):
            if not trans:
                src = addrs[wi, j * 8 + lane // 4] + (lane % 4 * 4).astype(np.uint64)
                v = load(m, sp, src, ids, np.dtype(np.uint32))[0]
            else:
                col = (lane // 4 * 2).astype(np.uint64)
                r0 = addrs[wi, j * 8 + 2 * (lane % 4)] + col
                r1 = addrs[wi, j * 8 + 2 * (lane % 4) + 1] + col
                lo = load(m, sp, r0, ids, u16)[0].astype(np.uint32)
                hi = load(m, sp, r1, ids, u16)[0].astype(np.uint32)
                v = lo | (hi << np.uint32(16))
            ws[j](idx, v)

    return h


@op("stmatrix")
def _stmatrix(m, ins: Instr):
    num = int(next(mo for mo in ins.mods if mo in ("x1", "x2", "x4"))[1])
    trans = "trans" in ins.mods
    ad = m.addr(ins.operands[0])
    rs = [m.read(o, "b32") for o in ins.operands[1].items]
    sp = space_of(ins)
    u16 = np.dtype(np.uint16)

    def h(idx):
        ids, wi, lane, nw = _warps(m, ins, idx)
        addrs = np.zeros((nw, 32), np.uint64)
        addrs[wi, lane] = ad(idx)
        for j in range(num):
            v = np.broadcast_to(np.asarray(rs[j](idx), np.uint32), (len(ids),))
            if not trans:
                dst = addrs[wi, j * 8 + lane // 4] + (lane % 4 * 4).astype(np.uint64)
                store(m, sp, dst, ids, np.dtype(np.uint32), [v])
            else:
                col = (lane // 4 * 2).astype(np.uint64)
                store(
                    m, sp, addrs[wi, j * 8 + 2 * (lane % 4)] + col, ids, u16, [(v & 0xFFFF).astype(np.uint16)]
                )
                store(
                    m,
                    sp,
                    addrs[wi, j * 8 + 2 * (lane % 4) + 1] + col,
                    ids,
                    u16,
                    [(v >> 16).astype(np.uint16)],
                )

    return h


@op("mma")
def _mma(m, ins: Instr):
    mods = ins.mods
    shape = next(mo for mo in mods if mo.startswith("m16n8k"))
    k = int(shape[6:])
    tys = [mo for mo in mods if mo in D.TYPE_NAMES]
    if len(tys) != 4 or shape not in ("m16n8k16", "m16n8k8") or tys[1] not in ("f16", "bf16"):
        raise UnsupportedInstructionError(
            f"{ins.opcode} is not supported (m16n8k16/k8 f16/bf16 only)", line=ins.line
        )
    dt, at, bt, ct = tys
    dv, av, bv, cv = (list(o.items) if isinstance(o, Vec) else [o] for o in ins.operands[:4])
    acc32 = dt == "f32"
    wd = [m.write(o, "f32" if acc32 else "b32") for o in dv]
    ra, rb = [m.read(o, "b32") for o in av], [m.read(o, "b32") for o in bv]
    rc = [m.read(o, "f32" if ct == "f32" else "b32") for o in cv]

    def h(idx):
        ids, wi, lane, nw = _warps(m, ins, idx)
        g, t = lane >> 2, lane & 3
        n = len(ids)
        A = np.zeros((nw, 16, k))
        B = np.zeros((nw, k, 8))
        C = np.zeros((nw, 16, 8))
        for r, rd in enumerate(ra):
            lo, hi = _halves(np.broadcast_to(rd(idx), (n,)), at)
            row, col = g + 8 * (r % 2), 2 * t + 8 * (r // 2)
            A[wi, row, col], A[wi, row, col + 1] = lo, hi
        for r, rd in enumerate(rb):
            lo, hi = _halves(np.broadcast_to(rd(idx), (n,)), bt)
            row = 2 * t + 8 * r
            B[wi, row, g], B[wi, row + 1, g] = lo, hi
        if ct == "f32":
            for r, rd in enumerate(rc):
                C[wi, g + 8 * (r // 2), 2 * t + (r % 2)] = np.broadcast_to(rd(idx), (n,))
        else:
            for r, rd in enumerate(rc):
                lo, hi = _halves(np.broadcast_to(rd(idx), (n,)), "f16")
                C[wi, g + 8 * r, 2 * t], C[wi, g + 8 * r, 2 * t + 1] = lo, hi
        Dm = A @ B + C
        if acc32:
            for r, w in enumerate(wd):
                w(idx, Dm[wi, g + 8 * (r // 2), 2 * t + (r % 2)].astype(np.float32))
        else:
            for r, w in enumerate(wd):
                w(idx, _pack_f16(Dm[wi, g + 8 * r, 2 * t], Dm[wi, g + 8 * r, 2 * t + 1]))

    return h


# ---------------------------------------------------------------------------- wmma m16n16k16
def _wmma_elems(lane):
    e = lane[:, None] * 8 + np.arange(8)[None, :]
    return e // 16, e % 16  # (threads, 8) logical row, col


@op("wmma.load")
def _wmma_load(m, ins: Instr):
    mods = ins.mods
    which = mods[1]
    layout = "row" if "row" in mods else "col"
    t = mods[-1]
    sp = space_of(ins)
    regs = list(ins.operands[0].items)
    ad = m.addr(ins.operands[1])
    stride = m.read(ins.operands[2], "u32") if len(ins.operands) > 2 else (lambda idx: np.uint32(16))
    E = np.dtype(np.float16) if t == "f16" else np.dtype(np.float32)
    ws = [m.write(o, "f32" if E.itemsize == 4 else "b32") for o in regs]

    def h(idx):
        ids, wi, lane, nw = _warps(m, ins, idx)
        r, c = _wmma_elems(lane)
        st = np.broadcast_to(np.asarray(stride(idx), np.int64), (len(ids),))[:, None]
        off = (r * st + c) if layout == "row" else (r + c * st)
        base = ad(idx)[:, None] + (off * E.itemsize).astype(np.uint64)
        vals = np.stack([load(m, sp, base[:, j], ids, E)[0] for j in range(8)], axis=1)
        if E.itemsize == 4:
            for j, w in enumerate(ws):
                w(idx, vals[:, j])
        else:
            for j, w in enumerate(ws):
                jj = j % 4
                w(idx, _pack_f16(vals[:, 2 * jj], vals[:, 2 * jj + 1]))

    _ = which
    return h


@op("wmma.store")
def _wmma_store(m, ins: Instr):
    mods = ins.mods
    layout = "row" if "row" in mods else "col"
    t = mods[-1]
    sp = space_of(ins)
    ad = m.addr(ins.operands[0])
    regs = list(ins.operands[1].items)
    stride = m.read(ins.operands[2], "u32") if len(ins.operands) > 2 else (lambda idx: np.uint32(16))
    E = np.dtype(np.float16) if t == "f16" else np.dtype(np.float32)
    rs = [m.read(o, "f32" if E.itemsize == 4 else "b32") for o in regs]

    def h(idx):
        ids, wi, lane, nw = _warps(m, ins, idx)
        n = len(ids)
        r, c = _wmma_elems(lane)
        st = np.broadcast_to(np.asarray(stride(idx), np.int64), (n,))[:, None]
        off = (r * st + c) if layout == "row" else (r + c * st)
        base = ad(idx)[:, None] + (off * E.itemsize).astype(np.uint64)
        if E.itemsize == 4:
            vals = [np.broadcast_to(rd(idx), (n,)) for rd in rs]
        else:
            vals = []
            for rd in rs[:4]:
                lo, hi = _halves(np.broadcast_to(rd(idx), (n,)), "f16")
                vals += [lo.astype(np.float16), hi.astype(np.float16)]
        for j in range(8):
            store(m, sp, base[:, j], ids, E, [vals[j]])

    return h


@op("wmma.mma")
def _wmma_mma(m, ins: Instr):
    tys = [mo for mo in ins.mods if mo in D.TYPE_NAMES]
    dt, ct = tys[-2], tys[-1]
    dv, av, bv, cv = (list(o.items) for o in ins.operands[:4])
    wd = [m.write(o, "f32" if dt == "f32" else "b32") for o in dv]
    ra, rb = [m.read(o, "b32") for o in av[:4]], [m.read(o, "b32") for o in bv[:4]]
    rc = [m.read(o, "f32" if ct == "f32" else "b32") for o in cv]

    def gather(rds, nw, wi, lane, n, idx, f32):
        M = np.zeros((nw, 256))
        e = lane[:, None] * 8 + np.arange(8)[None, :]
        if f32:
            for j, rd in enumerate(rds):
                M[wi, e[:, j]] = np.broadcast_to(rd(idx), (n,))
        else:
            for j, rd in enumerate(rds[:4]):
                lo, hi = _halves(np.broadcast_to(rd(idx), (n,)), "f16")
                M[wi, e[:, 2 * j]], M[wi, e[:, 2 * j + 1]] = lo, hi
        return M.reshape(nw, 16, 16)

    def h(idx):
        ids, wi, lane, nw = _warps(m, ins, idx)
        n = len(ids)
        A = gather(ra, nw, wi, lane, n, idx, False)
        B = gather(rb, nw, wi, lane, n, idx, False)
        C = gather(rc, nw, wi, lane, n, idx, ct == "f32")
        Dm = (A @ B + C).reshape(nw, 256)
        e = lane[:, None] * 8 + np.arange(8)[None, :]
        if dt == "f32":
            for j, w in enumerate(wd):
                w(idx, Dm[wi, e[:, j]].astype(np.float32))
        else:
            for j, w in enumerate(wd):
                jj = j % 4
                w(idx, _pack_f16(Dm[wi, e[:, 2 * jj]], Dm[wi, e[:, 2 * jj + 1]]))

    return h
