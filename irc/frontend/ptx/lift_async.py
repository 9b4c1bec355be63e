"""Lift PTX's asynchronous instructions to the IR ops the .kdsl front end builds for them.

Why: the mbarrier protocol analysis (`irc.analysis.mbarrier`) and the async checks read IR ops
(`mbarrier_init`, `mbarrier_arrive_expect_tx`, `tma_load`, `cp_async_commit`, `tcgen05_commit`, ...).
Lifting nvcc's and Triton's PTX to the very same ops is what makes every async check run on .ptx and
.kdsl alike. Forms the IR has no spelling for (a non-parity wait on a state token, `mbarrier.arrive`
with a count) carry attributes; forms outside what is modelled return False and fall back to the
generic lowering (`opaque`), which the analysis treats as "cannot decide" and stays silent.

Hooked into `lift._HANDLERS` by `register(handlers)`; every handler has the lifter's handler signature.
"""

from __future__ import annotations

from typing import Any

from irc.frontend.ptx.operands import int_imm
from irc.ir.core import BlockArg, OpResult, Value
from irc.ir.types import BOOL, F16, F32, I32, I64, MBARRIER, U8, U16, U32, U64, PtrType, TensorMapType
from irc.ptxisa import model as P

_TMAP = TensorMapType(U32, ())  # a descriptor whose box is unknown (built by the host)

# `tensormap.replace ... .elemtype` codes whose element size is certain: the CUDA driver's
# CUtensorMapDataType and the PTX ISA agree on 0-7 and 11-12 (they differ on which of 8-10 is f64), and
# 13-15 are packed sub-byte types; those are left unknown (the box's bytes are then unknown too).
_TMAP_ELEMS = {0: U8, 1: U16, 2: U32, 3: I32, 4: U64, 5: I64, 6: F16, 7: F32, 11: F32, 12: F32}


def _tm_root(v: Value) -> tuple[Value, int] | None:
    """(root value, byte offset) of a descriptor address: through casts, `cvta` and constant adds, so
    `cvt.u64.u32 %rd8, %r9` and `cvt.u64.u32 %rd14, %r9` (one scratch buffer) and `cvta.global %rd27,
    %rd13` with `%rd13 = %rd10 + 128` (the second descriptor) are recognised."""
    off = 0
    for _ in range(32):
        if not isinstance(v, OpResult):
            return v, off
        op = v.op
        if op.name in ("bitcast", "cvt", "copy") and op.operands:
            v = op.operands[0]
            continue
        if op.name in ("add", "ptradd") and len(op.operands) == 2:
            c = _const_of(op.operands[1])
            if c is not None:
                off += c
                v = op.operands[0]
                continue
        return v, off
    return None


def _tm_key(v: Value) -> tuple[int, int] | None:
    r = _tm_root(v)
    return (id(r[0]), r[1]) if r is not None else None


def refine_tensormaps(L: Any) -> None:
    """After the function is lifted: a tensor copy inside a loop names its descriptor through the loop
    header's block argument, whose incoming values are known only now. Such an argument is the recorded
    descriptor when every incoming value (other than itself) is; its copies then get the typed box."""
    st = L.__dict__.get("_tensormaps")
    if not st or not st.get("pending") or not st["global"]:
        return

    def key(v: Value, depth: int) -> tuple[int, int] | None:
        r = _tm_root(v)
        if r is None or depth > 8:
            return None
        root, off = r
        if id(root) in {k[0] for k in st["global"]} or not isinstance(root, BlockArg):
            return (id(root), off)
        ins = [x for x in root.incoming() if _tm_root(x) is not None and _tm_root(x)[0] is not root]
        keys = {key(x, depth + 1) for x in ins}
        if len(keys) != 1 or None in keys:
            return None
        k = next(iter(keys))
        return (k[0], k[1] + off) if k is not None else None

    for cast, m in st["pending"]:
        k = key(m, 0)
        t = st["global"].get(k) if k is not None else None
        if t is not None:
            cast.results[0].type = t


def _const_of(v: Value) -> int | None:
    while isinstance(v, OpResult) and v.op.name in ("copy", "bitcast", "cvt") and v.op.operands:
        v = v.op.operands[0]
    c = v.op.attrs.get("value") if isinstance(v, OpResult) and v.op.name == "const" else None
    return c if isinstance(c, int) and not isinstance(c, bool) else None


