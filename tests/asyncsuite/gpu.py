"""Run the async/race suite (tests/data/suite) on a real GPU and set the hardware beside the emulator.

For every case whose PTX the GPU can run (portable sm_80 PTX anywhere; sm_90a on an sm_90 GPU, ...), the
bug variant and its twin are launched `--repeats` times each through `irc`'s own `device="cuda"` path (the
same PTX, arguments and numpy reference the emulator gets from `score.py`). Each launch ends as one of:

- `ok`: the outputs match the case's numpy reference;
- `wrong`: they do not (corruption: a race, a stale read);
- `fault`: the kernel failed on the GPU (illegal address, misaligned access, trap), with the driver's error;
- `hang`: it ran past `--timeout` seconds (the worker process is killed and a fresh one goes on);
- `skipped`: the GPU cannot run the PTX, or the launch cannot be made on a GPU (the reason is kept).

With `--sanitizer TOOL[,TOOL]` each variant also runs once under NVIDIA's `compute-sanitizer --tool TOOL`
(racecheck, synccheck, memcheck, initcheck), and the error count it prints is kept. `--deadline` bounds
the whole run: variants not started by then are `skipped` with that reason.

    python tests/asyncsuite/gpu.py [--json OUT] [--repeats 3] [--timeout 10] [--sanitizer racecheck,synccheck]
                                   [--deadline SECONDS] [NAME ...]

A kernel that hangs is the reason each launch lives in a worker process: a hung launch cannot be cancelled
from inside the process that made it. Nothing here runs in CI (CI has no GPU).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import select
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
OUTCOMES = ("ok", "wrong", "fault", "hang", "skipped")


def _case(name: str) -> Any:
    from asyncsuite import score

    return next(c for c in score.load_cases().CASES if c.name == name)


def run_variant(name: str, variant: str, repeats: int, seed: int = 0, device: str = "cuda") -> dict:
    """In the worker: launch one variant `repeats` times on the GPU (or, to try the harness without one, in
    the emulator: its errors count as faults); the outcome of each launch."""
    import irc
    from asyncsuite import score
    from irc.emu import EmuError
    from irc.runtime.cuda import CudaError, KernelFault

    case = _case(name)
    try:
        mod = irc.load_ptx(score.ptx_text(case, variant), path=f"{name}.{variant}.ptx")
        kernel = mod[score._kernel(mod.model, case.kernel)]
    except Exception as e:  # a .kdsl variant that does not compile: a result, not a crash
        return {"outcomes": ["skipped"], "why": f"no PTX: {e}"[:300]}
    make = case.bug_make if variant == "bug" and case.bug_make else case.make
    outcomes: list[str] = []
    detail = ""
    for r in range(repeats):
        launch = make(np.random.default_rng(seed + r))
        before = {k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in launch.host.items()}
        print(f"LAUNCH {r}", flush=True)  # the parent's clock for a hang starts here
        try:
            kernel.launch(
                case.grid, case.block, launch.args, device=device, dynamic_shared_bytes=case.dynamic_smem
            )
        except (KernelFault, EmuError) as e:
            return {"outcomes": outcomes + ["fault"], "why": str(e)[:300]}
        except (CudaError, irc.LaunchError) as e:
            return {"outcomes": outcomes + ["skipped"], "why": str(e)[:300]}
        bad = [
            k
            for k, exp in case.ref(before).items()
            if not np.allclose(launch.host[k], exp, rtol=case.rtol, atol=case.atol, equal_nan=True)
        ]
        outcomes.append("wrong" if bad else "ok")
        if bad and not detail:
            detail = f"mismatch in {', '.join(bad)}"
    return {"outcomes": outcomes, "why": detail}


def worker(repeats: int, device: str) -> int:
    """Read `name variant` lines from stdin; print `START name variant`, then one JSON line per job."""
    for line in sys.stdin:
        name, variant = line.split()
        print(f"START {name} {variant}", flush=True)
        t0 = time.perf_counter()
        try:
            res = run_variant(name, variant, repeats, device=device)
        except Exception as e:  # a harness problem is reported with the job, the worker goes on
            res = {"outcomes": ["skipped"], "why": f"harness: {type(e).__name__}: {e}"[:300]}
        res["seconds"] = round(time.perf_counter() - t0, 3)
        print("RESULT " + json.dumps(res), flush=True)
    return 0


def _spawn(repeats: int, prefix: list[str] | None = None, device: str = "cuda") -> subprocess.Popen:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT / "tests"), str(ROOT)]), PYTHONUNBUFFERED="1")
    cmd = [
        *(prefix or []),
        sys.executable,
        str(Path(__file__)),
        "--worker",
        "--repeats",
        str(repeats),
        "--device",
        device,
    ]
    return subprocess.Popen(
        cmd,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        start_new_session=True,
    )


def _kill(p: subprocess.Popen) -> None:
    try:
        os.killpg(p.pid, 9)
    except OSError:
        pass
    p.wait()


def _readline(p: subprocess.Popen, until: float) -> str | None:
    """A line of the worker's output, or None when `until` passes first (or the worker died). Reads the
    pipe's file descriptor itself: a buffered reader would hold lines that `select` no longer sees."""
    assert p.stdout is not None
    buf: bytearray = p.__dict__.setdefault("_irc_buf", bytearray())
    fd = p.stdout.fileno()
    while b"\n" not in buf:
        left = until - time.monotonic()
        if left <= 0:
            return None
        ready, _, _ = select.select([fd], [], [], left)
        if ready:
            chunk = os.read(fd, 65536)
            if not chunk:
                return None
            buf += chunk
    i = buf.index(b"\n")
    line = bytes(buf[: i + 1]).decode()
    del buf[: i + 1]
    return line


