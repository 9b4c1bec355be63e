"""Op handlers of the PTX lifter: one function per PTX opcode family, lowering an instruction to IR ops.

Each handler returns True when it lowered the instruction, False to fall back to the lifter's `generic`
(opaque / ptx_pure / ptx_collective). `HANDLERS` maps an opcode's base to its handler.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from irc.frontend.ptx import lift_async
from irc.frontend.ptx.lift_cfg import LiftScope
from irc.frontend.ptx.lift_map import ARITH, ROUNDING_OPS, arith_op, match_positional
from irc.frontend.ptx.lift_types import (
    ALL_TYPES,
    ATOM_KINDS,
    CMP,
    CMPS,
    PACKED,
    PTX_TYPES,
    PURE_TEXT,
    ROUND,
    SPACE_OF,
    suffix_type,
    type_mods,
)
from irc.frontend.ptx.operands import int_imm
from irc.ir.core import Value
from irc.ir.optable import OPS
from irc.ir.semantics import FLOAT_PREDS, INT_PREDS
from irc.ir.types import B32, B64, BOOL, U32, U64, ScalarType, bit_width
from irc.ptxisa import facts as isa
from irc.ptxisa import model as P

if TYPE_CHECKING:
    from irc.frontend.ptx.lift import FnLifter


def _h_mov(L: FnLifter, i: P.Instr, sc: LiftScope | None, mods: list[str]) -> bool:
    ops = i.operands
    if len(ops) != 2:
        return False
    d, s = ops
    t = suffix_type(mods) or B32
    if isinstance(d, P.Reg):
        if isinstance(s, P.Reg):
            name = s.name
            k = sc.reg(name) if sc is not None else name
            if k == name and L.is_special(name):
                v = L.sreg(name)
                L.put(d, L.conv(v, L.dest_type(d, t, sc)) if v.type != U32 else v, sc)
            else:
                L.put(d, L.read(k, L.b.block), sc)  # folded copy: same SSA value
            return True
        if isinstance(s, P.Imm):
            L.put(d, L.val(s, L.dest_type(d, t, sc), sc), sc)
            return True
        if isinstance(s, P.Sym):
            L.put(d, L.sym_addr(s.name, L.dest_type(d, t, sc)), sc)
            return True
    if t == B64 and _pack_unpack(L, d, s, sc):
        return True
    if isinstance(s, P.Vec) or isinstance(d, P.Vec):
        L.generic(i, sc, "ptx_pure")
        return True
    return False


def _pack_unpack(L: FnLifter, d: P.Operand, s: P.Operand, sc: LiftScope | None) -> bool:
    """`mov.b64 d, {lo, hi}` as `pack_b64` and `mov.b64 {lo, hi}, s` as `unpack_b64` (a `_` half is an
    unused result), so the analysis sees which half of a register pair is ever read (LLVM packs a value
    with an undefined partner and unpacks only the defined half)."""
    halves_ok = lambda v: len(v.items) == 2 and all(isinstance(x, (P.Reg, P.Imm, P.Sink)) for x in v.items)  # noqa: E731
    if (
        isinstance(d, P.Reg)
        and isinstance(s, P.Vec)
        and halves_ok(s)
        and not any(isinstance(x, P.Sink) for x in s.items)
    ):
        lo, hi = (L.val(x, B32, sc) for x in s.items)
        L.put(d, L.b.create("pack_b64", [lo, hi], [B64]).results[0], sc)
        return True
    if isinstance(d, P.Vec) and isinstance(s, (P.Reg, P.Imm)) and halves_ok(d):
        op = L.b.create("unpack_b64", [L.val(s, B64, sc)], [B32, B32])
        for x, r in zip(d.items, op.results):
            if isinstance(x, P.Reg):
                L.put(x, r, sc)
        return True
    return False


#: PTX float comparisons -> the IR predicate with the same meaning (irc.ir.semantics.FLOAT_PREDS): the
#: IR's `ne` is unordered (.kdsl's `!=`), so PTX's ordered `ne` is `one` and `neu` is `ne`.
FLOAT_CMP = {"ne": "one", "neu": "ne"}


def _h_setp(L: FnLifter, i: P.Instr, sc: LiftScope | None, mods: list[str]) -> bool:
    """`setp.CMP{.BOOLOP}.TYPE`, exactly (a `.ftz` compare, a packed type: `generic`)."""
    ops = i.operands
    if not mods or mods[0] not in CMPS or len(ops) < 3:
        return False
    t = suffix_type(mods)
    if t is None or t == BOOL or len(type_mods(mods)) != 1 or _packed(mods):
        return False
    rest = _others(mods)[1:]
    boolop = rest[0] if rest and rest[0] in ("and", "or", "xor") else None
    if rest != ([boolop] if boolop else []):
        return False
    if _kind(t) == "float":
        cmp = FLOAT_CMP.get(mods[0], mods[0])
        if cmp not in FLOAT_PREDS:
            return False
    else:
        cmp = CMP.get(mods[0], mods[0])
        if cmp not in INT_PREDS:
            return False
    a = L.val(ops[1], t, sc)
    b = L.val(ops[2], t, sc)
    c = L.b.value("cmp", [a, b], attrs={"pred": cmp})
    d = ops[0]
    q_dest = None
    if isinstance(d, P.Pair):
        d, q_dest = d.first, d.second
    nc = L.b.value("not", [c]) if q_dest is not None and not isinstance(q_dest, P.Sink) else None
    if boolop is not None:
        if len(ops) < 4:
            return False
        extra = L.val(ops[3], BOOL, sc)
        p = L.b.value(boolop, [c, extra])
        q = L.b.value(boolop, [nc, extra]) if nc is not None else None
    else:
        p, q = c, nc
    L.put(d, p, sc)
    if q_dest is not None and q is not None:
        L.put(q_dest, q, sc)
    return True


def _h_selp(L: FnLifter, i: P.Instr, sc: LiftScope | None, mods: list[str]) -> bool:
    ops = i.operands
    t = suffix_type(mods)
    if len(ops) != 4 or t is None or not isinstance(ops[0], P.Reg) or _others(mods) or len(mods) != 1:
        return False
    t = L.dest_type(ops[0], t, sc)
    c = L.val(ops[3], BOOL, sc)
    a = L.val(ops[1], t, sc)
    b = L.val(ops[2], t, sc)
    L.put(ops[0], L.b.value("select", [c, a, b]), sc)
    return True


PACKED_SET = frozenset(PACKED)
TYPE_NAMES = frozenset(ALL_TYPES)


def _packed(mods: list[str]) -> bool:
    return not PACKED_SET.isdisjoint(mods)


def _kind(t: object) -> str:
    if isinstance(t, ScalarType) and t.is_bool:
        return "bool"
    return "float" if isinstance(t, ScalarType) and t.is_float else "int"


def _others(mods: list[str]) -> list[str]:
    """The modifiers that are not type suffixes."""
    return [m for m in mods if m not in ALL_TYPES]


def _h_arith(L: FnLifter, i: P.Instr, sc: LiftScope | None, mods: list[str]) -> bool:
    """Arithmetic by the exact-modifier rule (`lift_map`): an instruction lifts as an op only when its
    modifiers are exactly a template's; anything else falls back to `generic` (ptx_pure / opaque)."""
    base = i.base
    ops = i.operands
    t = suffix_type(mods)
    if t is None or _packed(mods) or not ops or not isinstance(ops[0], P.Reg):
        return False
    d = ops[0]
    rest = _others(mods)
    if len(type_mods(mods)) != 1:
        return False
    if base == "mul" and rest == ["wide"]:
        if len(ops) != 3:
            return False
        a, b = L.val(ops[1], t, sc), L.val(ops[2], t, sc)
        wt = ScalarType(f"{t.name[0]}{t.bits * 2}")  # type: ignore[attr-defined]
        L.put(d, L.b.value("mulwide", [a, b], wt), sc)
        return True
    if base in ("mad", "fma"):
        if len(ops) != 4:
            return False
        if _kind(t) == "float":
            if rest != ["rn"]:  # fma.rn / mad.rn only: .rz/.ftz/.sat/.relu are other operations
                return False
            a, b, c = (L.val(o, t, sc) for o in ops[1:])
            L.put(d, L.b.value("fma", [a, b, c]), sc)
            return True
        if base != "mad" or rest not in (["lo"], ["wide"]):
            return False  # mad.hi, mad.cc, mad.hi.sat: other operations
        a, b = L.val(ops[1], t, sc), L.val(ops[2], t, sc)
        if rest == ["wide"]:
            wt = ScalarType(f"{t.name[0]}{t.bits * 2}")  # type: ignore[attr-defined]
            m = L.b.value("mulwide", [a, b], wt)
            L.put(d, L.b.value("add", [m, L.val(ops[3], wt, sc)]), sc)
        else:
            m = L.b.value("mul", [a, b])
            L.put(d, L.b.value("add", [m, L.val(ops[3], t, sc)]), sc)
        return True
    hit = arith_op(base, list(mods), TYPE_NAMES, _kind(t))
    if hit is None:
        return False
    name, attrs = hit
    if len(ops) != len(OPS[name].operands) + 1:
        return False
    L.put(d, L.b.value(name, [L.val(o, t, sc) for o in ops[1:]], t, attrs or None), sc)
    return True


