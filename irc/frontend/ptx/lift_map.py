"""The PTX -> IR map of the lifter, built by inverting the op table's PTX templates.

Why inverted and not written down: the op table (`irc.ir.optable`) already says how each op is spelled in
PTX; a second hand-written map in the lifter is how `redux.sync.min.s32` came to be lifted as an unsigned
min. Instruction selection reads the templates forwards, the lifter reads them backwards here, and
`tests/test_optable.py` checks that lifting every printed template gives back the op.

Two shapes are inverted:
  * arithmetic (`ARITH`): pure ops with one result, the default operand order and no attribute; the
    operand and result types come from the instruction's type suffix. Keyed by PTX base opcode, each
    entry lists (fixed modifiers, op): `mul` -> [({lo}, mul), ({}, mul), ({hi}, mulhi)]. The op whose
    fixed modifiers the instruction carries wins (most of them on a tie); when no op's are all present
    and only one op has that base, it is that op (so `sqrt.approx.f32` is `sqrt` like `sqrt.rn.f32`).
  * positional (`match_positional`): the tokens of an instruction against a template's opcode pattern
    token by token, capturing attributes (`{kind}`) and the type (`{i}`): `redux.sync.min.s32` against
    `redux.sync.{kind}.{i}` gives kind=min, type s32 (i32, signed).
Ops that are spelled but never lifted as themselves are on `NOT_LIFTED`, with the reason.
"""

from __future__ import annotations

from irc.ir.optable import OPS, ROUNDING
from irc.ir.types import Type
from irc.ptxisa.template import opcode_key, parse

__all__ = ["ARITH", "NOT_LIFTED", "ROUNDING_OPS", "arith_op", "match_positional", "variants"]

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


def _arith_shaped(name: str) -> bool:
    d = OPS[name]
    if name in NOT_LIFTED or not d.has("pure") or len(d.results) != 1 or d.attrs:
        return False
    return all(parse(t).operands is None for t in variants(d.ptx)) and bool(variants(d.ptx))


def _build_arith() -> dict[str, list[tuple[frozenset[str], str]]]:
    out: dict[str, list[tuple[frozenset[str], str]]] = {}
    for name, d in OPS.items():
        if not _arith_shaped(name):
            continue
        for t in variants(d.ptx):
            base, fixed = opcode_key(parse(t).opcode)
            if base == "cvt":  # the rounding ops: see ROUNDING_OPS
                continue
            entry = (fixed, name)
            if entry not in out.setdefault(base, []):
                out[base].append(entry)
    return out


#: PTX base opcode -> [(fixed modifiers, IR op)], inverted from the templates.
ARITH: dict[str, list[tuple[frozenset[str], str]]] = _build_arith()
#: `cvt.RND.F.F` with an integer rounding mode and equal float types -> the rounding op.
ROUNDING_OPS: dict[str, str] = {rnd: name for name, rnd in ROUNDING.items()}


def arith_op(base: str, mods: list[str]) -> str | None:
    """The IR op of an arithmetic PTX instruction (base opcode and modifiers), or None."""
    cands = ARITH.get(base)
    if not cands:
        return None
    have = set(mods)
    hits = [(len(fixed), name) for fixed, name in cands if fixed <= have]
    if hits:
        return max(hits)[1]
    names = {name for _, name in cands}
    return names.pop() if len(names) == 1 else None


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
