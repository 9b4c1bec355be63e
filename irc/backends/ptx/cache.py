"""Content-addressed on-disk cache of compiled PTX (the one cache `irc.compile` uses).

The key is the sha256 of everything that determines the output -- source text, the path it is compiled
as (it appears in `.file` and in every diagnostic), options, target, the irc version and a hash of irc's
own package files (a changed compiler with an unchanged version number must not return stale PTX) -- so
a hit is always valid and nothing ever needs invalidating. Entries are stored by `irc.cachedir` (the one
cache directory: created 0700, ownership and permissions checked, every entry carrying its key and the
sha256 of its payload; a damaged or mismatched entry is a miss) as `<key[:2]>/<key>.ptx`.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from irc import cachedir
from irc.version import __version__

_COMPILER_HASH: str | None = None


def compiler_hash() -> str:
    """sha256 over the relative path and bytes of every `.py`, `.lark` and `.json` file of the `irc`
    package (code, grammars, the shipped parser tables), computed once per process (a few tens of ms for
    the whole package, paid only by a cached compile)."""
    global _COMPILER_HASH
    if _COMPILER_HASH is None:
        root = Path(__file__).resolve().parents[2]  # the irc package
        h = hashlib.sha256()
        files = sorted(p for p in root.rglob("*") if p.suffix in (".py", ".lark", ".json") and p.is_file())
        for p in files:
            h.update(p.relative_to(root).as_posix().encode() + b"\0")
            h.update(p.read_bytes() + b"\0")
        _COMPILER_HASH = h.hexdigest()
    return _COMPILER_HASH


def make_key(source: str, options: dict | None, target: str, path: str = "<string>") -> str:
    """sha256 over (source, path, options, target, irc.__version__, compiler_hash()); options are
    serialized with sorted keys."""
    payload = json.dumps(
        {
            "source": source,
            "path": path,
            "options": options or {},
            "target": target,
            "version": __version__,
            "compiler": compiler_hash(),
        },
        sort_keys=True,
        default=str,
    )
    return hashlib.sha256(payload.encode()).hexdigest()


def get(key: str) -> str | None:
    """The cached text for `key`, or None (missing, damaged, mismatched, untrusted, or not UTF-8)."""
    data = cachedir.read_entry("ptx", key)
    if data is None:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def put(key: str, text: str) -> None:
    """Store `text` under `key` (atomic replace; nothing when the cache directory is not usable)."""
    cachedir.write_entry("ptx", key, text.encode("utf-8"))