def h_tensormap(L: Any, i: P.Instr, sc: Any, mods: list[str]) -> bool:
    """Descriptors built in the kernel (Triton's `tl.make_tensor_descriptor`): `tensormap.replace` writes
    box extents and the element type into a scratch copy, `tensormap.cp_fenceproxy` publishes it to the
    global descriptor the copies name. Recorded here, in program order, so a tensor copy through that
    descriptor gets a typed box (`_map_and_coords`); the instructions themselves keep the generic
    lowering (returns False)."""
    ops = list(i.operands)
    if not ops or not isinstance(ops[0], P.Addr) or not isinstance(ops[0].base, P.Reg):
        return False
    st: dict = L.__dict__.setdefault("_tensormaps", {"scratch": {}, "global": {}})
    base = L.val(ops[0].base, U64, sc)
    k = _tm_key(base)
    if k is None:
        return False
    k = (k[0], k[1] + ops[0].offset)
    if mods[:2] == ["replace", "tile"] and len(mods) > 2:
        f = st["scratch"].setdefault(k, {})
        vals = [L.val(o, U32, sc) if isinstance(o, (P.Reg, P.Imm)) else None for o in ops[1:]]
        cs = [_const_of(v) if v is not None else None for v in vals]
        if mods[2] == "box_dim" and len(cs) == 2 and cs[0] is not None:
            f.setdefault("box", {})[cs[0]] = cs[1]
        elif mods[2] == "elemtype" and len(cs) == 1:
            f["elem"] = cs[0]
        elif mods[2] == "rank" and len(cs) == 1:
            f["rank"] = cs[0]
        return False
    if mods[:1] == ["cp_fenceproxy"] and len(ops) >= 2 and isinstance(ops[1], P.Addr):
        src = ops[1]
        sk = _tm_key(L.val(src.base, U64, sc)) if isinstance(src.base, P.Reg) else None
        got = st["scratch"].get((sk[0], sk[1] + src.offset)) if sk is not None else None
        st["global"][k] = _box_type(got) if got is not None else None
    return False


def _box_type(f: dict) -> TensorMapType | None:
    """The descriptor type of recorded `tensormap.replace` fields: rank (stored as rank - 1), every box
    extent below it known and positive, and an element type of certain size; else None (unknown)."""
    rank, box, elem = f.get("rank"), f.get("box", {}), _TMAP_ELEMS.get(f.get("elem", -1))
    if not isinstance(rank, int) or elem is None:
        return None
    dims = [box.get(d) for d in range(rank + 1)]
    if any(not isinstance(x, int) or x <= 0 for x in dims):
        return None
    return TensorMapType(elem, tuple(reversed(dims)))  # outermost first, as the IR spells a box


def _sptr(L: Any, a: P.Operand, sc: Any, elem: Any = MBARRIER) -> Value | None:
    """A shared pointer operand: `[reg+off]` or `[sym+off]` -> ptr (+ ptradd for the offset)."""
    if not isinstance(a, P.Addr) or a.index is not None or a.base is None:
        return None
    p, off = L.addr(a, "shared", elem, sc)
    if off:
        p = L.b.value("ptradd", [p, L.const(off, I32)], p.type)
    return p


def _gptr(L: Any, a: P.Operand, sc: Any) -> Value | None:
    if not isinstance(a, P.Addr) or a.index is not None or a.base is None:
        return None
    p, off = L.addr(a, "global", U32, sc)
    if off:
        p = L.b.value("ptradd", [p, L.const(off, I32)], p.type)
    return p


def _u32(L: Any, o: P.Operand, sc: Any) -> Value | None:
    if isinstance(o, (P.Reg, P.Imm)):
        return L.val(o, U32, sc)
    return None


def _count(L: Any, o: P.Operand, sc: Any) -> int | None:
    """An arrival count: an immediate, or a register holding a constant (libcu++'s `cuda::barrier` passes
    `mov.u32 %r, 1; mbarrier.arrive... [bar], %r`). None for a count computed at run time."""
    if isinstance(o, P.Imm):
        return int_imm(o, "mbarrier arrival count")
    if not isinstance(o, P.Reg):
        return None
    return _const_of(L.val(o, U32, sc))


def _sets(L: Any, o: P.Operand, v: Value, sc: Any) -> None:
    if isinstance(o, P.Reg) and o.name != "_":
        L.put(o, L.conv(v, L.regtype(L.key(o, sc))) if L.regtype(L.key(o, sc)) != v.type else v, sc)


