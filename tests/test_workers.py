"""`irc check -j 2` leaves no worker process behind when it is killed (issue 30): SIGTERM and SIGHUP stop
the pool and exit 128 + the signal; after SIGKILL the workers follow their parent (PR_SET_PDEATHSIG on
Linux, the parent watchdog elsewhere). Each case waits until both workers exist, kills the parent, and
requires every worker to be gone (or a zombie awaiting its reaper) within 2 s."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc (Linux)")


def _children(pid: int) -> list[int]:
    out = []
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            stat = (d / "stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2 :].split()
        if int(fields[1]) == pid:
            out.append(int(d.name))
    return out


def _alive(pid: int) -> bool:
    """Running (a zombie has exited: it only waits for its new parent to reap it)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rindex(")") + 2] != "Z"


def _tree(tmp_path: Path, n: int = 60) -> Path:
    d = tmp_path / "kernels"
    d.mkdir()
    for i in range(n):  # enough work that the pool is busy when the signal arrives
        shutil.copy(ROOT / "examples" / "softmax.kdsl", d / f"k{i}.kdsl")
    return d


@pytest.mark.parametrize("sig", ["SIGTERM", "SIGHUP", "SIGKILL"])
def test_killing_check_leaves_no_worker(tmp_path: Path, sig: str) -> None:
    tree = _tree(tmp_path)
    env = dict(os.environ, NO_COLOR="1", IRC_CACHE_DIR=str(tmp_path / "cache"))
    p = subprocess.Popen(
        [sys.executable, "-m", "irc.cli", "check", "-j", "2", "--no-config", str(tree)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        cwd=tmp_path,
    )
    workers: list[int] = []
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and len(workers) < 2:
            time.sleep(0.05)
            workers = [c for c in _children(p.pid) if _alive(c)]
            assert p.poll() is None, p.communicate()
        assert len(workers) >= 2, "the pool never started"
        time.sleep(0.3)  # inside the pool: the workers are checking files
        p.send_signal(getattr(signal, sig))
        rc = p.wait(timeout=10)
        t0 = time.monotonic()
        while time.monotonic() - t0 < 2.0 and any(_alive(w) for w in workers):
            time.sleep(0.05)
        left = [w for w in workers if _alive(w)]
        assert left == [], f"workers {left} outlived `irc check` ({sig})"
        if sig == "SIGKILL":
            assert rc == -signal.SIGKILL
        else:
            assert rc == 128 + getattr(signal, sig), p.stderr.read() if p.stderr else ""
            assert b"Traceback" not in (p.stderr.read() if p.stderr else b"")
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
        for w in set(workers) | set(_children(p.pid)):  # only the processes this test started
            try:
                if _alive(w) and b"irc.cli" in Path(f"/proc/{w}/cmdline").read_bytes():
                    os.kill(w, signal.SIGKILL)
            except OSError:
                pass