def _h_cvt(L: FnLifter, i: P.Instr, sc: LiftScope | None, mods: list[str]) -> bool:
    """`cvt{.RND}{.sat}.D.S`, exactly: another modifier (`.ftz`, `.relu`, `.satfinite`) is `generic`."""
    ops = i.operands
    tm = type_mods(mods)
    if len(ops) != 2 or len(tm) != 2 or _packed(tm) or not isinstance(ops[0], P.Reg):
        return False
    rest = _others(mods)
    if len([m for m in rest if m in ROUND]) > 1 or any(m not in ROUND and m != "sat" for m in rest):
        return False
    dt = L.dest_type(ops[0], PTX_TYPES[tm[0]], sc)
    st = PTX_TYPES[tm[1]]
    if isinstance(ops[1], P.Reg) and not L.is_special(ops[1].name):
        st = L.dest_type(ops[1], st, sc)
    src = L.val(ops[1], st, sc)
    attrs = {}
    rnd = [m for m in mods if m in ROUND]
    if rnd and dt == st and isinstance(dt, ScalarType) and dt.is_float and rnd[0] in ROUNDING_OPS:
        L.put(ops[0], L.b.value(ROUNDING_OPS[rnd[0]], [src]), sc)  # cvt.rmi.f32.f32 is floor (op table)
        return True
    if rnd:
        attrs["rnd"] = rnd[0]
    if "sat" in mods:
        attrs["sat"] = True
    L.put(ops[0], L.b.value("cvt", [src], dt, attrs or None), sc)
    return True


