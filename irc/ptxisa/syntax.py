"""PTX instruction syntax: which opcode + modifier combinations exist, which operands each takes, and the
`.version` and targets each needs. The rows are in `irc.ptxisa.syntax_table`; this module reads them and
matches an opcode against them.

Why a table and a matcher: `irc check` must reject what ptxas rejects (`atom.shared.frobnicate.u32`,
`add.s32 %f1, ...`, `wgmma` on sm_100a) without ever rejecting valid PTX, and the answer must come from one
place that a reader can compare with the PTX ISA manual. The rows are written in the manual's own notation
(`add{.rnd}{.ftz}{.sat}.f32 d, a, b`), so a row is checked against the manual by reading it, and against
ptxas by `tests/test_ptx_syntax.py` (every row's canonical spelling is assembled; its neighbours with one
modifier dropped, doubled or replaced are compared) and by the differential campaign (`tests/fuzz/ptxval.py`).

How ptxas reads modifiers (measured with ptxas 13.5): as a set, not a sequence. `atom.add.shared.u32`,
`atom.shared.add.u32` and `atom.u32.shared.add` are the same instruction; only the *types* keep their order
(`cvt.f32.s32` converts s32 to f32). So a form matches when every modifier fills one of its slots, each slot
at most once, every required slot is filled, and the type modifiers fill the form's type slots in order.

Row notation (one block per stem, `== stem`):
  `.name = .a .b .c`            a slot and its spellings (`.name += ...` adds more); a spelling may carry a gate: `.shared::cta[7.8]`,
                                `.cluster[7.8 sm_90]` (PTX ISA version and/or gate family of `irc.target`).
  `stem{.slot}.slot.lit  OPS`    a form: `{.x}` optional, `.x` required; a name that is no slot is a literal.
                                A trailing `[8.0 sm_90]` gates the whole form.
  OPS: the operands, comma-separated: `KIND[:TYPE][?]` (`?`: may be omitted, only at the end). KIND:
       d   destination register              d_  destination register or the sink `_`
       s   source register or immediate      r   source register only          i   immediate only
       m   address `[...]`                   p   predicate destination (`p|q` allowed when written `pq`)
       mt  tensor-memory address `[...]` (a 32-bit register)
       n   predicate source, `!` allowed     l   label or symbol               x   anything (not checked)
       dq  destination register, optionally paired with a predicate `d|p` (shfl.sync); dP: always paired
           (elect.sync)
       dp/sp  destination / source register, or a vector of registers that packs into the type (mov.b64)
       vd  vector destination / vs vector source, as many elements as the `.v2/.v4/.v8` modifier says
           (a scalar without one)
       `?^MOD`: the operand is there exactly when the opcode has the modifier `.MOD` (the cache policy of
       `.L2::cache_hint`). Forms that differ only in their operands are told apart by them.
       TYPE: `T` the form's last type modifier (the default), `T0`/`T1`/`T2` its first/second/third,
       `2T` twice as wide as T (`mul.wide`), a PTX type (`u32`, `pred`, `b64`), or `*` (any register).
  `OPS ~` at the end of a form: registers may be wider than the type (the relaxed rule of ld/st/cvt).
  A form without OPS (`-`) has its operands left unchecked.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from functools import cache

from irc.records import record

__all__ = [
    "TYPES",
    "Elem",
    "OpSpec",
    "Form",
    "Match",
    "Mismatch",
    "match",
    "stem_of",
    "stems",
    "vocabulary",
    "type_size",
    "reg_compatible",
    "imm_compatible",
]

#: Every PTX type spelling that can appear as an instruction modifier (order-preserving slots).
TYPES: frozenset[str] = frozenset(
    (
        ".pred .b8 .b16 .b32 .b64 .b128 .u8 .u16 .u32 .u64 .s8 .s16 .s32 .s64 .f16 .f16x2 .bf16 .bf16x2 .f32 "
        ".f64 .tf32 .e4m3 .e5m2 .e4m3x2 .e5m2x2 .e4m3x4 .e5m2x4 .e2m1x2 .e2m1x4 .e2m3x2 .e3m2x2 .e2m3x4 "
        ".e3m2x4 .ue8m0x2 .u16x2 .s16x2 .f32x2 .b1024 .s4 .u4 .b1 .e2m1 .e2m3 .e3m2 .ue8m0 .ue4m3 .f8f6f4"
    ).split()
)


@record(frozen=True)
class Need:
    """What a form or a spelling needs: the lowest PTX ISA `.version` (None: any) and a gate family of `irc.target` (None: any)."""

    version: tuple[int, int] | None = None
    family: str | None = None
    removed: bool = False  # `[-6.4 sm_70]`: gone from that version on the family's targets (vote w/o .sync)


@record(frozen=True)
class Elem:
    """One modifier position of a form: the spellings it takes (with their own gates), whether it may be
    left out, and whether it holds a type (types are matched in order)."""

    name: str
    values: tuple[str, ...]
    optional: bool
    is_type: bool
    gates: tuple[tuple[str, Need], ...] = ()

    def gate_of(self, value: str) -> Need | None:
        for v, g in self.gates:
            if v == value:
                return g
        return None


@record(frozen=True)
class OpSpec:
    """One operand: its kind and type (see the module docstring), whether it may be left out, whether a
    `|pred` pair is allowed, and the modifier it comes with (`iff`)."""

    kind: str
    type: str
    optional: bool
    pair: bool = False
    iff: str | None = None  # `s:b64?^L2::cache_hint`: present exactly when the opcode has that modifier


@record(frozen=True)
class Form:
    stem: str
    text: str
    head: str
    elems: tuple[Elem, ...]
    operands: tuple[OpSpec, ...] | None
    relaxed: bool
    gate: Need | None


@record(frozen=True)
class Match:
    """A form an opcode matches: the type modifiers in order, the vector width (1 without `.vN`), and the
    requirements of the form and of every spelling used."""

    form: Form
    types: tuple[str, ...]
    vec: int
    gates: tuple[tuple[str, Need], ...]  # (what needs it, the gate)


@record(frozen=True)
class Mismatch:
    """Why no form matches: the message names the first culprit (an unknown or repeated modifier, or the
    modifier set that no form takes)."""

    message: str
    culprit: str | None = None  # the modifier the caret points at, when there is one


def _parse_gate(text: str) -> Need:
    version = None
    family = None
    removed = text.strip().startswith("-")
    for w in text.replace("-", " ", 1).split() if removed else text.split():
        if w[0].isdigit():
            a, b = w.split(".")
            version = (int(a), int(b))
        else:
            family = w
    return Need(version, family, removed)


def _split_value(tok: str) -> tuple[str, Need | None]:
    if tok.endswith("]") and "[" in tok:
        v, g = tok[:-1].split("[", 1)
        return v, _parse_gate(g)
    return tok, None


def _form_tokens(spec: str, stem: str) -> list[tuple[str, bool]]:
    """`{.rnd}{.ftz}.f32` -> [(".rnd", True), (".ftz", True), (".f32", False)]."""
    out: list[tuple[str, bool]] = []
    i = 0
    while i < len(spec):
        if spec[i] == "{":
            j = spec.index("}", i)
            out.append((spec[i + 1 : j], True))
            i = j + 1
        elif spec[i] == ".":
            j = i + 1
            while j < len(spec) and spec[j] not in ".{":
                if spec[j] == "[":
                    j = spec.index("]", j)
                j += 1
            out.append((spec[i:j], False))
            i = j
        else:
            raise ValueError(f"bad form {stem}{spec!r} at {i}")
    return out


def _parse_ops(text: str) -> tuple[tuple[OpSpec, ...] | None, bool]:
    text = text.strip()
    relaxed = text.endswith("~")
    if relaxed:
        text = text[:-1].strip()
    if text == "-":
        return None, relaxed
    if not text:
        return (), relaxed
    out = []
    for part in text.split(","):
        p, _, iff = part.strip().partition("^")
        opt = p.endswith("?")
        p = p.rstrip("?")
        kind, _, typ = p.partition(":")
        pair = kind in ("pq", "dq", "dP")
        if kind == "pq":
            kind = "p"
        if out and out[-1].optional and not opt:
            raise ValueError(f"operand {part!r} after an optional one (write two forms): {text!r}")
        out.append(
            OpSpec(
                kind, typ or ("pred" if kind in ("p", "n") else "T"), opt, pair, "." + iff if iff else None
            )
        )
    return tuple(out), relaxed


#: ptxas's leniencies (measured), from the `%name word...` lines of the table: `ignored` modifiers are
#: accepted and ignored on every instruction, `repeatable` ones may be written twice, and the stems in
#: `pred-ignored` accept a stray `.pred` type (not in their integer `.hi`/`.lo`/`.wide` forms).
_QUIRKS: dict[str, set[str]] = {}
#: where ptxas reads a modifier as part of the opcode's name (`%head mul .hi .lo .wide`: `mul.s32.lo` is not
#: `mul.lo.s32`; `%second`: right after the head, `mbarrier.try_wait.parity`), and which spellings keep
#: their order like types (`%ordered cp.async .shared .global`: destination space first)
_PLACED: dict[str, dict[str, set[str]]] = {}
_HEAD = re.compile(r"((?:[^\s\[]|\[[^\]]*\])+)\s*(.*)")
_VALUE_TOKEN = re.compile(r"[^\s\[]+(?:\[[^\]]*\])?")


def _parse_table(text: str) -> dict[str, tuple[Form, ...]]:
    blocks: dict[str, list[Form]] = {}
    stem = ""
    slots: dict[str, tuple[tuple[str, ...], tuple[tuple[str, Need], ...]]] = {}
    pending: list[tuple[str, str]] = []
    cvt_rows: list[list[str]] = []
    cvt_gates: list[tuple[str, Need]] = []

    def flush() -> None:
        for spec, rest in pending:
            blocks.setdefault(stem, []).append(_make_form(stem, spec, rest, slots))
        pending.clear()

    for s in _table_lines(text):
        if s.startswith("== "):
            flush()
            stem = s[3:].strip()
            slots = {}
            continue
        if _cvt_line(s, cvt_rows, cvt_gates):
            continue
        if s.startswith(("%head", "%second", "%ordered")):
            key, stem_name, *words = s.split()
            _PLACED.setdefault(key[1:], {}).setdefault(stem_name, set()).update(words)
            continue
        if s.startswith("%"):
            key, *words = s.split()
            _QUIRKS.setdefault(key[1:], set()).update(words)
            continue
        if s.startswith(".") and (" = " in s or " += " in s):
            extend = " += " in s
            name, _, vals = s.partition(" += " if extend else " = ")
            values = []
            gates = []
            for tok in _VALUE_TOKEN.findall(vals):
                v, g = _split_value(tok)
                values.append(v)
                if g is not None:
                    gates.append((v, g))
            if extend:  # `.name += ...`: more spellings of a slot (one gate family per line)
                old_values, old_gates = slots[name.strip()]
                values, gates = list(old_values) + values, list(old_gates) + gates
            slots[name.strip()] = (tuple(values), tuple(gates))
            continue
        # a form: `stem...` then operands after whitespace, then an optional `[gate]`
        hm = _HEAD.match(s)
        assert hm is not None, s
        head, rest = hm.group(1), hm.group(2)
        if not head.startswith(stem):
            raise ValueError(f"form {head!r} outside its block {stem!r}")
        for variant in _expand(head):
            pending.append((variant, rest))
    flush()
    if cvt_rows:
        blocks.setdefault("cvt", [])[:0] = _cvt_forms(cvt_rows, cvt_gates)
    return {k: tuple(v) for k, v in blocks.items()}


_IRND = (".rni", ".rzi", ".rmi", ".rpi")
_FRND = (".rn", ".rz", ".rm", ".rp")


def _cvt_forms(rows: list[list[str]], gates: list[tuple[str, Need]]) -> list[Form]:
    """The `%cvt` matrix: one form per (destination, source) type pair. A cell is `x` (no such conversion)
    or a rounding code (`-` none, `i`/`I` an integer rounding required/optional, `f`/`F` a float rounding
    required/optional) followed by `z` (`.ftz` allowed) and `s` (`.sat` allowed)."""
    header, body = rows[0], rows[1:]
    out = []
    for row in body:
        dtype = "." + row[0]
        for atype, cell in zip(("." + a for a in header), row[1:]):
            if cell == "x":
                continue
            elems = []
            code = cell[0]
            if code in "iIfF":
                values = _IRND if code in "iI" else _FRND
                elems.append(Elem("irnd" if code in "iI" else "frnd", values, code in "IF", False))
            if "z" in cell:
                elems.append(Elem("ftz", (".ftz",), True, False))
            if "s" in cell:
                elems.append(Elem("sat", (".sat",), True, False))
            elems += [Elem(dtype[1:], (dtype,), False, True), Elem(atype[1:], (atype,), False, True)]
            ops = (OpSpec("d", "T0", False), OpSpec("s", "T1", False))
            pair = f"{dtype[1:]}.{atype[1:]}"
            # `%cvt-gate d.a` for one pair, `%cvt-gate t` for every pair with type t: the first that applies
            gate = next((g for p, g in gates if p == pair or p in pair.split(".")), None)
            out.append(
                Form("cvt", f"cvt{dtype}{atype} d, a", f"cvt{dtype}{atype}", tuple(elems), ops, True, gate)
            )
    return out


def _expand(head: str) -> list[str]:
    """An optional group of several modifiers (`{.xorsign.abs}`) is all or nothing: one form with it spelled
    out, one without."""
    i = head.find("{")
    while i != -1:
        j = head.index("}", i)
        if re.sub(r"\[[^\]]*\]", "", head[i:j]).count(".") > 1:
            with_ = head[:i] + head[i + 1 : j] + head[j + 1 :]
            without = head[:i] + head[j + 1 :]
            return _expand(with_) + _expand(without)
        i = head.find("{", j)
    return [head]


def _make_form(stem: str, head: str, rest: str, slots) -> Form:  # type: ignore[no-untyped-def]
    gate = None
    rest = rest.strip()
    if rest.endswith("]") and "[" in rest:
        i = rest.rindex("[")
        gate = _parse_gate(rest[i + 1 : -1])
        rest = rest[:i]
    ops, relaxed = _parse_ops(rest)
    elems = []
    for tok, opt in _form_tokens(head[len(stem) :], stem):
        if tok in slots:
            values, gates = slots[tok]
            name = tok[1:]
        else:
            v, g = _split_value(tok)
            values, gates, name = (v,), (((v, g),) if g else ()), v[1:]
        is_type = all(v in TYPES or v in _PLACED.get("ordered", {}).get(stem, ()) for v in values)
        elems.append(Elem(name, values, opt, is_type, gates))
    return Form(
        stem, head + (" " + rest.strip() if rest.strip() else ""), head, tuple(elems), ops, relaxed, gate
    )


@cache
def _table() -> Mapping[str, tuple[Form, ...]]:
    from irc.ptxisa.syntax_table import TABLE_TEXT

    return _lazy_table(TABLE_TEXT)


class _LazyTable(Mapping):
    """`_parse_table`'s result with each stem's forms parsed when first asked for.

    Why: the table has ~480 forms over 141 stems and parsing them all took ~25 ms of every `irc` process,
    while a file uses a few dozen stems. The stems, their order and the `%` lines (`_QUIRKS`, `_PLACED`)
    are read up front; a stem's forms are parsed from its own `== stem` sections exactly as
    `_parse_table` parses them."""

    def __init__(self, sections: dict[str, list[list[str]]], cvt: tuple[list, list]) -> None:
        self._sections = sections
        self._cvt = cvt
        self._forms: dict[str, tuple[Form, ...]] = {}

    def __getitem__(self, stem: str) -> tuple[Form, ...]:
        hit = self._forms.get(stem)
        if hit is None:
            chunks = self._sections[stem]  # (KeyError for a stem without forms, as a dict)
            text = "\n".join(line for chunk in chunks for line in (f"== {stem}", *chunk))
            forms = _parse_table(text).get(stem, ())
            if stem == "cvt" and self._cvt[0]:
                forms = (*_cvt_forms(*self._cvt), *forms)
            hit = self._forms[stem] = tuple(forms)
        return hit

    def __iter__(self) -> Iterator[str]:
        return iter(self._sections)

    def __len__(self) -> int:
        return len(self._sections)

    def __contains__(self, stem: object) -> bool:
        return stem in self._sections


def _table_lines(text: str) -> Iterator[str]:
    """The table's lines without comments (`#` to the end) and blank lines, stripped."""
    for raw in text.splitlines():
        s = raw.split("#", 1)[0].strip()
        if s:
            yield s


