"""The syntax rows (irc/ptxisa/syntax_table.py) against ptxas: each form spelled canonically (every required
slot at each of its values) with operands of the types it declares is assembled by ptxas at a target and
`.version` its gates admit, and the validator accepts it too. The default run assembles a fixed sample; the
`fuzz` marker runs every spelling."""

from __future__ import annotations

import random

import ptx_syntax_gen as G
import pytest

from irc.frontend.ptx.parser import parse_ptx
from irc.frontend.ptx.validate import validate
from irc.ptxas import find_ptxas, run_ptxas
from irc.ptxisa import syntax as S
from irc.target import PTX_TARGETS, family_admits_target, format_version

PTXAS = find_ptxas()

#: targets to try, in order: the first that every gate admits is used
_TARGETS = ["sm_90", "sm_90a", "sm_100a", "sm_120a", "sm_80", "sm_75"]
#: immediates that some forms need (cp.async sizes, setmaxnreg counts)
_IMMS = {
    "cp.async.cg": "16",
    "cp.async.ca": "16",
    "setmaxnreg": "240",
    "fence.proxy.tensormap": "128",
    "discard": "128",
    "applypriority": "128",
}


def _cases() -> list[tuple[str, str, str]]:
    out = []
    for stem in S.stems():
        for f in S._table()[stem]:
            for op in G.canonical_opcodes(f):
                m = S.match(op)
                if not isinstance(m, S.Match) or m.form is not f:
                    continue
                imm = next((v for k, v in _IMMS.items() if op.startswith(k)), "1")
                body = G.instance(op, imm)
                if body is None:
                    continue
                if "::func" in op:  # (`.param::func` names a parameter of a called function: none here)
                    continue
                needs = [g for _, g in m.gates if not g.removed]
                if any(g.removed for _, g in m.gates):  # gone from sm_70 on: an older target and version
                    out.append((op, "sm_60", G.module(body, "sm_60", "6.3")))
                    continue
                target = next(
                    (
                        t
                        for t in _TARGETS
                        if all(g.family is None or family_admits_target(g.family, t) for g in needs)
                    ),
                    None,
                )
                if target is None:
                    continue
                version = max([PTX_TARGETS[target], (8, 8)] + [g.version for g in needs if g.version])
                out.append((op, target, G.module(body, target, format_version(version))))
    return out


CASES = _cases()
SAMPLE = random.Random(7).sample(CASES, min(60, len(CASES)))


def _check(op: str, target: str, text: str) -> None:
    ds = validate(parse_ptx(text, "k.ptx"), text)
    assert not ds, f"{op}: irc rejects: {[d.message for d in ds]}"
    if PTXAS is not None:
        r = run_ptxas(
            text, target if target != "sm_60" else "sm_75"
        )  # (ptxas 13 compiles sm_60 PTX for sm_75)
        assert r.ok, f"{op} on {target}: ptxas rejects: {[e.message for e in r.errors][:3]}"


def test_every_stem_has_cases() -> None:
    assert len(CASES) > 800
    assert {c[0].split(".")[0] for c in CASES} >= {
        "add",
        "ld",
        "st",
        "atom",
        "cvt",
        "setp",
        "mbarrier",
        "wgmma",
    }


@pytest.mark.parametrize("op,target,text", SAMPLE, ids=[c[0] for c in SAMPLE])
def test_sampled_form_is_valid_ptx(op: str, target: str, text: str) -> None:
    _check(op, target, text)


@pytest.mark.fuzz
@pytest.mark.skipif(PTXAS is None, reason="ptxas not found")
def test_every_form_is_valid_ptx() -> None:
    bad = []
    for op, target, text in CASES:
        try:
            _check(op, target, text)
        except AssertionError as e:
            bad.append(str(e))
    assert not bad, "\n".join(bad[:50])


def test_lazy_table_is_the_eager_parse() -> None:
    """`_table()` parses a stem's forms when first asked for: the same stems in the same order, the same
    forms, and the same `%` facts as parsing the whole table at once."""
    import copy

    from irc.ptxisa.syntax_table import TABLE_TEXT

    lazy = S._table()
    quirks, placed = copy.deepcopy(S._QUIRKS), copy.deepcopy(S._PLACED)
    eager = S._parse_table(TABLE_TEXT)  # (re-adds the same `%` facts to the sets)
    assert list(lazy) == list(eager)
    assert all(lazy[stem] == eager[stem] for stem in eager)
    assert quirks == S._QUIRKS and placed == S._PLACED
    assert "no.such.stem" not in lazy
    with pytest.raises(KeyError):
        lazy["no.such.stem"]
