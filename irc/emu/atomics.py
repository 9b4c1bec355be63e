"""Atomic read-modify-write on emulated memory, applied in lane order.

Why a module of its own: `atom`/`red` (ops_mem) and TMA reductions (tensormap) both apply atomics; keeping
the arithmetic here lets both import it without the handler modules importing each other.
"""

from __future__ import annotations

import numpy as np

from irc.emu.errors import UnsupportedInstructionError
from irc.emu.memory import check_written, locate, shared_written


def _atom_apply(opn: str, T: np.dtype, old, b, c):
    if opn == "add":
        return (old + b).astype(T)
    if opn == "min":
        return np.minimum(old, b)
    if opn == "max":
        return np.maximum(old, b)
    if opn == "and":
        return old & b
    if opn == "or":
        return old | b
    if opn == "xor":
        return old ^ b
    if opn == "exch":
        return np.asarray(b, T)
    if opn == "cas":
        return np.where(old == b, c, old).astype(T)
    if opn == "inc":
        return np.where(old >= b, T.type(0), old + T.type(1)).astype(T)
    if opn == "dec":
        return np.where((old == 0) | (old > b), b, old - T.type(1)).astype(T)
    raise UnsupportedInstructionError(f"atomic {opn} is not supported")


def atomic(m, space: str, addr, ids, T: np.dtype, opn: str, b, c=None) -> np.ndarray:
    """Apply an atomic for threads `ids` in lane order; return the old values."""
    n = len(ids)
    b = np.broadcast_to(np.asarray(b, T), (n,))
    c = np.broadcast_to(np.asarray(c, T), (n,)) if c is not None else None
    old = np.zeros(n, T)
    for buf, bidx, sel, _kind in locate(m, space, addr, ids, T.itemsize, write=True):
        if _kind == "shared":
            check_written(m, bidx, T.itemsize, ids if sel is None else ids[sel])
            shared_written(m, bidx, T.itemsize, ids if sel is None else ids[sel])
        if m.race is not None:
            m.race.access(_kind, bidx, ids if sel is None else ids[sel], T.itemsize, "atomic")
        view = buf.view(T)
        k = bidx // T.itemsize
        bs = b if sel is None else b[sel]
        cs = c if (c is None or sel is None) else c[sel]
        o = _rounds(view, k, T, opn, bs, cs)
        if sel is None:
            old = o
        else:
            old[sel] = o
    return old


def _rounds(view, k, T, opn, b, c):
    order = np.argsort(k, kind="stable")
    ks = k[order]
    newgrp = np.ones(len(ks), bool)
    newgrp[1:] = ks[1:] != ks[:-1]
    gstart = np.maximum.accumulate(np.where(newgrp, np.arange(len(ks)), 0))
    rank = np.arange(len(ks)) - gstart
    out = np.empty(len(ks), T)
    bs = b[order]
    cs = c[order] if c is not None else None
    maxr = int(rank.max()) if len(rank) else 0
    if maxr == 0:
        old = view[ks]
        view[ks] = _atom_apply(opn, T, old, bs, cs)
        out[:] = old
    elif opn == "add" and (T.kind in "iu" or maxr > 64):
        if T.kind == "f":
            cs64 = np.cumsum(bs.astype(np.float64))
            excl = cs64 - bs
            base = view[ks].astype(np.float64)
            out[:] = (base + excl - excl[gstart]).astype(T)
            tot = np.zeros(len(view), np.float64)
            np.add.at(tot, ks, bs.astype(np.float64))
            u = np.unique(ks)
            view[u] = (view[u].astype(np.float64) + tot[u]).astype(T)
        else:
            csum = np.cumsum(bs, dtype=T)
            excl = (csum - bs).astype(T)
            out[:] = (view[ks] + (excl - excl[gstart]).astype(T)).astype(T)
            np.add.at(view, ks, bs)
    else:
        for r in range(maxr + 1):
            s = rank == r
            kk = ks[s]
            old = view[kk]
            view[kk] = _atom_apply(opn, T, old, bs[s], cs[s] if cs is not None else None)
            out[s] = old
    res = np.empty(len(ks), T)
    res[order] = out
    return res
