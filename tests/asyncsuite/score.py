"""Score irc against the async/race bug suite (tests/data/suite, described in its README.md).

For every case of `tests/data/suite/cases.py`:

- static: the findings `irc check --format json` gives (the same `irc.cli.check_one` and JSON objects, in
  process) on the bug variant and on its twin. The bug is *found* when a finding of the expected check
  is at a marked line (`// EXPECT: <check>`; several marked lines are alternatives): its primary location,
  or any inlining level of the `.loc` of its PTX instruction (the JSON's `ptx` object). The twin is
  *clean* when it has no error finding.
- emulator: the bug variant and the twin run in irc's emulator (`run_kernel`, `schedules=8` by default).
  The bug is *found* when the raised error is of the expected kind (its class or a base class has the
  expected name, or its `kind` is the expected kind). The twin *passes* when nothing is raised and every
  output equals the case's numpy reference.

    python tests/asyncsuite/score.py [--json OUT] [--no-static] [--no-emu] [--schedules N] [--table] [--cli] [NAME ...]
    python -m suite.score ...        (from tests/)

prints one line per case and a table per class; `--json` writes every result.
"""

from __future__ import annotations

import argparse
import functools
import importlib.util
import json
import re
import sys
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
SUITE = ROOT / "tests" / "data" / "suite"
_MARK = re.compile(r"//\s*EXPECT:\s*([a-z][a-z0-9-]*)")
_FILE = re.compile(r'^\s*\.file\s+(\d+)\s+"([^"]*)"')
_LOC = re.compile(r"^\s*\.loc\s+(\d+)\s+(\d+)\s+\d+(?:.*inlined_at\s+(\d+)\s+(\d+)\s+\d+)?")


def load_cases(path: Path = SUITE / "cases.py") -> Any:
    """The cases module, imported by path (tests/data is not a package)."""
    name = "irc_suite_cases"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


def markers(text: str) -> dict[int, str]:
    """Source line -> the check its `// EXPECT:` comment names."""
    return {n: m.group(1) for n, t in enumerate(text.splitlines(), 1) if (m := _MARK.search(t))}


def loc_lines(ptx_text: str, src_name: str) -> dict[int, set[int]]:
    """PTX line -> every line of `src_name` that the `.loc` directives in front of it name, at any inlining
    level (nvcc emits one `.loc` per level, each with its `inlined_at`)."""
    lines = ptx_text.split("\n")
    ids = {m.group(1) for m in map(_FILE.match, lines) if m and Path(m.group(2)).name == src_name}
    out: dict[int, set[int]] = {}
    cur: set[int] = set()
    fresh = True
    for i, text in enumerate(lines, 1):
        m = _LOC.match(text)
        if m:
            if fresh:
                cur = set()
                fresh = False
            if m.group(1) in ids:
                cur.add(int(m.group(2)))
            if m.group(3) in ids:
                cur.add(int(m.group(4)))
            continue
        fresh = True
        out[i] = set(cur)
    return out


# -- static -------------------------------------------------------------------------------------------
USE_CLI = False  # `--cli`: run the `irc check` command itself (slower: one process per file)


def check_json(path: Path) -> list[dict]:
    """The diagnostics of `irc check --format json PATH` (as objects): in process through the CLI's own
    `check_one` and JSON renderer, or, with USE_CLI, from the command's output."""
    if USE_CLI:
        import subprocess

        cmd = [sys.executable, "-m", "irc.cli", "check", "--format", "json", str(path)]
        out = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, check=False)
        if out.returncode not in (0, 1):
            raise RuntimeError(f"irc check {path} exited {out.returncode}: {out.stderr[-500:]}")
        return json.loads(out.stdout)["diagnostics"]
    from irc.cli import check_one
    from irc.tooling.render import diagnostic_to_json

    diags, _ = check_one(str(path), None, {})
    return [diagnostic_to_json(d, display=True) for d in diags]


