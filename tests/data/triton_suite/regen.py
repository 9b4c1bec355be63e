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
    modules = {c.name: m.__name__.split(".")[-1] for m in suite.kernel_modules() for c in m.CASES}
    cases = {c.name: c for c in suite.all_cases()}
    failures: list[str] = []
    old = json.loads(MANIFEST.read_text()) if MANIFEST.exists() else {}
    clean: dict[str, dict] = {}
    for case in cases.values():
        for arch in case.targets:
            out = PTX_DIR / suite.ptx_name(case.name, arch)
            clean[out.name] = {
                "kernel": case.fn.__name__,
                "module": f"kernels/{modules[case.name]}.py",
                "arch": arch,
                "constexprs": case.constexprs,
                "options": case.targets[arch],
            }
            if only and not case.name.startswith(only):
                continue
            out.write_text(suite.compile_case(case, arch))
            err = _assemble(out, arch)
            print(f"{'REFUSED' if err else 'ok':8} {out.relative_to(HERE)}")
            if err:
                failures.append(err)
    twins = dict(old.get("twins", {}))
    for twin in bugs.twins():
        out = BUG_DIR / f"{twin.file_stem}.{twin.arch}.ptx"
        if only and not twin.file_stem.startswith(only):
            continue
        text, line = bugs.build(twin, PTX_DIR)
        out.write_text(text)
        err = _assemble(out, twin.arch)
        print(f"{'REFUSED' if err else 'ok':8} {out.relative_to(HERE)} ({twin.check} at line {line})")
        if err:
            failures.append(err)
        twins[out.name] = bugs.manifest_entry(twin, text, line)
    known = {f"{t.file_stem}.{t.arch}.ptx" for t in bugs.twins()}
    manifest = {
        "triton": triton.__version__,
        "clean": dict(sorted(clean.items())),
        "twins": {k: twins[k] for k in sorted(twins) if k in known},
    }
    MANIFEST.write_text(_dump(manifest))
    for stale in sorted(set(PTX_DIR.glob("*.ptx")) - {PTX_DIR / n for n in clean}):
        print(f"removing {stale.name} (no case)")
        stale.unlink()
    for stale in sorted(set(BUG_DIR.glob("*.ptx")) - {BUG_DIR / n for n in known}):
        print(f"removing {stale.name} (no twin)")
        stale.unlink()
    write_readme_tables(manifest)
    for f in failures:
        print("ptxas refused", f)
    return 1 if failures else 0


def _dump(manifest: dict) -> str:
    """JSON with one line per clean file and one block per twin (readable diffs when the corpus changes)."""
    clean = ",\n".join(f"  {json.dumps(k)}: {json.dumps(v)}" for k, v in manifest["clean"].items())
    twins = json.dumps(manifest["twins"], indent=2).replace("\n", "\n ")
    return f'{{\n "triton": {json.dumps(manifest["triton"])},\n "clean": {{\n{clean}\n }},\n "twins": {twins}\n}}\n'


README = HERE / "README.md"
BEGIN, END = "<!-- tables: written by regen.py -->", "<!-- end of tables -->"


def write_readme_tables(manifest: dict) -> None:
    """Rewrite the kernel and twin tables of README.md (between the markers) from the manifest."""
    by_kernel: dict[tuple[str, str], list[str]] = {}
    for name, e in manifest["clean"].items():
        stem = name.rsplit(".", 2)[0]
        by_kernel.setdefault((e["module"], stem), []).append(e["arch"])
    rows = ["| module | case | Triton kernel | targets |", "|---|---|---|---|"]
    for (module, stem), arches in sorted(by_kernel.items()):
        kernel = manifest["clean"][f"{stem}.{arches[0]}.ptx"]["kernel"]
        rows.append(
            f"| `{module}` | `{stem}` | `{kernel}` | {', '.join(sorted(arches, key=suite.ALL_ARCHES.index))} |"
        )
    rows += ["", "| twin | expected check | PTX line | source | defect |", "|---|---|---|---|---|"]
    for name, e in manifest["twins"].items():
        how = "Triton (inline asm)" if isinstance(e["mutation"], str) else f"PTX `{e['mutation']['kind']}`"
        rows.append(f"| `{name}` | `{e['check']}` | {e['line']} | {how} | {e['why']} |")
    text = README.read_text() if README.exists() else f"{BEGIN}\n{END}\n"
    head, rest = text.split(BEGIN, 1)
    tail = rest.split(END, 1)[1]
    README.write_text(head + BEGIN + "\n" + "\n".join(rows) + "\n" + END + tail)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
