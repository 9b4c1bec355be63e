"""Rebuild the Triton kernel corpus: ptx/ (every clean case on each of its targets), bugs/ (the injected-bug
twins) and manifest.json (what irc must report on each twin), then assemble every file with ptxas.

Usage (from the repository root, with `pip install -e ".[dev]"`, which brings triton 3.9):

    python tests/data/triton_suite/regen.py            # everything
    python tests/data/triton_suite/regen.py softmax    # only cases whose name starts with a prefix

No GPU is needed. The output is deterministic for a given Triton version: `.file` paths are made
repository-relative (suite.portable_paths), so regenerating on another machine changes nothing.
A file ptxas refuses is an error: the corpus holds only PTX the target's assembler accepts.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import bugs  # noqa: E402
import suite  # noqa: E402
from irc.ptxas import find_ptxas, run_ptxas  # noqa: E402

PTX_DIR = HERE / "ptx"
BUG_DIR = HERE / "bugs"
MANIFEST = HERE / "manifest.json"


def _assemble(path: Path, arch: str) -> str | None:
    """None when ptxas accepts the file, else its first error."""
    res = run_ptxas(path.read_text(), arch)
    return None if res.ok else f"{path.name}: {res.errors[0].message if res.errors else res.stderr}"


def main(argv: list[str]) -> int:
    only = tuple(argv[1:])
    if find_ptxas() is None:
        print("ptxas not found (pip install nvidia-cuda-nvcc)")
        return 2
    import triton

    print(f"triton {triton.__version__}")
    PTX_DIR.mkdir(exist_ok=True)
    BUG_DIR.mkdir(exist_ok=True)
    cases = {c.name: c for c in suite.all_cases()}
    failures: list[str] = []
    for case in cases.values():
        if only and not case.name.startswith(only):
            continue
        for arch in case.targets:
            out = PTX_DIR / suite.ptx_name(case.name, arch)
            out.write_text(suite.compile_case(case, arch))
            err = _assemble(out, arch)
            print(f"{'REFUSED' if err else 'ok':8} {out.relative_to(HERE)}")
            if err:
                failures.append(err)
    manifest = json.loads(MANIFEST.read_text()) if MANIFEST.exists() else {}
    for twin in bugs.TWINS:
        if only and not twin.file_stem.startswith(only):
            continue
        text, line = bugs.build(twin, cases, PTX_DIR)
        out = BUG_DIR / f"{twin.file_stem}.{twin.arch}.ptx"
        out.write_text(text)
        err = _assemble(out, twin.arch)
        print(f"{'REFUSED' if err else 'ok':8} {out.relative_to(HERE)} ({twin.check} at line {line})")
        if err:
            failures.append(err)
        manifest[out.name] = bugs.manifest_entry(twin, text, line)
    known = {f"{t.file_stem}.{t.arch}.ptx" for t in bugs.TWINS}
    manifest = {k: manifest[k] for k in sorted(manifest) if k in known}
    MANIFEST.write_text(json.dumps(manifest, indent=1) + "\n")
    for f in failures:
        print("ptxas refused", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