# ------------------------------------------------------------------------------------------ mbarrier
def h_mbarrier(L: Any, i: P.Instr, sc: Any, mods: list[str]) -> bool:
    ops = list(i.operands)
    kind = mods[0] if mods else ""
    b = L.b
    if kind == "init" and len(ops) == 2:
        p, n = _sptr(L, ops[0], sc), _u32(L, ops[1], sc)
        if p is None or n is None:
            return False
        b.create("mbarrier_init", [p, n], [], {})
        return True
    if kind == "inval" and len(ops) == 1:
        p = _sptr(L, ops[0], sc)
        if p is None:
            return False
        b.create("mbarrier_inval", [p], [], {})
        return True
    if kind in ("expect_tx", "complete_tx") and len(ops) == 2:
        p, n = _sptr(L, ops[0], sc), _u32(L, ops[1], sc)
        if p is None or n is None:
            return False
        b.create(f"mbarrier_{kind}", [p, n], [], {})
        return True
    if kind in ("arrive", "arrive_drop") and ops:
        dest = ops.pop(0) if not isinstance(ops[0], P.Addr) else None
        if not ops:
            return False
        p = _sptr(L, ops[0], sc)
        if p is None:
            return False
        attrs: dict[str, Any] = {}
        if kind == "arrive_drop":
            attrs["drop"] = True
        if "expect_tx" in mods:
            if len(ops) < 2:
                return False
            tx = _u32(L, ops[1], sc)
            if tx is None:
                return False
            if len(ops) > 2:
                c = _count(L, ops[2], sc)
                if c is None:
                    return False
                attrs["count"] = c
            r = b.value("mbarrier_arrive_expect_tx", [p, tx], U64, attrs)
        else:
            if len(ops) > 1:
                c = _count(L, ops[1], sc)
                if c is None:
                    return False
                attrs["count"] = c
            r = b.value("mbarrier_arrive", [p], U64, attrs)
        if dest is not None:
            _sets(L, dest, r, sc)
        return True
    if kind in ("test_wait", "try_wait") and len(ops) >= 3 and isinstance(ops[0], P.Reg):
        p = _sptr(L, ops[1], sc)
        if p is None:
            return False
        parity = "parity" in mods
        x = L.val(ops[2], U32 if parity else U64, sc) if isinstance(ops[2], (P.Reg, P.Imm)) else None
        if x is None:
            return False
        attrs = {} if parity else {"state": True}
        r = b.value(f"mbarrier_{kind}", [p, x], BOOL, attrs)
        L.put(ops[0], r, sc)
        return True
    return False


# ------------------------------------------------------------------------------------------ cp.async
def h_cp(L: Any, i: P.Instr, sc: Any, mods: list[str]) -> bool:
    if mods[:1] == ["reduce"]:
        return False
    if mods[:1] != ["async"]:
        return False
    rest = mods[1:]
    ops = list(i.operands)
    b = L.b
    if not rest:
        return False
    if rest[0] in ("ca", "cg"):  # cp.async.ca.shared.global [d], [s], size{, src-size}{, policy}
        if len(ops) < 3 or not isinstance(ops[2], P.Imm):
            return False
        d, s = _sptr(L, ops[0], sc, U32), _gptr(L, ops[1], sc)
        if d is None or s is None:
            return False
        b.create("cp_async", [d, s], [], {"bytes": int_imm(ops[2], "cp.async size")})
        return True
    if rest == ["commit_group"]:
        b.create("cp_async_commit", [], [], {})
        return True
    if rest[0] == "wait_group" and len(ops) == 1 and isinstance(ops[0], P.Imm):
        b.create("cp_async_wait", [], [], {"n": int_imm(ops[0], "wait_group count")})
        return True
    if rest == ["wait_all"]:
        b.create("cp_async_commit", [], [], {})
        b.create("cp_async_wait", [], [], {"n": 0})
        return True
    if rest[0] == "mbarrier" and "arrive" in rest and len(ops) == 1:
        p = _sptr(L, ops[0], sc)
        if p is None:
            return False
        b.create("cp_async_mbarrier_arrive", [p], [], {"noinc": "noinc" in rest})
        return True
    if rest[0] != "bulk":
        return False
    rest = rest[1:]
    if rest == ["commit_group"]:
        b.create("tma_store_commit", [], [], {})
        return True
    if rest[:1] == ["wait_group"] and len(ops) == 1 and isinstance(ops[0], P.Imm):
        attrs: dict[str, Any] = {"n": int_imm(ops[0], "wait_group count")}
        if "read" in rest:
            attrs["read"] = True
        b.create("tma_store_wait", [], [], attrs)
        return True
    if rest[:1] == ["tensor"]:
        return _tensor(L, i, sc, rest[1:], ops)
    if rest[:2] == ["prefetch", "tensor"]:
        return _prefetch(L, i, sc, ops)
    if rest and rest[0].startswith("shared") and len(ops) >= 4 and "mbarrier::complete_tx::bytes" in rest:
        d, s, n, m = (
            _sptr(L, ops[0], sc, U32),
            _gptr(L, ops[1], sc),
            _u32(L, ops[2], sc),
            _sptr(L, ops[3], sc),
        )
        if d is None or s is None or n is None or m is None:
            return False
        attrs = {"multicast": any("multicast" in x for x in rest)}
        if rest[0] == "shared::cta":
            attrs["cta"] = True  # the CTA-local form: its mbarrier is this CTA's (`async-proxy-fence`)
        b.create("bulk_load", [d, s, n, m], [], attrs)
        return True
    if rest and rest[0] == "global" and len(ops) >= 3 and "bulk_group" in rest:
        d, s, n = _gptr(L, ops[0], sc), _sptr(L, ops[1], sc, U32), _u32(L, ops[2], sc)
        if d is None or s is None or n is None:
            return False
        b.create("bulk_store", [d, s, n], [], {})
        return True
    return False


