"""Content-addressed on-disk cache of compiled PTX.

The key is the sha256 of everything that determines the output -- source text, options, target, the
irc version and a hash of irc's own source files (a changed compiler with an unchanged version number must
not return stale PTX) -- so a hit is always valid and nothing ever needs invalidating. Entries live in
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


_COMPILER_HASH: str | None = None


def compiler_hash() -> str:
    """sha256 over the relative path and bytes of every `.py` and `.lark` file of the `irc` package,
    computed once per process (a few tens of ms for the whole package, paid only by a cached compile)."""
    global _COMPILER_HASH
    if _COMPILER_HASH is None:
        root = Path(__file__).resolve().parents[2]  # the irc package
        h = hashlib.sha256()
        files = sorted(p for p in root.rglob("*") if p.suffix in (".py", ".lark") and p.is_file())
        for p in files:
            h.update(p.relative_to(root).as_posix().encode() + b"\0")
            h.update(p.read_bytes() + b"\0")
        _COMPILER_HASH = h.hexdigest()
    return _COMPILER_HASH


def make_key(source: str, options: dict | None, target: str) -> str:
    """sha256 over (source, options, target, irc.__version__, compiler_hash()); options are serialized
    with sorted keys."""
    payload = json.dumps(
        {
            "source": source,
            "options": options or {},
            "target": target,
            "version": __version__,
            "compiler": compiler_hash(),
        },
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
