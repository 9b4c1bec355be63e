"""`irc/record_codes.py`, the `@record` methods shipped as code inside the package, is current, and
nothing else supplies code to `@record`: no file of the cache directory is ever read or executed.

Regenerate after adding or changing a record class:

    python tests/test_record_codes.py --update
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
GENERATED = ROOT / "irc" / "record_codes.py"

# Runs in a fresh interpreter: an empty stand-in for irc.record_codes records every source `@record`
# asks for while every module of irc is imported (so every compile happens, none is served).
_COLLECT = r"""
import importlib, json, pathlib, sys, types
seen = set()
class Spy(dict):
    def get(self, key, default=None):
        seen.add(key)
        return default
stand_in = types.ModuleType("irc.record_codes")
stand_in.CODES = Spy()
sys.modules["irc.record_codes"] = stand_in
import irc
root = pathlib.Path(irc.__file__).parent
for p in sorted(root.rglob("*.py")):
    parts = list(p.relative_to(root.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    if ".".join(parts) != "irc.record_codes":
        importlib.import_module(".".join(parts))
print(json.dumps(sorted(seen)))
"""

_HEADER = '''"""The methods of irc's `@record` classes, as code shipped in the package. Generated: do not edit.

Regenerate with `python tests/test_record_codes.py --update` (the test fails until this file matches the
classes). `irc.records` looks a generated source up here by its exact text; each function below is that
text, indented, with its top-level names declared `global` so that running the function's code with
`exec(code, env)` defines them in `env`, as running the text itself would. A source not found here is
compiled at run time. Nothing here is read from or written to the user cache directory.
"""

'''


def collect() -> list[str]:
    """Every `<filename>\\0<source>` that importing all of irc compiles, sorted."""
    out = subprocess.run(
        [sys.executable, "-c", _COLLECT], capture_output=True, text=True, check=True, cwd=ROOT
    )
    return json.loads(out.stdout)


def render(keys: list[str]) -> str:
    parts = [_HEADER]
    for i, key in enumerate(keys):
        filename, src = key.split("\0", 1)
        names = []
        for node in ast.parse(src).body:
            assert isinstance(node, ast.FunctionDef), f"{filename}: only `def`s are generated"
            names.append(node.name)
        parts.append(
            f"def _m{i}():  # {filename}\n    global {', '.join(sorted(set(names)))}\n"
            + textwrap.indent(src, "    ")
            + "\n\n"
        )
    parts.append("CODES = {\n" + "".join(f"    {k!r}: _m{i},\n" for i, k in enumerate(keys)) + "}\n")
    return "".join(parts)


def test_the_generated_methods_match_the_record_classes() -> None:
    assert GENERATED.read_text(encoding="utf-8") == render(collect()), (
        "irc/record_codes.py is stale: run `python tests/test_record_codes.py --update`"
    )


def test_every_record_of_a_compile_comes_from_the_package(tmp_path: Path) -> None:
    """A whole `irc compile` builds its records without compiling one method at run time."""
    code = textwrap.dedent(
        """
        import builtins, sys
        import irc.records as records
        misses = []
        real = builtins.compile
        records.compile = lambda src, fn, mode: misses.append(fn) or real(src, fn, mode)
        from irc import cli
        sys.argv = ["irc", "compile", "examples/softmax.kdsl", "-o", sys.argv[1]]
        try:
            cli.main()
        except SystemExit as e:
            assert not e.code, e.code
        print(misses)
        """
    )
    out = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path / "s.ptx")],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
        env={**os.environ, "IRC_CACHE_DIR": str(tmp_path / "cache")},
    )
    assert out.stdout.strip() == "[]"
    assert ".entry softmax" in (tmp_path / "s.ptx").read_text()


def test_a_class_not_in_the_package_is_compiled_correctly() -> None:
    from irc import records

    @records.record(frozen=True)
    class NotShipped:
        a: int
        b: str = "x"

    assert NotShipped(1) == NotShipped(1, "x") and hash(NotShipped(2)) == hash(NotShipped(2))
    assert NotShipped(1).__init__.__code__.co_filename.endswith(".NotShipped>")  # compiled here


@pytest.mark.parametrize("planted", ["code", "garbage-bytecode", "not-marshal"])
def test_a_planted_records_cache_file_is_never_executed(tmp_path: Path, planted: str) -> None:
    """Before issue 27, `$IRC_CACHE_DIR/records-<interpreter>.marshal` held code objects, looked up by
    each record's source, that every start-up ran (`irc --version` included). A file of that name
    mapping every source to code that writes a marker (old irc wrote it), to garbage bytecode (old irc
    crashed) or holding no marshal at all is now inert: the real CLI succeeds, the marker never appears."""
    import marshal

    from irc.record_codes import CODES

    cache = tmp_path / "cache"
    cache.mkdir(mode=0o700)
    marker = tmp_path / "pwned"
    evil = compile(f"open({str(marker)!r}, 'w').write('x')\ndef __init__(self): pass\n", "<evil>", "exec")
    if planted == "garbage-bytecode":
        evil = evil.replace(co_code=bytes([0xFF, 0x7F] * (len(evil.co_code) // 2)))
    tag = f"{sys.implementation.cache_tag}-{sys.hexversion:x}"
    blob = marshal.dumps(dict.fromkeys(CODES, evil)) if planted != "not-marshal" else b"\xe3" + os.urandom(64)
    (cache / f"records-{tag}.marshal").write_bytes(blob)
    env = {**os.environ, "IRC_CACHE_DIR": str(cache)}
    irc = [sys.executable, "-m", "irc.cli"]
    v = subprocess.run([*irc, "--version"], capture_output=True, text=True, env=env, cwd=ROOT)
    c = subprocess.run(
        [*irc, "compile", "examples/vector_add.kdsl", "-o", str(tmp_path / "v.ptx")],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
    )
    assert (v.returncode, c.returncode) == (0, 0), v.stderr + c.stderr
    assert v.stdout.startswith("irc ") and not marker.exists()
    assert ".entry vector_add" in (tmp_path / "v.ptx").read_text()


if __name__ == "__main__":
    if sys.argv[1:] != ["--update"]:
        pytest.main([__file__, "-q"])
    else:
        GENERATED.write_text(render(collect()), encoding="utf-8")
        print(f"wrote {GENERATED.relative_to(ROOT)}")
