"""The user cache directory and the format of its entries: the one implementation every cache uses.

Why a module of its own at the bottom of the package: any layer may cache across processes, and the rules
below must hold for all of them. Today one cache lives here, the compiled PTX of `irc.compile`
(`irc/backends/ptx/cache.py`); the parser tables and the `@record` methods ship inside the package
instead (docs/ci.md, "Cache security").

What is trusted, and why (a cache directory may be restored by CI from another branch, or sit in /tmp):
- the directory is `$IRC_CACHE_DIR`, else `~/.cache/irc`; irc creates it (and its fan-out subdirectories)
  with mode 0700;
- a directory or entry owned by another user, or writable by group or others, is not read or written;
  irc says so once, in a one-line warning, and works without the cache (as ssh and git refuse such files);
- an entry is `irc-cache/1 <kind> <key> <sha256 of payload>\\n<payload>`: the key is the digest of
  everything the payload depends on, so an entry moved or copied under another key, or damaged, does
  not match and is recomputed and rewritten; no failure to read an entry is ever fatal;
- entries hold data only (text or JSON); nothing read from the cache is executed or unpickled.
The digest does not stop someone who can write the user's own 0700 directory; that person is the user.
"""

from __future__ import annotations

import hashlib
import os
import stat
import tempfile
from pathlib import Path

from irc.fileguard import UnreadableFile, UntrustedFile, read_regular, untrusted, warn_once

FORMAT = "irc-cache/1"
MAX_ENTRY_BYTES = 256 << 20  # as large as the largest PTX file irc reads (`max_ptx_bytes`)


def cache_dir() -> Path:
    """Where the cache lives ($IRC_CACHE_DIR or ~/.cache/irc); `usable_dir` says whether to use it."""
    d = os.environ.get("IRC_CACHE_DIR")
    return Path(d) if d else Path.home() / ".cache" / "irc"


def _checked_dir(d: Path, create: bool) -> Path | None:
    """`d` when it is a directory irc may use, created 0700 when missing and `create`; else None (with
    a warning when it exists but someone else could have written it)."""
    try:
        st = os.stat(d)
    except FileNotFoundError:
        if not create:
            return None
        try:
            d.parent.mkdir(parents=True, exist_ok=True)
            d.mkdir(mode=0o700)
            os.chmod(d, 0o700)  # whatever the umask
            st = os.stat(d)
        except FileExistsError:  # another process created it meanwhile: check it like any other
            return _checked_dir(d, False)
        except OSError:
            return None
    except OSError:
        return None
    if not stat.S_ISDIR(st.st_mode):
        return None
    why = untrusted(st)
    if why is not None:
        warn_once(f"ignoring cache directory {d}: {why}; irc runs without its cache")
        return None
    return d


def usable_dir(create: bool = False) -> Path | None:
    """The cache directory when irc may read and write it (created 0700 if `create`), else None."""
    return _checked_dir(cache_dir(), create)


def _entry_path(kind: str, key: str, create: bool) -> Path | None:
    if not (kind.isalnum() and len(key) >= 3 and all(c in "0123456789abcdef" for c in key)):
        raise ValueError(f"not a cache entry name: {kind!r} {key!r}")
    root = usable_dir(create)
    sub = _checked_dir(root / key[:2], create) if root is not None else None
    return None if sub is None else sub / f"{key}.{kind}"


def _header(kind: str, key: str, payload: bytes) -> bytes:
    return f"{FORMAT} {kind} {key} {hashlib.sha256(payload).hexdigest()}\n".encode()


def read_entry(kind: str, key: str) -> bytes | None:
    """The payload stored for (`kind`, `key`) when the entry is intact and trusted, else None: a
    missing, damaged or mismatched entry is a miss (the caller recomputes and `write_entry` replaces it),
    an untrusted one a miss with a warning."""
    path = _entry_path(kind, key, create=False)
    if path is None:
        return None
    try:
        blob = read_regular(path, MAX_ENTRY_BYTES, "cache entry", trusted_only=True)
    except UntrustedFile as e:
        warn_once(f"ignoring cache entry {path}: {e}")
        return None
    except (OSError, UnreadableFile):
        return None
    header, sep, payload = blob.partition(b"\n")
    if not sep or header + sep != _header(kind, key, payload):
        return None
    return payload


def write_entry(kind: str, key: str, payload: bytes) -> None:
    """Store `payload` for (`kind`, `key`), atomically (temp file + rename: a concurrent reader sees the
    old entry or the whole new one), mode 0600. Does nothing when the directory is not usable; OSError
    (a full disk) is the caller's to ignore."""
    path = _entry_path(kind, key, create=True)
    if path is None:
        return
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=f".{kind}")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(_header(kind, key, payload) + payload)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