def _cvt_line(s: str, rows: list[list[str]], gates: list[tuple[str, Need]]) -> bool:
    """Take a `%cvt-gate` or `%cvt` line into the conversion matrix; False for any other line."""
    if s.startswith("%cvt-gate"):
        _, pair, *gate = s.split()
        gates.append((pair, _parse_gate(" ".join(gate))))
        return True
    if s.startswith("%cvt"):
        rows.append(s.split()[1:])
        return True
    return False


def _lazy_table(text: str) -> Mapping[str, tuple[Form, ...]]:
    """The stems of `text` in `_parse_table`'s order, each with its sections' lines (a section with a form
    makes its stem a key when `_parse_table` flushes it), and the `%cvt` matrix; the `%` lines are applied
    now. A `%` line other than `%cvt` inside the sections (which `_parse_table` would apply between two
    sections) makes this the eager parse."""
    sections: dict[str, list[list[str]]] = {}
    stem = ""  # (as `_parse_table`: forms before the first `== ` line belong to the stem "")
    started = False
    chunk: list[str] = []
    has_form = False
    cvt_rows: list[list[str]] = []
    cvt_gates: list[tuple[str, Need]] = []
    head_lines: list[str] = []

    def close() -> None:
        if has_form:
            sections.setdefault(stem, []).append(chunk)

    for s in _table_lines(text):
        if s.startswith("== "):
            close()
            stem, chunk, has_form, started = s[3:].strip(), [], False, True
            continue
        if _cvt_line(s, cvt_rows, cvt_gates):
            continue
        if s.startswith("%"):
            if started:
                return _parse_table(text)
            head_lines.append(s)
            continue
        chunk.append(s)
        if not (s.startswith(".") and (" = " in s or " += " in s)):
            has_form = True
    close()
    _parse_table("\n".join(head_lines))  # the `%` lines: _QUIRKS and _PLACED
    if cvt_rows and "cvt" not in sections:
        sections["cvt"] = []
    return _LazyTable(sections, (cvt_rows, cvt_gates))