def run_jobs(
    jobs: list[tuple[str, str]], repeats: int, timeout: float, deadline: float, device: str = "cuda"
) -> dict:
    """Every job in a shared worker; a job past `timeout` per launch is a hang and its worker is replaced."""
    out: dict[tuple[str, str], dict] = {}
    p: subprocess.Popen | None = None
    for job in jobs:
        if time.monotonic() > deadline:
            out[job] = {"outcomes": ["skipped"], "why": "the run's --deadline passed"}
            continue
        if p is None or p.poll() is not None:
            p = _spawn(repeats, device=device)
        assert p.stdin is not None
        p.stdin.write(f"{job[0]} {job[1]}\n")
        p.stdin.flush()
        res, launched, wait = None, False, 120.0  # imports, the CUDA context, a .kdsl compile
        while res is None:
            line = _readline(p, time.monotonic() + wait)
            if line is None:
                break
            if line.startswith("LAUNCH"):
                launched, wait = True, timeout
            elif line.startswith("RESULT "):
                res = json.loads(line[7:])
            else:
                wait = 120.0  # START, or the work between launches (the numpy reference)
        if res is None:
            _kill(p)
            err = (p.stderr.read() if p.stderr else "")[-300:]
            why = f"no result after {timeout:g} s" if launched else "the worker died"
            res = {
                "outcomes": ["hang"] if launched else ["skipped"],
                "why": why + (f": {err}" if err else ""),
            }
            p = None
        if "fault" in res["outcomes"]:  # a fault is sticky: the worker's CUDA context cannot launch again
            _kill(p)
            p = None
        out[job] = res
        print(
            f"{job[0]:<34} {job[1]:<4} {' '.join(res['outcomes']):<20} {res.get('why', '')[:90]}", flush=True
        )
    if p is not None:
        p.stdin.close()  # type: ignore[union-attr]
        p.wait(timeout=30)
    return out


_SUMMARY = re.compile(r"(?:ERROR SUMMARY|RACECHECK SUMMARY): (\d+) (?:errors?|hazards?)")


def sanitize(job: tuple[str, str], tool: str, timeout: float) -> dict:
    """One launch of a variant under `compute-sanitizer --tool TOOL`: its error count and first report."""
    p = _spawn(1, ["compute-sanitizer", "--tool", tool, "--print-limit", "5"])
    assert p.stdin is not None
    try:
        o, e = p.communicate(f"{job[0]} {job[1]}\n", timeout=timeout)
    except subprocess.TimeoutExpired:
        _kill(p)
        return {"errors": None, "why": "hang"}
    m = _SUMMARY.findall(o + e)
    first = next(
        (
            ln.strip()
            for ln in (o + e).splitlines()
            if ln.startswith("========= ")
            and "SUMMARY" not in ln
            and ("Error" in ln or "Hazard" in ln or "hazard" in ln or "Invalid" in ln or "Barrier" in ln)
        ),
        "",
    )
    return {"errors": int(m[-1]) if m else None, "first": first[:200]}


