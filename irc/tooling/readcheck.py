"""Reading a file for `irc check`: a file that cannot be read is a `read-error` finding of that file, not
the end of the run (a dangling symlink or one non-UTF-8 `.ptx` in a tree used to abort `irc check DIR`).

Why a finding: the other files' findings still matter, CI still fails (the finding is an error), and the
report says which file and, for bad encodings, where in it (line and column of the first byte that is not
UTF-8, shown with the rest of the line decoded leniently).
"""

from __future__ import annotations

import os

from irc.diagnostics import Diagnostic, Span, error, show_path


def read_for_check(path: str) -> tuple[str, Diagnostic | None]:
    """(text, None), or (the text as far as it can be shown, a `read-error` diagnostic)."""
    start = Span.point(path, 1, 1)
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except OSError as e:
        if os.path.islink(path) and not os.path.exists(path):
            why = f"it is a dangling symbolic link (to {show_path(os.readlink(path))})"
        elif isinstance(e, IsADirectoryError):
            why = "it is a directory"
        else:
            why = e.strerror or str(e)
        return "", error("read-error", f"cannot read {show_path(path)}: {why}", start)
    try:
        return data.decode("utf-8"), None
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        col = e.start - (data.rfind(b"\n", 0, e.start) + 1) + 1
        text = data.decode("utf-8", errors="replace")
        return text, error(
            "read-error",
            f"not UTF-8 text: byte 0x{data[e.start]:02x} at line {line}, column {col} cannot be decoded",
            Span.point(path, line, col),
            help="save the file as UTF-8 (irc reads .kdsl and .ptx as UTF-8)",
        )