def stems() -> tuple[str, ...]:
    """Every stem with syntax rows."""
    return tuple(_table())


def stem_of(opcode: str) -> str | None:
    """The longest stem with syntax rows that `opcode` starts with (on a `.` boundary), or None."""
    return _stem_of(opcode)


@cache
def _stem_of(opcode: str) -> str | None:
    """A longer ISA stem that a block does not cover wins over the block: `cp.async.bulk.tensor.2d...` has no
    rows even though `cp.async` has (the `cp.async` block has no `.bulk`), while `shfl.sync.bfly.b32` is read
    by the `shfl` block (which spells `.sync`)."""
    t = _table()
    known = _isa_stems()
    block = None
    isa = None
    i = opcode.find(".")
    while i != -1:
        if opcode[:i] in t:
            block = opcode[:i]
        if opcode[:i] in known:
            isa = opcode[:i]
        i = opcode.find(".", i + 1)
    if opcode in t:
        block = opcode
    if opcode in known:
        isa = opcode
    if block is None:
        return None
    if isa is not None and len(isa) > len(block):
        vocab = vocabulary(block)
        if not all(m in vocab for m in _split_mods(isa[len(block) :])):
            return None
    return block


@cache
def _isa_stems() -> frozenset[str]:
    from irc.ptxisa.isa_list import ALL_STEMS

    return frozenset(ALL_STEMS)