def _h_cvta(L: FnLifter, i: P.Instr, sc: LiftScope | None, mods: list[str]) -> bool:
    ops = i.operands
    t = suffix_type(mods) or U64
    if len(ops) != 2 or not isinstance(ops[0], P.Reg):
        return False
    src = L.val(ops[1], t, sc)
    kind = ".".join(m for m in mods if m not in ALL_TYPES)
    L.put(ops[0], L.b.value("cvt", [src], L.dest_type(ops[0], t, sc), {"cvta": kind}), sc)
    return True


def _space(mods: list[str]) -> str:
    for m in mods:
        s = SPACE_OF.get(m)
        if s is not None:
            return s
    return "generic"


def _narrow(attrs: dict[str, Any], t: Any, vals: list[Any]) -> None:
    """`ld.b8`/`st.b8` (any width below the registers') moves `t`'s bytes per value, not the register's:
    the access's `bytes` attribute says so (the value keeps the register's type, as PTX's zero/sign
    extension and truncation leave the register whole)."""
    w = bit_width(t)
    if w and w % 8 == 0 and vals and any(bit_width(x) > w for x in vals):
        attrs["bytes"] = w // 8 * len(vals)


def _h_ld(L: FnLifter, i: P.Instr, sc: LiftScope | None, mods: list[str]) -> bool:
    ops = i.operands
    t = suffix_type(mods)
    if len(ops) < 2 or t is None or not isinstance(ops[1], P.Addr) or ops[1].index is not None:
        return False
    space = _space(mods)
    d, a = ops[0], ops[1]
    # ld.param of a scalar kernel/function parameter reads the parameter itself
    if (space == "param" and isinstance(a.base, P.Sym) and a.base.name in L.param_args and a.offset == 0
            and isinstance(d, P.Reg) and not L.param_decl[a.base.name].dims):  # fmt: skip
        v = L.param_args[a.base.name]
        L.put(d, L.conv(v, L.dest_type(d, t, sc)), sc)
        return True
    attrs: dict[str, Any] = {"space": space}
    if "volatile" in mods:
        attrs["volatile"] = True
    if "nc" in mods:
        attrs["nc"] = True
    if _STRONG & set(mods):
        attrs["strong"] = True  # a scalar .relaxed/.acquire load is an atomic read in the memory model
    if isinstance(d, P.Reg):
        dt = L.dest_type(d, t, sc)
        p, off = L.addr(a, space, dt, sc)
        if off:
            attrs["offset"] = off
        _narrow(attrs, t, [dt])
        L.put(d, L.b.value("load", [p], dt, attrs), sc)
        return True
    if isinstance(d, P.Vec):
        dts = [L.dest_type(x, t, sc) if isinstance(x, P.Reg) else t for x in d.items]
        p, off = L.addr(a, space, dts[0], sc)
        if off:
            attrs["offset"] = off
        _narrow(attrs, t, dts)
        op = L.b.create("load_vec", [p], dts, attrs)
        for x, r in zip(d.items, op.results):
            L.put(x, r, sc)
        return True
    return False


