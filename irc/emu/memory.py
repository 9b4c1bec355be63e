"""Global memory and vectorized, checked accesses to every state space.

Why one flat global byte array: pointers become plain u64 byte addresses (base 0x10000 so null faults),
and a warp-wide (here: launch-wide) load is one numpy gather on a typed view. Every access is checked
against the allocation it falls in (so overruns into padding or a neighbouring array are caught), for
natural alignment, and, for shared memory, against a per-byte "written" mask (poison tracking).
Generic addresses map global 1:1 and put shared/local/param in high windows (see machine.py).
"""

from __future__ import annotations

import numpy as np

from irc.emu.errors import MemoryAccessError, MisalignedAccessError, UninitSharedReadError
from irc.emu.mbarstate import reuse_error
from irc.emu.state import GBASE, LWIN, PWIN, SHWIN

ALIGN = 256


class GlobalMemory:
    """Concatenation of the argument arrays (and module .global/.const variables) at 256-byte bases."""

    def __init__(self) -> None:
        self.allocs: list[tuple[int, int, object]] = []  # (addr, size, owner array or None)
        self.symbols: dict[str, int] = {}
        self.size = 0
        self.buf = np.zeros(16, dtype=np.uint8)

    def reserve(self, nbytes: int, owner=None) -> int:
        addr = GBASE + self.size
        self.allocs.append((addr, nbytes, owner))
        self.size += max((nbytes + ALIGN - 1) // ALIGN * ALIGN, ALIGN)
        return addr

    def finalize(self) -> None:
        self.buf = np.zeros(max(self.size, 16), dtype=np.uint8)
        self.bases = np.array([a for a, _, _ in self.allocs] or [0], dtype=np.uint64)
        self.ends = np.array([a + s for a, s, _ in self.allocs] or [0], dtype=np.uint64)

    def write_bytes(self, addr: int, data: bytes | np.ndarray) -> None:
        raw = (
            np.frombuffer(bytes(data), dtype=np.uint8)
            if isinstance(data, (bytes, bytearray))
            else np.ascontiguousarray(data).reshape(-1).view(np.uint8)
        )
        self.buf[addr - GBASE : addr - GBASE + raw.size] = raw

    def read_bytes(self, addr: int, n: int) -> np.ndarray:
        return self.buf[addr - GBASE : addr - GBASE + n]


def _fault(m, cls, msg, ids, bad) -> Exception:
    return m.error(cls, msg, ids[bad])


def locate(m, space: str, addr: np.ndarray, ids: np.ndarray, nbytes: int, write: bool = False):
    """Resolve addresses to (buffer, byte index, selector) parts, checking bounds and alignment.

    Returns a list of (buf, bidx, sel, kind) where sel is None (all threads) or a boolean mask over ids.
    """
    addr = np.asarray(addr, dtype=np.uint64)
    if space in ("", "generic"):
        parts = []
        g = addr < np.uint64(PWIN)
        if g.all():
            return locate(m, "global", addr, ids, nbytes, write)
        for lo, hi, sp in (
            (PWIN, LWIN, "param"),
            (LWIN, SHWIN, "local"),
            (SHWIN, SHWIN + (1 << 40), "shared"),
        ):
            sel = (addr >= np.uint64(lo)) & (addr < np.uint64(hi))
            if sel.any():
                ((buf, bidx, _, kind),) = locate(m, sp, addr[sel] - np.uint64(lo), ids[sel], nbytes, write)
                parts.append((buf, bidx, sel, kind))
        if g.any():
            ((buf, bidx, _, kind),) = locate(m, "global", addr[g], ids[g], nbytes, write)
            parts.append((buf, bidx, g, kind))
        return parts
    if nbytes > 1:
        mis = (addr % np.uint64(min(nbytes, 16))) != 0
        if mis.any():
            raise _fault(
                m,
                MisalignedAccessError,
                f"misaligned {nbytes}-byte {space} access at address {int(addr[mis][0]):#x}",
                ids,
                mis,
            )
    if space in ("global", "const"):
        gm = m.gmem
        k = np.searchsorted(gm.bases, addr, side="right") - 1
        ok = (
            (k >= 0)
            & (addr >= gm.bases[np.maximum(k, 0)])
            & (addr + np.uint64(nbytes) <= gm.ends[np.maximum(k, 0)])
        )
        if not ok.all():
            bad = ~ok
            raise _fault(
                m,
                MemoryAccessError,
                f"out-of-bounds {nbytes}-byte global access at address {int(addr[bad][0]):#x}",
                ids,
                bad,
            )
        return [(gm.buf, (addr - np.uint64(GBASE)).astype(np.int64), None, "global")]
    if space == "shared":
        addr = np.where(addr >= np.uint64(SHWIN), addr - np.uint64(SHWIN), addr)
        bad = addr + np.uint64(nbytes) > np.uint64(m.shsize)
        if bad.any():
            raise _fault(
                m,
                MemoryAccessError,
                f"out-of-bounds {nbytes}-byte shared access at offset "
                f"{int(addr[bad][0]):#x} (shared size {m.shsize})",
                ids,
                bad,
            )
        return [(m.smem, m.cta[ids] * m.shsize + addr.astype(np.int64), None, "shared")]
    if space == "local":
        addr = np.where(addr >= np.uint64(LWIN), addr - np.uint64(LWIN), addr)
        bad = addr + np.uint64(nbytes) > np.uint64(m.lsize)
        if bad.any():
            raise _fault(
                m,
                MemoryAccessError,
                f"out-of-bounds {nbytes}-byte local access at offset {int(addr[bad][0]):#x}",
                ids,
                bad,
            )
        return [(m.lmem, ids * m.lsize + addr.astype(np.int64), None, "local")]
    if space == "param":
        addr = np.where(addr >= np.uint64(PWIN), addr - np.uint64(PWIN), addr)
        bad = addr + np.uint64(nbytes) > np.uint64(m.pbuf.size)
        if bad.any() or write:
            raise _fault(
                m,
                MemoryAccessError,
                "param access out of bounds or a write",
                ids,
                bad if bad.any() else np.ones(len(ids), bool),
            )
        return [(m.pbuf, addr.astype(np.int64), None, "param")]
    raise m.error(MemoryAccessError, f"unsupported state space {space!r}")


def check_written(m, bidx: np.ndarray, nbytes: int, ids: np.ndarray) -> None:
    if m.asyncq is not None:  # bytes an asynchronous copy has not finished writing
        m.asyncq.check_read(bidx, nbytes, ids)
        if m.asyncq.capture is not None:  # read by a captured async copy (a bulk store's source)
            m.asyncq.note_read(bidx, nbytes)
    w = m.smem_written
    ok = w[bidx] if nbytes == 1 else w[bidx[:, None] + np.arange(nbytes)].all(axis=1)
    if not ok.all():
        bad = ~ok
        off = int(bidx[bad][0] % m.shsize)
        raise _fault(
            m, UninitSharedReadError, f"read of shared memory never written (offset {off:#x})", ids, bad
        )


def load(m, space: str, addr, ids: np.ndarray, dt: np.dtype, nvec: int = 1) -> list[np.ndarray]:
    """Gather `nvec` consecutive elements of dtype dt per thread."""
    size = dt.itemsize
    total = size * nvec
    parts = locate(m, space, addr, ids, total)
    if len(parts) == 1 and parts[0][2] is None:
        buf, bidx, _, kind = parts[0]
        if kind == "shared":
            check_written(m, bidx, total, ids)
            if m.proxy is not None and m.proxy.async_read:
                m.proxy.check_read(bidx, total, ids)
        if m.race is not None:
            m.race.access(kind, bidx, ids, total, "read")
        view = buf.view(dt)
        k = bidx // size
        return [view[k + v] for v in range(nvec)]
    out = [np.zeros(len(ids), dtype=dt) for _ in range(nvec)]
    for buf, bidx, sel, kind in parts:
        if kind == "shared":
            check_written(m, bidx, total, ids[sel])
            if m.proxy is not None and m.proxy.async_read:
                m.proxy.check_read(bidx, total, ids[sel])
        if m.race is not None:
            m.race.access(kind, bidx, ids[sel], total, "read")
        view = buf.view(dt)
        k = bidx // size
        for v in range(nvec):
            out[v][sel] = view[k + v]
    return out


def store(m, space: str, addr, ids: np.ndarray, dt: np.dtype, vals: list) -> None:
    if m.asyncq is not None and m.asyncq.capture is not None:  # written by an async copy: later
        m.asyncq.defer_store(space, addr, ids, dt, vals)
        return
    size = dt.itemsize
    nvec = len(vals)
    total = size * nvec
    for buf, bidx, sel, kind in locate(m, space, addr, ids, total, write=True):
        if m.race is not None:
            m.race.access(
                kind,
                bidx,
                ids if sel is None else ids[sel],
                total,
                "write",
                buf,
                _bytes_of(vals, dt, ids, sel),
            )
        view = buf.view(dt)
        k = bidx // size
        for v in range(nvec):
            x = np.broadcast_to(np.asarray(vals[v], dtype=dt), (len(ids),))
            view[k + v] = x if sel is None else x[sel]
        if kind == "shared":
            mark_written(m, bidx, total)
            shared_written(m, bidx, total, ids if sel is None else ids[sel])


def shared_written(m, bidx: np.ndarray, nbytes: int, ids: np.ndarray) -> None:
    """Checks and bookkeeping of a write (store, atomic, async copy landing) to shared memory: the bytes of
    a valid mbarrier (`mbarrier-reuse`), bytes a bulk store still reads (`async-race`), proxy state."""
    if m.mbar:
        ml = m.mbar_live
        live = ml[bidx] if nbytes == 1 else ml[bidx[:, None] + np.arange(nbytes)].any(axis=1)
        if live.any():
            raise reuse_error(m, bidx, nbytes, ids, live)
    if m.asyncq is not None:
        m.asyncq.check_write(bidx, nbytes, ids)
    if m.proxy is not None:
        m.proxy.on_write(bidx, nbytes, ids)


def mark_written(m, bidx: np.ndarray, nbytes: int) -> None:
    if nbytes == 1:
        m.smem_written[bidx] = True
    else:
        m.smem_written[bidx[:, None] + np.arange(nbytes)] = True


def _bytes_of(vals: list, dt: np.dtype, ids: np.ndarray, sel):
    """A closure giving the (lanes, bytes) uint8 image of a store (the race checker compares values)."""

    def f() -> np.ndarray:
        cols = [np.broadcast_to(np.asarray(v, dtype=dt), (len(ids),)) for v in vals]
        img = np.ascontiguousarray(np.stack(cols, axis=1)).view(np.uint8).reshape(len(ids), -1)
        return img if sel is None else img[sel]

    return f