@cache
def known_opcode(opcode: str) -> bool:
    """Whether `opcode` starts with the name of a PTX ISA 9.0 instruction (a stem of `isa_list`, or a block
    of the syntax rows), on a `.` or `::` boundary: `cp.async.wait_group` does, `cp.wait_group` does not."""
    known = _isa_stems() | frozenset(_table())
    for i, ch in enumerate(opcode):
        if (ch == "." or (ch == ":" and opcode[i : i + 2] == "::")) and opcode[:i] in known:
            return True
    return opcode in known


@cache
def vocabulary(stem: str) -> frozenset[str]:
    """Every modifier spelling some form of `stem` takes."""
    return frozenset(v for f in _table()[stem] for e in f.elems for v in e.values)


def _split_mods(rest: str) -> list[str]:
    """`.shared::cta.b64` -> [".shared::cta", ".b64"] (`::` stays inside a modifier)."""
    return ["." + m for m in rest.split(".")[1:]] if rest else []


def match(opcode: str) -> Match | Mismatch | None:
    """The form `opcode` matches, why none does, or None when irc has no syntax rows for its stem."""
    return _match(opcode)


@cache
def _match(opcode: str) -> Match | Mismatch | None:
    stem = _stem_of(opcode)
    if stem is None:
        return None
    mods = _split_mods(opcode[len(stem) :])
    if any(m == "." for m in mods):
        return Mismatch(f"empty modifier in `{opcode}`")
    quirks = _quirks()
    if stem != "tensormap":
        mods = [m for m in mods if m not in quirks["ignored"]]
    head = _PLACED.get("head", {}).get(stem, set())
    second = _PLACED.get("second", {}).get(stem, set())
    for i, m in enumerate(mods):
        allowed = ({0} if m in head else set()) | ({1} if m in second else set())
        if allowed and i not in allowed:
            where = f"right after `{stem}`" if 0 in allowed else "second, right after the operation"
            return Mismatch(f"`{m}` must come {where} (ptxas reads it as part of the opcode)", m)
    rep = quirks["repeatable"]
    in_stem = {"." + w for w in stem.split(".")[1:]}
    mods = [m for i, m in enumerate(mods) if not (m in rep and (m in mods[:i] or m in in_stem))]
    stray_pred = stem in quirks["pred-ignored"] and ".pred" in mods
    if stray_pred:
        got = _match_mods(stem, [m for m in mods if m != ".pred"])
        if isinstance(got, Match) and not any(
            v in (".hi", ".lo", ".wide") for e in got.form.elems for v in e.values
        ):
            return got
    return _match_mods(stem, mods)


