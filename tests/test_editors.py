"""Editor support: the Pygments lexer (entry point `kdsl`) and the TextMate grammar
`editors/kdsl.tmLanguage.json`, both checked against the front end's own word lists and on every example,
every kdsl block of docs/language.md and the language-feature kernels."""

from __future__ import annotations

import json
import re
from importlib import metadata
from pathlib import Path

import pytest
from pygments.token import Comment, Error, Keyword, Name, Number, String

from irc.frontend.kdsl import vocabulary as v
from irc.tooling import tmlanguage
from irc.tooling.highlight import KdslLexer

ROOT = Path(__file__).resolve().parent.parent
GRAMMAR = ROOT / "editors" / "kdsl.tmLanguage.json"


def sources() -> list:
    out = [
        pytest.param(p.read_text(encoding="utf-8"), id=p.name)
        for p in sorted((ROOT / "examples").glob("*.kdsl"))
    ]
    doc = (ROOT / "docs" / "language.md").read_text(encoding="utf-8")
    for k, m in enumerate(re.finditer(r"^```kdsl[^\n]*\n(.*?)^```", doc, re.S | re.M)):
        out.append(pytest.param(m.group(1), id=f"language.md-{k}"))
    import test_lang_features as feat

    for name in ("HEADS", "RO_SRC", "UNROLL_SRC", "DYN_SRC"):
        out.append(pytest.param(getattr(feat, name), id=name))
    return out


# ------------------------------------------------------------------------------------------ Pygments
@pytest.mark.parametrize("text", sources())
def test_pygments_lexes_without_error_tokens(text: str) -> None:
    toks = list(KdslLexer(stripnl=False).get_tokens(text))
    bad = [(t, s) for t, s in toks if t in Error]
    assert not bad, bad[:10]
    assert "".join(s for _, s in toks) == (text if text.endswith("\n") else text + "\n")


def _kinds(text: str) -> dict[str, object]:
    return {s: t for t, s in KdslLexer().get_tokens(text) if s.strip()}


def test_pygments_covers_every_word_of_the_language() -> None:
    for word in v.keywords():
        assert _kinds(word)[word] in Keyword, word
    for word in v.types():
        assert _kinds(word)[word] in Keyword.Type, word
    for word in v.intrinsics():
        assert _kinds(word)[word] is Name.Builtin, word
    for word in v.builtins():
        assert _kinds(word)[word] is Name.Builtin.Pseudo, word
    assert _kinds("0x2Au32 1.5e3f32 .5")["0x2Au32"] in Number.Integer


def test_pygments_new_features() -> None:
    src = 'static_assert(D % 32 == 0, "msg"); // irc: allow(self-cancel)\nlet u = bitcast<u32>(x);'
    k = _kinds(src)
    assert k["static_assert"] in Keyword and k['"msg"'] in String and k["bitcast"] in Keyword
    assert k["// irc: allow(self-cancel)"] is Comment.Special


def test_pygments_entry_point_is_declared_and_loads() -> None:
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    pp = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    target = pp["project"]["entry-points"]["pygments.lexers"]["kdsl"]
    assert target == "irc.tooling.highlight:KdslLexer"
    eps = [e for e in metadata.entry_points(group="pygments.lexers") if e.name == "kdsl"]
    if eps:  # installed metadata predating the entry point (an old `pip install -e`) has none
        from pygments.lexers import get_lexer_by_name, get_lexer_for_filename

        assert eps[0].load() is KdslLexer
        assert isinstance(get_lexer_by_name("kdsl"), KdslLexer)
        assert isinstance(get_lexer_for_filename("k.kdsl"), KdslLexer)


# ----------------------------------------------------------------------------------------- TextMate
def grammar() -> dict:
    return json.loads(GRAMMAR.read_text(encoding="utf-8"))


def test_textmate_file_is_the_generated_grammar() -> None:
    assert GRAMMAR.read_text(encoding="utf-8") == tmlanguage.render(), (
        "regenerate: python -m irc.tooling.tmlanguage > editors/kdsl.tmLanguage.json"
    )


def _rules(g: dict) -> list[dict]:
    """The top-level rules in order, with includes resolved (nested `patterns` flattened)."""
    out: list[dict] = []

    def walk(r: dict) -> None:
        if "include" in r:
            walk(g["repository"][r["include"][1:]])
        elif "patterns" in r and "begin" not in r:
            for x in r["patterns"]:
                walk(x)
        else:
            out.append(r)

    for r in g["patterns"]:
        walk(r)
    return out


def test_textmate_regexes_compile() -> None:
    n = 0
    for r in _rules(grammar()):
        for key in ("match", "begin", "end"):
            if key in r:
                re.compile(r[key])
                n += 1
    assert n >= 15


def _scope_of(word: str) -> str:
    """What the grammar gives `word` alone: the scope of the rule that matches all of it first."""
    for r in _rules(grammar()):
        if "match" in r:
            m = re.compile(r["match"]).match(word)
            if m and m.end() == len(word):
                return r.get("name") or r["captures"]["1"]["name"]
    return "<none>"


def test_textmate_covers_every_word_of_the_language() -> None:
    for word in v.keywords():
        assert _scope_of(word).split(".")[0] in ("keyword", "storage"), word
    for word in v.types():
        assert _scope_of(word) == "storage.type.kdsl", word
    for word in v.intrinsics():
        assert _scope_of(word) == "support.function.builtin.kdsl", word
    for word in v.builtins():
        assert _scope_of(word) == "variable.language.kdsl", word
    for word in v.CONSTANTS:
        assert _scope_of(word) == "constant.language.kdsl", word
    assert _scope_of("0x2Au32") == "constant.numeric.integer.kdsl"
    assert _scope_of("2.5e3f32") == "constant.numeric.float.kdsl"


def tm_tokenize(text: str) -> list[tuple[str, str]]:
    """A small TextMate engine (enough for this grammar): per line, the rule whose match starts earliest
    wins (ties: grammar order); begin/end rules may span lines. Returns (scope, text) pairs and raises
    on a character no rule covers."""
    rules = [(r, re.compile(r.get("match") or r["begin"])) for r in _rules(grammar())]
    out: list[tuple[str, str]] = []
    open_rule: dict | None = None
    for line in text.splitlines():
        pos = 0
        while pos < len(line):
            if open_rule is not None:
                m = re.compile(open_rule["end"]).search(line, pos)
                stop = m.end() if m else len(line)
                out.append((open_rule["name"], line[pos:stop]))
                pos = stop
                if m:
                    open_rule = None
                continue
            best = None
            for r, rx in rules:
                m = rx.search(line, pos)
                if m and m.end() > m.start() and (best is None or m.start() < best[1].start()):
                    best = (r, m)
            if best is None or line[pos : best[1].start()].strip():
                gap = line[pos:] if best is None else line[pos : best[1].start()]
                if gap.strip():
                    raise AssertionError(f"no TextMate rule covers {gap.strip()[:20]!r} in {line!r}")
                break
            r, m = best
            if "begin" in r:
                open_rule = r
                out.append((r["name"], m.group(0)))
            else:
                out.append((r.get("name") or r["captures"]["2"]["name"], m.group(0)))
            pos = m.end()
    return out


@pytest.mark.parametrize("text", sources())
def test_textmate_tokenizes_every_example(text: str) -> None:
    toks = tm_tokenize(text)
    assert toks
    words = {s: scope for scope, s in toks}
    if "kernel" in text:
        assert any(scope == "entity.name.function.kdsl" for scope, _ in toks)
    if "barrier()" in text:
        assert words["barrier"] == "support.function.builtin.kdsl"
