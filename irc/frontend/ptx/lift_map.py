"""The PTX -> IR map of the lifter, built by inverting the op table's PTX templates.

Why inverted and not written down: the op table (`irc.ir.optable`) already says how each op is spelled in
PTX; a second hand-written map in the lifter is how `redux.sync.min.s32` came to be lifted as an unsigned
min. Instruction selection reads the templates forwards, the lifter reads them backwards here, and
`tests/test_optable.py` checks that lifting every printed template gives back the op.

**The exact-modifier rule.** An instruction is lifted as an op only when its modifiers are exactly those
of one template variant: the variant's literal tokens, one type token per type placeholder (`{a}`,
`{i}`, ...) and one allowed value per attribute placeholder (`{mode}` takes a value the variant's selector
lists, `prmt.b32.{mode}` under `mode=f4e|b4e|...`), nothing more and nothing less. A variant selected by
an attribute (`"mode=..."`) gives the lifted op that attribute; one selected by a type kind (`"float"`)
only matches instructions of that kind. So `add.sat.s32` is `addsat` (its own template), never a
wrapping `add`; `min.relu.s32` is `minrelu`; `min.NaN.f32`, `sqrt.approx.f32` or `add.rz.f32` match no
template and are lifted by the caller as an opaque op whose effects come from `irc.ptxisa.facts`
(`ptx_pure` for these). An extra modifier never lifts as a plainer op
(`tests/test_lift_exact.py` generates opcodes with random extra modifiers to show it).

Two shapes are inverted:
  * arithmetic (`ARITH`): pure ops with one result, the default operand order and no required
    attribute; the operand and result types come from the instruction's type suffix. Keyed by PTX base
    opcode, each entry is a `Variant` (literal tokens, type placeholders, attribute captures, the op and
    its attributes).
  * positional (`match_positional`): the tokens of an instruction against a template's opcode pattern
    token by token, capturing attributes (`{kind}`) and the type (`{i}`): `redux.sync.min.s32` against
    `redux.sync.{kind}.{i}` gives kind=min, type s32 (i32, signed).
Ops that are spelled but never lifted as themselves are on `NOT_LIFTED`, with the reason.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from irc.ir.optable import OPS, ROUNDING
from irc.ir.types import Type
from irc.ptxisa.template import TYPE_PLACEHOLDER, parse
from irc.records import record

__all__ = ["ARITH", "NOT_LIFTED", "ROUNDING_OPS", "Variant", "arith_op", "match_positional", "variants"]

#: Templated ops the arithmetic inversion skips, and why (the op-table test reads this list too).
NOT_LIFTED: dict[str, str] = {
    "ptradd": "lifted PTX has no pointer types: `add.u64` is `add`",
    "half2": "packed-half arithmetic (`add.rn.f16x2` ...) stays `ptx_pure` in lifted PTX: the inversion does not rebuild the kind/ty attributes",
    "shlw": "a legalization form: lifted `shl` keeps the operand type",
    "shrw": "a legalization form: lifted `shr` keeps the operand type",
    "popcw": "a legalization form; lifted `popc` stays `ptx_pure` (its result width differs from the suffix)",
    "clzw": "a legalization form; lifted `clz` stays `ptx_pure` (its result width differs from the suffix)",
    "popc": "lifted as `ptx_pure`: `popc.b64` writes a 32-bit register, the suffix names the operand",
    "clz": "lifted as `ptx_pure`: `clz.b64` writes a 32-bit register, the suffix names the operand",
    "brev": "lifted as `ptx_pure` (bit reversal has no analysis meaning)",
    "fma": "`mad.lo` is lifted as `mul` + `add` so the uniformity rules see the index arithmetic",
    "mulwide": "lifted by the `mul.wide` rule (the result is twice the suffix width)",
    "bitcast": "`mov` is folded into the SSA renaming",
    "pack_b32": "`mov` with a vector is a register move",
    "pack_b64": "`mov` with a vector is a register move",
    "unpack_b32": "`mov` with a vector is a register move",
    "unpack_b64": "`mov` with a vector is a register move",
    "pack_half2": "lifted as `ptx_pure` (a packed conversion with two sources)",
    "shared_addr": "lifted from `mov` of a shared symbol (needs a `.shared` declaration; tests/test_ptx_lift.py)",
    "elect": "compiled for sm_80 it is emulated; `elect.sync` lifts to `elect` (tests/test_ptx_lift.py)",
    "cp_async": "lifted by irc/frontend/ptx/lift_async.py (cp.async sizes and cache modifiers)",
    "ldmatrix": "lifted as ptx_collective (tensor-core shapes are not modelled as ops)",
    "wmma_load": "lifted as ptx_collective (tensor-core shapes are not modelled as ops)",
    "wmma_store": "lifted as ptx_collective (tensor-core shapes are not modelled as ops)",
    **{
        n: "lifted by irc/frontend/ptx/lift_async.py from its own PTX forms (spaces, .parity, tokens), not by inverting the template (tests/test_async_protocol.py)"
        for n in (
            "cp_async_commit",
            "cp_async_wait",
            "mbarrier_init",
            "mbarrier_arrive",
            "mbarrier_test_wait",
            "mbarrier_inval",
            "mbarrier_arrive_expect_tx",
            "mbarrier_expect_tx",
            "mbarrier_try_wait",
            "fence_mbarrier_init",
            "tma_store_commit",
            "tma_store_wait",
            "fence_proxy_async",
            "tmem_alloc",
            "tmem_relinquish",
            "tmem_dealloc",
            "tcgen05_mma",
            "tcgen05_commit",
            "tcgen05_ld",
            "tcgen05_wait_ld",
            "tcgen05_wait_st",
            "tcgen05_fence",
        )
    },
    **{
        n: "lifted as ptx_collective (tensor-core shapes are not modelled as ops)"
        for n in ("mma_m16n8k16", "wmma_mma")
    },
}


def variants(d_ptx: object) -> list[str]:
    """Every template string of an op-table `ptx` field (dict variants flattened, None skipped)."""
    if isinstance(d_ptx, str):
        return [d_ptx]
    if isinstance(d_ptx, dict):
        return [t for t in d_ptx.values() if isinstance(t, str)]
    return []


def _selected(d_ptx: object) -> list[tuple[str, str]]:
    """(selector, template) of every variant ("*" for a plain string)."""
    if isinstance(d_ptx, str):
        return [("*", d_ptx)]
    if isinstance(d_ptx, dict):
        return [(k, t) for k, t in d_ptx.items() if isinstance(t, str)]
    return []


def _arith_shaped(name: str) -> bool:
    d = OPS[name]
    if name in NOT_LIFTED or not d.has("pure") or len(d.results) != 1 or d.attrs:
        return False
    return all(parse(t).operands is None for t in variants(d.ptx)) and bool(variants(d.ptx))


@record(frozen=True)
class Variant:
    """One template variant read backwards (see the module docstring)."""

    op: str
    fixed: tuple[str, ...]  # literal modifier tokens (a multiset: sorted)
    types: int  # type placeholders: that many type tokens besides the literal ones
    captures: tuple[tuple[str, frozenset[str]], ...]  # attribute placeholders and their allowed values
    attrs: tuple[tuple[str, Any], ...]  # attributes the selector gives the op
    kinds: frozenset[str]  # the type kinds it spells: its selector's, or for "*" those no earlier one took


def _selector_value(v: str) -> Any:
    return True if v == "True" else False if v == "False" else int(v) if v.isdigit() else v


_KINDS = frozenset({"int", "float", "bool"})


def _variant(name: str, selector: str, template: str, taken: frozenset[str]) -> Variant:
    toks = parse(template).opcode.split(".")[1:]
    sel_attr, sel_values = (selector.split("=", 1) + [""])[:2] if "=" in selector else ("", "")
    allowed = sel_values.split("|") if sel_values else []
    fixed, types, captures = [], 0, []
    for t in toks:
        if t.startswith("{") and t.endswith("}"):
            ph = t[1:-1]
            if TYPE_PLACEHOLDER.match(ph):
                types += 1
            elif ph == sel_attr:
                captures.append((ph, frozenset(allowed)))
            else:
                raise ValueError(f"{name}: cannot invert the placeholder {{{ph}}} of {template!r}")
        else:
            fixed.append(t)
    attrs: tuple[tuple[str, Any], ...] = ()
    if sel_attr and not captures:  # `sat=True|1`: the variant means the attribute's first value
        attrs = ((sel_attr, _selector_value(allowed[0])),)
    kinds = frozenset({selector}) if selector in _KINDS else _KINDS - taken
    return Variant(name, tuple(sorted(fixed)), types, tuple(captures), attrs, kinds)


def _build_arith() -> dict[str, list[Variant]]:
    out: dict[str, list[Variant]] = {}
    for name, d in OPS.items():
        if not _arith_shaped(name):
            continue
        taken: frozenset[str] = frozenset()  # (selection takes the first variant that applies)
        for selector, t in _selected(d.ptx):
            base = parse(t).opcode.split(".")[0]
            if base == "cvt":  # the rounding ops: see ROUNDING_OPS
                continue
            v = _variant(name, selector, t, taken)
            if selector in _KINDS:
                taken |= {selector}
            if v not in out.setdefault(base, []):
                out[base].append(v)
    return out


#: PTX base opcode -> the template variants spelled with it, inverted.
ARITH: dict[str, list[Variant]] = _build_arith()
#: `cvt.RND.F.F` with an integer rounding mode and equal float types -> the rounding op.
ROUNDING_OPS: dict[str, str] = {rnd: name for name, rnd in ROUNDING.items()}


def _matches(v: Variant, mods: list[str], types: frozenset[str], kind: str) -> dict[str, Any] | None:
    """The attributes of the op when `mods` are exactly `v`'s modifiers, else None."""
    if kind not in v.kinds:
        return None
    rest = Counter(mods)
    rest.subtract(v.fixed)
    if any(n < 0 for n in rest.values()):
        return None
    left = list(rest.elements())
    if sum(1 for m in left if m in types) != v.types:
        return None
    others = [m for m in left if m not in types]
    if len(others) != len(v.captures):
        return None
    attrs = dict(v.attrs)
    for (attr, allowed), m in zip(v.captures, others):  # (at most one capture per template)
        if m not in allowed:
            return None
        attrs[attr] = m
    return attrs


