"""Caches hold data, never code, and are validated (issue 27): a foreign-owned or world-writable cache
directory, and a planted, tampered or damaged entry of every cache irc ever had (compiled PTX; the
parser tables and the `@record` code, which now ship inside the package), change nothing: irc executes
nothing from them, gives the right result and exits normally.

"Another user" is real where the tests run as root (`os.chown` to an unused uid); otherwise
`fileguard.foreign_owner` is monkeypatched to report that one file as foreign, and the subprocess cases
that need a real foreign owner are skipped.
"""

from __future__ import annotations

import hashlib
import marshal
import os
import stat
import subprocess
import sys
import zlib
from pathlib import Path

import numpy as np
import pytest

import irc
from irc import cachedir, fileguard
from irc.frontend.kdsl import tables

ROOT = Path(__file__).resolve().parent.parent
IS_ROOT = hasattr(os, "geteuid") and os.geteuid() == 0
OTHER_UID = 4242

EIGHT = "kernel k(out: *global f32) {\n    out[tid.x] = 8.0;\n}\n"
TWO = EIGHT.replace("8.0", "2.0")
# true/false decide the value: a table that parsed `true` as `false` would store 2.0
BOOL = "kernel k(out: *global f32) {\n    if true {\n        out[tid.x] = 8.0;\n    } else {\n        out[tid.x] = 2.0;\n    }\n}\n"


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    d = tmp_path / "irc-cache"
    monkeypatch.setenv("IRC_CACHE_DIR", str(d))
    fileguard._warned.clear()
    return d


def make_foreign(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Make `path` another user's: really (root), or as `fileguard` sees it."""
    if IS_ROOT:
        os.chown(path, OTHER_UID, OTHER_UID, follow_symlinks=False)
        return
    target = os.stat(path, follow_symlinks=False)
    real = fileguard.foreign_owner

    def foreign_owner(st: os.stat_result) -> str | None:
        if (st.st_dev, st.st_ino) == (target.st_dev, target.st_ino):
            return f"owned by uid {OTHER_UID}, not by you (simulated)"
        return real(st)

    monkeypatch.setattr(fileguard, "foreign_owner", foreign_owner)


def run_k(mod: irc.CompiledModule) -> float:
    out = np.zeros(32, np.float32)
    mod["k"].launch(1, 32, [out])
    assert (out == out[0]).all()
    return float(out[0])


def entry_of(cache: Path) -> Path:
    (e,) = cache.rglob("*.ptx")
    return e


def payload_of(entry: Path) -> bytes:
    return entry.read_bytes().partition(b"\n")[2]


def forge(entry: Path, payload: bytes) -> None:
    """What a deliberate tamperer writes: `payload` under `entry`'s key with a correct header and
    digest (only ownership and permissions can stop this one)."""
    key = entry.stem
    digest = hashlib.sha256(payload).hexdigest()
    entry.write_bytes(f"{cachedir.FORMAT} ptx {key} {digest}\n".encode() + payload)


def two_payload(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> bytes:
    """The cache entry payload of the kernel that stores 2.0, compiled under EIGHT's path."""
    other = tmp_path / "other-cache"
    monkeypatch.setenv("IRC_CACHE_DIR", str(other))
    irc.compile(TWO)
    payload = payload_of(entry_of(other))
    return payload


# -- the compiled-PTX cache --------------------------------------------------------------------------------


def test_directory_0700_entries_0600_and_a_hit_is_used(cache: Path) -> None:
    assert run_k(irc.compile(EIGHT)) == 8.0
    entry = entry_of(cache)
    assert stat.S_IMODE(os.stat(cache).st_mode) == 0o700
    assert stat.S_IMODE(os.stat(entry.parent).st_mode) == 0o700
    assert stat.S_IMODE(os.stat(entry).st_mode) == 0o600
    header = entry.read_bytes().partition(b"\n")[0].decode().split()
    assert header[:3] == ["irc-cache/1", "ptx", entry.stem]
    assert header[3] == hashlib.sha256(payload_of(entry)).hexdigest()
    assert irc.compile(EIGHT).ptx_text == irc.compile(EIGHT, cache=False).ptx_text


@pytest.mark.parametrize("how", ["world-writable", "group-writable", "foreign-owned"])
def test_an_untrusted_cache_directory_is_ignored_with_one_warning(
    cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], how: str
) -> None:
    """A planted entry with a correct key and digest (8.0 replaced by 2.0) in a directory someone else
    could write is never read; nothing is written there either."""
    planted = two_payload(tmp_path, monkeypatch)
    monkeypatch.setenv("IRC_CACHE_DIR", str(cache))
    irc.compile(EIGHT)
    entry = entry_of(cache)
    forge(entry, planted)
    before = {p: p.read_bytes() for p in cache.rglob("*") if p.is_file()}
    if how == "world-writable":
        os.chmod(cache, 0o777)
    elif how == "group-writable":
        os.chmod(cache, 0o770)
    else:
        make_foreign(cache, monkeypatch)
    capsys.readouterr()
    assert run_k(irc.compile(EIGHT)) == 8.0
    assert run_k(irc.compile(EIGHT)) == 8.0
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"irc: warning: ignoring cache directory {cache}: "), err
    assert ("owned by uid" in err) if how == "foreign-owned" else ("writable by group or others" in err)
    assert {p: p.read_bytes() for p in cache.rglob("*") if p.is_file()} == before  # nothing written