def _errors(findings: list[dict]) -> list[dict]:
    return [f for f in findings if f["severity"] == "error"]


def _hits(f: dict, src: str, locs: dict[int, set[int]] | None) -> set[int]:
    """The lines of `src` a finding points at: its primary line, and for PTX the `.loc` lines of its
    instruction."""
    out: set[int] = set()
    if f.get("file") and Path(f["file"]).name == src and f.get("line"):
        out.add(f["line"])
    if locs is not None:
        ptx = f.get("ptx")  # the PTX instruction behind a finding mapped to its source line
        if ptx and ptx.get("line"):
            out |= locs.get(ptx["line"], set())
        for lab in f.get("labels", []):
            if lab.get("message") == "the PTX instruction" and lab.get("line"):
                out |= locs.get(lab["line"], set())
    return out


def findings(path: Path) -> tuple[dict, ...]:
    """`check_json`, cached per file (the test module asks for each file more than once)."""
    return _findings(path, USE_CLI)


@functools.cache
def _findings(path: Path, cli: bool) -> tuple[dict, ...]:
    return tuple(check_json(path))


def static_bug(case: Any) -> dict:
    """Is the bug found: a finding of a marked line's check at that line (marked lines are alternatives)."""
    bug = list(findings(case.bug_path))
    want = markers(case.source_path.read_text())
    src = case.source_path.name
    locs = loc_lines(case.bug_path.read_text(), src) if case.bug_path.suffix == ".ptx" else None
    found = any(
        f["check"] == check and line in _hits(f, src, locs) for line, check in want.items() for f in bug
    )
    return {
        "expected": [[line, check] for line, check in sorted(want.items())],
        "found": found,
        "wrong_line": not found and any(f["check"] in set(want.values()) for f in bug),
        "bug_findings": [(f["check"], f.get("line")) for f in bug if f["severity"] in ("error", "warning")],
    }


def static_twin(case: Any) -> dict:
    """Is the twin clean: no error finding (warnings are listed, not counted)."""
    ok = list(findings(case.ok_path))
    return {
        "twin_findings": [(f["check"], f.get("line")) for f in _errors(ok)],
        "twin_warnings": [(f["check"], f.get("line")) for f in ok if f["severity"] == "warning"],
        "twin_clean": not _errors(ok),
    }


def static_result(case: Any) -> dict:
    """Findings on the bug and the twin, and the verdicts (see the module docstring)."""
    if case.check is None:
        return {"applicable": False}
    return {"applicable": True, **static_bug(case), **static_twin(case)}


# -- emulator -----------------------------------------------------------------------------------------
@functools.cache
def _kdsl_ptx(path: Path, arch: str) -> str:
    from irc.compiler import CompileOptions, compile_kdsl

    return compile_kdsl(path.read_text(), str(path), CompileOptions(arch=arch, check=False)).ptx_text


def ptx_text(case: Any, variant: str) -> str:
    """The PTX of a variant ("bug" or "ok"): the committed file for CUDA, irc's output for .kdsl (compiled
    with the analyzer off, so a finding does not stop the run)."""
    path = case.bug_path if variant == "bug" else case.ok_path
    if path.suffix == ".ptx":
        return path.read_text()
    return _kdsl_ptx(path, case.arch)


def _kernel(module: Any, name: str | None) -> str:
    """`name`, else the module's only kernel."""
    if name:
        return name
    entries = [f.name for f in module.functions if f.kind == "entry" and f.body is not None]
    if len(entries) != 1:
        raise ValueError(f"name the kernel: the module has {len(entries)} entries {entries}")
    return entries[0]


_RUNS: dict[tuple, dict] = {}


