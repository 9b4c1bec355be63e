"""PTX templates of the op table (`irc.ir.optable`, field `ptx`), parsed once.

A template is "OPCODE OPERANDS". OPCODE is a dotted PTX opcode whose `{name}` placeholders are filled by
instruction selection (type rules or attributes); OPERANDS is a comma list of `%k` (result k), `$k`
(operand k), `[$k]` (the address in operand k; `[$k+name]` plus the byte offset in attribute `name`),
`{...}` (a vector), `%*` (all results), `$i..j` (operands i..j, inside a vector), `#name` (an attribute
as an immediate), `@name` (the symbol an attribute names), `%@name` (the special register an attribute
names), `_|%k` (result k as the predicate half of a sink pair) and integer immediates. The same
parse serves both directions: instruction selection spells an op (`irc.backends.ptx.isel`) and the PTX
lifter inverts the opcodes into its PTX -> IR map (`opcode_key`).
"""

from __future__ import annotations

import re
from functools import cache

from irc.records import record

__all__ = ["Operand", "Parsed", "parse", "opcode_key", "placeholders", "TYPE_PLACEHOLDER"]

_PLACEHOLDER = re.compile(r"\{(\w+)\}")
#: A placeholder that instruction selection fills from a type (`{a}`, `{i0}`, ...; `irc.backends.ptx.isel`
#: has the rule of each); any other `{name}` is an attribute (or `{fpred}`).
TYPE_PLACEHOLDER = re.compile(r"^(a|i|s|b|w|h|sel|m|sp)(\d?)$")


@record(frozen=True)
class Operand:
    """One operand of a template: kind is res | opd | addr | vec | allres | range | attr | imm | sym | sreg
    | sinkpair."""

    kind: str
    index: int = 0
    end: int = 0
    name: str = ""
    items: tuple[Operand, ...] = ()


@record(frozen=True)
class Parsed:
    opcode: str
    operands: tuple[Operand, ...] | None  # None: all results, then all operands


def _split_top(text: str) -> list[str]:
    out, depth, cur = [], 0, ""
    for ch in text:
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


def _operand(text: str) -> Operand:
    if text.startswith("{") and text.endswith("}"):
        return Operand("vec", items=tuple(_operand(x) for x in _split_top(text[1:-1])))
    if text == "%*":
        return Operand("allres")
    m = re.fullmatch(r"\[\$(\d+)(?:\+(\w+))?\]", text)
    if m:
        return Operand("addr", int(m.group(1)), name=m.group(2) or "")
    m = re.fullmatch(r"_\|%(\d+)", text)
    if m:
        return Operand("sinkpair", int(m.group(1)))
    if text.startswith("%@"):
        return Operand("sreg", name=text[2:])
    if text.startswith("@"):
        return Operand("sym", name=text[1:])
    m = re.fullmatch(r"\$(\d+)\.\.(\d+)", text)
    if m:
        return Operand("range", int(m.group(1)), int(m.group(2)))
    if text.startswith("%"):
        return Operand("res", int(text[1:]))
    if text.startswith("$"):
        return Operand("opd", int(text[1:]))
    if text.startswith("#"):
        return Operand("attr", name=text[1:])
    if re.fullmatch(r"-?\d+", text):
        return Operand("imm", int(text))
    raise ValueError(f"bad template operand {text!r}")


@cache
def parse(template: str) -> Parsed:
    """Split a template into its opcode pattern and operand list (ValueError on a malformed one)."""
    head, _, rest = template.strip().partition(" ")
    ops = tuple(_operand(x) for x in _split_top(rest)) if rest.strip() else None
    return Parsed(head, ops)


def placeholders(opcode: str) -> list[str]:
    """The `{name}` placeholders of an opcode pattern, in order."""
    return _PLACEHOLDER.findall(opcode)


def opcode_key(opcode: str) -> tuple[str, frozenset[str]]:
    """(base, fixed modifiers) of an opcode pattern: the tokens a PTX instruction must carry to be this op
    (`mul.hi.{i}` -> ("mul", {"hi"})); tokens with a placeholder vary and are not part of the key."""
    toks = opcode.split(".")
    return toks[0], frozenset(t for t in toks[1:] if "{" not in t)
