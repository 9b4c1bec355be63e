"""Run one fuzz input in a forked child with a memory cap and a time limit.

The parent imports irc once; each input runs in `os.fork()`ed child (a few milliseconds, no re-import),
under `RLIMIT_AS` (a runaway allocation becomes a MemoryError, reported as a traceback, instead of taking
the machine down) and `RLIMIT_CPU`. The child reports through a pipe: first `compiled`/`checked` with the
CPU seconds irc itself took, then the verdict. The parent enforces a wall-clock limit on irc's phase (a
hang) and a longer one on the whole input (ptxas and the emulator are slower, and not irc's promise).
"""

from __future__ import annotations

import json
import os
import resource
import select
import signal
import time
from collections.abc import Callable

MEM_CAP = 3 << 30  # address space; irc reserves a 512 MB thread stack for deep walks (frontend/kdsl/deep.py)
HANG_S = 10.0  # irc's own work on one input
TOTAL_S = 90.0  # the whole input, ptxas and emulator included


def run_sandboxed(work: Callable[[Callable[[str, float], None]], dict], hang_s: float = HANG_S) -> dict:
    """Run `work(report)` in a child; returns its verdict dict plus `irc_cpu_s` / `irc_wall_s`, or a `hang`
    bug when irc's phase runs past `hang_s` seconds of wall time, or a `crash` when the child dies."""
    r, w = os.pipe()
    t0 = time.monotonic()
    pid = os.fork()
    if pid == 0:  # child
        os.close(r)
        code = 0
        try:
            resource.setrlimit(resource.RLIMIT_AS, (MEM_CAP, MEM_CAP))
            resource.setrlimit(resource.RLIMIT_CPU, (int(TOTAL_S) + 5, int(TOTAL_S) + 10))

            def report(phase: str, cpu: float) -> None:
                os.write(w, (json.dumps({"phase": phase, "cpu": cpu}) + "\n").encode())

            verdict = work(report)
            os.write(w, (json.dumps({"verdict": verdict}) + "\n").encode())
        except BaseException as e:  # noqa: BLE001
            try:
                os.write(
                    w,
                    (json.dumps({"verdict": {"status": "harness-error", "detail": repr(e)}}) + "\n").encode(),
                )
            except BaseException:  # noqa: BLE001
                code = 1
        finally:
            os._exit(code)
    os.close(w)
    buf = b""
    irc_cpu = None
    irc_wall = None
    verdict = None
    deadline = t0 + hang_s
    try:
        while verdict is None:
            left = deadline - time.monotonic()
            if left <= 0:
                break
            ready, _, _ = select.select([r], [], [], left)
            if not ready:
                continue
            chunk = os.read(r, 1 << 20)
            if not chunk:
                break
            buf += chunk
            while b"\n" in buf:
                line, buf = buf.split(b"\n", 1)
                msg = json.loads(line)
                if "phase" in msg:
                    irc_cpu = msg["cpu"]
                    irc_wall = time.monotonic() - t0
                    deadline = t0 + TOTAL_S
                else:
                    verdict = msg["verdict"]
    finally:
        os.close(r)
        if verdict is None:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        _, status = os.waitpid(pid, 0)
    if verdict is None:
        if irc_cpu is None:
            if time.monotonic() - t0 >= hang_s - 0.01:
                verdict = {
                    "status": "bug",
                    "kind": "hang",
                    "detail": f"irc ran past {hang_s} s",
                    "sig": "hang",
                }
            else:
                verdict = {
                    "status": "bug",
                    "kind": "crash",
                    "detail": f"child died with status {status}",
                    "sig": f"crash:{status}",
                }
        else:
            verdict = {"status": "oracle-timeout"}  # ptxas/emulator too slow on this input: not irc's bug
    verdict["irc_cpu_s"] = irc_cpu
    verdict["irc_wall_s"] = irc_wall
    return verdict
