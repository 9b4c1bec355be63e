"""Dynamic data-race detection for the emulator (`RaceError`), kept in its own module with small hooks.

Why this shape: the emulator runs every thread of a block in lockstep, so a kernel that forgets a barrier
still computes the right numbers here. Race checking makes that visible without a GPU. Every access to
shared or global memory records, per byte, the last writer and up to two readers together with the
accessing thread's *synchronisation stamps*:

- `tep` (per thread): bumped when the thread leaves a CTA barrier, executes a fence, or when an mbarrier
  phase of its chunk completes. Two accesses by different threads of one CTA are ordered iff the earlier
  thread's `tep` changed since its access (it passed a barrier the later one also passed).
- `wep` (per warp): bumped when the warp executes `bar.warp.sync` or any other warp collective. On sm_70+
  lanes of one warp are not ordered without one (independent thread scheduling).
- `fep` (per thread): bumped by fences only; the only thing that can order accesses of different CTAs
  (through a flag the later CTA observes, which the emulator cannot see, so a fence counts as ordering).

Every rule errs towards silence: a stamp that changed for any reason counts as "ordered" (a missed race at
worst), never as a reported race that cannot happen. Atomics against atomics are exempt; a write-write
conflict where both writers store the same bytes is reported as a note (`EmuStats.race_notes`), not an
error. All of it is numpy over the lanes of one access, so the overhead stays a small factor (see
bench/bench_racecheck.py).
"""

from __future__ import annotations

import os

import numpy as np

from irc.emu.errors import RaceError, user_loc
from irc.records import record

# bytes of shadow state per byte of tracked memory: 3 records (writer, two readers) x 5 int32 fields
SHADOW_BYTES = 60
SHADOW_BUDGET = 256 << 20
GLOBAL_LIMIT = 8 << 20  # global memory larger than this is not race-checked (a note says so)


class _Records:
    """Per byte: the writer record and two reader records, each (thread, instruction, tep, wep[, fep]),
    packed in one (bytes, 3, fields) int32 array so an access gathers and scatters all of them at once."""

    def __init__(self, n: int, cross_cta: bool) -> None:
        self.cross_cta = cross_cta  # global memory: accesses of different CTAs meet here
        n = (n + 15) // 16 * 16
        # zeros: the OS hands out untouched pages lazily, so a large shadow costs only what is used;
        # the thread field holds thread id + 1 (0: no access recorded)
        self.s = np.zeros((n, 3, 5 if cross_cta else 4), np.int32)
        self.watom = np.zeros(n, np.bool_)
        # Granule: while every access so far covered whole aligned `gran`-byte units, only the first byte
        # of each unit is kept up to date (the others would hold the same records). An access with a
        # finer size or alignment first copies each unit's record to all of its bytes (`split`).
        self.gran = 16
        self.dirty = False  # nothing recorded yet: a split needs no copying

    def split(self, g: int) -> None:
        old = self.gran
        if not self.dirty:
            self.gran = g
            return
        v = self.s.reshape(-1, old, *self.s.shape[1:])
        v[:, 1:] = v[:, :1]
        a = self.watom.reshape(-1, old)
        a[:, 1:] = a[:, :1]
        self.gran = g


TID, INS, TEP, WEP, FEP = range(5)
W, R1, R2 = range(3)
STRONG, CAS_READ = 1, 2  # instruction flags: a morally strong access; a load that only feeds atom.cas


def strong(ins) -> bool:
    """Atomics and `.relaxed` / `.acquire` / `.release` loads and stores are strong accesses: two of them
    never race (PTX memory model). `.volatile` is left weak on purpose: the warp-synchronous reductions
    that rely on it are the races sm_70+ exposes."""
    if ins.base in ("atom", "red"):
        return True
    return ins.base in ("ld", "st") and any(x in ins.mods for x in ("relaxed", "acquire", "release"))


