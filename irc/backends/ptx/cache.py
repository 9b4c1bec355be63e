"""Content-addressed on-disk cache of compiled PTX.

The key is the sha256 of everything that determines the output -- source text, options, target and the
irc version -- so a hit is always valid and nothing ever needs invalidating. Entries live in
`$IRC_CACHE_DIR` (default `~/.cache/irc`) as `<key[:2]>/<key>.ptx`, written atomically (temp file +
rename) so that concurrent compilers never read a half-written entry.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path

from irc.version import __version__


def cache_dir() -> Path:
    """The cache directory ($IRC_CACHE_DIR or ~/.cache/irc)."""
    d = os.environ.get("IRC_CACHE_DIR")
    return Path(d) if d else Path.home() / ".cache" / "irc"


def make_key(source: str, options: dict | None, target: str) -> str:
    """sha256 over (source, options, target, irc.__version__); options are serialized with sorted keys."""
    payload = json.dumps(
        {"source": source, "options": options or {}, "target": target, "version": __version__},
        sort_keys=True,
        default=str,
    )
    return hashlib.sha256(payload.encode()).hexdigest()


def _path(key: str) -> Path:
    if len(key) < 3 or not all(c in "0123456789abcdef" for c in key):
        raise ValueError(f"not a cache key: {key!r}")
    return cache_dir() / key[:2] / f"{key}.ptx"


def get(key: str) -> str | None:
    """The cached text for `key`, or None."""
    p = _path(key)
    try:
        return p.read_text()
    except OSError:
        return None


def put(key: str, text: str) -> None:
    """Store `text` under `key` (atomic replace)."""
    p = _path(key)
    p.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=p.parent, prefix=".tmp-", suffix=".ptx")
    try:
        with os.fdopen(fd, "w") as f:
            f.write(text)
        os.replace(tmp, p)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
