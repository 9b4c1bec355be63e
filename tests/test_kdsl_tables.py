"""The .kdsl parser's tables as cached plain data (irc/frontend/kdsl/tables.py): the reductions they
drive build exactly the AST that lark's own parse-tree builder would, the cache is trusted only for the
grammar it was built from, and a warm compile never imports lark."""

from __future__ import annotations

import marshal
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


def test_cache_is_written_then_read_without_building(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("IRC_CACHE_DIR", str(tmp_path))
    text = tables.grammar_text()
    first = tables.load(text)
    files = list(tmp_path.glob("kdsl-tables-*.marshal"))
    assert len(files) == 1

    def no_build(_text: str) -> dict:
        raise AssertionError("rebuilt although the cache holds the tables")

    monkeypatch.setattr(tables, "build", no_build)
    assert tables.load(text) == first


@pytest.mark.parametrize("damage", ["truncated", "other-grammar", "old-format", "not-marshal"])
def test_a_damaged_or_foreign_cache_file_is_rebuilt(tmp_path, monkeypatch, damage: str) -> None:
    monkeypatch.setenv("IRC_CACHE_DIR", str(tmp_path))
    text = tables.grammar_text()
    good = tables.load(text)
    (f,) = tmp_path.glob("kdsl-tables-*.marshal")
    blob = f.read_bytes()
    if damage == "truncated":
        f.write_bytes(blob[: len(blob) // 2])
    elif damage == "other-grammar":
        f.write_bytes(marshal.dumps({**good, "grammar": text + "\n// edited", "table": {}}))
    elif damage == "old-format":
        f.write_bytes(marshal.dumps({**good, "format": tables.FORMAT - 1, "table": {}}))
    else:
        f.write_bytes(b"\x00garbage")
    built = []
    real_build = tables.build
    monkeypatch.setattr(tables, "build", lambda t: built.append(1) or real_build(t))
    again = tables.load(text)
    assert built == [1]
    assert again["format"] == tables.FORMAT and again["grammar"] == text
    assert len(again["rules"]) == len(good["rules"])  # lark numbers states anew on every build
    assert marshal.loads(f.read_bytes()) == again  # and the file is repaired


def test_unwritable_cache_directory_still_parses(tmp_path, monkeypatch) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    monkeypatch.setenv("IRC_CACHE_DIR", str(blocker / "sub"))
    data = tables.load(tables.grammar_text())
    assert data["table"] and data["rules"]


def test_a_warm_compile_imports_neither_lark_nor_numpy(tmp_path) -> None:
    env = {**os.environ, "IRC_CACHE_DIR": str(tmp_path)}
    code = (
        "import sys\n"
        "from irc.compiler import CompileOptions, compile_kdsl\n"
        f"res = compile_kdsl(open({str(ROOT / 'examples/vector_add.kdsl')!r}).read(), 'v.kdsl', CompileOptions())\n"
        "assert '.entry' in res.ptx_text\n"
        "print(sorted(m for m in ('lark', 'numpy') if m in sys.modules))\n"
    )
    cold = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    warm = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert cold.stdout.strip() == "['lark']"  # the first run builds the tables with lark
    assert warm.stdout.strip() == "[]"