def _h_st(L: FnLifter, i: P.Instr, sc: LiftScope | None, mods: list[str]) -> bool:
    ops = i.operands
    t = suffix_type(mods)
    if len(ops) < 2 or t is None or not isinstance(ops[0], P.Addr) or ops[0].index is not None:
        return False
    space = _space(mods)
    a, s = ops[0], ops[1]
    attrs: dict[str, Any] = {"space": space}
    if "volatile" in mods:
        attrs["volatile"] = True
    if isinstance(s, P.Vec):
        vals = [L.val(x, L.dest_type(x, t, sc), sc) for x in s.items if not isinstance(x, P.Sink)]
        p, off = L.addr(a, space, vals[0].type, sc)
        if off:
            attrs["offset"] = off
        _narrow(attrs, t, [x.type for x in vals])
        L.b.create("store_vec", [p, *vals], [], attrs)
        return True
    v = L.val(s, L.dest_type(s, t, sc), sc)
    p, off = L.addr(a, space, v.type, sc)
    if off:
        attrs["offset"] = off
    _narrow(attrs, t, [v.type])
    if _STRONG & set(mods):
        attrs["strong"] = True  # a .relaxed/.release store is an atomic write in the memory model
    L.b.create("store", [p, v], [], attrs)
    return True


_STRONG = frozenset({"relaxed", "acquire", "release"})


def _ordered(h):  # type: ignore[no-untyped-def]
    """A memory access with `.release` / `.acquire` / `.acq_rel` is, in the PTX memory model, a fence
    and a relaxed access: `st.release` = `fence.acq_rel; st.relaxed`, `ld.acquire` = `ld.relaxed;
    fence.acq_rel` (atomics both ways for `.acq_rel`). The fences are lifted as such, so the analyses
    that end an interval at a fence see a flag hand-off's ordering; a `.relaxed` or plain access orders
    nothing."""

    def lift(L: FnLifter, i: P.Instr, sc: LiftScope | None, mods: list[str]) -> bool:
        before = "release" in mods or "acq_rel" in mods
        after = "acquire" in mods or "acq_rel" in mods
        if before:
            _order_fence(L, i, mods)
        done = h(L, i, sc, mods)
        if done and after:
            _order_fence(L, i, mods)
        return done

    return lift