def _quirks() -> dict[str, set[str]]:
    _table()
    return {k: _QUIRKS.get(k, set()) for k in ("ignored", "repeatable", "pred-ignored")}


def _match_mods(stem: str, mods: list[str]) -> Match | Mismatch:
    vocab = vocabulary(stem)
    for m in mods:
        if m not in vocab:
            return Mismatch(f"unknown modifier `{m}` for `{stem}`", m)
    for f in _table()[stem]:
        got = _assign(f, mods)
        if got is not None:
            return got
    return _why_not(stem, mods)


def match_all(opcode: str) -> tuple[Match, ...]:
    """Every form `opcode` matches, in table order: forms that differ only in their operands (`max.f32` with
    two or three sources) are told apart by the operands."""
    return _match_all(opcode)


@cache
def _match_all(opcode: str) -> tuple[Match, ...]:
    first = _match(opcode)
    if not isinstance(first, Match):
        return ()
    mods = _split_mods(opcode[len(first.form.stem) :])
    quirks = _quirks()
    if first.form.stem != "tensormap":
        mods = [m for m in mods if m not in quirks["ignored"]]
    rep = quirks["repeatable"]
    mods = [m for i, m in enumerate(mods) if not (m in rep and m in mods[:i])]
    if first.form.stem in quirks["pred-ignored"] and ".pred" not in first.types:
        mods = [m for m in mods if m != ".pred"]
    out = [first]
    for f in _table()[first.form.stem]:
        if f is first.form:
            continue
        got = _assign(f, mods)
        if got is not None:
            out.append(got)
    return tuple(out)


