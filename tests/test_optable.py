"""The op table owns each op's PTX spelling: every op has a template or is on the custom list, every
template is well formed, and lifting the printed template gives back the same op with its types and
signedness (the lifter's PTX -> IR map is the templates inverted, `irc.frontend.ptx.lift_map`).

Each round trip compiles a one-op IR kernel with the real backend (legalize, allocation, the generic
selection path), checks ptxas accepts it, lifts the PTX and finds the op again.
"""

from __future__ import annotations

import re

import pytest

from irc.backends.ptx.emit import compile_module
from irc.backends.ptx.isel import TYPE_RULE, TYPE_RULES
from irc.frontend.ptx.lift import lift_ptx
from irc.frontend.ptx.lift_map import NOT_LIFTED, variants
from irc.ir import semantics as S
from irc.ir.optable import CONSTRAINTS, CUSTOM_PTX, OPS, ROUNDING, UNARY_MATH, OpTableError, _op
from irc.ir.parser import parse_module
from irc.ir.semantics import PRMT_MODES
from irc.ir.types import ScalarType
from irc.ptxas import find_ptxas, run_ptxas
from irc.ptxisa.template import parse, placeholders

needs_ptxas = pytest.mark.skipif(find_ptxas() is None, reason="ptxas not available")


def test_every_op_has_a_template_or_is_custom() -> None:
    templated = {n for n, d in OPS.items() if d.ptx is not None}
    assert templated.isdisjoint(CUSTOM_PTX), templated & set(CUSTOM_PTX)
    assert templated | set(CUSTOM_PTX) == set(OPS), set(OPS) - templated - set(CUSTOM_PTX)
    assert all(CUSTOM_PTX[n] for n in CUSTOM_PTX)  # every custom op says why
    assert set(CUSTOM_PTX) <= set(OPS)


@pytest.mark.parametrize("name", sorted(n for n, d in OPS.items() if d.ptx is not None))
def test_template_is_well_formed(name: str) -> None:
    d = OPS[name]
    known_attrs = set(d.attrs) | set(d.opt_attrs)
    for t in variants(d.ptx):
        p = parse(t)
        for ph in placeholders(p.opcode):
            assert TYPE_RULE.match(ph) or ph == "fpred" or ph in known_attrs, (name, ph)
            r = TYPE_RULE.match(ph)
            if r is not None:
                assert r.group(1) in TYPE_RULES
        for o in p.operands or ():
            if o.kind == "attr":
                assert o.name in known_attrs, (name, o.name)
    if isinstance(d.ptx, dict):
        for key in d.ptx:
            ok = key == "*" or key.rstrip("0") in ("int", "float", "bool") or key.split("=")[0] in known_attrs
            assert ok, (name, key)


def test_the_new_fields_are_read_from_the_table() -> None:
    """Spot checks that the fields carry the facts the readers used to keep in their own lists."""
    from irc.analysis.checks.warp_sync import MASK_INDEX
    from irc.backends.ptx.legalize import IMM_SLOTS

    assert MASK_INDEX["redux"] == 1 and MASK_INDEX["shfl"] == 2 and "add" not in MASK_INDEX
    assert IMM_SLOTS["mulhi"] == frozenset({1}) and IMM_SLOTS["barrier"] is None
    assert OPS["vote"].uniformity == "vote" and OPS["activemask"].uniformity == "varying"
    assert OPS["store"].shared_write == 0 and OPS["load"].shared_write is None
    assert set(UNARY_MATH) | set(ROUNDING) <= {n for n, d in OPS.items() if d.ptx is not None}


def test_a_misspelt_trait_raises_when_the_table_is_built() -> None:
    """`'puer commutatve'` used to mean "varying, impure" silently; every field is a closed set."""
    with pytest.raises(OpTableError, match="unknown trait"):
        _op("x_bad_traits", "T T", "T", "puer commutatve")
    with pytest.raises(OpTableError, match="unknown operand constraint"):
        _op("x_bad_cons", "T itn", "T", "pure")
    with pytest.raises(OpTableError, match="unknown effect"):
        _op("x_bad_effect", "", "", effect="reed")
    with pytest.raises(OpTableError, match="unknown uniformity"):
        _op("x_bad_uni", "T", "T", "pure", uniformity="uniform")
    with pytest.raises(OpTableError, match="unknown gate"):
        _op("x_bad_gate", "T", "T", "pure", gate="sm_89")
    with pytest.raises(OpTableError, match="undeclared attribute"):
        _op("x_bad_sem", "T T", "T", "pure", sem=S.cmp)  # reads `pred`, which the row does not declare
    with pytest.raises(OpTableError, match="declared twice"):
        _op("add", "T T", "T", "pure")
    assert not any(n.startswith("x_bad") for n in OPS)  # a rejected row is not added


