"""Worker processes for `irc check -j N` that never outlive the command.

Why: a pool worker blocks reading its task queue; when the parent is killed (SIGTERM from a CI runner's
timeout, SIGHUP from a closed terminal, SIGKILL) nothing closes that queue for it, and the workers stayed
behind forever (issue 30). Three layers, each enough on its own where it applies:

- the parent turns SIGTERM and SIGHUP into an exception (`Terminated`), so leaving the pool's `with`
  terminates the workers and the command exits 128 + the signal number;
- on Linux each worker asks the kernel for SIGKILL when its parent dies (`prctl(PR_SET_PDEATHSIG)`), which
  also covers a SIGKILLed parent;
- everywhere, a daemon thread in each worker polls its parent's process id and exits the worker when the
  parent has gone (the process is re-parented, so `os.getppid()` changes): the portable fallback.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
import time
from collections.abc import Iterator

PR_SET_PDEATHSIG = 1
WATCH_INTERVAL_S = 0.2
_SIGNALS = tuple(s for s in (getattr(signal, "SIGTERM", None), getattr(signal, "SIGHUP", None)) if s)


class Terminated(Exception):
    """The command received SIGTERM or SIGHUP; `signum` says which (exit status 128 + signum)."""

    def __init__(self, signum: int):
        super().__init__(signum)
        self.signum = signum


def _die_with_parent(parent: int) -> None:
    """Pool initializer, run in each worker before any task."""
    for s in _SIGNALS:  # the parent's handlers were inherited through fork: a worker just dies
        signal.signal(s, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C reaches the parent, which stops the pool
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        except (OSError, AttributeError):  # pragma: no cover - no prctl: the watchdog still works
            pass
    if os.getppid() != parent:  # the parent died before prctl took effect
        os._exit(1)

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(WATCH_INTERVAL_S)
        os._exit(1)

    threading.Thread(target=watch, name="irc-parent-watchdog", daemon=True).start()


def _raise_terminated(signum: int, _frame: object) -> None:
    raise Terminated(signum)


@contextlib.contextmanager
def worker_pool(jobs: int) -> Iterator[object]:
    """A `multiprocessing.Pool` of `jobs` workers that die with this process; SIGTERM and SIGHUP raise
    `Terminated` here, after the pool is terminated."""
    import multiprocessing

    previous = {s: signal.getsignal(s) for s in _SIGNALS}
    pool = multiprocessing.Pool(jobs, initializer=_die_with_parent, initargs=(os.getpid(),))
    try:
        for s in _SIGNALS:
            signal.signal(s, _raise_terminated)
        yield pool
        pool.close()
    finally:
        for s, h in previous.items():
            signal.signal(s, h)
        pool.terminate()
        pool.join()
