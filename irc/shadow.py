"""Noticing that `import irc` found the wrong `irc`: a folder named `irc` in the current directory (the
clone of this repository, seen from its parent) instead of the installed package.

Why: Python looks in the current directory first. The clone's top level has no `__init__.py`, so Python
imports it as an empty namespace package: `irc.compile` is missing ("module 'irc' has no attribute
'compile'") and nothing says why. The submodules still load (the editable install finds them), so the
command line works; it says what happened and how to avoid it. Cheap: no import beyond `sys`.
"""

from __future__ import annotations

import sys


def shadowing_note() -> str | None:
    """A note for stderr when `irc` was imported as a namespace package (a folder without `__init__.py`
    on `sys.path`, usually the clone seen from its parent directory), else None."""
    pkg = sys.modules.get("irc")
    if pkg is None or getattr(pkg, "__file__", None) is not None:
        return None
    where = ", ".join(str(p) for p in getattr(pkg, "__path__", []) or []) or "a folder on sys.path"
    return (
        f"irc: note: `import irc` found the folder {where}, not the irc package (a folder named `irc` "
        "without `__init__.py`, e.g. the repository clone seen from its parent directory, because Python "
        "searches the current directory first); `irc.compile` and the rest of the Python API are missing "
        "there. Run Python from another directory (e.g. `cd irc`), or use the `irc` command.\n"
    )