_SCOPES = {"cta": "block", "gpu": "gpu", "sys": "sys", "cluster": "cluster"}  # PTX scope -> fence scope


def _scope(mods: list[str], default: str) -> str:
    """The IR fence scope a PTX `.cta`/`.gpu`/`.sys`/`.cluster` modifier names (`default` without one)."""
    return next((_SCOPES[x] for x in mods if x in _SCOPES), default)


def _order_fence(L: FnLifter, i: P.Instr, mods: list[str]) -> None:
    L.b.create("fence", [], [], {"scope": _scope(mods, "gpu"), "text": f"{i.opcode} (its ordering)"})


def _h_atom(L: FnLifter, i: P.Instr, sc: LiftScope | None, mods: list[str]) -> bool:
    ops = i.operands
    t = suffix_type(mods)
    kinds = [m for m in mods if m in ATOM_KINDS]
    if t is None or not kinds or _packed(mods) or any(m.startswith("v") and m[1:].isdigit() for m in mods):
        return False
    space = _space(mods)
    has_dest = i.base == "atom"
    if has_dest:
        if len(ops) < 3 or not isinstance(ops[0], P.Reg) or not isinstance(ops[1], P.Addr):
            return False
        d, a, rest = ops[0], ops[1], ops[2:]
        t = L.dest_type(d, t, sc)
    else:
        if len(ops) < 2 or not isinstance(ops[0], P.Addr):
            return False
        d, a, rest = None, ops[0], ops[1:]
    if a.index is not None:
        return False
    vals = [L.val(x, t, sc) for x in rest if not isinstance(x, (P.Addr, P.Sink))]
    p, off = L.addr(a, space, t, sc)
    attrs: dict[str, Any] = {"space": space}
    if off:
        attrs["offset"] = off
    if kinds[0] == "cas":
        if len(vals) != 2:
            return False
        r = L.b.value("atomic_cas", [p, vals[0], vals[1]], t, attrs)
    else:
        if len(vals) < 1:
            return False
        attrs = {"kind": kinds[0], **attrs}
        r = L.b.value("atomic", [p, vals[0]], t, attrs)
    if d is not None:
        L.put(d, r, sc)
    return True


def _barrier_operands(L: FnLifter, ops: list[P.Operand], sc: LiftScope | None) -> tuple[list[Value], dict]:
    attrs: dict[str, Any] = {}
    vals: list[Value] = []
    if ops and all(isinstance(o, P.Imm) for o in ops):
        attrs["id"] = int_imm(ops[0], "barrier id")
        if len(ops) > 1:
            attrs["count"] = int_imm(ops[1], "barrier thread count")
    elif ops:
        vals = [L.val(o, U32, sc) for o in ops]
    return vals, attrs


