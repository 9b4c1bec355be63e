"""Files irc reads but does not own the contents of: who may have written them, and how much to read.

Why one module: the cache directory, the files in it and configuration discovery all ask the same two
questions ssh and git ask before trusting a file -- is it owned by the user running irc, and can anybody
else write to it? -- and a baseline or configuration file named by the user may be a device or a FIFO
(`baseline = "/dev/zero"`), which must be an error, not an unbounded read or a hang. It sits below every
layer and imports nothing from irc.
"""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path

_warned: set[str] = set()


def current_uid() -> int | None:
    """The effective user id, or None where the platform has none (then ownership is not checked)."""
    geteuid = getattr(os, "geteuid", None)
    return geteuid() if geteuid is not None else None


def foreign_owner(st: os.stat_result) -> str | None:
    """Why a file or directory with status `st` is not the current user's, or None when it is."""
    me = current_uid()
    if me is None or st.st_uid == me:
        return None
    return f"owned by uid {st.st_uid}, not by you (uid {me})"


def untrusted(st: os.stat_result) -> str | None:
    """Why irc must not trust what it reads from a file or directory with status `st`: owned by another
    user, or writable by group or others (anyone but its owner could have put it there). None when
    trusted."""
    why = foreign_owner(st)
    if why is None and current_uid() is not None and st.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        why = f"writable by group or others (mode {stat.S_IMODE(st.st_mode):04o})"
    return why


def warn_once(message: str) -> None:
    """`irc: warning: <message>` on stderr, once per process (a cache consulted a thousand times in one
    run must not print a thousand lines)."""
    if message not in _warned:
        _warned.add(message)
        sys.stderr.write(f"irc: warning: {message}\n")


class UnreadableFile(ValueError):
    """A file that is not a regular file, or is larger than the limit given: the message says which
    (without the path, which the caller puts in front)."""


class UntrustedFile(UnreadableFile):
    """A file owned by another user or writable by group or others (see `untrusted`)."""


def read_regular(path: str | Path, limit: int, limit_name: str, *, trusted_only: bool = False) -> bytes:
    """The bytes of the regular file `path`, at most `limit` of them. A device, FIFO or directory, or a
    file over the limit, raises `UnreadableFile` (opened non-blocking, so a FIFO without a writer cannot
    hang the run; checked with `fstat` on the open descriptor, so the file checked is the file read).
    Missing files and permission errors raise `OSError` as usual. `trusted_only` (cache entries): a
    symbolic link is refused (`OSError`) and a file `untrusted` names raises `UntrustedFile`."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    if trusted_only:
        flags |= getattr(os, "O_NOFOLLOW", 0)
    fd = os.open(path, flags)
    with os.fdopen(fd, "rb") as f:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise UnreadableFile("not a regular file (a device, FIFO or directory)")
        why = untrusted(st) if trusted_only else None
        if why is not None:
            raise UntrustedFile(why)
        if st.st_size > limit:
            raise UnreadableFile(f"it has {st.st_size} bytes; the limit is {limit} ({limit_name})")
        data = f.read(limit + 1)
    if len(data) > limit:  # it grew between fstat and read
        raise UnreadableFile(f"it has more than {limit} bytes; the limit is {limit} ({limit_name})")
    return data