def _map_and_coords(L: Any, a: P.Operand, sc: Any) -> tuple[Value, list[Value]] | None:
    if not isinstance(a, P.Addr) or a.index is None or a.base is None:
        return None
    if isinstance(a.base, P.Reg):
        m = L.val(a.base, U64, sc)
    else:
        m = L.sym_addr(a.base.name, U64)
    if a.offset:
        m = L.b.value("add", [m, L.const(a.offset, U64)], U64)
    st = L.__dict__.get("_tensormaps")
    key = _tm_key(m)
    t = st["global"].get(key) if st is not None and key is not None else None
    src = m
    m = L.b.value("bitcast", [m], t or _TMAP)
    if st is not None and t is None and isinstance(m, OpResult):
        st.setdefault("pending", []).append((m.op, src))  # a loop's block argument: `refine_tensormaps`
    coords = []
    for c in a.index.items:
        if not isinstance(c, (P.Reg, P.Imm)):
            return None
        coords.append(L.val(c, I32, sc))
    return m, coords


def _tensor(L: Any, i: P.Instr, sc: Any, rest: list[str], ops: list[P.Operand]) -> bool:
    dims = next((int(x[0]) for x in rest if len(x) == 2 and x[1] == "d" and x[0].isdigit()), None)
    if dims is None or not rest:
        return False
    attrs: dict[str, Any] = {"dims": dims}
    for flag in ("im2col", "multicast", "tile"):
        if any(x.startswith(flag) for x in rest):
            attrs[flag if flag != "multicast" else "multicast"] = True
    if rest[1] == "shared::cta":
        attrs["cta"] = True  # the CTA-local form: its mbarrier is this CTA's (`async-proxy-fence`)
    if rest[1].startswith("shared"):  # load: [dst], [map, {coords}], [mbar]{, im2col offs}{, mask}{, pol}
        if len(ops) < 3 or "mbarrier::complete_tx::bytes" not in rest:
            return False
        d = _sptr(L, ops[0], sc, U32)
        mc = _map_and_coords(L, ops[1], sc)
        bar = _sptr(L, ops[2], sc)
        if d is None or mc is None or bar is None:
            return False
        L.b.create("tma_load", [d, mc[0], *mc[1], bar], [], attrs)
        return True
    if rest[1] == "global" and len(ops) >= 2:  # store: [map, {coords}], [src]
        mc = _map_and_coords(L, ops[0], sc)
        s = _sptr(L, ops[1], sc, U32)
        if mc is None or s is None:
            return False
        L.b.create("tma_store", [mc[0], *mc[1], s], [], attrs)
        return True
    return False


def _prefetch(L: Any, i: P.Instr, sc: Any, ops: list[P.Operand]) -> bool:
    if not ops:
        return False
    mc = _map_and_coords(L, ops[0], sc)
    if mc is None:
        return False
    L.b.create("tma_prefetch", [mc[0], *mc[1]], [], {})
    return True


# ------------------------------------------------------------------------------------------ fences
def h_fence_async(L: Any, i: P.Instr, sc: Any, mods: list[str]) -> bool:
    """`fence.proxy.async*` and `fence.mbarrier_init*` are their own ops in .kdsl's IR; other fences keep
    the lifter's generic `fence` lowering (returns False)."""
    if i.operands:
        return False
    if mods[:2] == ["proxy", "async"]:
        L.b.create("fence_proxy_async", [], [], {"text": i.opcode})
        return True
    if mods[:1] == ["mbarrier_init"]:
        L.b.create("fence_mbarrier_init", [], [], {"text": i.opcode})
        return True
    return False


