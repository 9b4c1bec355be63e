"""Write tests/data/ptx/expected.json: the analyzer's ground truth for every .ptx file of the corpus.

Usage: python make_expected.py [--check]
    --check   do not write; exit 1 if expected.json differs from what would be written.

Format: {"<path relative to tests/data/ptx>": [{"check": ..., "kernel": ..., "line": ...}, ...], ...}
where `line` is the 1-based line, in that .ptx file, of the offending instruction (bar.sync /
barrier.sync for barrier-divergence, the shfl.sync / vote.sync for warp-sync-divergence, the
sub.f32 for self-cancel) and `kernel` is the (mangled) name of the enclosing `.entry`.

How lines are found (deterministic, no heuristics beyond these):
  * nvcc/: each buggy `name.cu` marks the offending source line with `// EXPECT: <check>`. nvcc was run
    with -lineinfo, so every instruction follows a `.loc FILE LINE COL[, ..., inlined_at FILE LINE COL]`.
    An instruction matches a marker when its `.loc` or any level of its inlining chain (each `inlined_at`
    location is itself a `.loc` seen earlier, with its own `inlined_at`) points at the marker's line of that
    .cu file and its opcode belongs to the check (table OPCODES). Every marker must match
    at least one instruction in every .ptx compiled from the .cu (otherwise the bug is not visible in
    the PTX and this script fails). Copies made by unrolling or inlining are one finding (the analyzer
    groups them, "(N instances)"): the first copy's line is recorded.
  * builder/: the table BUILDER gives, per file, a regular expression that must match exactly one line.
  * triton/ and every other file: no findings (all kernels there are correct).
"""

from __future__ import annotations

import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

OPCODES = {
    # a call counts as the barrier / collective its callee runs (interprocedural summaries)
    "barrier-divergence": re.compile(r"^(bar|barrier)\.(sync|red)\b|^bar\s|^call\b"),
    "warp-sync-divergence": re.compile(
        r"^(shfl\.sync|vote\.sync|match\.sync|redux\.sync|bar\.warp\.sync|elect\.sync|call)\b"
    ),
    "self-cancel": re.compile(r"^(sub|div|max|min|xor|rem)\."),
}

BUILDER = {
    "builder/attn_decode_old_max_bug.ptx": [("self-cancel", r"^\s+sub\.f32 %f27, %f8, %f8;")],
    "builder/parity114_bug.ptx": [("barrier-divergence", r"^\s+bar\.sync 0;")],
}

MARKER = re.compile(r"//\s*EXPECT:\s*([a-z-]+)")
ENTRY = re.compile(r"\.entry\s+([A-Za-z_$][\w$]*)")
LOC = re.compile(r"^\s*\.loc\s+(\d+)\s+(\d+)\s+(\d+)(?:.*inlined_at\s+(\d+)\s+(\d+)\s+(\d+))?")
FILE = re.compile(r'^\s*\.file\s+(\d+)\s+"([^"]*)"')


def rel(path: str) -> str:
    return os.path.relpath(path, HERE).replace(os.sep, "/")


def instruction(line: str) -> str | None:
    """The opcode text of a PTX instruction line (guard stripped), or None for non-instructions."""
    s = line.split("//", 1)[0].strip()
    if not s or s.startswith(".") or s.endswith(":") or s in ("{", "}", ")") or s.startswith("$"):
        return None
    s = re.sub(r"^@!?%\w+\s+", "", s)
    return s


def entry_at(lines: list[str], idx: int) -> str:
    for j in range(idx, -1, -1):
        m = ENTRY.search(lines[j])
        if m:
            return m.group(1)
    raise ValueError(f"no .entry before line {idx + 1}")


def nvcc_findings(ptx_path: str) -> list[dict]:
    stem = os.path.basename(ptx_path).split(".")[0]
    cu_path = os.path.join(os.path.dirname(ptx_path), stem + ".cu")
    if not os.path.exists(cu_path):
        return []
    markers = {}
    with open(cu_path) as f:
        for n, text in enumerate(f, 1):
            m = MARKER.search(text)
            if m:
                if m.group(1) not in OPCODES:
                    raise ValueError(f"{cu_path}:{n}: unknown check {m.group(1)}")
                markers[n] = m.group(1)
    if not markers:
        return []
    with open(ptx_path) as f:
        lines = f.read().split("\n")
    cu_files = {
        m.group(1) for m in map(FILE.match, lines) if m and os.path.basename(m.group(2)) == stem + ".cu"
    }
    found = []
    hit = set()
    first: set[tuple[str, str, int]] = set()
    locs: set[int] = set()
    parent: dict[tuple[str, str, str], tuple[str, str, str]] = {}
    for i, text in enumerate(lines):
        m = LOC.match(text)
        if m:
            # the whole inlining chain: nvcc repeats the .loc of every level, innermost last
            here = (m.group(1), m.group(2), m.group(3))
            up = (m.group(4), m.group(5), m.group(6)) if m.group(4) else None
            if up is not None:
                parent[here] = up
            locs = set()
            w: tuple[str, str, str] | None = here
            seen: set[tuple[str, str, str]] = set()
            while w is not None and w not in seen:
                seen.add(w)
                if w[0] in cu_files:
                    locs.add(int(w[1]))
                w = up if w == here else parent.get(w)
            continue
        op = instruction(text)
        if op is None:
            continue
        for src_line in locs:
            check = markers.get(src_line)
            if check and OPCODES[check].match(op):
                kernel = entry_at(lines, i)
                hit.add(src_line)
                if (check, kernel, src_line) in first:
                    continue  # an unrolled / inlined copy: the analyzer reports one finding per source line
                first.add((check, kernel, src_line))
                found.append({"check": check, "kernel": kernel, "line": i + 1})
    missing = set(markers) - hit
    if missing:
        raise ValueError(
            f"{rel(ptx_path)}: marker line(s) {sorted(missing)} of {rel(cu_path)} match no instruction"
        )
    return found


def builder_findings(ptx_path: str) -> list[dict]:
    with open(ptx_path) as f:
        lines = f.read().split("\n")
    found = []
    for check, pattern in BUILDER.get(rel(ptx_path), []):
        rx = re.compile(pattern)
        idx = [i for i, text in enumerate(lines) if rx.search(text)]
        if len(idx) != 1:
            raise ValueError(f"{rel(ptx_path)}: pattern {pattern!r} matches {len(idx)} lines, expected 1")
        found.append({"check": check, "kernel": entry_at(lines, idx[0]), "line": idx[0] + 1})
    return found


def compute() -> dict[str, list[dict]]:
    result = {}
    for root, _dirs, files in os.walk(HERE):
        for name in files:
            if not name.endswith(".ptx"):
                continue
            path = os.path.join(root, name)
            key = rel(path)
            if key.startswith("nvcc/"):
                findings = nvcc_findings(path)
            elif key.startswith("builder/"):
                findings = builder_findings(path)
            else:
                findings = []
            result[key] = sorted(findings, key=lambda d: (d["line"], d["check"]))
    return dict(sorted(result.items()))


def main(argv: list[str]) -> int:
    text = json.dumps(compute(), indent=1) + "\n"
    out = os.path.join(HERE, "expected.json")
    if "--check" in argv:
        with open(out) as f:
            same = f.read() == text
        print("expected.json is up to date" if same else "expected.json is STALE: run make_expected.py")
        return 0 if same else 1
    with open(out, "w") as f:
        f.write(text)
    data = json.loads(text)
    print(f"wrote expected.json: {len(data)} files, {sum(len(v) for v in data.values())} findings")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