def _h_bar(L: FnLifter, i: P.Instr, sc: LiftScope | None, mods: list[str]) -> bool:
    ops = list(i.operands)
    m = [x for x in mods if x != "cta"]
    if m and m[0] == "warp":
        if m[1:2] == ["sync"] and len(ops) == 1:
            L.b.create("syncwarp", [L.val(ops[0], U32, sc)], [])
            return True
        return False
    if i.base == "barrier" and m and m[0] == "cluster":
        return False  # cluster barriers are not CTA barriers: opaque
    kind = m[0] if m else "sync"
    aligned = "aligned" in m or i.base == "bar"
    if kind in ("sync", "arrive"):
        if not 1 <= len(ops) <= 2:
            return False
        vals, attrs = _barrier_operands(L, ops, sc)
        attrs["kind"] = kind
        if aligned:
            attrs["aligned"] = True
        L.b.create("barrier", vals, [], attrs)
        return True
    if kind == "red":
        # bar.red.popc.u32 d, a{, b}, {!}c -> barrier + a block-uniform result
        if len(ops) < 3 or not isinstance(ops[0], P.Reg):
            return False
        vals, attrs = _barrier_operands(L, ops[1:-1], sc)
        attrs["kind"] = "red"
        red = [x for x in m if x in ("popc", "and", "or")]
        if red:
            attrs["op"] = red[0]
        if aligned:
            attrs["aligned"] = True
        L.val(ops[-1], BOOL, sc)  # read the predicate (uninitialized reads still count)
        L.b.create("barrier", vals, [], attrs)
        t = suffix_type(mods) or U32
        L.put(ops[0], L.b.value("ptx_pure", [], L.dest_type(ops[0], t, sc), {"text": i.opcode}), sc)
        return True
    return False


def _h_shfl(L: FnLifter, i: P.Instr, sc: LiftScope | None, mods: list[str]) -> bool:
    ops = i.operands
    if "sync" not in mods or len(ops) != 5:
        return False
    mode = next((x for x in mods if x in ("up", "down", "bfly", "idx")), None)
    if mode is None:
        return False
    t = suffix_type(mods) or B32
    d = ops[0]
    pdest = None
    if isinstance(d, P.Pair):
        d, pdest = d.first, d.second
    v = L.val(ops[1], L.dest_type(ops[1], t, sc) if isinstance(ops[1], P.Reg) else t, sc)
    lane = L.val(ops[2], U32, sc)
    mask = L.val(ops[4], U32, sc)
    attrs: dict[str, Any] = {"mode": mode}
    if isinstance(ops[3], P.Imm):
        attrs["c"] = int_imm(ops[3], "shfl clamp operand")
    r = L.b.value("shfl", [v, lane, mask], v.type, attrs)
    L.put(d, r, sc)
    if isinstance(pdest, P.Reg):
        # the in-range predicate depends on the lane: varying
        c = L.val(ops[3], U32, sc)
        p = L.b.value("ptx_pure", [L.sreg("%laneid"), lane, c], BOOL, {"text": "shfl.sync.pred"})
        L.put(pdest, p, sc)
    return True


def _h_vote(L: FnLifter, i: P.Instr, sc: LiftScope | None, mods: list[str]) -> bool:
    ops = i.operands
    if "sync" not in mods or len(ops) != 3 or not isinstance(ops[0], P.Reg):
        return False
    mode = next((x for x in mods if x in ("all", "any", "uni", "ballot")), None)
    if mode is None:
        return False
    p = L.val(ops[1], BOOL, sc)
    mask = L.val(ops[2], U32, sc)
    rt = U32 if mode == "ballot" else BOOL
    r = L.b.value("vote", [p, mask], rt, {"mode": mode})
    L.put(ops[0], L.conv(r, L.dest_type(ops[0], rt, sc)) if rt != BOOL else r, sc)
    return True


def _h_activemask(L: FnLifter, i: P.Instr, sc: LiftScope | None, mods: list[str]) -> bool:
    if len(i.operands) != 1 or not isinstance(i.operands[0], P.Reg):
        return False
    L.put(i.operands[0], L.b.value("activemask", [], U32), sc)
    return True


def _h_elect(L: FnLifter, i: P.Instr, sc: LiftScope | None, mods: list[str]) -> bool:
    ops = i.operands
    if "sync" not in mods or len(ops) != 2 or not isinstance(ops[0], P.Pair):
        return False
    mask = L.val(ops[1], U32, sc)
    p = L.b.value("elect", [mask])
    L.put(ops[0].second, p, sc)
    if isinstance(ops[0].first, P.Reg):
        # the elected leader's lane id is the same in every lane: pure of the (uniform) mask
        lid = L.b.value("ptx_pure", [mask], U32, {"text": "elect.sync.laneid"})
        L.put(ops[0].first, lid, sc)
    return True


