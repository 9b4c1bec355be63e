"""The user cache directory, shared by every layer that caches across processes.

Why a module of its own at the bottom of the package: the kdsl front end caches its parser tables and the
backend caches compiled kernels, and the front end may not import the backend (`tests/test_layers.py`).
"""

from __future__ import annotations

import os
from pathlib import Path


def cache_dir() -> Path:
    """The cache directory ($IRC_CACHE_DIR or ~/.cache/irc)."""
    d = os.environ.get("IRC_CACHE_DIR")
    return Path(d) if d else Path.home() / ".cache" / "irc"