def _why_not(stem: str, mods: list[str]) -> Mismatch:
    seen: set[str] = set()
    for m in mods:
        if m in seen:
            return Mismatch(f"modifier `{m}` given twice", m)
        seen.add(m)
    return Mismatch(_explain(stem, mods))


def _explain(stem: str, mods: list[str]) -> str:
    """Name the closest form: the one that needs the fewest modifiers added or removed, types aside; then
    say what is wrong: a missing modifier, one too many, or a type that form does not take."""
    tmods = [m for m in mods if m in TYPES]
    omods = [m for m in mods if m not in TYPES]
    best: tuple[int, Form, list[Elem], list[str], bool] | None = None
    for f in _table()[stem]:
        types = [e for e in f.elems if e.is_type]
        other = [e for e in f.elems if not e.is_type]
        missing = [e for e in other if not e.optional and not any(v in omods for v in e.values)]
        extra = [m for m in omods if not any(m in e.values for e in other)]
        types_ok = _align_types(types, tmods) is not None
        mismatch = 0
        if not types_ok:  # a type outside a type slot's set; a form of other fixed types is far off
            mismatch = 3 if len(types) == 1 and len(types[0].values) > 1 else 10
        cost = 2 * (len(missing) + len(extra)) + mismatch
        if best is None or cost < best[0]:
            best = (cost, f, missing, extra, types_ok)
    spelled = stem + "".join(mods)
    if best is None:
        return f"`{spelled}` is not a form of `{stem}`"
    _, f, missing, extra, types_ok = best
    form = f.head
    if not missing and not extra and not types_ok:
        takes = " ".join(v for e in f.elems if e.is_type for v in e.values)
        if not tmods:
            return f"`{spelled}` lacks a type (`{form}` takes {takes})"
        return f"`{spelled}`: {''.join(tmods)} is not a type of this form (`{form}` takes {takes})"
    if missing and not extra:
        return f"`{spelled}` lacks {' and '.join(_elem_text(e) for e in missing)} (form `{form}`)"
    if extra and not missing:
        return f"`{spelled}`: {', '.join(f'`{m}`' for m in extra)} not allowed here (form `{form}`)"
    if missing and extra and types_ok:
        return (
            f"`{spelled}`: {', '.join(f'`{m}`' for m in extra)} not allowed here, and it lacks "
            f"{' and '.join(_elem_text(e) for e in missing)} (form `{form}`)"
        )
    return f"`{spelled}` is not a form of `{stem}`; the closest is `{form}`"