def test_the_table_is_checked_at_import() -> None:
    """A fresh interpreter importing a table with a bad trait fails at import, not at first use."""
    import subprocess
    import sys

    code = (
        "import irc.ir.optable as t\n"
        'src = open(t.__file__).read().replace(\'"pure commutative", ptx="and\', \'"puer commutatve", ptx="and\')\n'
        "assert 'puer commutatve' in src\n"
        "exec(compile(src, 'optable_copy', 'exec'), {'__name__': 'optable_copy'})\n"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode != 0 and "OpTableError" in r.stderr and "puer" in r.stderr, r.stderr[-800:]


def test_constraint_names_are_the_verifiers() -> None:
    """Every constraint word the table accepts is one the verifier decides (none falls through to False)."""
    from irc.ir.types import F32, I32, U32, U64, PtrType, TensorMapType
    from irc.ir.verifier import _matches

    samples = [I32, U32, U64, F32, ScalarType("bool"), PtrType("global", F32), PtrType("shared", U32),
               TensorMapType(F32, (64, 64))]  # fmt: skip
    for c in CONSTRAINTS:
        assert any(_matches(c, t) for t in samples), c


# -- round trips -----------------------------------------------------------------------------------
# op -> [(IR text of the op on %a %b %c (and %m, the full mask), its result type)]; one per type family
BIN_INT = ["i32", "u32", "i64", "u64"]
BIN_ALL = [*BIN_INT, "f32", "f64"]
CASES: dict[str, list[tuple[str, str]]] = {}
for _n in ("add", "sub", "mul", "min", "max", "div"):
    CASES[_n] = [(f"{_n} %a, %b", t) for t in BIN_ALL]
for _n in ("rem", "and", "or", "xor", "shl", "shr", "mulhi"):
    CASES[_n] = [(f"{_n} %a, %b", t) for t in BIN_INT]
for _n in ("neg", "abs"):
    CASES[_n] = [(f"{_n} %a", t) for t in ("i32", "i64", "f32", "f64")]
CASES["not"] = [("not %a", t) for t in ("u32", "u64")]
for _n in (*UNARY_MATH, *ROUNDING):
    CASES[_n] = [(f"{_n} %a", "f32")]
CASES["cmp"] = [(f'cmp %a, %b {{pred = "{p}"}}', t) for p in ("lt", "ne") for t in ("i32", "u32", "f32")]
CASES["cmp"] += [(f'cmp %a, %b {{pred = "{p}"}}', "f32") for p in ("one", "ltu", "num", "nan")]
for _n in ("addsat", "subsat", "minrelu", "maxrelu"):
    CASES[_n] = [(f"{_n} %a, %b", "i32")]
CASES["prmt"] = [("prmt %a, %b, %l", "u32")] + [
    (f'prmt %a, %b, %l {{mode = "{m}"}}', "u32") for m in PRMT_MODES
]
CASES["bfe"] = [("bfe %a, %b, %l", "u32")]
CASES["bfi"] = [("bfi %a, %b, %l, %l", "u32")]
CASES["select"] = [("select %p, %a, %b", t) for t in ("i32", "u64", "f32")]
CASES["shfl"] = [(f'shfl %a, %l, %m {{mode = "{m}"}}', "i32") for m in ("down", "up", "bfly", "idx")]
CASES["vote"] = [('vote %p, %m {mode = "ballot"}', "u32"), ('vote %p, %m {mode = "any"}', "bool")]
CASES["activemask"] = [("activemask", "u32")]
CASES["syncwarp"] = [("syncwarp %m", "void")]
CASES["sreg"] = [('sreg {name = "ctaid.x"}', "u32"), ('sreg {name = "laneid"}', "u32")]
CASES["fence"] = [(f'fence {{scope = "{s}"}}', "void") for s in ("block", "gpu", "sys")]
CASES["store"] = [("store %out, %b", "void")]
CASES["atomic_cas"] = [("atomic_cas %out, %a, %b", t) for t in ("u32", "u64")]
CASES["redux"] = [
    (f'redux %a, %m {{kind = "{k}"}}', t) for k in ("add", "min", "max", "and", "or", "xor") for t in ("u32",)
]


def test_every_lifted_templated_op_has_a_round_trip_case() -> None:
    """Adding an op to the table means adding it here (or to lift_map.NOT_LIFTED, with the reason)."""
    templated = {n for n, d in OPS.items() if d.ptx is not None}
    assert templated - set(NOT_LIFTED) == set(CASES), (templated - set(NOT_LIFTED)) ^ set(CASES)


def _kernel(expr: str, t: str) -> str:
    """A kernel computing `expr` from parameters and storing it (bools are stored as 0/1 through select)."""
    vt = "u32" if t == "bool" else t
    lines = [
        "  %m = const {value = 4294967295} : u32",
        "  %l = const {value = 3} : u32",
        '  %x = sreg {name = "tid.x"} : u32',
        "  %z = const {value = 0} : u32",
        '  %p = cmp %x, %z {pred = "ne"} : bool',
    ]
    rt = "bool" if expr.startswith("cmp") else t
    if t == "void":
        lines.append(f"  {expr}")
        vt = at = "u32"
        body = "\n".join(lines)
        return (
            f'module "t.kdsl" {{\nkernel @k(%out: *global u32, %a: u32, %b: u32) {{\n^bb0:\n{body}\n'
            "  store %out, %a\n  ret\n}\n}\n"
        )
    lines.append(f"  %r = {expr} : {rt}")
    if rt == "bool":
        one = "1.0" if vt.startswith("f") else "1"
        zero = "0.0" if vt.startswith("f") else "0"
        lines += [
            f"  %one = const {{value = {one}}} : {vt}",
            f"  %zero = const {{value = {zero}}} : {vt}",
            f"  %v = select %r, %one, %zero : {vt}",
        ]
        val = "%v"
    else:
        val = "%r"
    body = "\n".join(lines)
    at = "u32" if t == "bool" else t
    return (
        f'module "t.kdsl" {{\nkernel @k(%out: *global {vt}, %a: {at}, %b: {at}) {{\n^bb0:\n{body}\n'
        f"  store %out, {val}\n  ret\n}}\n}}\n"
    )


ROUND_TRIPS = [(n, e, t) for n, cases in CASES.items() for e, t in cases]


@needs_ptxas
@pytest.mark.parametrize(
    ("name", "expr", "t"),
    ROUND_TRIPS,
    ids=[f"{n}-{e.split()[0]}-{t}-{i}" for i, (n, e, t) in enumerate(ROUND_TRIPS)],
)
def test_lifting_the_printed_template_gives_back_the_op(name: str, expr: str, t: str) -> None:
    m = parse_module(_kernel(expr, t), "t.kdsl")
    arch = "sm_90" if OPS[name].gate == "sm_90" else "sm_80"
    text = compile_module(m, arch).text
    r = run_ptxas(text, arch)
    assert r.ok, r.stderr
    lifted, _ = lift_ptx(text, "t.ptx")
    ops = [op for op in lifted.functions[0].ops() if op.name == name]
    assert ops, (name, [op.name for op in lifted.functions[0].ops()], text)
    op = ops[-1]
    want = ScalarType(t)
    got = op.results[0].type if op.results else None
    d = OPS[name]
    tpl = variants(d.ptx)[-1]
    rule = placeholders(parse(tpl).opcode)
    if name == "cmp":
        got = op.operands[0].type
    if t in ("bool", "void") or name == "vote":
        return  # a predicate, a ballot word or no result: the op itself is the round trip
    assert isinstance(got, ScalarType) and got.bits == want.bits, (got, want)
    if want.is_float or any(r.rstrip("0") in ("a", "i", "s") for r in rule) and not rule == ["b"]:
        # the template spells the signedness (`{a}` `{i}` `{s}`): it survives the round trip
        if name not in ("and", "or", "xor", "not", "shl", "shfl") and not (
            name == "redux" and op.attrs.get("kind") in ("and", "or", "xor")
        ):
            assert got == want, (name, got, want)
    for k, v in _attrs(expr).items():  # (IR `ne` on floats is unordered: spelled `neu`, lifted back as `ne`)
        assert str(op.attrs.get(k)) == v, (name, k, op.attrs)


def _attrs(expr: str) -> dict[str, str]:
    return dict(re.findall(r'(\w+) = "(\w+)"', expr))
