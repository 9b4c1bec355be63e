"""The .kdsl parser's LALR tables as plain data, cached so that a compile never imports lark.

Why: importing lark costs about 36 ms and rebuilding its parser from lark's own cache another 15 ms, a
third of a small `irc compile` (issue 15). lark is still what builds the tables (`build`, the first run
after the grammar or Python changes); what the driver in `parse.py` and the lexer need is then written to
`$IRC_CACHE_DIR/kdsl-tables-*.marshal` and read back with `marshal` on every later run.

The data (a dict of builtins only, so `marshal` can hold it):
- `grammar`: the grammar text it was built from; a file whose text differs is rebuilt (the file name's
  CRC only spreads grammars over names, equality of the text is what is trusted);
- `table[state][symbol]`: a state (shift, or goto for a nonterminal) when >= 0, `~rule` for a reduction;
- `rules[r]`: (size, lhs name, is_unit), as the driver uses them; `rule_keys[r]` names the rule
  (`lhs: symbols`), since lark numbers states and rules differently from one build to the next;
- `actions[r]`: what lark's parse-tree builder does on reducing rule r, recorded so that `reducers` can
  do the same without lark: (callback name, expand a single child, child filter or None), the filter being
  ((child index, inline it, Nones before it), ...) and the Nones to append (`[x]` placeholders);
- `terminals`: (name, "str" | "re", literal text or regular expression), in lark's order.
"""

from __future__ import annotations

import marshal
import os
import sys
import zlib
from pathlib import Path
from typing import Any

FORMAT = 2  # bump when the layout of the data changes


def grammar_text() -> str:
    return (Path(__file__).resolve().parent.parent.parent / "grammar" / "kdsl.lark").read_text(
        encoding="utf-8"
    )


def _cache_file(text: str) -> Path | None:
    from irc.cachedir import cache_dir

    key = (
        f"{zlib.crc32(text.encode()):08x}-{len(text)}-f{FORMAT}-py{sys.version_info[0]}{sys.version_info[1]}"
    )
    d = cache_dir()
    try:
        d.mkdir(parents=True, exist_ok=True)
    except OSError:
        return None
    return d / f"kdsl-tables-{key}.marshal"


def load(text: str) -> dict[str, Any]:
    """The tables for grammar `text`: from the cache when it holds them, else built (and cached when the
    cache directory is writable). A damaged or foreign cache file is rebuilt, never trusted."""
    path = _cache_file(text)
    if path is not None:
        try:
            data = marshal.loads(path.read_bytes())
            if isinstance(data, dict) and data.get("format") == FORMAT and data.get("grammar") == text:
                return data
        except (OSError, EOFError, ValueError, TypeError):
            pass
    data = build(text)
    if path is not None:
        tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
        try:
            tmp.write_bytes(marshal.dumps(data))
            os.replace(tmp, path)  # atomic: a concurrent reader sees the old file or the whole new one
        except OSError:
            try:
                tmp.unlink()
            except OSError:
                pass
    return data


def build(text: str) -> dict[str, Any]:
    """Build the tables with lark (LALR(1), the options the grammar is written for)."""
    from lark import Lark
    from lark.parsers.lalr_analysis import Shift

    lk = Lark(text, parser="lalr", lexer="basic", maybe_placeholders=True)
    conf = lk.parse_interactive().parser_state.parse_conf
    rule_index: dict = {}
    rules: list[tuple[int, str, bool]] = []
    keys: list[str] = []
    actions: list[tuple] = []
    table: dict[int, dict[str, int]] = {}
    for state, acts in conf.states.items():
        row: dict[str, int] = {}
        for sym, (kind, arg) in acts.items():
            if kind is Shift:
                row[str(sym)] = arg
                continue
            r = rule_index.get(arg)
            if r is None:
                r = rule_index[arg] = len(rules)
                unit = (
                    len(arg.expansion) == 1
                    and bool(arg.options.expand1)
                    and arg.alias is None
                    and not arg.expansion[0].is_term
                )
                rules.append((len(arg.expansion), str(arg.origin.name), unit))
                keys.append(f"{arg.origin.name}: {' '.join(str(x.name) for x in arg.expansion)}")
                actions.append(_action(arg))
            row[str(sym)] = ~r
        table[state] = row
    terminals = [
        (t.name, "str", t.pattern.value) if t.pattern.type == "str" else (t.name, "re", t.pattern.to_regexp())
        for t in lk.terminals
    ]
    return {
        "format": FORMAT,
        "grammar": text,
        "table": table,
        "start": conf.start_state,
        "end": conf.end_state,
        "rules": rules,
        "actions": actions,
        "rule_keys": keys,
        "terminals": terminals,
    }


def _action(rule) -> tuple:  # noqa: ANN001 - a lark Rule
    """What lark's parse-tree builder (maybe_placeholders, no position propagation, LALR) does when it
    reduces `rule`, as data: the same child filtering (anonymous tokens dropped unless `!rule`, `_rule`
    children inlined, `[x]` placeholders as None) and single-child expansion of `?rule`."""
    opts = rule.options
    name = rule.alias or opts.template_source or rule.origin.name
    expand1 = bool(opts.expand1) and not rule.alias
    empty = list(opts.empty_indices or ())
    n = len(rule.expansion)
    if empty:
        bits = "".join(str(int(b)) for b in empty)
        nones = [len(ones) for ones in bits.split("0")]
    else:
        nones = [0] * (n + 1)
    include: list[tuple[int, bool, int]] = []
    pending = 0
    for i, sym in enumerate(rule.expansion):
        pending += nones[i]
        if opts.keep_all_tokens or not (sym.is_term and sym.filter_out):
            include.append((i, (not sym.is_term) and sym.name.startswith("_"), pending))
            pending = 0
    pending += nones[n]
    needs = bool(empty) or len(include) < n or any(x for _, x, _ in include)
    return (str(name), expand1, (tuple(include), pending) if needs else None)


class Inlined:
    """The value of a rule the builder has no method for (lark would make a `Tree`): only ever a `_rule`
    whose children a parent rule inlines."""

    __slots__ = ("data", "children")

    def __init__(self, data: str, children: list):
        self.data, self.children = data, children


def reducers(actions: list[tuple], builder: object) -> list:
    """One reduction callback per rule, bound to `builder` (its method named like the rule, or `Inlined`)."""
    out = []
    for name, expand1, filt in actions:
        f = getattr(builder, name, None)
        if f is None:
            f = _inlined(name)
        if expand1:
            f = _expand_single(f)
        if filt is not None:
            f = _filtered(f, filt[0], filt[1])
        out.append(f)
    return out


def _inlined(name: str):
    return lambda children: Inlined(name, children)


def _expand_single(f):
    return lambda children: children[0] if len(children) == 1 else f(children)


def _filtered(f, include: tuple, append_none: int):
    def call(children: list):
        kept: list = []
        for i, inline, nones in include:
            if nones:
                kept += [None] * nones
            if inline:
                kept += children[i].children
            else:
                kept.append(children[i])
        if append_none:
            kept += [None] * append_none
        return f(kept)

    return call