def _elem_text(e: Elem) -> str:
    if len(e.values) == 1:
        return f"`{e.values[0]}`"
    return f"a `.{e.name}` modifier ({' '.join(e.values[:6])}{' ...' if len(e.values) > 6 else ''})"


#: id(form) -> (the form, every spelling its modifier slots take): data derived from the table, per process
_SPELLINGS: dict[int, tuple[Form, frozenset[str]]] = {}


def _spellings(f: Form) -> frozenset[str]:
    hit = _SPELLINGS.get(id(f))
    if hit is None or hit[0] is not f:
        hit = _SPELLINGS[id(f)] = (f, frozenset(v for e in f.elems for v in e.values))
    return hit[1]


def _assign(f: Form, mods: list[str]) -> Match | None:
    # A modifier no slot of `f` spells cannot be placed (a type goes to a type slot that lists it, any
    # other one to a slot that lists it): rule the form out before the placement search. Why: an opcode is
    # tried against every form of its stem in table order (dozens for `mma`, `cvt`, `ld`).
    spelled = _spellings(f)
    if not all(m in spelled for m in mods):
        return None
    type_elems = [e for e in f.elems if e.is_type]
    other = [e for e in f.elems if not e.is_type]
    ordered = TYPES | _PLACED.get("ordered", {}).get(f.stem, set())
    tmods = [m for m in mods if m in ordered and any(m in e.values for e in type_elems)]
    omods = [m for m in mods if not (m in ordered and any(m in e.values for e in type_elems))]
    tfill = _align_types(type_elems, tmods)
    if tfill is None:
        return None
    ofill = _bag(other, omods)
    if ofill is None:
        return None
    gates: list[tuple[str, Need]] = []
    vec = 1
    for e, v in list(zip(type_elems, tfill)) + list(zip(other, ofill)):
        if v is None:
            continue
        g = e.gate_of(v)
        if g is not None:
            gates.append((v, g))
        if v in (".v2", ".v4", ".v8"):
            vec = int(v[2:])
    if f.gate is not None:
        gates.append((f.head, f.gate))
    return Match(f, tuple(v for v in tfill if v is not None), vec, tuple(gates))


def _align_types(elems: list[Elem], tmods: list[str]) -> list[str | None] | None:
    """Fill the type slots in order; optional ones may stay empty."""
    out: list[str | None] = []

    def go(i: int, j: int) -> bool:
        if i == len(elems):
            return j == len(tmods)
        e = elems[i]
        if j < len(tmods) and tmods[j] in e.values:
            out.append(tmods[j])
            if go(i + 1, j + 1):
                return True
            out.pop()
        if e.optional:
            out.append(None)
            if go(i + 1, j):
                return True
            out.pop()
        return False

    return out if go(0, 0) else None


def _bag(elems: list[Elem], mods: list[str]) -> list[str | None] | None:
    """Give every modifier its own slot (any order); every required slot must get one."""
    fill: list[str | None] = [None] * len(elems)

    def go(k: int) -> bool:
        if k == len(mods):
            return all(fill[i] is not None or e.optional for i, e in enumerate(elems))
        m = mods[k]
        for i, e in enumerate(elems):
            if fill[i] is None and m in e.values:
                fill[i] = m
                if go(k + 1):
                    return True
                fill[i] = None
        return False

    return fill if go(0) else None


# ------------------------------------------------------------------------------------------ operand types

_SIZES = {
    "pred": 1, "b8": 8, "u8": 8, "s8": 8, "b16": 16, "u16": 16, "s16": 16, "f16": 16, "bf16": 16,
    "b32": 32, "u32": 32, "s32": 32, "f32": 32, "f16x2": 32, "bf16x2": 32, "tf32": 32, "u16x2": 32,
    "s16x2": 32, "b64": 64, "u64": 64, "s64": 64, "f64": 64, "f32x2": 64, "b128": 128,
}  # fmt: skip


def type_size(t: str) -> int | None:
    """Bits of a PTX type (`u32` or `.u32`), None for a type that is no register type."""
    return _SIZES.get(t.lstrip("."))


def _cls(t: str) -> str:
    return "h2" if t == "f16x2" else t[0] if t[0] in "bus" else "f"


