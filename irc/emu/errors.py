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
    kind = "barrier-divergence"


class CollectiveMaskError(EmuError):
    kind = "collective-mask"


class MemoryAccessError(EmuError):
    kind = "out-of-bounds"


class MisalignedAccessError(MemoryAccessError):
    kind = "misaligned"


class UninitSharedReadError(EmuError):
    kind = "uninit-shared-read"


class DeadlockError(EmuError):
    kind = "deadlock"


class AsyncRaceError(EmuError):
    """A read of memory that an asynchronous copy or MMA has not finished writing (irc/emu/async_engine.py)."""

    kind = "async-race"


class StepLimitError(EmuError):
    kind = "step-limit"


class UnsupportedInstructionError(EmuError):
    kind = "unsupported"


class TrapError(EmuError):
    kind = "trap"


class RaceError(EmuError):
    """Two accesses to one byte by different threads, at least one a write, that nothing orders.

    `accesses` holds the earlier and the later access (`irc.emu.racecheck.RaceAccess`): instruction, PTX
    line, source line (from `.loc`), thread and block coordinates, address, buffer and offset."""

    kind = "data-race"

    def __init__(self, message: str, *, accesses: tuple = (), **kw) -> None:
        self.accesses = tuple(accesses)
        super().__init__(message, **kw)


class EmuLaunchError(ValueError):
    """Bad launch configuration or arguments (raised before anything runs)."""


def with_source(err: EmuError, instr: object, module: object) -> EmuError:
    """Name the user's source line of the failing instruction (its `.loc`: nvcc -lineinfo, irc's own
    output of a .kdsl) next to the kernel and PTX line, as `irc check` does."""
    loc = getattr(instr, "loc", None)
    files = getattr(module, "files", None) or {}
    if loc is None or getattr(loc, "line", 0) <= 0 or loc.file not in files:
        return err
    err.source = f"{files[loc.file]}:{loc.line}"
    err.args = (err._render(),)
    return err