def emu_run(case: Any, variant: str, schedules: int | None = None, seed: int = 0) -> dict:
    """Run one variant; returns {"error": class name | None, "kind", "message", "matches": bool | None}.
    Results are kept per (file, arguments, schedules, seed): .kdsl bug variants share their twin."""
    path = case.bug_path if variant == "bug" else case.ok_path
    make = case.bug_make if variant == "bug" and case.bug_make else case.make
    key = (path, make, case.grid, case.block, schedules, seed)
    if key not in _RUNS:
        _RUNS[key] = _emu_run(case, variant, schedules, seed)
    return _RUNS[key]


def _emu_run(case: Any, variant: str, schedules: int | None, seed: int) -> dict:
    from irc.emu import EmuError, run_kernel
    from irc.frontend.ptx.parser import parse_ptx

    text = ptx_text(case, variant)
    mod = parse_ptx(text, f"{case.name}.{variant}.ptx")
    launch = (case.bug_make if variant == "bug" and case.bug_make else case.make)(np.random.default_rng(seed))
    before = {k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in launch.host.items()}
    opts: dict[str, Any] = {"dynamic_shared_bytes": case.dynamic_smem}
    n = case.schedules if schedules is None else schedules
    if n:
        opts["schedules"] = n
    if case.max_steps:
        opts["max_steps"] = case.max_steps
    t0 = time.perf_counter()
    try:
        run_kernel(mod, _kernel(mod, case.kernel), case.grid, case.block, launch.args, **opts)
    except EmuError as e:
        return {
            "error": type(e).__name__,
            "kind": e.kind,
            "message": str(e)[:400],
            "source": e.source,
            "matches": None,
            "seconds": time.perf_counter() - t0,
        }
    seconds = time.perf_counter() - t0
    want = case.ref(before)
    bad = []
    for k, exp in want.items():
        got = launch.host[k]
        if not np.allclose(got, exp, rtol=case.rtol, atol=case.atol, equal_nan=True):
            bad.append(k)
    return {
        "error": None,
        "kind": None,
        "message": "",
        "matches": not bad,
        "mismatch": bad,
        "seconds": seconds,
    }


def emu_found(case: Any, bug: dict) -> bool:
    """Did the bug's run raise the expected error (by class name, a base class name, or kind)? For a latent
    bug (`error="clean"`, no execution can observe it): did it run clean and match numpy?"""
    if case.error == load_cases().CLEAN:
        return bug["error"] is None and bool(bug["matches"])
    if bug["error"] is None:
        return False
    from irc.emu import errors as emu_errors

    cls = getattr(emu_errors, bug["error"], None)
    names = {c.__name__ for c in cls.__mro__} if isinstance(cls, type) else {bug["error"]}
    return case.error in names or bug["kind"] == case.error


def emu_result(case: Any, schedules: int | None = None) -> dict:
    bug = emu_run(case, "bug", schedules)
    ok = emu_run(case, "ok", schedules)
    return {
        "expected": case.error,
        "found": emu_found(case, bug),
        "bug": bug,
        "twin": ok,
        "twin_ok": ok["error"] is None and bool(ok["matches"]),
    }


# -- report -------------------------------------------------------------------------------------------
def score(
    cases: Iterable[Any], static: bool = True, emu: bool = True, schedules: int | None = None
) -> list[dict]:
    out = []
    for c in cases:
        r: dict[str, Any] = {
            "name": c.name,
            "lang": c.lang,
            "class": c.cls,
            "check": c.check,
            "error": c.error,
        }
        if static:
            r["static"] = static_result(c)
        if emu:
            try:
                r["emu"] = emu_result(c, schedules)
            except Exception as e:  # a harness or launch problem is a result too, not a crash of the scorer
                r["emu"] = {"expected": c.error, "found": False, "twin_ok": False, "harness_error": repr(e)}
        out.append(r)
    return out


