"""Structured emulator errors.

Why structured: tests and `irc check --emulate` need to tell *which* dynamic rule was broken (kind), where
(kernel, PTX line), and by whom (block id, thread ids) without parsing a message string.
"""

from __future__ import annotations


class EmuError(Exception):
    """A dynamic error found while emulating a kernel.

    kind: stable name such as "barrier-divergence", "collective-mask", "out-of-bounds", "misaligned",
    "uninit-shared-read", "deadlock", "step-limit", "unsupported", "trap".
    """

    kind = "emu-error"

    def __init__(
        self,
        message: str,
        *,
        kernel: str = "",
        line: int = 0,
        block: tuple[int, int, int] | None = None,
        threads: list[tuple[int, int, int]] | None = None,
        kind: str | None = None,
    ) -> None:
        if kind is not None:
            self.kind = kind
        self.message = message
        self.kernel = kernel
        self.line = line
        self.block = block
        self.threads = list(threads or [])
        super().__init__(self._render())

    source: str = ""  # "file.cu:LINE" from the instruction's `.loc` (set by `with_source`)

    def _render(self) -> str:
        where = f"{self.kernel}:{self.line}" if self.kernel else f"line {self.line}"
        if self.source:
            where += f" ({self.source})"
        who = ""
        if self.block is not None:
            who = f" block {self.block}"
        if self.threads:
            shown = ", ".join(str(t) for t in self.threads[:4])
            more = f" (+{len(self.threads) - 4} more)" if len(self.threads) > 4 else ""
            who += f" threads {shown}{more}"
        return f"[{self.kind}] {where}:{who}: {self.message}"


class BarrierError(EmuError):
    """A CTA barrier that cannot complete or whose participants diverged: threads that exited, threads
    at different barrier ids, lanes of one warp at different `bar.sync` instructions (`.aligned`)."""

    kind = "barrier-divergence"


class CollectiveMaskError(EmuError):
    """A warp collective whose member mask names a lane that is not executing it, or that is executed by a
    lane its own mask leaves out (`__ballot_sync(0x0000ffff, ...)` run by all 32 lanes)."""

    kind = "collective-mask"


class MemoryAccessError(EmuError):
    """An access outside every allocation of its state space (or a write to `.param`)."""

    kind = "out-of-bounds"


class MisalignedAccessError(MemoryAccessError):
    """An access not aligned to its size, or a bulk / TMA address off the alignment the ISA requires."""

    kind = "misaligned"


class UninitSharedReadError(EmuError):
    """A read of shared memory no thread of the block has written."""

    kind = "uninit-shared-read"


class DeadlockError(EmuError):
    """Threads wait (at an mbarrier) for something no live thread or pending copy can provide."""

    kind = "deadlock"


class AsyncRaceError(EmuError):
    """A read of memory that an asynchronous copy or MMA has not finished writing, a write of memory that
    an asynchronous copy (a bulk / TMA store) has not finished reading, or results that depend on the
    schedule (irc/emu/async_engine.py, irc/emu/schedules.py)."""

    kind = "async-race"


class ProxyFenceError(AsyncRaceError):
    """The async proxy (a TMA or bulk store, `tcgen05.mma`, a `complete_tx` on an mbarrier) reads shared
    memory written through the generic proxy (`st.shared`, atomics, `mbarrier.init`) with no
    `fence.proxy.async` (for an mbarrier: `fence.mbarrier_init`) in between (irc/emu/proxy.py)."""

    kind = "proxy-fence"


class BulkRuleError(EmuError):
    """A `cp.async.bulk` / `cp.async.bulk.tensor` that breaks a rule of the PTX ISA other than alignment:
    a size that is not a multiple of 16 bytes, a bulk group waited with the wrong wait."""

    kind = "bulk-rule"


class TensorMapError(EmuError):
    """A tensor map the driver would reject (`cuTensorMapEncodeTiled`): a global stride that is not a
    multiple of 16 bytes, a global address not 16-byte aligned, a box dimension outside 1..256, a box row
    that is not a multiple of 16 bytes; or bytes that are not an emulator tensor map at all."""

    kind = "tensormap"