# ------------------------------------------------------------------------------------------ tcgen05
def h_tcgen05(L: Any, i: P.Instr, sc: Any, mods: list[str]) -> bool:
    ops = list(i.operands)
    b = L.b
    kind = mods[0] if mods else ""
    if kind == "mma" and len(ops) >= 5 and isinstance(ops[0], P.Addr) and isinstance(ops[1], P.Reg):
        d = ops[0]
        if not isinstance(d.base, P.Reg) or d.offset:
            return False
        if not all(isinstance(o, (P.Reg, P.Imm)) for o in ops[2:4]):  # descriptors and idesc are values
            return False
        en = ops[-1] if not isinstance(ops[-1], P.Imm) or len(ops) == 5 else ops[4]
        vals = [
            L.val(d.base, U32, sc),
            L.val(ops[1], U64, sc),
            L.val(ops[2], U64, sc),
            L.val(ops[3], U32, sc),
        ]
        if not isinstance(en, (P.Reg, P.Imm, P.Neg)):
            return False
        vals.append(L.val(en, BOOL, sc))
        b.create("tcgen05_mma", vals, [], {"text": i.opcode})
        return True
    if kind == "commit" and ops:
        p = _sptr(L, ops[0], sc)
        if p is None:
            return False
        b.create("tcgen05_commit", [p], [], {"multicast": "multicast::cluster" in mods})
        return True
    if kind.startswith("wait::ld"):
        b.create("tcgen05_wait_ld", [], [], {})
        return True
    if kind.startswith("fence::"):
        k = "before" if "before" in kind else "after"
        b.create("tcgen05_fence", [], [], {"kind": k})
        return True
    if kind == "ld" and len(ops) == 2 and isinstance(ops[0], P.Vec) and isinstance(ops[1], P.Addr):
        a = ops[1]
        if not isinstance(a.base, P.Reg) or a.offset:
            return False
        regs = [x for x in ops[0].items if isinstance(x, P.Reg)]
        if len(regs) != len(ops[0].items):
            return False
        op = b.create(
            "tcgen05_ld", [L.val(a.base, U32, sc)], [U32] * len(regs), {"n": len(regs), "text": i.opcode}
        )
        for r, v in zip(regs, op.results):
            _sets(L, r, v, sc)
        return True
    return False  # alloc, dealloc, st, cp, shift, wait::st: the generic lowering (collective / opaque)


def declare_shared(fn: Any, gvars: dict[str, P.VarDecl], local_vars: dict[str, P.VarDecl]) -> None:
    """Give the lifted function a `SharedDecl` (bytes, alignment) for every sized `.shared` variable it
    names, so that the TMA checks know what the PTX guarantees (`.align 16` is all a TMA destination
    gets unless the declaration says more). Unsized `.extern` arrays get none, only their declared
    alignment on the `shared_addr` (`extern_align`): an offset into one is judged against it, its base
    is not (the declaration is what the author relies on)."""
    from irc.ir.core import SharedDecl
    from irc.ir.types import U8, ArrayType

    have = {d.name for d in fn.shared}
    for op in fn.ops():
        if op.name != "shared_addr" or op.attrs.get("space") != "shared":
            continue
        name = str(op.attrs.get("sym"))
        v = local_vars.get(name) or gvars.get(name)
        if v is not None and v.extern and v.space == "shared" and v.align:
            # the dynamic array's declared alignment: offsets into it are judged against it (tma_facts)
            op.attrs["extern_align"] = int(v.align)
        if name in have or v is None or v.extern or v.space != "shared":
            continue
        size = v.size_bytes()
        if size <= 0:
            continue
        fn.shared.append(SharedDecl(name, ArrayType(U8, (size,)), int(v.align or 1)))
        have.add(name)


def register(handlers: dict[str, Any]) -> None:
    """Install the async handlers in the lifter's table (chained before the lifter's own `fence`)."""
    plain_fence = handlers.get("fence")

    def fence(L: Any, i: P.Instr, sc: Any, mods: list[str]) -> bool:
        if h_fence_async(L, i, sc, mods):
            return True
        return plain_fence(L, i, sc, mods) if plain_fence is not None else False

    handlers["mbarrier"] = h_mbarrier
    handlers["cp"] = h_cp
    handlers["tcgen05"] = h_tcgen05
    handlers["tensormap"] = h_tensormap
    handlers["fence"] = fence


__all__ = ["register", "refine_tensormaps", "PtrType"]
