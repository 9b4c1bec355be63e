"""`run_kernel`: argument marshalling, memory layout, chunking over CTAs, write-back.

Why chunks: registers are arrays over all threads being run; a huge grid is run a slice of CTAs at a time
(CTAs never synchronize with each other, except through atomics, which stay correct sequentially).
"""

from __future__ import annotations

import os
import time

import numpy as np

from irc.emu import bounds
from irc.emu import dtypes as D
from irc.emu.async_engine import CHUNK_STRIDE
from irc.emu.errors import EmuLaunchError
from irc.emu.inline import function_addresses, inline_calls
from irc.emu.machine import Machine
from irc.emu.memory import GlobalMemory
from irc.ptxisa.model import Function, Module, Scope, VarDecl
from irc.records import field, record

DEFAULT_MAX_STEPS = 2_000_000
DEFAULT_CHUNK_THREADS = 1 << 18


@record
class EmuStats:
    """What a launch did: thread-instructions executed (guarded-off lanes included), instruction steps
    (one per instruction per group of threads run together), CTAs, threads and wall time in seconds."""

    thread_instructions: int = 0
    steps: int = 0
    ctas: int = 0
    threads: int = 0
    wall_time: float = 0.0
    chunks: int = 0
    race_notes: list = field(default_factory=list)

    @property
    def rate(self) -> float:
        return self.thread_instructions / self.wall_time if self.wall_time > 0 else 0.0


def _dim3(v, what: str) -> tuple[int, int, int]:
    if isinstance(v, (int, np.integer)):
        t = (int(v), 1, 1)
    else:
        t = tuple(int(x) for x in v) + (1,) * (3 - len(tuple(v)))
        if len(t) != 3:
            raise EmuLaunchError(f"{what} must have at most 3 dimensions, got {v!r}")
    if any(x < 1 for x in t):
        raise EmuLaunchError(f"{what} dimensions must be >= 1, got {t}")
    return t  # type: ignore[return-value]


def _align(x: int, a: int) -> int:
    return (x + a - 1) // a * a


def _walk_vars(stmts) -> list[VarDecl]:
    out: list[VarDecl] = []
    for s in stmts or []:
        if isinstance(s, VarDecl):
            out.append(s)
        elif isinstance(s, Scope):
            out.extend(_walk_vars(s.body))
    return out


def _layout(decls: list[VarDecl], start: int = 0) -> tuple[dict[str, int], int, list[VarDecl]]:
    offs: dict[str, int] = {}
    off = start
    externs = []
    for v in decls:
        if v.extern:
            externs.append(v)
            continue
        al = v.align or D.np_type(v.type).itemsize if v.type.lstrip(".") in D.TYPES else (v.align or 1)
        off = _align(off, al)
        offs[v.name] = off
        off += v.size_bytes()
    return offs, off, externs