def runnable(case: Any, dev_arch: str) -> str | None:
    """Why the GPU cannot run the case's PTX, or None."""
    from irc.runtime.cuda import CudaError, cubin_arch

    try:
        cubin_arch(case.arch, dev_arch)
    except CudaError as e:
        return str(e)
    return None


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("names", nargs="*")
    ap.add_argument("--json")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--timeout", type=float, default=10.0, help="seconds per launch before it is a hang")
    ap.add_argument("--sanitizer", default="", help="compute-sanitizer tools, comma-separated")
    ap.add_argument("--deadline", type=float, default=1e9, help="seconds for the whole run")
    ap.add_argument("--device", default="cuda", help="cuda; emu tries the harness without a GPU")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    if a.worker:
        return worker(a.repeats, a.device)
    t_end = time.monotonic() + a.deadline
    from asyncsuite import score
    from irc.runtime.cuda import device_arch, driver_available

    ok, why = driver_available()
    if a.device == "cuda" and not ok:
        print(f"no GPU: {why}")
        return 2
    dev = device_arch() if a.device == "cuda" else "emu"
    cases = [c for c in score.load_cases().CASES if not a.names or c.name in a.names]
    results: dict[str, dict] = {}
    jobs = []
    for c in cases:
        results[c.name] = {"class": c.cls, "lang": c.lang, "arch": c.arch, "error": c.error}
        why_not = runnable(c, dev) if a.device == "cuda" else None
        if why_not:
            results[c.name]["skipped"] = why_not
            continue
        jobs += [(c.name, "bug"), (c.name, "ok")]
    print(f"device {dev}: {len(jobs)} variants of {len(cases)} cases", flush=True)
    for (name, variant), res in run_jobs(jobs, a.repeats, a.timeout, t_end, a.device).items():
        results[name][variant] = res
    tools = [t for t in a.sanitizer.split(",") if t]
    for job in [j for j in jobs if j[1] == "bug"] + [j for j in jobs if j[1] == "ok"]:  # bugs first
        for tool in tools:
            if time.monotonic() > t_end or verdict(results[job[0]].get(job[1])) == "hang":
                break
            r = sanitize(job, tool, 30)
            results[job[0]].setdefault("sanitizer", {}).setdefault(tool, {})[job[1]] = r
            print(f"{tool:<10} {job[0]:<34} {job[1]:<4} {r}", flush=True)
    print()
    print(summary(results))
    if a.json:
        Path(a.json).write_text(json.dumps({"device": dev, "cases": results}, indent=1) + "\n")
    return 0


def verdict(res: dict | None) -> str:
    """A variant's outcome over its repeats: the worst one seen (hang > fault > wrong > ok)."""
    if not res:
        return "skipped"
    seen = set(res["outcomes"])
    for o in ("hang", "fault", "wrong", "ok"):
        if o in seen:
            return o
    return "skipped"


def summary(results: dict[str, dict]) -> str:
    """Per class: how the bugs end on the GPU, and twins that are not `ok`."""
    rows = [("class", "cases run", "bug hang", "bug fault", "bug wrong", "bug ok", "twin not ok")]
    by: dict[str, list[dict]] = {}
    for r in results.values():
        by.setdefault(r["class"], []).append(r)
    for cls, rs in list(by.items()) + [("all", list(results.values()))]:
        run = [r for r in rs if "bug" in r]
        vs = [verdict(r["bug"]) for r in run]
        tw = sum(verdict(r.get("ok")) != "ok" for r in run)
        rows.append(
            (cls, str(len(run)), *(str(vs.count(o)) for o in ("hang", "fault", "wrong", "ok")), str(tw))
        )
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(r, widths)) for r in rows)


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT / "tests"))
    sys.path.insert(0, str(ROOT))
    raise SystemExit(main())