def cas_validated_loads(fn) -> set[int]:
    """ids of the plain loads whose value feeds the compare operand of an `atom.cas` on the same address
    (directly or through `mov`): the CAS-loop idiom, where a stale value is only retried, never used."""
    from irc.ptxisa.model import Reg, Sym

    instrs = fn.instructions()
    # registers that hold a variable's address (`mov.u32 %r14, smax;`, then `cvta`): `[%r14]` is `[smax]`
    names: dict[str, str] = {}
    for i in instrs:
        if i.base in ("mov", "cvta") and len(i.operands) == 2 and isinstance(i.operands[0], Reg):
            src = i.operands[1]
            if isinstance(src, Sym):
                names[i.operands[0].name] = src.name
            elif isinstance(src, Reg) and src.name in names:
                names[i.operands[0].name] = names[src.name]

    def key(a) -> str:
        base = getattr(a, "base", None)
        if isinstance(base, Reg) and base.name in names:
            return f"{names[base.name]}+{a.offset}"
        return f"{base}+{getattr(a, 'offset', 0)}"

    cmp: dict[str, set] = {}  # compare register -> the CAS addresses
    for i in instrs:
        if i.base == "atom" and "cas" in i.mods and len(i.operands) >= 3 and isinstance(i.operands[2], Reg):
            cmp.setdefault(i.operands[2].name, set()).add(key(i.operands[1]))
    if not cmp:
        return set()
    changed = True
    while changed:  # `mov %r10, %r9` into a compare register: %r9 feeds the compare too
        changed = False
        for i in instrs:
            if i.base == "mov" and len(i.operands) == 2 and all(isinstance(o, Reg) for o in i.operands):
                d, a = i.operands[0].name, i.operands[1].name
                if d in cmp and not cmp[d] <= cmp.get(a, set()):
                    cmp.setdefault(a, set()).update(cmp[d])
                    changed = True
    out: set[int] = set()
    for i in instrs:
        if i.base == "ld" and len(i.operands) == 2 and isinstance(i.operands[0], Reg):
            addrs = cmp.get(i.operands[0].name)
            if addrs and key(i.operands[1]) in addrs:
                out.add(id(i))
    return out


@record
class RaceAccess:
    """One side of a race: who accessed which byte, how, and where in the PTX and the source."""

    op: str  # "read" | "write" | "atomic"
    thread: tuple[int, int, int]
    block: tuple[int, int, int]
    instr: str
    line: int
    source: str  # "file.kdsl:12" (from .loc) or ""
    space: str
    address: int
    buffer: str
    offset: int

    def describe(self) -> str:
        at = f"line {self.line}" + (f" ({self.source})" if self.source else "")
        return (
            f"thread {self.thread} of block {self.block} {_VERB[self.op]} {self.buffer}+{self.offset:#x} "
            f"at {at}: `{self.instr}`"
        )


_VERB = {"read": "reads", "write": "writes", "atomic": "atomically updates"}