def _line(r: dict) -> str:
    parts = [f"{r['name']:<34} {r['class']:<12}"]
    s = r.get("static")
    if s is not None:
        if not s["applicable"]:
            parts.append("static n/a        ")
        else:
            v = "FOUND" if s["found"] else ("wrong line" if s["wrong_line"] else "missed")
            fp = "" if s["twin_clean"] else f" twin FP {s['twin_findings']}"
            parts.append(f"static {v:<10}{fp}")
            if not s["found"]:
                parts.append(f"(got {s['bug_findings']})")
    e = r.get("emu")
    if e is not None:
        if "harness_error" in e:
            parts.append(f"emu harness error {e['harness_error'][:120]}")
        else:
            b = e["bug"]
            got = b["error"] or ("nothing, output " + ("right" if b["matches"] else "WRONG"))
            v = "FOUND" if e["found"] else f"missed (got {got})"
            t = e["twin"]
            tw = "" if e["twin_ok"] else f" twin FAIL ({t['error'] or 'mismatch ' + str(t.get('mismatch'))})"
            parts.append(f"emu {v}{tw}")
    return "  ".join(parts)


def table(results: list[dict]) -> str:
    """Per class: static found/total, twin false positives, emulator found/total, twin failures."""
    classes: dict[str, list[dict]] = {}
    for r in results:
        classes.setdefault(r["class"], []).append(r)
    rows = [("class", "cases", "static found", "static twin FP", "emu found", "emu twin fail")]
    for cls, rs in list(classes.items()) + [("all", results)]:
        st = [r["static"] for r in rs if r.get("static", {}).get("applicable")]
        em = [r["emu"] for r in rs if "emu" in r]
        sf = sum(s["found"] for s in st)
        fp = sum(not s["twin_clean"] for s in st)
        ef = sum(e["found"] for e in em)
        tf = sum(not e["twin_ok"] for e in em)
        rows.append(
            (cls, str(len(rs)), f"{sf}/{len(st)}", f"{fp}/{len(st)}", f"{ef}/{len(em)}", f"{tf}/{len(em)}")
        )
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(r, widths)) for r in rows)


def markdown_table(cases: Iterable[Any]) -> str:
    """The README's table of cases (tests/test_suite.py keeps the README equal to it)."""
    order = list(load_cases().CLASSES)
    rows = ["| case | lang | class | bug | check | emulator error | arch |", "|---|---|---|---|---|---|---|"]
    for c in sorted(cases, key=lambda c: (c.lang, order.index(c.cls))):
        check = f"`{c.check}`" if c.check else "(host side)"
        bug = c.bug.replace("_", "\\_").replace("|", "\\|")
        rows.append(f"| `{c.name}` | {c.lang} | {c.cls} | {bug} | {check} | `{c.error}` | {c.arch} |")
    return "\n".join(rows) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("names", nargs="*", help="only these cases (default: all)")
    ap.add_argument("--json", help="write every result to this file")
    ap.add_argument("--no-static", action="store_true")
    ap.add_argument("--no-emu", action="store_true")
    ap.add_argument("--schedules", type=int, default=None, help="override every case's schedule count")
    ap.add_argument(
        "--table", action="store_true", help="print the README's markdown table of cases and exit"
    )
    ap.add_argument("--cli", action="store_true", help="run the `irc check --format json` command per file")
    a = ap.parse_args(argv)
    global USE_CLI
    USE_CLI = a.cli
    cases = load_cases().CASES
    if a.table:
        sys.stdout.write(markdown_table(cases))
        return 0
    if a.names:
        unknown = set(a.names) - {c.name for c in cases}
        if unknown:
            ap.error(f"unknown case(s): {', '.join(sorted(unknown))}")
        cases = [c for c in cases if c.name in a.names]
    results = []
    for c in cases:
        (r,) = score([c], static=not a.no_static, emu=not a.no_emu, schedules=a.schedules)
        print(_line(r), flush=True)
        results.append(r)
    print()
    print(table(results))
    if a.json:
        Path(a.json).write_text(json.dumps(results, indent=1, default=str) + "\n")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    try:
        raise SystemExit(main())
    except BrokenPipeError:  # `score.py | head`
        sys.stderr.close()
        raise SystemExit(0) from None