def _init_bytes(v: VarDecl, symbols: dict[str, int]) -> bytes:
    """The initial bytes of a `.global`/`.const` variable. A name in the initializer is an address: of a
    function (a vtable entry, `irc.emu.inline.FWIN`) or of another variable (`symbols`)."""
    t = v.type.lstrip(".")
    T = D.np_type(t)
    vals = np.zeros(max(v.size_bytes() // T.itemsize, 1), T)
    for i, x in enumerate(v.init or []):
        if i >= len(vals):
            break
        if isinstance(x, str):
            if x not in symbols:
                raise EmuLaunchError(
                    f"line {v.line}: the initializer of `{v.name}` names `{x}`, which is no function or "
                    "variable of the module"
                )
            x = symbols[x]
        vals[i] = x if T.kind == "f" else int(x) & ((1 << 8 * T.itemsize) - 1)
    return vals.tobytes()[: v.size_bytes()]


def run_kernel(
    module: Module,
    kernel: str,
    grid=1,
    block=1,
    args=(),
    dynamic_shared_bytes: int = 0,
    max_steps: int = DEFAULT_MAX_STEPS,
    max_threads_per_chunk: int = DEFAULT_CHUNK_THREADS,
    seed: int | None = None,
    schedules: int | None = None,
    racecheck: bool = True,
) -> EmuStats:
    """Run `kernel` of `module` on the emulator. numpy array arguments are copied into global memory and
    written back in place afterwards. Raises EmuLaunchError for a bad launch, EmuError for dynamic errors.
    `max_steps` bounds instruction steps per chunk of CTAs (an infinite loop becomes StepLimitError).

    Asynchrony: by default async copies and MMAs complete when issued. `seed=s` runs one randomised
    completion schedule (see irc/emu/async_engine.py); `schedules=N` runs N of them (seeds 0..N-1), each
    from the original arguments; it raises the first AsyncRaceError any schedule finds, else the first
    other dynamic error, and AsyncRaceError when two schedules leave different results; the arrays end as
    schedule 0 left them.
    The environment variable IRC_EMU_SCHEDULES=N makes `schedules=N` the default (test sweeps).
    `racecheck` reports unordered conflicting accesses as RaceError (irc/emu/racecheck.py)."""

    if schedules is None and seed is None and os.environ.get("IRC_EMU_SCHEDULES"):
        schedules = int(os.environ["IRC_EMU_SCHEDULES"])
    if schedules is not None:
        from irc.emu.schedules import run_schedules

        return run_schedules(
            run_kernel,
            module,
            kernel,
            grid,
            block,
            list(args),
            schedules,
            dict(
                dynamic_shared_bytes=dynamic_shared_bytes,
                max_steps=max_steps,
                max_threads_per_chunk=max_threads_per_chunk,
                racecheck=racecheck,
            ),
        )
    from irc.emu import ops  # noqa: F401  (registers the semantics table)

    t0 = time.perf_counter()
    try:
        fn: Function = module.function(kernel)
    except KeyError:
        raise EmuLaunchError(f"no kernel named {kernel!r} in the module") from None
    if fn.body is None:
        raise EmuLaunchError(f"{kernel!r} is only declared, not defined")
    fn = inline_calls(module, fn)  # `call` through `.func`: copies of the callees (irc/emu/inline.py)
    g, b = _dim3(grid, "grid"), _dim3(block, "block")
    tpc = b[0] * b[1] * b[2]
    if tpc > 1024:
        raise EmuLaunchError(f"block of {tpc} threads exceeds 1024")
    nctas = g[0] * g[1] * g[2]
    bounds.check("emu_max_threads", nctas * tpc, f"the launch has {nctas * tpc} threads", kernel=kernel)
    req = fn.directives.get("reqntid")
    if req is not None:
        want = tuple(list(req) + [1] * (3 - len(req)))
        if want != b:
            raise EmuLaunchError(
                f"kernel {kernel} requires block {want} (.reqntid) but was launched with {b}"
            )
    maxn = fn.directives.get("maxntid")
    if maxn is not None and tpc > int(np.prod(maxn)):
        raise EmuLaunchError(
            f"kernel {kernel} allows at most {int(np.prod(maxn))} threads (.maxntid), got {tpc}"
        )
    args = list(args)
    if len(args) != len(fn.params):
        raise EmuLaunchError(f"kernel {kernel} takes {len(fn.params)} arguments, got {len(args)}")
    gmem = GlobalMemory()
    arrays: list[tuple[int, np.ndarray]] = []
    ptr_addr: dict[int, int] = {}
    tables: list[tuple[int, list[np.ndarray]]] = []
    for i, a in enumerate(args):
        if isinstance(a, (list, tuple)) and a and all(isinstance(x, np.ndarray) for x in a):
            # An array of pointers (`*global *global T`): place every array, then a u64 table of their
            # addresses, which is what the kernel parameter points at.
            for x in a:
                if not x.flags.c_contiguous:
                    raise EmuLaunchError(f"argument {i} ({fn.params[i].name}) holds a non-contiguous array")
            table = np.zeros(len(a), dtype=np.uint64)
            ptr_addr[i] = gmem.reserve(table.nbytes, table)
            arrays.append((ptr_addr[i], table))
            tables.append((i, list(a)))
            args[i] = table
    for _i, lst in tables:
        for x in lst:
            if not any(x is y for _, y in arrays):
                arrays.append((gmem.reserve(x.nbytes, x), x))
    for i, a in enumerate(args):
        if isinstance(a, np.ndarray) and i not in ptr_addr:
            if not a.flags.c_contiguous:
                raise EmuLaunchError(f"argument {i} ({fn.params[i].name}) is not a C-contiguous array")
            ptr_addr[i] = gmem.reserve(a.nbytes, a)
            arrays.append((ptr_addr[i], a))
    from irc.emu.tensormap import patch_address, token_array

    for i, a in enumerate(args):  # tensor maps naming numpy arrays get those arrays' addresses
        if isinstance(a, (bytes, bytearray)):
            arr = token_array(bytes(a))
            if arr is None:
                continue
            addr = next((ad for ad, x in arrays if x is arr), None)
            if addr is None:
                if not arr.flags.c_contiguous:
                    raise EmuLaunchError(f"tensor map argument {i} refers to a non-contiguous array")
                addr = gmem.reserve(arr.nbytes, arr)
                arrays.append((addr, arr))
            args[i] = patch_address(bytes(a), addr)
    gvars = [v for v in module.globals if v.space in ("global", "const")]
    gvars += [v for v in _walk_vars(fn.body) if v.space in ("global", "const")]
    for v in gvars:
        gmem.symbols[v.name] = gmem.reserve(v.size_bytes())
    bounds.check(
        "emu_max_global_bytes",
        gmem.size,
        f"the launch needs {gmem.size} bytes of global memory",
        kernel=kernel,
    )
    gmem.finalize()
    for i, lst in tables:
        table = args[i]
        for j, x in enumerate(lst):
            table[j] = next(ad for ad, y in arrays if y is x)
    for addr, a in arrays:
        gmem.write_bytes(addr, a)
    syms = {**function_addresses(module), **gmem.symbols}
    for v in gvars:
        gmem.write_bytes(gmem.symbols[v.name], _init_bytes(v, syms))
    pbuf, psyms = _params(fn, args, ptr_addr)
    svars = [v for v in module.globals if v.space == "shared"] + [
        v for v in _walk_vars(fn.body) if v.space == "shared"
    ]
    soffs, send, externs = _layout(svars)
    dyn_base = _align(send, 1024 if dynamic_shared_bytes else 16)
    for v in externs:
        soffs[v.name] = dyn_base
    shsize = (
        _align(dyn_base + int(dynamic_shared_bytes), 16)
        if dynamic_shared_bytes or externs
        else _align(send, 16)
    )
    if shsize > 228 * 1024:
        raise EmuLaunchError(f"shared memory of {shsize} bytes exceeds 228 KiB")
    lvars = [v for v in module.globals if v.space == "local"] + [
        v for v in _walk_vars(fn.body) if v.space == "local"
    ]
    loffs, lend, _ = _layout(lvars)
    lsize = _align(lend, 16)
    big = max(lvars, key=lambda v: v.size_bytes(), default=None)
    bounds.check(
        "emu_max_local_bytes",
        lsize,
        f"each thread needs {lsize} bytes of `.local` memory"
        + (f" (`{big.name}` has {big.size_bytes()})" if big is not None else ""),
        kernel=kernel,
        line=big.line if big is not None else 0,
    )
    per = max(1, max_threads_per_chunk // tpc)
    budget = 256 << 20  # bytes of per-chunk shared + local memory
    per = max(1, min(per, budget // max(shsize + lsize * tpc, 1)))
    race = None
    if racecheck:
        from irc.emu.racecheck import RaceChecker

        race = RaceChecker(module, fn, g, b, gmem)
        per = min(per, race.max_ctas(shsize))
    stats = EmuStats(ctas=nctas, threads=nctas * tpc)
    with np.errstate(all="ignore"):
        for s in range(0, nctas, per):
            mach = Machine(
                module,
                fn,
                g,
                b,
                _ctas(g, s, min(s + per, nctas)),
                gmem,
                pbuf,
                psyms,
                soffs,
                shsize,
                int(dynamic_shared_bytes),
                loffs,
                lsize,
                max_steps,
                seed=None if seed is None else seed * CHUNK_STRIDE + s,
                race=race,
            )
            mach.run()
            stats.thread_instructions += mach.thread_instructions
            stats.steps += mach.steps
            stats.chunks += 1
    for addr, a in arrays:
        a.reshape(-1).view(np.uint8)[:] = gmem.read_bytes(addr, a.nbytes)
    if race is not None:
        stats.race_notes = list(race.notes)
    stats.wall_time = time.perf_counter() - t0
    return stats


def _ctas(g: tuple[int, int, int], lo: int, hi: int) -> list[tuple[int, int, int]]:
    """Coordinates of CTAs lo..hi-1 in launch order (x fastest); built per chunk, never for the grid."""
    out = []
    for i in range(lo, hi):
        x, r = i % g[0], i // g[0]
        out.append((x, r % g[1], r // g[1]))
    return out


def _params(fn: Function, args: list, ptr_addr: dict[int, int]) -> tuple[np.ndarray, dict[str, int]]:
    off = 0
    syms: dict[str, int] = {}
    chunks: list[tuple[int, bytes]] = []
    for i, (p, a) in enumerate(zip(fn.params, args)):
        t = p.type.lstrip(".")
        size = p.size_bytes()
        al = p.align or D.np_type(t).itemsize if t in D.TYPES else (p.align or 1)
        off = _align(off, max(al, 1))
        syms[p.name] = off
        if p.dims:  # byte array parameter (tensor map or by-value struct)
            if isinstance(a, np.ndarray):
                raise EmuLaunchError(
                    f"argument {i} ({p.name}) is a {size}-byte by-value parameter; pass bytes"
                )
            if not isinstance(a, (bytes, bytearray)):
                raise EmuLaunchError(f"argument {i} ({p.name}) must be bytes of length {size}")
            if len(a) > size:
                raise EmuLaunchError(f"argument {i} ({p.name}) has {len(a)} bytes, parameter holds {size}")
            data = bytes(a).ljust(size, b"\0")
        elif isinstance(a, np.ndarray):
            if D.np_type(t).itemsize != 8 or t.startswith("f"):
                raise EmuLaunchError(f"argument {i} ({p.name}) is an array but the parameter is .{t}")
            data = np.uint64(ptr_addr[i]).tobytes()
        elif isinstance(a, (bytes, bytearray)):
            raise EmuLaunchError(f"argument {i} ({p.name}) is bytes but the parameter is .{t}")
        else:
            if p.ptr_space is not None:
                raise EmuLaunchError(f"argument {i} ({p.name}) is a pointer parameter; pass a numpy array")
            if not isinstance(a, (int, float, bool, np.integer, np.floating, np.bool_)):
                raise EmuLaunchError(f"argument {i} ({p.name}) has unsupported type {type(a).__name__}")
            T = D.np_type(t)
            if T.kind == "f":
                data = (
                    np.asarray(a, dtype=T).tobytes()
                    if t != "bf16"
                    else D.f32_to_bf16(np.float32(a)).tobytes()
                )
            else:
                if isinstance(a, (float, np.floating)) and not float(a).is_integer():
                    raise EmuLaunchError(f"argument {i} ({p.name}) is a float but the parameter is .{t}")
                data = D.const(int(a), t).tobytes()
        chunks.append((off, data))
        off += size
    buf = np.zeros(_align(max(off, 16), 16), np.uint8)
    for o, data in chunks:
        buf[o : o + len(data)] = np.frombuffer(data, np.uint8)
    return buf, syms