class MbarrierError(EmuError):
    """An mbarrier used before its `mbarrier.init`, or before the init is visible to the using thread
    (no barrier between the initialising thread and it)."""

    kind = "mbarrier-uninit"


class MbarrierOverflowError(MbarrierError):
    """An arrive with a count larger than the arrivals its phase still expects."""

    kind = "mbarrier-overflow"


class MbarrierReuseError(MbarrierError):
    """An mbarrier's memory reinitialised, or used as data, without `mbarrier.inval` after its last use."""

    kind = "mbarrier-reuse"


class StepLimitError(EmuError):
    """More instruction steps than `max_steps` (an infinite loop, or a wait spinning forever)."""

    kind = "step-limit"


class UnsupportedInstructionError(EmuError):
    """An instruction or form the emulator does not implement."""

    kind = "unsupported"


class TrapError(EmuError):
    """`trap` or `brkpt` executed."""

    kind = "trap"


class BadCallError(EmuError):
    """A call the emulator cannot follow: an indirect call through a pointer that is no function of the
    module, or a call of a function the module only declares."""

    kind = "bad-call"


class LimitError(EmuError):
    """A launch or a call chain beyond one of the emulator's limits (`irc/limits.py`, `emu_*`): memory
    (global, shared, local, race-checker shadow), threads per launch, call depth. Raised before
    allocating; the message names the limit and the variable that raises it."""

    kind = "limit"


class RaceError(EmuError):
    """Two accesses to one byte by different threads, at least one a write, that nothing orders.

    `accesses` holds the earlier and the later access (`irc.emu.racecheck.RaceAccess`): instruction, PTX
    line, source line (from `.loc`), thread and block coordinates, address, buffer and offset."""

    kind = "data-race"

    def __init__(self, message: str, *, accesses: tuple = (), **kw) -> None:
        self.accesses = tuple(accesses)
        super().__init__(message, **kw)


class AsyncOverwriteError(AsyncRaceError, RaceError):
    """A write of shared memory that an asynchronous copy (a bulk or TMA store, a reduction) has not
    finished reading: its bulk async-group was not waited with `cp.async.bulk.wait_group.read` before the
    source was reused. Both an async race and a data race (between the async proxy's read and the write)."""

    kind = "async-overwrite"


class EmuLaunchError(ValueError):
    """Bad launch configuration or arguments (raised before anything runs)."""


def user_loc(instr: object, module: object) -> tuple[str, int] | None:
    """The user's (path, line) of an instruction: the first position, innermost first, of its `.loc`
    inlining chain (`Loc.up`: nvcc's `inlined_at`) and then of the calls it was reached through
    (`meta["calls"]`, set when the emulator inlines a `.func`) that is not in a toolkit header
    (`sm_30_intrinsics.hpp`, cccl, cooperative groups); the outermost one when all are."""
    from irc.ptxisa.lineinfo import is_system

    files = getattr(module, "files", None) or {}
    chain = []
    starts = [getattr(instr, "loc", None)] + list((getattr(instr, "meta", None) or {}).get("calls", ()))
    for loc in starts:
        hops = 0
        while loc is not None and hops < 64:
            if getattr(loc, "line", 0) > 0 and loc.file in files:
                chain.append((files[loc.file], loc.line))
            loc, hops = loc.up, hops + 1
    for path, line in chain:
        if not is_system(path):
            return path, line
    return chain[-1] if chain else None


def with_source(err: EmuError, instr: object, module: object) -> EmuError:
    """Name the user's source line of the failing instruction (its `.loc`: nvcc -lineinfo, irc's own
    output of a .kdsl; out of CUDA's headers and through inlined calls, see `user_loc`) next to the
    kernel and PTX line, as `irc check` does."""
    got = user_loc(instr, module)
    if got is None:
        return err
    err.source = f"{got[0]}:{got[1]}"
    err.args = (err._render(),)
    return err