def _h_redux(L: FnLifter, i: P.Instr, sc: LiftScope | None, mods: list[str]) -> bool:
    """`redux.sync.KIND.TYPE d, v, mask`, by the op table's template: the type keeps its signedness."""
    ops = i.operands
    m = match_positional("redux", i.opcode, PTX_TYPES)
    if m is None or len(ops) != 3 or not isinstance(ops[0], P.Reg):
        return False
    attrs, t = m
    vt = U32 if t == B32 else t
    r = L.b.value("redux", [L.val(ops[1], vt, sc), L.val(ops[2], U32, sc)], vt, attrs)
    L.put(ops[0], r, sc)
    return True


def _h_fence(L: FnLifter, i: P.Instr, sc: LiftScope | None, mods: list[str]) -> bool:
    if i.operands:
        return False
    if i.base == "membar":
        scope = {"cta": "block", "gl": "gpu", "sys": "sys"}.get(mods[0] if mods else "gl", "gpu")
    elif mods[:2] == ["proxy", "async"]:
        scope = "proxy_async"
    elif mods[:1] == ["mbarrier_init"]:
        scope = "mbarrier_init"
    elif mods[:1] == ["proxy"]:
        scope = "proxy"
    else:
        scope = _scope(mods, "sys")
    L.b.create("fence", [], [], {"scope": scope, "text": i.opcode})
    return True


def _h_call(L: FnLifter, i: P.Instr, sc: LiftScope | None, mods: list[str]) -> bool:
    ops = i.operands
    rets: list[P.Operand] = []
    args: list[P.Operand] = []
    callee = None
    for o in ops:
        if isinstance(o, P.Sym) and callee is None:
            callee = o.name
        elif isinstance(o, P.Vec):
            (args if callee is not None else rets).extend(o.items)
        elif isinstance(o, P.Reg) and callee is not None:
            args.append(o)
    if callee is None:
        return False
    vals = [L.val(a, None, sc) for a in args if isinstance(a, P.Reg)]
    rregs = [r for r in rets if isinstance(r, P.Reg)]
    op = L.b.create("call", vals, [L.regtype(L.key(r, sc)) for r in rregs], {"callee": callee})
    for r, v in zip(rregs, op.results):
        L.put(r, v, sc)
    return True


def _h_pure(L: FnLifter, i: P.Instr, sc: LiftScope | None, mods: list[str]) -> bool:
    L.generic(i, sc, "ptx_pure")
    return True


def _h_arith_or_pure(L: FnLifter, i: P.Instr, sc: LiftScope | None, mods: list[str]) -> bool:
    if _h_arith(L, i, sc, mods):
        return True
    if isa.info(i).pure:
        L.generic(i, sc, "ptx_pure")
        return True
    return False


HANDLERS: dict[str, Any] = {
    "mov": _h_mov,
    "setp": _h_setp,
    "selp": _h_selp,
    "cvt": _h_cvt,
    "cvta": _h_cvta,
    "ld": _ordered(_h_ld),
    "st": _ordered(_h_st),
    "atom": _ordered(_h_atom),
    "red": _ordered(_h_atom),
    "bar": _h_bar,
    "barrier": _h_bar,
    "shfl": _h_shfl,
    "vote": _h_vote,
    "activemask": _h_activemask,
    "elect": _h_elect,
    "redux": _h_redux,
    "membar": _h_fence,
    "fence": _h_fence,
    "call": _h_call,
}
for _b in (*ARITH, "mad", "fma"):  # the bases the op table's templates spell (lift_map), plus mad/fma
    HANDLERS[_b] = _h_arith_or_pure
for _b in PURE_TEXT:
    if "." not in _b and _b not in HANDLERS:
        HANDLERS[_b] = _h_pure

# mbarrier, cp.async*, fence.proxy.async / mbarrier_init, tcgen05: the .kdsl front end's async ops
lift_async.register(HANDLERS)