#: (base, modifiers, type spellings, kind) -> `arith_op`'s answer: a kernel spells a few dozen opcodes
#: thousands of times, and matching one tries every template of its base. Data only, per process.
_ARITH_MEMO: dict[tuple[str, tuple[str, ...], frozenset[str], str], tuple[str, dict[str, Any]] | None] = {}


def arith_op(
    base: str, mods: list[str], types: frozenset[str], kind: str
) -> tuple[str, dict[str, Any]] | None:
    """The IR op and its attributes of an arithmetic PTX instruction, by the exact-modifier rule (see the
    module docstring), or None. `types`: the PTX type-suffix spellings; `kind`: "int" / "float" / "bool"
    of the instruction's type. The attributes are the caller's own (a fresh dict each call)."""
    key = (base, tuple(mods), types, kind)
    if key not in _ARITH_MEMO:
        _ARITH_MEMO[key] = _arith_op(base, mods, types, kind)
    hit = _ARITH_MEMO[key]
    return None if hit is None else (hit[0], dict(hit[1]))


def _arith_op(
    base: str, mods: list[str], types: frozenset[str], kind: str
) -> tuple[str, dict[str, Any]] | None:
    hits = []
    for v in ARITH.get(base, ()):
        attrs = _matches(v, mods, types, kind)
        if attrs is not None:
            hits.append((v.op, attrs))
    if not hits or any(h != hits[0] for h in hits[1:]):
        return None  # nothing, or two readings (tests/test_lift_exact.py checks no template makes one)
    return hits[0]


def match_positional(opname: str, opcode: str, types: dict[str, Type]) -> tuple[dict[str, str], Type] | None:
    """Match `opcode` token by token against the templates of `opname`: (captured attributes, the type of
    the first type placeholder), or None. `types` maps PTX type suffixes to IR types."""
    toks = opcode.split(".")
    for t in variants(OPS[opname].ptx):
        pat = parse(t).opcode.split(".")
        if len(pat) != len(toks):
            continue
        attrs: dict[str, str] = {}
        ty: Type | None = None
        for p, tok in zip(pat, toks):
            if p.startswith("{") and p.endswith("}") and p[1:-1] in OPS[opname].attrs:
                attrs[p[1:-1]] = tok
            elif p.startswith("{") and p.endswith("}"):
                ty = types.get(tok)
                if ty is None:
                    break
            elif p != tok:
                break
            elif tok in types:
                ty = types[tok]
        else:
            if ty is not None:
                return attrs, ty
    return None
