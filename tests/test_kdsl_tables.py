"""The .kdsl parser's tables as plain data shipped in the package (irc/frontend/kdsl/tables.py): the file is
exactly what the installed lark builds from the grammar, the reductions it drives build exactly the AST
that lark's own parse-tree builder would, nothing in the cache directory can change what compiles, and a
compile never imports lark.

Regenerate `irc/grammar/kdsl.tables.json` after editing `irc/grammar/kdsl.lark`:

    python tests/test_kdsl_tables.py --update
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from irc.deep import run_deep
from irc.diagnostics import CompileError
from irc.frontend.kdsl import parse as parse_mod
from irc.frontend.kdsl import tables
from irc.frontend.kdsl.builder import AstBuilder

ROOT = Path(__file__).resolve().parent.parent
SOURCES = sorted([*ROOT.glob("examples/*.kdsl"), *ROOT.glob("tests/data/**/*.kdsl")])


def _lark_callbacks(g: parse_mod._Grammar):
    """Reduction callbacks made by lark itself, in the rule order of `g`'s tables."""
    from lark import Lark
    from lark.parsers.lalr_analysis import Shift

    lk = Lark(tables.grammar_text(), parser="lalr", lexer="basic", maybe_placeholders=True)
    conf = lk.parse_interactive().parser_state.parse_conf
    by_key: dict = {}
    for _, acts in conf.states.items():
        for _, (kind, arg) in acts.items():
            if kind is not Shift:
                by_key[f"{arg.origin.name}: {' '.join(str(x.name) for x in arg.expansion)}"] = arg
    objs = [by_key[k] for k in g.rule_keys]  # lark numbers rules differently on every build
    return lambda builder: [lk._parse_tree_builder.create_callback(builder)[r] for r in objs]


def _parse_with(callbacks, text: str, path: str) -> str:
    g = parse_mod._grammar()
    lexed = g.lexer.tokenize(text, path)
    builder = AstBuilder(path)
    driver = parse_mod._Driver(g, lexed.tokens, builder, path, lexed.unterminated)
    if callbacks is not None:
        driver.callbacks = callbacks(builder)
    out = driver.run()
    # the repr of a 1,000-deep nesting test file recurses that deep
    return run_deep(lambda: repr(out) + repr(driver.diagnostics) + repr(builder.diagnostics))


def test_reductions_build_the_ast_lark_would_on_every_kdsl_file() -> None:
    assert len(SOURCES) > 40
    lark_cbs = _lark_callbacks(parse_mod._grammar())
    for path in SOURCES:
        text = path.read_text()
        assert _parse_with(None, text, str(path)) == _parse_with(lark_cbs, text, str(path)), path


def test_reductions_agree_on_broken_input_too() -> None:
    """Error recovery pops and re-reduces: the same callbacks must see the same children there."""
    lark_cbs = _lark_callbacks(parse_mod._grammar())
    for text in [
        "kernel k(a: *global f32 { let x = ; a[0] = 1.0 }",
        "fn f(x: i32) -> i32 { return x + ; }\nkernel k() { if { } }",
        "@launch(block = ) kernel k() { var v: [f32; 4] = [0.0; 4]; v[1] += 2.0 }",
    ]:
        assert _parse_with(None, text, "b.kdsl") == _parse_with(lark_cbs, text, "b.kdsl")
        with pytest.raises(CompileError):
            parse_mod.parse_kdsl(text, "b.kdsl")


def test_the_shipped_tables_are_what_lark_builds_from_the_grammar() -> None:
    """Canonical numbering makes the build reproducible; the file must be today's build of today's
    grammar (its `lark` field only records which version wrote it)."""
    built = tables.build(tables.grammar_text())
    assert tables.build(tables.grammar_text()) == built  # the same on every build
    shipped = json.loads(tables.SHIPPED.read_text(encoding="utf-8"))
    assert {**shipped, "lark": None} == {**built, "lark": None}, (
        f"{tables.SHIPPED.name} is stale (written by lark {shipped.get('lark')}, lark {built['lark']} "
        "installed): run `python tests/test_kdsl_tables.py --update`"
    )
    assert json.loads(tables.render(built)) == built


def test_load_reads_the_package_file_only(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("IRC_CACHE_DIR", str(tmp_path))

    def no_build(_text: str) -> dict:
        raise AssertionError("built although the package ships the tables")

    monkeypatch.setattr(tables, "build", no_build)
    data = tables.load(tables.grammar_text())
    assert data["table"] and data["rules"] and data["grammar"] == tables.grammar_text()
    assert list(tmp_path.iterdir()) == []  # nothing written to the cache directory


@pytest.mark.parametrize("damage", ["edited-grammar", "old-format", "missing", "not-json"])
def test_a_stale_or_missing_package_file_is_rebuilt_in_memory(tmp_path, monkeypatch, damage: str) -> None:
    text = tables.grammar_text()
    f = tmp_path / "kdsl.tables.json"
    shipped = json.loads(tables.SHIPPED.read_text(encoding="utf-8"))
    if damage == "edited-grammar":  # what a developer editing kdsl.lark has until --update
        f.write_text(json.dumps({**shipped, "grammar": text + "\n// edited", "table": []}))
    elif damage == "old-format":
        f.write_text(json.dumps({**shipped, "format": tables.FORMAT - 1, "table": []}))
    elif damage == "not-json":
        f.write_bytes(b"\x00garbage")
    monkeypatch.setattr(tables, "SHIPPED", f)
    built = []
    real_build = tables.build
    monkeypatch.setattr(tables, "build", lambda t: built.append(1) or real_build(t))
    assert tables.load(text) == real_build(text)
    assert built == [1]


def test_a_compile_imports_neither_lark_nor_numpy(tmp_path) -> None:
    env = {**os.environ, "IRC_CACHE_DIR": str(tmp_path)}
    code = (
        "import sys\n"
        "from irc.compiler import CompileOptions, compile_kdsl\n"
        f"res = compile_kdsl(open({str(ROOT / 'examples/vector_add.kdsl')!r}).read(), 'v.kdsl', CompileOptions())\n"
        "assert '.entry' in res.ptx_text\n"
        "print(sorted(m for m in ('lark', 'numpy') if m in sys.modules))\n"
    )
    first = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert first.stdout.strip() == "[]"  # also the first run: no tables are built at run time
    assert list(tmp_path.iterdir()) == []


if __name__ == "__main__":
    if sys.argv[1:] != ["--update"]:
        pytest.main([__file__, "-q"])
    else:
        tables.SHIPPED.write_text(tables.render(tables.build(tables.grammar_text())), encoding="utf-8")
        print(f"wrote {tables.SHIPPED.relative_to(ROOT)}")
