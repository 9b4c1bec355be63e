"""The emulator's resource limits (`emu_*` in `irc/limits.py`), checked before anything is allocated.

Why: a launch the host cannot hold (a 4 GB `.local` array, a grid of 2^40 threads, a recursion that
would copy a million instructions) must be a clear `LimitError` that names the limit and how to raise it,
not a raw `MemoryError` or an hour of swapping.
"""

from __future__ import annotations

from irc import limits


def limit_message(name: str, found: str) -> str:
    """`found` exceeds limit `name`: the message with the limit's value and its variable."""
    lim = limits.LIMITS[name]
    return (
        f"{found}; the emulator's limit is {limits.get(name)} {lim.what} (`{name}`): {lim.help}, or raise "
        f"it with IRC_LIMIT_{name.upper()}=N"
    )


def check(name: str, value: int, found: str, *, kernel: str = "", line: int = 0) -> None:
    """Raise `LimitError` when `value` exceeds limit `name` (`found` says what has that size)."""
    if value > limits.get(name):
        from irc.emu.errors import LimitError

        raise LimitError(limit_message(name, found), kernel=kernel, line=line)
