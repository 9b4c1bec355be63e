"""Reading a file named on the command line, with the reason it cannot be read as a usage error.

Why a module of its own: `irc compile` and `irc check` read their inputs through it, and `irc.tooling.run`
(which needs numpy) must not be imported on their start-up path (numpy costs about 80 ms).
"""

from __future__ import annotations

from pathlib import Path

from irc.diagnostics import show_path


class RunUsageError(Exception):
    """A mistake on the command line (exit 2)."""


def read_text(path: str) -> str:
    """The source file, or a RunUsageError saying why it cannot be read."""
    shown = show_path(path)
    try:
        return Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise RunUsageError(f"no such file: {shown}") from None
    except IsADirectoryError:
        raise RunUsageError(f"{shown} is a directory") from None
    except UnicodeDecodeError:
        raise RunUsageError(f"{shown} is not UTF-8 text") from None
    except OSError as e:
        raise RunUsageError(f"cannot read {shown}: {e.strerror}") from None