class RaceChecker:
    """Launch-wide race state: per-thread stamps, the global-memory shadow, the instruction table."""

    def __init__(self, module, fn, grid, block, gmem) -> None:
        self.module, self.fn = module, fn
        self.grid, self.block = grid, block
        self.tpc = block[0] * block[1] * block[2]
        self.wpc = (self.tpc + 31) // 32
        nctas = grid[0] * grid[1] * grid[2]
        nthreads = nctas * self.tpc
        self.tep = np.zeros(nthreads, np.int32)
        self.fep = np.zeros(nthreads, np.int32)
        self.wep = np.zeros(nctas * self.wpc, np.int32)
        lin = np.arange(nthreads, dtype=np.int64)
        self.warp_of = (lin // self.tpc * self.wpc + (lin % self.tpc) // 32).astype(np.int32)
        self.gmem = gmem
        self.notes: list[str] = []
        self._noted: set[tuple[int, int]] = set()
        self.instrs: list = []
        self._ins_id: dict[int, int] = {}
        self.flags = np.zeros(64, np.uint8)  # per instruction id: STRONG, CAS_READ
        self.cas_reads = cas_validated_loads(fn)
        self.intra_warp = _sm(module.target) >= 70
        self.gshadow: _Records | None = None
        if gmem.size <= GLOBAL_LIMIT:
            self.gshadow = _Records(max(gmem.size, 16), True)
        else:
            self.notes.append(
                f"global memory of {gmem.size} bytes exceeds the race checker's {GLOBAL_LIMIT}-byte limit: "
                "only shared memory was race-checked"
            )

    def warp_lanes(self, warps: np.ndarray) -> np.ndarray:
        """Launch thread ids of every lane of the given warps (launch-wide warp numbers)."""
        cta, wi = np.divmod(np.asarray(warps, np.int64), self.wpc)
        lanes = (cta * self.tpc + wi * 32)[:, None] + np.arange(32)
        ok = lanes < (cta * self.tpc + self.tpc)[:, None]
        return lanes[ok]

    # ------------------------------------------------------------------ setup
    def max_ctas(self, shsize: int) -> int:
        """How many CTAs one chunk may hold so the shared shadow stays within budget."""
        return max(1, SHADOW_BUDGET // max(shsize * SHADOW_BYTES, 1))

    def attach(self, m) -> _Chunk:
        return _Chunk(self, m)

    def ins_id(self, ins) -> int:
        k = id(ins)
        i = self._ins_id.get(k)
        if i is None:
            i = self._ins_id[k] = len(self.instrs)
            self.instrs.append(ins)
            if i >= len(self.flags):
                self.flags = np.concatenate([self.flags, np.zeros(len(self.flags), np.uint8)])
            self.flags[i] = (STRONG if strong(ins) else 0) | (CAS_READ if id(ins) in self.cas_reads else 0)
        return i


class _Chunk:
    """The per-Machine view: chunk-local thread ids -> launch thread ids, and the shared-memory shadow."""

    def __init__(self, rc: RaceChecker, m) -> None:
        self.rc, self.m = rc, m
        gx, gy, _ = rc.grid
        x, y, z = m.ctas[0]
        self.base = (x + gx * (y + gy * z)) * rc.tpc
        self.sshadow = _Records(max(m.ncta * m.shsize, 16), False) if m.shsize else None

    # ------------------------------------------------------------------ synchronisation events
    def gids(self, ids) -> np.ndarray:
        return (self.base + np.asarray(ids, np.int64)).astype(np.int64)

    def on_release(self, rel: np.ndarray) -> None:
        """Threads `rel` leave a CTA barrier. Every thread of their CTAs counts as synchronised: with
        `bar.arrive` producers (or named barriers over part of the block) only the waiters are released,
        and who arrived is not tracked, so the whole CTA moves on (a missed race at worst)."""
        m = self.m
        cta = np.zeros(m.ncta, np.bool_)
        cta[m.cta[rel]] = True
        self.rc.tep[self.base : self.base + m.N][cta[m.cta]] += 1

    def on_phase(self) -> None:
        """An mbarrier phase completed: every waiter may now be ordered after the arrivals (conservative)."""
        self.rc.tep[self.base : self.base + self.m.N] += 1

    def wrap(self, ins, h):
        """Wrap handlers of fences and warp collectives so they bump the stamps of the lanes that ran them."""
        m, rc = self.m, self.rc
        base, mods = ins.base, ins.mods
        fence = base in ("membar", "fence") or (
            base in ("atom", "red", "ld", "st") and any(x in mods for x in ("release", "acquire", "acq_rel"))
        )
        coll = base in ("wmma", "mma", "ldmatrix", "stmatrix", "wgmma", "bar", "barrier") or (
            "sync" in mods or "aligned" in mods
        )
        if not (fence or coll):
            return h

        def wrapped(idx):
            g = self.gids(m.ids(idx))
            warps = np.unique(rc.warp_of[g]) if coll else None
            if coll:  # a collective that itself reads or writes (ldmatrix, wmma) sees the lanes' earlier
                rc.wep[warps] += 1  # accesses as ordered before it: bump before and after
            r = h(idx)
            if fence:  # every lane of the warp: a lane's accesses before a warp sync are ordered by it
                lanes = rc.warp_lanes(np.unique(rc.warp_of[g]))
                rc.tep[lanes] += 1
                rc.fep[lanes] += 1
            if coll:
                rc.wep[warps] += 1
            return r

        return wrapped

    # ------------------------------------------------------------------ accesses
    def access(self, kind: str, bidx, ids, nbytes: int, op: str, buf=None, newbytes=None) -> None:
        """Check and record an access of `nbytes` at byte indices `bidx` (into smem or gmem.buf) by `ids`.
        op: "read", "write" or "atomic". For writes, `buf` is the memory before the store and `newbytes()`
        returns the (lanes, nbytes) uint8 array being stored (only computed when two writes conflict)."""
        if kind == "shared":
            sh = self.sshadow
        elif kind == "global":
            sh = self.rc.gshadow
        else:
            return
        if sh is None or len(ids) == 0:
            return
        if self.m.cur_instr is None and getattr(self.m, "asyncq", None) is not None:
            return  # an asynchronous copy landing later: irc/emu/async_engine.py checks those (async-race)
        rc = self.rc
        bidx = np.asarray(bidx, np.int64)
        g = sh.gran
        if nbytes % g or (bidx & (g - 1)).any():
            g2 = g
            while g2 > 1 and (nbytes % g2 or (bidx & (g2 - 1)).any()):
                g2 //= 2
            sh.split(g2)
            g = g2
        lanes = np.arange(len(bidx))
        per = nbytes // g
        if per > 1:
            B = (bidx[:, None] + np.arange(0, nbytes, g)).ravel()
            L = np.repeat(lanes, per)
        else:
            B, L = bidx, lanes
        T = self.gids(ids)[L]
        ins = rc.ins_id(self.m.cur_instr) if self.m.cur_instr is not None else -1
        S = sh.s[B]  # (bytes, 3 records, fields)
        sh.dirty = True
        cur = np.empty((len(B), sh.s.shape[2]), np.int32)
        cur[:, TID] = T + 1
        cur[:, INS] = ins
        cur[:, TEP] = rc.tep[T]
        cur[:, WEP] = rc.wep[rc.warp_of[T]]
        if sh.cross_cta:
            cur[:, FEP] = rc.fep[T]
        self._check(sh, S[:, W], B, T, L, kind, op, "write", buf, newbytes, nbytes, ins)
        if op != "read":
            self._check(sh, S[:, R1], B, T, L, kind, op, "read", buf, newbytes, nbytes, ins)
            self._check(sh, S[:, R2], B, T, L, kind, op, "read", buf, newbytes, nbytes, ins)
            if op == "write":
                self._same_instr(sh, B, T, L, kind, buf, newbytes, nbytes)
            sh.s[B, W] = cur
            sh.s[B, 1:, TID] = 0
            sh.watom[B] = op == "atomic"
        else:
            r1 = S[:, R1, TID] - 1
            fresh = (r1 < 0) | (rc.tep[np.maximum(r1, 0)] != S[:, R1, TEP])
            if fresh.any():
                sh.s[B[fresh], R1] = cur[fresh]
            # a second, different reader is enough to report any later writer: keep a live one
            r2 = S[:, R2, TID] - 1
            need = (r2 < 0) | (rc.tep[np.maximum(r2, 0)] != S[:, R2, TEP])
            if need.any():
                need &= sh.s[B, R1, TID] != T + 1
                if need.any():
                    sh.s[B[need], R2] = cur[need]

    def _unordered(self, rows, e, T):
        """(unordered mask, same-warp mask) for recorded accesses `rows` by threads e against threads T."""
        rc = self.rc
        we, wt = rc.warp_of[e], rc.warp_of[T]
        same_warp = we == wt
        in_cta = (rc.tep[e] == rows[:, TEP]) & ~(same_warp & (rc.wep[we] != rows[:, WEP]))
        if not rc.intra_warp:
            in_cta &= ~same_warp
        if rows.shape[1] <= FEP:
            return in_cta, same_warp
        same_cta = e // rc.tpc == T // rc.tpc
        across = rc.fep[e] == rows[:, FEP]
        return np.where(same_cta, in_cta, across), same_warp

    def _check(self, sh, rows, B, T, L, kind, op, prev_op, buf, newbytes, nbytes, ins) -> None:
        rc = self.rc
        e = rows[:, TID] - 1
        cand = (e >= 0) & (e != T)
        if not cand.any():
            return
        f = int(rc.flags[ins]) if ins >= 0 else 0
        if f:
            # two strong accesses (atomics, relaxed/acquire/release) never race; nor does an atomic with
            # the plain load of a CAS loop, whose stale value is only retried
            pf = rc.flags[np.maximum(rows[:, INS], 0)]
            if f & STRONG:
                cand &= (pf & (STRONG | CAS_READ)) == 0
            else:
                cand &= (pf & STRONG) == 0
            if not cand.any():
                return
        k = np.flatnonzero(cand)
        # cheap filter first: a record whose thread has passed a barrier or fence since is ordered
        # within its CTA (across CTAs only a fence counts, see _unordered)
        keep = rc.tep[e[k]] == rows[k, TEP]
        if sh.cross_cta:
            keep |= e[k] // rc.tpc != T[k] // rc.tpc
        if not keep.all():
            k = k[keep]
            if len(k) == 0:
                return
        Bk, ek, Tk, rk = B[k], e[k], T[k], rows[k]
        bad, same_warp = self._unordered(rk, ek, Tk)
        if not bad.any():
            return
        j = np.flatnonzero(bad)
        if prev_op == "write" and op == "write" and buf is not None and newbytes is not None:
            same = self._same_bytes(sh, buf, newbytes(), Bk[j], L[k[j]], k[j], nbytes)
            if same.all():
                self._note(kind, Bk[j[0]], int(rk[j[0], INS]), int(ek[j[0]]), int(Tk[j[0]]))
                return
            j = j[~same]
        i = int(j[0])
        first_op = "atomic" if prev_op == "write" and sh.watom[Bk[i]] else prev_op
        self._raise(
            kind, int(Bk[i]), int(rk[i, INS]), int(ek[i]), first_op, int(Tk[i]), op, bool(same_warp[i])
        )

    @staticmethod
    def _same_bytes(sh, buf, nb, Bj, lanes, pos, nbytes) -> np.ndarray:
        """Whether the granules at Bj already hold the bytes lanes are storing (pos: entry positions)."""
        g = sh.gran
        per = max(nbytes // g, 1)
        col = (pos % per) * g
        ar = np.arange(g)
        return (buf[Bj[:, None] + ar] == nb[lanes[:, None], col[:, None] + ar]).all(axis=1)

    def _same_instr(self, sh, B, T, L, kind, buf, newbytes, nbytes) -> None:
        """Two lanes of one store instruction writing one byte: a write-write race (same bytes: a note)."""
        if len(B) < 2 or (B[1:] > B[:-1]).all():
            return  # the common case: lanes store to increasing addresses, no byte twice
        order = np.argsort(B, kind="stable")
        Bs, Ts = B[order], T[order]
        dup = np.flatnonzero((Bs[1:] == Bs[:-1]) & (Ts[1:] != Ts[:-1]))
        if len(dup) == 0:
            return
        nb = newbytes() if newbytes is not None else None
        a, b = order[dup], order[dup + 1]
        if nb is not None:
            g = sh.gran
            per = max(nbytes // g, 1)
            ar = np.arange(g)
            ca, cb = (a % per * g)[:, None] + ar, (b % per * g)[:, None] + ar
            same = (nb[L[a][:, None], ca] == nb[L[b][:, None], cb]).all(axis=1)
            if same.all():
                ins = self.rc.ins_id(self.m.cur_instr)
                self._note(kind, int(B[a[0]]), ins, int(T[a[0]]), int(T[b[0]]))
                return
            a, b = a[~same], b[~same]
        ins = self.rc.ins_id(self.m.cur_instr)
        self._raise(kind, int(B[a[0]]), ins, int(T[a[0]]), "write", int(T[b[0]]), "write", False)

    # ------------------------------------------------------------------ reporting
    def _note(self, kind: str, byte: int, ins0: int, t0: int, t1: int) -> None:
        ins1 = self.rc.ins_id(self.m.cur_instr)
        key = (ins0, ins1)
        if key in self.rc._noted:
            return
        self.rc._noted.add(key)
        a = self._access(kind, byte, ins0, t0, "write")
        b = self._access(kind, byte, ins1, t1, "write")
        self.rc.notes.append(
            f"note: benign write-write race on {kind} memory: {b.describe()}; {a.describe()}; "
            "both store the same value"
        )

    def _access(self, kind: str, byte: int, ins: int, t: int, op: str) -> RaceAccess:
        rc, m = self.rc, self.m
        instr = rc.instrs[ins] if 0 <= ins < len(rc.instrs) else None
        cta, lin = divmod(t, rc.tpc)
        bx, by, _ = rc.block
        gx, gy, _ = rc.grid
        blk = (cta % gx, (cta // gx) % gy, cta // (gx * gy))
        th = (lin % bx, (lin // bx) % by, lin // (bx * by))
        if kind == "shared":
            off = byte % m.shsize
            name, start = _shared_buffer(m, off)
            addr = off
        else:
            from irc.emu.machine import GBASE

            addr = byte + GBASE
            name, start = _global_buffer(m, addr)
        src = ""
        got = user_loc(instr, rc.module) if instr is not None else None
        if got is not None:
            src = f"{os.path.basename(got[0]) or '?'}:{got[1]}"
        return RaceAccess(
            op,
            th,
            blk,
            str(instr) if instr is not None else "?",
            instr.line if instr is not None else 0,
            src,
            kind,
            addr,
            name,
            addr - start,
        )

    def _raise(self, kind, byte, ins0, t0, op0, t1, op1, same_warp) -> None:
        a = self._access(kind, byte, ins0, t0, op0)
        b = self._access(kind, byte, self.rc.ins_id(self.m.cur_instr), t1, op1)
        w0, w1 = ("write" if x == "atomic" else x for x in (op0, op1))
        pair = {("write", "read"): "read-after-write", ("read", "write"): "write-after-read"}.get(
            (w0, w1), "write-write" if "read" not in (w0, w1) else "read-write"
        )
        where = f"{kind} memory {b.buffer}+{b.offset:#x} (address {b.address:#x})"
        copy = next((x for x in (a, b) if x.instr.startswith(("cp.async", "cp.reduce"))), None)
        if copy is not None:
            why = (
                f"the copy by thread {copy.thread} is asynchronous: other threads may use its data only after "
                "the issuing thread's wait that covers it (`cp.async.wait_group` / `wait_all`) and then a "
                "barrier (`__syncthreads()`); a warp barrier does not wait for a copy"
            )
        elif same_warp and self.rc.intra_warp:
            why = (
                "the two threads are lanes of one warp, which are not ordered on sm_70+ without a warp "
                "barrier: add `syncwarp()` (`__syncwarp()`) between the accesses"
            )
        elif a.block != b.block:
            why = "the threads are in different blocks, which nothing orders within a launch"
        else:
            why = "no barrier between them"
        if a.line > b.line:
            why += (
                "; the earlier access comes later in the code: a loop came around with no barrier at the "
                "end of its body"
            )
        msg = f"data race ({pair}) on {where}: {b.describe()}, while {a.describe()}; {why}"
        cur = self.m.cur_instr
        raise RaceError(
            msg,
            kernel=self.m.kernel,
            line=cur.line if cur is not None else 0,
            block=b.block,
            threads=[b.thread, a.thread],
            accesses=(a, b),
        )


def _shared_buffer(m, off: int) -> tuple[str, int]:
    best = ("shared", 0)
    for name, start in m.shared_layout.items():
        if start <= off and start >= best[1]:
            best = (name, start)
    return best


def _global_buffer(m, addr: int) -> tuple[str, int]:
    gm = m.gmem
    names: dict[int, str] = {a: n for n, a in gm.symbols.items()}
    for p in m.fn.params:  # pointer parameters name the arrays passed for them
        off = m.psyms.get(p.name)
        if off is not None and p.size_bytes() == 8 and off + 8 <= m.pbuf.size:
            names.setdefault(int(m.pbuf[off : off + 8].view(np.uint64)[0]), p.name)
    for a, s, _ in gm.allocs:
        if a <= addr < a + max(s, 1):
            return names.get(a, f"global@{a:#x}"), a
    return "global", addr


def _sm(target: str) -> int:
    digits = "".join(c for c in str(target).split(",")[0] if c.isdigit())
    return int(digits) if digits else 80