def reg_compatible(reg: str, want: str, relaxed: bool) -> bool:
    """Whether a register declared `.reg` (no dot) may stand where the instruction expects type `want`
    (measured with ptxas 13.5 on every pair: `add`/`mov` for the ordinary rule, `ld`/`st`/`cvt` for the
    relaxed one, where the register may be wider than the type)."""
    if want == "pred" or reg == "pred":
        return want == reg
    rs, ws = _SIZES.get(reg), _SIZES.get(want)
    if rs is None or ws is None:
        return True  # a type irc does not size: not decided here
    if want == "b128" or reg == "b128" and not relaxed:
        return reg == want
    if rs != ws and not (relaxed and rs > ws and want != "bf16"):  # (a bf16 operand is exactly .b16)
        return False
    if rs != ws and want in ("u8", "s8", "b8") and not relaxed:
        return False
    wc, rc = _cls(want), _cls(reg)
    if wc == "b":
        return True
    if wc in "us":
        return rc in ("b", "u", "s", "h2")
    if want in ("bf16", "bf16x2", "tf32", "u16x2", "s16x2", "f32x2"):
        return rc == "b" or (want in ("u16x2", "s16x2") and rc in "us")
    return rc == "b" or reg == want


def imm_compatible(text: str, want: str) -> bool:
    """Whether the immediate spelled `text` fits an operand of type `want` (ptxas: an integer literal is
    no float operand; a float literal is no integer operand; a bit-size operand takes the hex float of its
    own width, `0f` for 32 bits and `0d` for 64, and a 64-bit one a decimal float too (a double);
    half-precision operands take no literal at all)."""
    t = text.lstrip("-")
    hexf = t[:2] in ("0f", "0F", "0d", "0D")
    is_float = hexf or (("." in t or "e" in t or "E" in t) and t[:2] not in ("0x", "0X"))
    if want == "pred":
        return not is_float
    if want in ("f16", "bf16", "f16x2", "bf16x2"):
        return False  # (measured: no literal is a half-precision operand)
    c = _cls(want) if want in _SIZES else "?"
    if c == "?":
        return True
    if c == "f":
        return is_float
    if not is_float:
        return True
    if c == "b" and hexf and not text.startswith("-"):
        return (t[1] in "fF" and _SIZES[want] == 32) or (t[1] in "dD" and _SIZES[want] == 64)
    return c == "b" and not hexf and _SIZES[want] == 64  # a decimal literal is a double: `mov.b64 %rd1, 1.5`


# ------------------------------------------------------------------------------------ special registers


@record(frozen=True)
class SpecialReg:
    """A special register: its type, the fields a vector one needs (`%tid.x`), and its gate."""

    name: str
    type: str
    fields: str
    need: Need | None


@cache
def _special_table() -> dict[str, SpecialReg]:
    from irc.ptxisa.syntax_table import SPECIAL_REGISTERS_TEXT

    out: dict[str, SpecialReg] = {}
    for raw in SPECIAL_REGISTERS_TEXT.splitlines():
        line = (
            raw.split("#", 1)[0]
            if not raw.lstrip().startswith(("envreg#", "pm#"))
            else raw.split("  #", 1)[0]
        )
        words = line.split("[", 1)
        need = _parse_gate(words[1].rstrip().rstrip("]")) if len(words) > 1 else None
        parts = words[0].split()
        if not parts:
            continue
        name, typ, fields = parts
        out[name] = SpecialReg(name, typ, "" if fields == "-" else fields, need)
    return out


_NUMBERED = (("envreg", 32, "envreg#"), ("pm", 8, "pm#"))


def special_register(name: str) -> tuple[SpecialReg | None, str]:
    """`%tid.x` -> (the register, "") or (None, why not). `name` starts with `%`."""
    base, _, field = name[1:].partition(".")
    t = _special_table()
    reg = t.get(base)
    if reg is None:
        for prefix, count, key in _NUMBERED:
            if base.startswith(prefix):
                rest = base[len(prefix) :]
                wide = rest.endswith("_64") and prefix == "pm"
                num = rest[:-3] if wide else rest
                if num.isdigit() and (num == "0" or not num.startswith("0")) and int(num) < count:
                    reg = t[key + ("_64" if wide else "")]
        if reg is None:
            return None, f"unknown special register `{name}`"
    if reg.fields and (not field or field not in reg.fields or len(field) != 1):
        return None, f"`%{base}` needs a field: .{' .'.join(reg.fields)}"
    if not reg.fields and field:
        return None, f"`%{base}` has no field `.{field}`"
    return reg, ""
