"""The SIMT machine: one launch chunk (a set of CTAs) executed vectorized over all of its threads.

Why this shape: every register is a numpy array with one lane per thread, each instruction a pre-decoded
closure over those arrays, and the scheduler runs one basic block at a time for exactly the threads whose
pc is the lowest reverse-post-order block among runnable threads (see cfg.py for why that reconverges).
Threads park at CTA barriers and mbarrier waits; parked threads are released when nothing else can run.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from irc.emu import dtypes as D
from irc.emu.async_engine import CHUNK_STRIDE
from irc.emu.barriers import barrier_terminator, release
from irc.emu.bounds import limit_message
from irc.emu.cfg import build_blocks, collective, ends_block
from irc.emu.errors import (
    BarrierError,
    EmuError,
    StepLimitError,
    UnsupportedInstructionError,
    with_source,
)
from irc.emu.inline import function_addresses
from irc.emu.interleave import Interleaver, Relief
from irc.emu.mbarstate import Mbar
from irc.emu.proxy import ProxyState, async_reader, async_writer, wants_tracking
from irc.emu.proxy import wrap as proxy_wrap
from irc.emu.ranges import wrap as range_checked
from irc.emu.registry import lookup
from irc.emu.state import BIG, GBASE, LWIN, PWIN, SHWIN, W_BAR, W_MBAR, W_NONE
from irc.ptxisa.model import Addr, Function, Imm, Instr, Module, Neg, Reg, Sink, Sym, Vec

__all__ = ["Machine", "BIG", "W_NONE", "W_BAR", "W_MBAR", "GBASE", "SHWIN", "LWIN", "PWIN", "vec_items"]

Handler = Callable[[object], object]


class Machine:
    """Executes `fn` for CTAs `ctas` (list of (x, y, z)). `gmem` is the shared GlobalMemory."""

    def __init__(
        self,
        module: Module,
        fn: Function,
        grid: tuple[int, int, int],
        block: tuple[int, int, int],
        ctas: list[tuple[int, int, int]],
        gmem,
        pbuf: np.ndarray,
        psyms: dict[str, int],
        shared_layout: dict[str, int],
        shared_size: int,
        dyn_shared: int,
        local_layout: dict[str, int],
        local_size: int,
        max_steps: int,
        seed: int | None = None,
        race=None,
    ) -> None:
        self.module, self.fn, self.kernel = module, fn, fn.name
        self.grid, self.block, self.ctas = grid, block, ctas
        self.gmem = gmem
        self.pbuf, self.psyms = pbuf, psyms
        self.shared_layout, self.dyn_shared = shared_layout, dyn_shared
        self.shsize = shared_size
        self.local_layout, self.lsize = local_layout, local_size
        self.max_steps = max_steps
        bx, by, bz = block
        self.tpc = bx * by * bz
        ncta = len(ctas)
        self.ncta = ncta
        n = ncta * self.tpc
        self.N = n
        self.all = np.arange(n, dtype=np.int64)
        lin = self.all % self.tpc
        self.cta = self.all // self.tpc
        self.lin = lin
        self.lane = (lin % 32).astype(np.uint32)
        wpc = (self.tpc + 31) // 32
        self.wpc = wpc
        self.gwarp = self.cta * wpc + lin // 32
        self.nwarps = ncta * wpc
        self.slot = self.gwarp * 32 + self.lane.astype(np.int64)
        exist = np.zeros(self.nwarps, dtype=np.uint64)
        np.add.at(exist, self.gwarp, np.left_shift(np.uint64(1), self.lane.astype(np.uint64)))
        self.warp_exist = exist.astype(np.uint32)
        # memory
        self.smem = np.zeros(max(ncta * self.shsize, 16), dtype=np.uint8)
        self.smem_written = np.zeros(self.smem.shape[0], dtype=np.bool_)
        self.lmem = np.zeros(max(n * self.lsize, 16), dtype=np.uint8)
        # scheduling state
        self.pc = np.zeros(n, dtype=np.int32)
        self.sched = np.zeros(n, dtype=np.int32)
        self.wait = np.zeros(n, dtype=np.int8)
        self.wait_bar = np.zeros(n, dtype=np.int32)  # barrier id
        self.wait_cnt = np.zeros(n, dtype=np.int32)  # expected count (0: all CTA threads)
        self.wait_line = np.zeros(n, dtype=np.int32)
        self.wait_hid = np.zeros(n, dtype=np.int32)  # handler id for release callbacks
        self.wait_key = np.zeros(n, dtype=np.int64)  # the mbarrier a parked thread waits on
        self.bar_arrivals = np.zeros((ncta, 16), dtype=np.int64)
        self.release_cbs: dict[int, Callable] = {}
        self.mbar: dict[int, Mbar] = {}  # smem byte index (cta * shsize + offset) -> its mbarrier
        self.mbar_changed = False
        self.mbar_live: np.ndarray | None = None  # bytes of valid mbarriers (reuse check; at the first init)
        # CTA barrier releases: a counter, and per thread the release it last left (init visibility)
        self.sync_clock = 0
        self.rel_epoch = np.zeros(n, np.int32)
        self.carry = np.zeros(n, dtype=np.uint8)
        self.steps = 0
        self.thread_instructions = 0
        self.cur_instr: Instr | None = None
        self.landing: Instr | None = None  # the asynchronous operation completing now (async_engine.py)
        self.cur_block = 0
        self.regs: dict[str, np.ndarray] = {}
        self._declare_regs()
        self._specials()
        self.extra: dict = {}  # per-launch scratch for op modules (tmem, wmma, ...)
        self.asyncq = None  # asynchronous completion engine (a seeded schedule), see async_engine.py
        if seed is not None:
            from irc.emu.async_engine import Engine

            self.asyncq = Engine(self, seed)
        self.race = race.attach(self) if race is not None else None  # irc.emu.racecheck
        # generic vs async proxy (irc/emu/proxy.py): per-byte state only when the async proxy reads smem
        self.proxy = ProxyState(self) if wants_tracking(fn) else None
        # interleaving schedule (odd seeds, irc/emu/interleave.py): warps switch at memory operations
        self.intra_warp = sm_number(module.target) >= 70
        self.interleaver = (
            Interleaver(self, seed // CHUNK_STRIDE)
            if seed is not None and (seed // CHUNK_STRIDE) % 2
            else None
        )
        self.blocks = self._decode()
        self.clocks = self.extra.get("clock_regs", set())

    # ------------------------------------------------------------------ registers
    def _declare_regs(self) -> None:
        from irc.ptxisa.model import RegDecl, Scope

        def walk(stmts) -> None:
            for s in stmts:
                if isinstance(s, RegDecl):
                    dt = D.storage_dtype(s.type)
                    for name in s.reg_names():
                        if name not in self.regs:
                            self.regs[name] = np.zeros(self.N, dtype=dt)
                elif isinstance(s, Scope):
                    walk(s.body)

        walk(self.fn.body or [])

    def _specials(self) -> None:
        bx, by, bz = self.block
        lin = self.lin
        tx, ty, tz = lin % bx, (lin // bx) % by, lin // (bx * by)
        cids = np.array(self.ctas, dtype=np.int64).reshape(-1, 3)
        c = cids[self.cta]
        sp = {
            "%tid.x": tx,
            "%tid.y": ty,
            "%tid.z": tz,
            "%ntid.x": bx,
            "%ntid.y": by,
            "%ntid.z": bz,
            "%ctaid.x": c[:, 0],
            "%ctaid.y": c[:, 1],
            "%ctaid.z": c[:, 2],
            "%nctaid.x": self.grid[0],
            "%nctaid.y": self.grid[1],
            "%nctaid.z": self.grid[2],
            "%laneid": self.lane,
            "%warpid": lin // 32,
            "%nwarpid": self.wpc,
            "%smid": 0,
            "%nsmid": 1,
            "%gridid": 0,
            "%dynamic_smem_size": self.dyn_shared,
            "%total_smem_size": self.shsize,
            "%clusterid.x": c[:, 0],
            "%clusterid.y": c[:, 1],
            "%clusterid.z": c[:, 2],
            "%nclusterid.x": self.grid[0],
            "%nclusterid.y": self.grid[1],
            "%nclusterid.z": self.grid[2],
            "%cluster_ctaid.x": 0,
            "%cluster_ctaid.y": 0,
            "%cluster_ctaid.z": 0,
            "%cluster_nctaid.x": 1,
            "%cluster_nctaid.y": 1,
            "%cluster_nctaid.z": 1,
            "%cluster_ctarank": 0,
            "%cluster_nctarank": 1,
            "%is_explicit_cluster": 0,
        }
        lane = self.lane.astype(np.uint64)
        one = np.uint64(1)
        eq = np.left_shift(one, lane)
        sp["%lanemask_eq"] = eq
        sp["%lanemask_lt"] = eq - one
        sp["%lanemask_le"] = (eq << one) - one
        sp["%lanemask_gt"] = ~((eq << one) - one)
        sp["%lanemask_ge"] = ~(eq - one)
        for k, v in sp.items():
            arr = np.broadcast_to(np.asarray(v), (self.N,)).astype(np.uint64).astype(np.uint32)
            self.regs[k] = arr
        self.regs["%is_explicit_cluster"] = np.zeros(self.N, dtype=np.bool_)

    # ------------------------------------------------------------------ operand access
    def ids(self, idx) -> np.ndarray:
        return self.all if isinstance(idx, slice) else idx

    def count(self, idx) -> int:
        return self.N if isinstance(idx, slice) else len(idx)

    def reg(self, name: str) -> np.ndarray:
        if name in ("%clock", "%clock64", "%globaltimer", "%globaltimer_lo"):
            return self._clock_reg(name)
        if name not in self.regs:
            raise self.error(UnsupportedInstructionError, f"undeclared register {name}")
        return self.regs[name]

    def _clock_reg(self, name: str) -> np.ndarray:
        key = "__clock64" if name != "%clock" else "__clock"
        if key not in self.regs:
            self.regs[key] = np.zeros(self.N, dtype=np.uint64 if key == "__clock64" else np.uint32)
        self.extra.setdefault("clock_regs", set()).add(key)
        return self.regs[key]

    def sym_value(self, name: str) -> int:
        """The address a symbol names in its own state space (shared/local/param offsets, global address)."""
        if name in self.shared_layout:
            return self.shared_layout[name]
        if name in self.local_layout:
            return self.local_layout[name]
        if name in self.psyms:
            return self.psyms[name]
        if name in self.gmem.symbols:
            return self.gmem.symbols[name]
        faddr = function_addresses(self.module).get(name)
        if faddr is not None:  # the address of a `.func` (an indirect call's target, irc/emu/inline.py)
            return faddr
        raise self.error(UnsupportedInstructionError, f"unknown symbol {name}")

    def read(self, op, t: str) -> Callable:
        """A closure idx -> values of PTX type t (numpy array, or a numpy scalar for constants)."""
        t = t.lstrip(".")
        T = D.np_type(t) if t != "b128" else np.dtype(np.uint64)
        if isinstance(op, Neg):
            inner = self.read(op.inner, "pred")
            return lambda idx: ~inner(idx)
        if isinstance(op, Reg):
            arr = self.reg(op.name)
            st = arr.dtype
            if st == T:
                return lambda idx: arr[idx]
            if st.kind == "b" or T.kind == "b":
                if T.kind == "b":
                    return lambda idx: arr[idx] != 0
                return lambda idx: arr[idx].astype(T)
            if st.itemsize == T.itemsize:
                return lambda idx: arr[idx].view(T)
            U = D.UNSIGNED[T.itemsize]
            return lambda idx: arr[idx].astype(U).view(T)
        if isinstance(op, Imm):
            c = D.imm_value(op, t)
            return lambda idx: c
        if isinstance(op, Sym):
            c = D.const(self.sym_value(op.name), t) if T.kind != "f" else T.type(self.sym_value(op.name))
            return lambda idx: c
        raise self.error(UnsupportedInstructionError, f"cannot read operand {op}")

    def write(self, op, t: str) -> Callable:
        """A closure (idx, values of PTX type t) -> None storing into the register's bits."""
        t = t.lstrip(".")
        T = D.np_type(t)
        if isinstance(op, Sink) or (isinstance(op, Reg) and op.name == "_"):
            return lambda idx, v: None
        if not isinstance(op, Reg):
            raise self.error(UnsupportedInstructionError, f"cannot write operand {op}")
        arr = self.reg(op.name)
        st = arr.dtype
        if st.kind == "b":

            def wpred(idx, v):
                arr[idx] = v

            return wpred
        if T.kind == "b":

            def wb(idx, v):
                arr[idx] = np.asarray(v).astype(st)

            return wb
        if st.itemsize == T.itemsize:

            def weq(idx, v):
                arr[idx] = np.asarray(v, dtype=T).view(st)

            return weq
        if T.itemsize < st.itemsize:
            if T.kind == "i":
                S = D.SIGNED[st.itemsize]

                def wsext(idx, v):
                    arr[idx] = np.asarray(v, dtype=T).astype(S).view(st)

                return wsext
            U = D.UNSIGNED[T.itemsize]

            def wzext(idx, v):
                arr[idx] = np.asarray(v, dtype=T).view(U).astype(st)

            return wzext
        U = D.UNSIGNED[T.itemsize]

        def wtrunc(idx, v):
            arr[idx] = np.asarray(v, dtype=T).view(U).astype(st)

        return wtrunc

    def addr(self, op: Addr) -> Callable:
        """A closure idx -> uint64 address array (length = threads in idx)."""
        off = np.uint64(op.offset & 0xFFFFFFFFFFFFFFFF)
        if isinstance(op.base, Reg):
            r = self.read(op.base, "u64")
            return lambda idx: r(idx) + off
        base = self.sym_value(op.base.name) if isinstance(op.base, Sym) else 0
        c = np.uint64((base + op.offset) & 0xFFFFFFFFFFFFFFFF)
        return lambda idx: np.full(self.count(idx), c, dtype=np.uint64)

    # ------------------------------------------------------------------ errors
    def coords(self, gids: np.ndarray) -> tuple[tuple[int, int, int] | None, list[tuple[int, int, int]]]:
        gids = np.asarray(gids, dtype=np.int64)[:8]
        if len(gids) == 0:
            return None, []
        bx, by, _ = self.block
        c = self.ctas[int(self.cta[gids[0]])]
        ths = []
        for g in gids:
            lin = int(self.lin[g])
            ths.append((lin % bx, (lin // bx) % by, lin // (bx * by)))
        return c, ths

    def error(
        self, cls: type[EmuError], msg: str, gids=None, line: int | None = None, kind: str | None = None
    ) -> EmuError:
        block, ths = self.coords(gids if gids is not None else [])
        cur = self.cur_instr if self.cur_instr is not None else self.landing
        if line is None:
            line = cur.line if cur is not None else 0
        err = cls(msg, kernel=self.kernel, line=line, block=block, threads=ths, kind=kind)
        ins = cur
        if ins is None or ins.line != line:  # errors found after the step (a barrier others left)
            ins = next((i for i in self.fn.instructions() if i.line == line), None)
        return with_source(err, ins, self.module)

    # ------------------------------------------------------------------ decode
    def _decode(self) -> list[tuple[list[tuple[Instr, Callable]], Callable, int]]:
        blocks, labels = build_blocks(self.fn, split_mem=self.interleaver is not None)
        self.labels = labels
        self.block_coll = [any(collective(i) for i in b.instrs) for b in blocks]
        out = []
        for bi, b in enumerate(blocks):
            hs: list[tuple[Instr, Callable]] = []
            term = None
            for ins in b.instrs:
                self.cur_instr = ins
                if ins is b.instrs[-1] and ends_block(ins):
                    term = range_checked(self, ins, self._terminator(ins, bi, b.fallthrough), True)
                    continue
                fac = lookup(ins.opcode)
                if fac is None:
                    raise self.error(UnsupportedInstructionError, f"unsupported instruction {ins.opcode}")
                try:
                    h = fac(self, ins)
                except EmuError as e:
                    if e.kernel:
                        raise
                    raise self.error(type(e), e.message, line=ins.line, kind=e.kind) from None
                if h is None:
                    continue
                if self.race is not None:
                    h = self.race.wrap(ins, h)
                if self.proxy is not None and (async_reader(ins) or async_writer(ins)):
                    h = proxy_wrap(self, ins, h)
                h = range_checked(self, ins, h)
                if ins.pred is not None:
                    h = self._guard(ins, h)
                hs.append((ins, h))
            if term is None:
                term = self._fall(b.fallthrough)
            out.append((hs, term, len(b.instrs)))
        self.cur_instr = None
        return out

    def _guard(self, ins: Instr, h: Callable) -> Callable:
        p = self.reg(ins.pred.name)
        neg = ins.pred_neg

        def guarded(idx):
            pv = p[idx]
            if neg:
                pv = ~pv
            if pv.all():
                return h(idx)
            ids = self.ids(idx)
            sub = ids[pv]
            if len(sub) == 0:
                return None
            r = h(sub)
            if r is None:
                return None
            return np.union1d(ids[~pv], r)

        return guarded

    def _fall(self, nxt: int | None) -> Callable:
        def fall(idx):
            if nxt is None:
                self._exit(idx)
            else:
                self.pc[idx] = nxt
                self.sched[idx] = nxt

        return fall

    def _exit(self, idx) -> None:
        self.pc[idx] = -1
        self.sched[idx] = BIG

    def _split(self, ins: Instr, idx):
        """(taken, not_taken) thread sets for a guarded terminator."""
        if ins.pred is None:
            return idx, None
        pv = self.reg(ins.pred.name)[idx]
        if ins.pred_neg:
            pv = ~pv
        if pv.all():
            return idx, None
        ids = self.ids(idx)
        return ids[pv], ids[~pv]

    def _terminator(self, ins: Instr, bi: int, nxt: int | None) -> Callable:
        fall = self._fall(nxt)
        if ins.base == "bra":
            target = self.labels[next(o.name for o in ins.operands if isinstance(o, Sym))]

            def bra(idx):
                t, f = self._split(ins, idx)
                self.pc[t] = target
                self.sched[t] = target
                if f is not None:
                    fall(f)

            return bra
        if ins.base in ("ret", "exit"):

            def ret(idx):
                t, f = self._split(ins, idx)
                self._exit(t)
                if f is not None:
                    fall(f)

            return ret
        if ins.base == "brx":
            raise self.error(UnsupportedInstructionError, f"unsupported instruction {ins.opcode}")
        if ins.base in ("trap", "brkpt"):
            call_error = ins.meta.get("call_error")  # a call the emulator did not inline (inline.py)

            def trap(idx):
                from irc.emu.errors import BadCallError, LimitError, TrapError

                t, _ = self._split(ins, idx)
                if self.count(t):
                    if call_error is not None:
                        why, lim = call_error
                        if lim is None:
                            raise self.error(BadCallError, why, self.ids(t), ins.line)
                        raise self.error(LimitError, limit_message(lim, why), self.ids(t), ins.line)
                    raise self.error(TrapError, f"{ins.opcode} executed", self.ids(t), ins.line)
                fall(idx)

            return trap
        return barrier_terminator(self, ins, bi, nxt, fall)

    # ------------------------------------------------------------------ run
    def run(self) -> None:
        sched = self.sched
        n = self.N
        full = slice(None)
        inter = self.interleaver
        relief = Relief(self)
        while True:
            if inter is not None:
                inter.wake()
                got = inter.pick()
                if got is None:
                    if self._release():
                        continue
                    if (self.pc >= 0).any():
                        self._deadlock()
                    return
                b, idx = got
                for grp in inter.split(idx, self.block_coll[b]):
                    self._run_block(b, grp)
                continue
            b = int(sched.min()) if n else int(BIG)
            if b >= BIG:
                if self._release():
                    continue
                if (self.pc >= 0).any():
                    self._deadlock()
                return
            idx = np.flatnonzero(sched == b)
            if len(idx) < n and relief.due():
                alt = relief.pick(b, len(idx))
                if alt is not None:
                    self._run_block(int(sched[alt[0]]), alt)
                    continue
            self._run_block(b, full if len(idx) == n else idx)

    def _run_block(self, b: int, idx) -> None:
        """Run block `b` for threads `idx` (a slice: every thread), then its terminator."""
        hs, term, ninstr = self.blocks[b]
        self.cur_block = b
        cnt = self.count(idx)
        self.steps += ninstr
        self.thread_instructions += ninstr * cnt
        if self.steps > self.max_steps:
            raise self.error(
                StepLimitError,
                f"step limit {self.max_steps} exceeded (infinite loop?)",
                self.ids(idx)[:4],
                hs[0][0].line if hs else 0,
            )
        for k in self.clocks:
            self.regs[k] += self.regs[k].dtype.type(ninstr)
        for ins, h in hs:
            self.cur_instr = ins
            r = h(idx)
            if r is not None:
                idx = r
                if len(idx) == 0:
                    break
        else:
            self.cur_instr = None
            term(idx)
        self.cur_instr = None
        if self.asyncq is not None:
            self.asyncq.step()

    def _release(self) -> bool:
        return release(self)

    def _deadlock(self) -> None:
        live = np.flatnonzero(self.pc >= 0)
        mb = live[self.wait[live] == W_MBAR]
        if len(mb):
            from irc.emu.async_engine import mbarrier_hang

            raise mbarrier_hang(self, mb)
        br = live[self.wait[live] == W_BAR]
        raise self.error(
            BarrierError,
            "threads wait at a barrier that can never be released",
            br,
            int(self.wait_line[br[0]]) if len(br) else 0,
        )

    def stats(self) -> dict:
        return {"thread_instructions": self.thread_instructions, "steps": self.steps}


def sm_number(target: str) -> int:
    """The SM number of a `.target` (`sm_90a, debug` -> 90; 80 when it names none)."""
    digits = "".join(c for c in str(target).split(",")[0] if c.isdigit())
    return int(digits) if digits else 80


def vec_items(op) -> list:
    return list(op.items) if isinstance(op, Vec) else [op]
