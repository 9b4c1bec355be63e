"""The .kdsl parser's LALR tables as plain data, shipped inside the package so that a compile never
imports lark and never reads tables from anywhere but the package.

Why: importing lark costs about 36 ms and building the tables another 400-500 ms, several times a small
`irc compile` (issue 15). They used to be cached in the user cache directory after the first run; a file
planted or damaged there could change what compiles (`true` parsing as `false`) or break every run until
deleted (issue 27). Now lark builds them at development time into `irc/grammar/kdsl.tables.json` (one
JSON document, reviewed like any other file), `tests/test_kdsl_tables.py` checks that the file is what the
installed lark builds from `kdsl.lark` today (`python tests/test_kdsl_tables.py --update` rewrites it), and
`load` reads only that file. When the grammar in the package differs from the one the file was built from
(a developer editing `kdsl.lark`), `load` builds the tables with lark in memory, every run, and writes
nothing.

The data (JSON, so only lists, dicts, strings, numbers and booleans):
- `format`, `grammar` (the text it was built from: the file is used only for exactly that text), `lark`
  (the lark version that built it, for the record);
- `table[state][symbol]`: a state (shift, or goto for a nonterminal) when >= 0, `~rule` for a reduction;
- `rules[r]`: (size, lhs name, is_unit), as the driver uses them; `rule_keys[r]` names the rule
  (`lhs: symbols`);
- `actions[r]`: what lark's parse-tree builder does on reducing rule r, recorded so that `reducers` can
  do the same without lark: (callback name, expand a single child, child filter or None), the filter being
  ((child index, inline it, Nones before it), ...) and the Nones to append (`[x]` placeholders);
- `terminals`: (name, "str" | "re", literal text or regular expression), sorted by name.
lark numbers states and rules differently from one build to the next, so `build` renumbers them
canonically (states in breadth-first order from the start state, symbols in sorted order; rules in the
order that walk first reduces them): the same grammar always gives the same file.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

FORMAT = 3  # bump when the layout of the data changes
GRAMMAR_DIR = Path(__file__).resolve().parent.parent.parent / "grammar"
SHIPPED = GRAMMAR_DIR / "kdsl.tables.json"


def grammar_text() -> str:
    return (GRAMMAR_DIR / "kdsl.lark").read_text(encoding="utf-8")


def load(text: str) -> dict[str, Any]:
    """The tables for grammar `text`: the shipped file when it was built from exactly this text, else
    built now with lark (nothing is cached: see the module doc)."""
    try:
        data = json.loads(SHIPPED.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        data = None
    if isinstance(data, dict) and data.get("format") == FORMAT and data.get("grammar") == text:
        return data
    return build(text)


def build(text: str) -> dict[str, Any]:
    """Build the tables with lark (LALR(1), the options the grammar is written for), canonically numbered."""
    import lark
    from lark.parsers.lalr_analysis import Shift

    lk = lark.Lark(text, parser="lalr", lexer="basic", maybe_placeholders=True)
    conf = lk.parse_interactive().parser_state.parse_conf
    states = conf.states
    order = {conf.start_state: 0}  # lark's state -> ours
    queue = [conf.start_state]
    rule_index: dict = {}  # lark's Rule -> ours
    rules: list[list] = []
    keys: list[str] = []
    actions: list[list] = []
    table: list[dict[str, int]] = []
    for state in queue:  # grows while it is walked: breadth first
        row: dict[str, int] = {}
        for sym in sorted(states[state], key=str):
            kind, arg = states[state][sym]
            if kind is Shift:
                if arg not in order:
                    order[arg] = len(queue)
                    queue.append(arg)
                row[str(sym)] = order[arg]
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
                rules.append([len(arg.expansion), str(arg.origin.name), unit])
                keys.append(f"{arg.origin.name}: {' '.join(str(x.name) for x in arg.expansion)}")
                actions.append(_action(arg))
            row[str(sym)] = ~r
        table.append(row)
    if len(queue) != len(states):
        raise RuntimeError(f"{len(states) - len(queue)} LALR states unreachable from the start state")
    terminals = sorted(
        [t.name, "str", t.pattern.value] if t.pattern.type == "str" else [t.name, "re", t.pattern.to_regexp()]
        for t in lk.terminals
    )
    return {
        "format": FORMAT,
        "lark": lark.__version__,
        "grammar": text,
        "start": 0,
        "end": order[conf.end_state],
        "table": table,
        "rules": rules,
        "actions": actions,
        "rule_keys": keys,
        "terminals": terminals,
    }


def render(data: dict[str, Any]) -> str:
    """`data` as the text of `kdsl.tables.json`: one key per line, one list item (a state, a rule) per
    line, so that a grammar change shows as a readable diff."""
    lines = ["{"]
    items = list(data.items())
    for n, (k, v) in enumerate(items):
        end = "," if n + 1 < len(items) else ""
        if isinstance(v, list) and v:
            inner = ",\n".join(f"  {json.dumps(x, separators=(',', ':'))}" for x in v)
            lines.append(f"{json.dumps(k)}: [\n{inner}\n]{end}")
        else:
            lines.append(f"{json.dumps(k)}: {json.dumps(v)}{end}")
    return "\n".join(lines) + "\n}\n"


def _action(rule) -> list:  # noqa: ANN001 - a lark Rule
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
    return [str(name), expand1, [[list(x) for x in include], pending] if needs else None]


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