def test_a_foreign_entry_in_a_good_directory_is_ignored(
    cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    planted = two_payload(tmp_path, monkeypatch)
    monkeypatch.setenv("IRC_CACHE_DIR", str(cache))
    irc.compile(EIGHT)
    entry = entry_of(cache)
    forge(entry, planted)
    make_foreign(entry, monkeypatch)
    capsys.readouterr()
    assert run_k(irc.compile(EIGHT)) == 8.0
    assert f"irc: warning: ignoring cache entry {entry}: owned by uid" in capsys.readouterr().err
    fileguard._warned.clear()
    assert run_k(irc.compile(EIGHT)) == 8.0  # rewritten by the user: a trusted hit now
    assert capsys.readouterr().err == ""


def test_a_writable_or_symlinked_entry_is_ignored(cache: Path, tmp_path: Path, monkeypatch) -> None:
    planted = two_payload(tmp_path, monkeypatch)
    monkeypatch.setenv("IRC_CACHE_DIR", str(cache))
    irc.compile(EIGHT)
    entry = entry_of(cache)
    forge(entry, planted)
    os.chmod(entry, 0o666)
    assert run_k(irc.compile(EIGHT)) == 8.0
    forge(entry, planted)  # the entry was rewritten (0600); forge it again, then move it behind a link
    elsewhere = tmp_path / "elsewhere.ptx"
    os.replace(entry, elsewhere)
    entry.symlink_to(elsewhere)
    assert run_k(irc.compile(EIGHT)) == 8.0


@pytest.mark.parametrize(
    "damage", ["payload-edited", "truncated", "garbage", "empty", "other-key", "bad-json", "wrong-shape"]
)
def test_a_tampered_or_damaged_entry_is_recompiled_and_repaired(
    cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, damage: str
) -> None:
    """Edited without a new digest, cut short, replaced, copied from another key, or (with a valid digest)
    JSON that is not what irc writes -- the last used to raise AttributeError, exit 3, until deleted."""
    irc.compile(EIGHT)
    entry = entry_of(cache)
    good = entry.read_bytes()
    blob = good
    if damage == "payload-edited":
        blob = good.replace(b"0f41000000", b"0f40000000")  # 8.0 -> 2.0, digest left as it was
        assert blob != good
    elif damage == "truncated":
        blob = good[: len(good) // 2]
    elif damage == "garbage":
        blob = os.urandom(200)
    elif damage == "empty":
        blob = b""
    elif damage == "other-key":  # a good entry of another source, moved under this key
        planted = two_payload(tmp_path, monkeypatch)
        monkeypatch.setenv("IRC_CACHE_DIR", str(cache))
        (other,) = (tmp_path / "other-cache").rglob("*.ptx")
        blob = other.read_bytes()
        assert payload_of(other) == planted
    if damage in ("bad-json", "wrong-shape"):
        forge(entry, b"{not json" if damage == "bad-json" else b'{"format": 1, "ptx": 5, "kernels": []}')
    else:
        entry.write_bytes(blob)
    assert run_k(irc.compile(EIGHT)) == 8.0
    assert entry.read_bytes() == good  # rewritten


def test_the_key_includes_the_path(cache: Path, tmp_path: Path) -> None:
    """Before issue 27 a copy of a file compiled elsewhere returned PTX whose `.file` named the first
    path, and its diagnostics pointed there too."""
    src = (ROOT / "examples" / "vector_add.kdsl").read_text()
    copy = tmp_path / "copy" / "vector_add.kdsl"
    copy.parent.mkdir()
    copy.write_text(src)
    a = irc.compile_file(ROOT / "examples" / "vector_add.kdsl")
    b = irc.compile_file(copy)
    assert f'"{ROOT / "examples" / "vector_add.kdsl"}"' in a.ptx_text
    assert f'"{copy}"' in b.ptx_text and str(ROOT / "examples") not in b.ptx_text
    assert len(list(cache.rglob("*.ptx"))) == 2
    rp = "@max_registers(24)\n" + EIGHT.replace("8.0", "1.0 / (x[tid.x] + 1.0)").replace(
        "out: *global f32", "out: *global f32, x: *global f32"
    )
    d1 = irc.compile(rp, path="one.kdsl").diagnostics
    d2 = irc.compile(rp, path="two.kdsl").diagnostics
    assert all(d.span is None or d.span.file == "one.kdsl" for d in d1)
    assert all(d.span is None or d.span.file == "two.kdsl" for d in d2)


def test_an_unusable_cache_location_never_fails(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fileguard._warned.clear()
    f = tmp_path / "file"
    f.write_text("")
    for where in (f, f / "sub"):  # a regular file, a path under one
        monkeypatch.setenv("IRC_CACHE_DIR", str(where))
        assert run_k(irc.compile(EIGHT)) == 8.0


# -- the real CLI, one case per cache ----------------------------------------------------------------------


def _irc(tmp_path: Path, cache: Path, *args: str) -> subprocess.CompletedProcess:
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "NO_COLOR": "1",
        "IRC_CACHE_DIR": str(cache),
        "HOME": str(tmp_path),
    }
    return subprocess.run(
        [sys.executable, "-m", "irc.cli", *args],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        timeout=120,
    )


def _irc_run(tmp_path: Path, cache: Path, src: str) -> tuple[subprocess.CompletedProcess, float]:
    k = tmp_path / "k.kdsl"
    k.write_text(src)
    np.save(tmp_path / "out.npy", np.zeros(32, np.float32))
    r = _irc(tmp_path, cache, "run", str(k), "--grid", "1", "--block", "32", "--arg", "out=out.npy")
    assert r.returncode == 0 and "Traceback" not in r.stderr, r.stderr
    out = np.load(tmp_path / "out.npy")
    return r, float(out[0])


@pytest.mark.parametrize("how", ["tampered", "world-writable", "foreign-owned"])
def test_cli_irc_run_with_a_planted_ptx_entry(tmp_path: Path, how: str) -> None:
    if how == "foreign-owned" and not IS_ROOT:
        pytest.skip("a real foreign owner needs root (the in-process test simulates it)")
    cache = tmp_path / "cache"
    r, v = _irc_run(tmp_path, cache, EIGHT)
    assert v == 8.0
    (entry,) = cache.rglob("*.ptx")
    other = tmp_path / "other"
    other.mkdir()
    r, v = _irc_run(other, other / "cache", TWO)
    assert v == 2.0
    (two,) = (other / "cache").rglob("*.ptx")
    if how == "tampered":  # the payload of 2.0, the header of 8.0: the digest does not match
        entry.write_bytes(entry.read_bytes().partition(b"\n")[0] + b"\n" + payload_of(two))
    else:  # a forged entry with a correct digest, where someone else could have put it
        forge(entry, payload_of(two).replace(str(other).encode(), str(tmp_path).encode()))
        if how == "world-writable":
            os.chmod(cache, 0o777)
        else:
            os.chown(cache, OTHER_UID, OTHER_UID)
    r, v = _irc_run(tmp_path, cache, EIGHT)
    assert v == 8.0
    if how != "tampered":
        assert r.stderr.count("irc: warning: ignoring cache directory") == 1, r.stderr


def _legacy_table_file(cache: Path, variant: str) -> None:
    """The file the parser-table cache of irc before issue 27 read (`kdsl-tables-<crc>-<len>-f2-py<v>
    .marshal`), "tampered" so that `true` reduces as `false` (old irc stored 2.0 for BOOL), or "damaged"
    but still valid marshal (old irc exited 3 on every run until it was deleted)."""
    text = tables.grammar_text()
    data = tables.build(text)
    if variant == "tampered":
        planted = {
            **data,
            "format": 2,
            "table": dict(enumerate(data["table"])),
            "actions": [["false_lit" if a[0] == "true_lit" else a[0], *a[1:]] for a in data["actions"]],
        }
    else:
        planted = {"format": 2, "grammar": text, "table": 7}
    py = f"py{sys.version_info[0]}{sys.version_info[1]}"
    name = f"kdsl-tables-{zlib.crc32(text.encode()):08x}-{len(text)}-f2-{py}.marshal"
    cache.mkdir(mode=0o700, exist_ok=True)
    (cache / name).write_bytes(marshal.dumps(planted))


@pytest.mark.parametrize("variant", ["tampered", "damaged"])
def test_cli_planted_parser_tables_change_nothing(tmp_path: Path, variant: str) -> None:
    """Nothing reads parser tables from the cache directory any more: `if true` still stores 8.0, and
    `irc compile` writes the same PTX as with an empty cache."""
    cache = tmp_path / "cache"
    _legacy_table_file(cache, variant)
    r, v = _irc_run(tmp_path, cache, BOOL)
    assert v == 8.0 and "warning" not in r.stderr
    a = _irc(tmp_path, cache, "compile", "k.kdsl", "-o", "a.ptx")
    b = _irc(tmp_path, tmp_path / "clean-cache", "compile", "k.kdsl", "-o", "b.ptx")
    assert a.returncode == b.returncode == 0
    assert (tmp_path / "a.ptx").read_text() == (tmp_path / "b.ptx").read_text()


def test_cli_untrusted_directory_with_planted_tables_and_records(tmp_path: Path) -> None:
    """Foreign-owned (root) or world-writable directory holding every old cache file: records code
    that would write a marker, garbage bytecode that used to crash the interpreter, tampered tables."""
    cache = tmp_path / "cache"
    _legacy_table_file(cache, "tampered")
    marker = tmp_path / "pwned"
    evil = compile(f"open({str(marker)!r}, 'w').write('x')\n", "<evil>", "exec")
    tag = f"{sys.implementation.cache_tag}-{sys.hexversion:x}"
    from irc.record_codes import CODES  # the keys irc before issue 27 looked up: every record's source

    (cache / f"records-{tag}.marshal").write_bytes(marshal.dumps(dict.fromkeys(CODES, evil)))
    (cache / "records-garbage.marshal").write_bytes(b"\xe3" + os.urandom(64))
    if IS_ROOT:
        os.chown(cache, OTHER_UID, OTHER_UID)
    else:
        os.chmod(cache, 0o777)
    v = _irc(tmp_path, cache, "--version")
    assert v.returncode == 0 and v.stdout.startswith("irc ")
    r, val = _irc_run(tmp_path, cache, BOOL)
    assert val == 8.0 and not marker.exists()
    assert r.stderr.count("irc: warning: ignoring cache directory") == 1, r.stderr
