"""Legalization for one PTX target: rewrite the IR so that every op maps to exactly one PTX instruction.

After this pass the instruction selector makes no decisions: it only spells ops. What is rewritten:
  * ops the target lacks (op-table gates, cluster special registers and `cluster` launch attributes
    before sm_90): an `unsupported-target` diagnostic at the op naming the minimum target;
  * `mbarrier_wait` -> a loop of `mbarrier_test_wait` (sm_8x) / `mbarrier_try_wait` (sm_90+) and `cbr`;
  * `elect` before sm_90 -> activemask & mask, isolate the lowest set bit, compare with the lane's bit;
  * bool loads / stores -> u8 loads / stores with `cmp ne 0` / `select 1, 0`; bool kernel parameters
    -> u32 parameters plus `cmp ne 0` (PTX has no .pred parameters);
  * `ptradd` offsets widened / narrowed to the pointer width (`cvt`, sign-extending signed offsets);
  * shifts of non-32-bit values by a register -> `shlw` / `shrw` with a `cvt` to u32 (PTX's operand form);
  * 64-bit `shfl` -> `unpack_b64`, two 32-bit `shfl`, `pack_b64`; `popc` / `clz` of 64-bit values ->
    `popcw` / `clzw` (32-bit result); bf16 conversions other than from f32 before sm_90 -> via f32
    (`pack_b32` puts bf16 bits in the top half; round-to-odd narrowing to f32 for f64 / integers);
  * f16 / bf16 arithmetic, math and compares without a valid native PTX form on the target -> widened:
    operands converted to f32 (exact), the op done in f32, the result narrowed back with `cvt.rn`
    (compares need no narrowing). Native and kept: f16 add/sub/mul/fma/neg/abs/min/max/compare and
    floor/ceil/trunc/round (sm_80+). Everything on bf16 is widened (most forms need sm_90, some -
    div, sqrt, rcp, lg2, ... - do not exist at all, and ex2.bf16 needs .ftz);
  * `unpack_half2` -> `unpack_b32` + two `cvt`; `smem_desc` -> u64 arithmetic; `undef` -> `const 0`;
  * `tcgen05_ld` of more than 32 columns -> loads of 32 columns each (`TMEM_LD_MAX`, measured with ptxas);
  * dynamic shared memory: `shared_addr` of a declaration living in `irc_dyn_smem` -> base + offset;
  * last, constants in operand slots that PTX cannot encode as immediates -> an explicit `copy`
    (the `mov` that materializes them), so that register allocation sees every register.

Needs: verified SSA IR (after the optimization pipeline). Establishes: every op is in `IMM_SLOTS`-form,
gated ops are reported; facts["shared_layout"][kernel] holds the shared-memory layout.
"""

from __future__ import annotations

from irc.backends.ptx.layout import DYN_SMEM, layout_shared
from irc.diagnostics import error
from irc.ir.builder import Builder
from irc.ir.core import Block, Function, Module, Op, OpResult, Value
from irc.ir.optable import NO_F64, OPS, ROUNDING, UNARY_MATH
from irc.ir.types import BOOL, F16, F32, F64, I16, I32, I64, U8, U16, U32, U64, PtrType, ScalarType, Type
from irc.passes.manager import Pass, PassContext
from irc.target import GATE_FAMILIES, family_admits

#: f16 ops that PTX spells validly on every supported target (verified with ptxas on sm_80/90/100a).
_F16_NATIVE = frozenset(
    {"add", "sub", "mul", "fma", "neg", "abs", "min", "max", "cmp", "floor", "ceil", "trunc", "round"}
)
#: Float arithmetic / math ops that are widened to f32 when the f16 / bf16 form is not native.
_HALF_WIDEN = frozenset(
    {"add", "sub", "mul", "div", "rem", "min", "max", "fma", "neg", "abs", "cmp"}
    | set(UNARY_MATH)
    | set(ROUNDING)
)

#: The widest `tcgen05.ld.32x32b` emitted. ptxas puts the destination vector of one load in consecutive
#: registers; an x64 load of a softmax row (64 scores live across the correction of O) made it allocate
#: 118 to 130 registers for examples/fmha_sm100.kdsl, two x32 loads 112 to 118 (x16: 113 to 126;
#: docs/codegen.md). Wider loads are split into x32 pieces of consecutive columns.
TMEM_LD_MAX = 32

#: Operand slots where PTX accepts an immediate (None = every slot), from the op table's `imm` field.
#: Anything else gets a register.
IMM_SLOTS: dict[str, frozenset[int] | None] = {n: d.imm for n, d in OPS.items()}

_CLUSTER_SREGS = (
    "cluster_ctarank",
    "cluster_nctarank",
    "clusterid",
    "nclusterid",
    "cluster_ctaid",
    "cluster_nctaid",
)


def _arch_number(arch: str) -> int:
    return int(arch[3:].rstrip("af"))


def imm_ok(op: Op, slot: int, v: Value) -> bool:
    """Can the constant `v` stay an immediate in operand `slot` of `op`?"""
    if op.name == "wmma_store" and slot == len(op.operands) - 1:
        return True
    slots = IMM_SLOTS.get(op.name, frozenset())
    if slots is not None and slot not in slots:
        return False
    t = v.type
    if op.name == "copy":
        return True
    return not (isinstance(t, ScalarType) and (t.is_bool or t.name in ("f16", "bf16")))


def _bits_of(t: Type) -> int:
    return t.bits if isinstance(t, (ScalarType, PtrType)) else 0


def _is_const(v: Value) -> bool:
    return isinstance(v, OpResult) and v.op.name == "const"


def _zero(t: Type) -> object:
    if isinstance(t, ScalarType) and t.is_float:
        return 0.0
    if isinstance(t, ScalarType) and t.is_bool:
        return False
    return 0


class Legalize(Pass):
    """Target legalization (see the module docstring).

    Needs: verified SSA IR, `ctx.arch` one of the supported targets. Establishes: one PTX instruction
    per op (cbr: one conditional branch plus at most one fall-through `bra`); unsupported ops reported
    as `unsupported-target` diagnostics in `ctx.diagnostics`."""

    name = "legalize"

    def run(self, module: Module, ctx: PassContext) -> None:
        for fn in module.kernels:
            self.run_function(fn, ctx)

    def run_function(self, fn: Function, ctx: PassContext) -> None:
        arch = ctx.arch
        self.arch = arch
        self.num = _arch_number(arch)
        self.ctx = ctx
        layout = layout_shared(fn, arch, ctx.diagnostics)
        ctx.facts.setdefault("shared_layout", {})[fn.name] = layout
        self._check_gates(fn)
        self._params(fn)
        blocks = list(fn.blocks)
        while blocks:
            b = blocks.pop(0)
            new = self._block(fn, b, layout)
            if new is not None:
                blocks.insert(0, new)
        self._materialize(fn)

    # -- diagnostics -------------------------------------------------------------------------------
    def _unsupported(self, what: str, need: str, span) -> None:
        # The sm_100a family (tcgen05, tensor memory) is not "sm_100a or newer": sm_100 and sm_120a lack it.
        if need == "sm_100a":
            targets = ", ".join(GATE_FAMILIES["sm_100a"])
            msg, hint = (
                f"{what} needs one of {targets}; the target is {self.arch}",
                f"compile with --arch {need}",
            )
        else:
            msg, hint = (
                f"{what} needs {need} or newer; the target is {self.arch}",
                f"compile with --arch {need} (or newer)",
            )
        self.ctx.diagnostics.append(error("unsupported-target", msg, span, help=hint))

    def _check_gates(self, fn: Function) -> None:
        if fn.attrs.get("cluster") and self.num < 90:
            self._unsupported("a thread-block cluster launch attribute", "sm_90", fn.span)
        for op in fn.ops():
            d = OPS.get(op.name)
            if d is None:
                continue
            if not family_admits(d.gate, self.arch):
                self._unsupported(f"`{op.name}`", d.gate, op.span)
            elif op.name in NO_F64 and op.results and op.results[0].type == F64:
                self.ctx.diagnostics.append(error(
                    "unsupported-target",
                    f"`{op.name}` of an f64 value has no PTX instruction on any target "
                    f"(`{UNARY_MATH[op.name]}` is f32-only)",
                    op.span,
                    help="compute it in f32 and convert the result",
                ))  # fmt: skip
            elif op.name == "sreg" and str(op.attrs.get("name", "")).split(".")[0] in _CLUSTER_SREGS:
                if self.num < 90:
                    self._unsupported(f"special register `{op.attrs['name']}`", "sm_90", op.span)

    # -- parameters --------------------------------------------------------------------------------
    def _params(self, fn: Function) -> None:
        entry = fn.entry
        for a in entry.args:
            if a.type == BOOL and a.uses:
                a.type = U32
                bld = Builder(entry, fn.span)
                bld.index = 0
                zero = bld.const(0, U32)
                users = list(a.users)
                b = bld.value("cmp", [a, zero], BOOL, {"pred": "ne"})
                for u in users:
                    u.replace_operand(a, b)
            elif a.type == BOOL:
                a.type = U32

    # -- per block ---------------------------------------------------------------------------------
    def _block(self, fn: Function, b: Block, layout) -> Block | None:
        """Legalize the ops of `b`; returns a block still to process when `b` was split."""
        i = 0
        while i < len(b.ops):
            op = b.ops[i]
            bld = Builder(b, op.span)
            bld.index = i  # == before(op), without a linear search of the block per op
            n = op.name
            if n == "mbarrier_wait":
                return self._wait_loop(fn, b, op)
            if n == "undef":
                c = bld.const(_zero(op.result.type), op.result.type)
                op.result.replace_all_uses_with(c)
                op.erase()
                continue
            if n == "elect" and self.num < 90:
                self._elect(bld, op)
                continue
            if n in ("select", "cmp", "cvt") and self._bool_op(bld, op):
                continue
            if n == "mulhi" and _bits_of(op.result.type) == 8:
                self._mulhi8(bld, op)
                continue
            if n == "load" and op.results and op.result.type == BOOL:
                x = bld.value("load", list(op.operands), U8, dict(op.attrs))
                z = bld.const(0, U8)
                p = bld.value("cmp", [x, z], BOOL, {"pred": "ne"})
                op.result.replace_all_uses_with(p)
                op.erase()
                continue
            if n == "store" and op.operands[1].type == BOOL:
                one, zero = bld.const(1, U8), bld.const(0, U8)
                x = bld.value("select", [op.operands[1], one, zero], U8)
                op.set_operand(1, x)
            elif n == "ptradd":
                self._ptradd(bld, op)
            elif n in ("shl", "shr"):
                amt = op.operands[1]
                t = op.result.type
                if isinstance(t, ScalarType) and t.bits != 32 and not _is_const(amt):
                    a32 = bld.value("cvt", [amt], U32)
                    w = bld.value(n + "w", [op.operands[0], a32], t)
                    op.result.replace_all_uses_with(w)
                    op.erase()
                    continue
            elif n == "unpack_half2":
                h = bld.create("unpack_b32", [op.operands[0]], [F16, F16])
                lo = bld.value("cvt", [h.results[0]], F32)
                hi = bld.value("cvt", [h.results[1]], F32)
                op.results[0].replace_all_uses_with(lo)
                op.results[1].replace_all_uses_with(hi)
                op.erase()
                continue
            elif n == "smem_desc":
                self._smem_desc(bld, op)
                continue
            elif n == "tcgen05_ld" and int(op.attrs.get("n", 0)) > TMEM_LD_MAX:
                self._split_tmem_ld(bld, op)
                continue
            elif n == "shfl" and _bits_of(op.result.type) == 64:
                self._shfl64(bld, op)
                continue
            elif n in ("popc", "clz") and _bits_of(op.operands[0].type) == 64:
                self._bitcount64(bld, op)
                continue
            elif n == "cvt" and self.num < 90 and self._cvt_bf16(bld, op):
                continue
            elif n in _HALF_WIDEN and self._widen_half(bld, op):
                continue
            elif n == "shared_addr" and layout.dynamic and op.attrs.get("sym") != DYN_SMEM:
                off = layout.offsets.get(op.attrs["sym"], 0)
                base = bld.value("shared_addr", [], op.result.type, {"sym": DYN_SMEM})
                if off:
                    p = bld.value("ptradd", [base, bld.const(off, U32)], op.result.type)
                else:
                    p = base
                op.result.replace_all_uses_with(p)
                op.erase()
                continue
            i += 1
        return None

    @staticmethod
    def _bool_op(bld: Builder, op: Op) -> bool:
        """`select` / `cmp` of bools and `cvt` from bool, which PTX cannot spell (no selp, setp or cvt on
        predicates): `(c & a) | (!c & b)`, the compare as logic (false < true), `select(b, 1, 0)`."""
        n = op.name
        if n == "select" and op.result.type == BOOL:
            c, a, b = op.operands
            nc = bld.value("not", [c], BOOL)
            r = bld.value("or", [bld.value("and", [c, a], BOOL), bld.value("and", [nc, b], BOOL)], BOOL)
        elif n == "cmp" and op.operands[0].type == BOOL:
            a, b = op.operands
            pred = str(op.attrs.get("pred"))
            if pred in ("eq", "ne"):
                r = bld.value("xor", [a, b], BOOL)
                r = bld.value("not", [r], BOOL) if pred == "eq" else r
            elif pred in ("lt", "le", "gt", "ge"):
                x, y = (a, b) if pred in ("lt", "le") else (b, a)  # x < y is !x & y; x <= y is !x | y
                r = bld.value("and" if pred in ("lt", "gt") else "or", [bld.value("not", [x], BOOL), y], BOOL)
            else:
                return False
        elif (
            n == "cvt" and op.operands[0].type == BOOL and op.result.type != BOOL and set(op.attrs) <= {"sat"}
        ):
            t = op.result.type
            one, zero = (1.0, 0.0) if isinstance(t, ScalarType) and t.is_float else (1, 0)
            r = bld.value("select", [op.operands[0], bld.const(one, t), bld.const(zero, t)], t)
        else:
            return False
        op.result.replace_all_uses_with(r)
        op.erase()
        return True

    @staticmethod
    def _mulhi8(bld: Builder, op: Op) -> None:
        """`mulhi` of 8-bit values: PTX has no `mul.hi` on 8 bits (8-bit values live in 16-bit registers,
        where `mul.hi.s16` is the high half of a 32-bit product). The 16-bit product of the extended
        operands, shifted right by 8."""
        t = op.result.type
        wt = I16 if isinstance(t, ScalarType) and t.is_signed else U16
        a, b = (bld.value("cvt", [v], wt) for v in op.operands)
        p = bld.value("mul", [a, b], wt)
        h = bld.value("shr", [p, bld.const(8, wt)], wt)
        op.result.replace_all_uses_with(bld.value("cvt", [h], t))
        op.erase()

    def _split_tmem_ld(self, bld: Builder, op: Op) -> None:
        """`tcgen05.ld.32x32b.xN` with N > 32 -> N / 32 loads of 32 consecutive columns each (column
        field of the address + 32 k; the one `tcgen05.wait::ld` after them covers all)."""
        n = int(op.attrs["n"])
        taddr = op.operands[0]
        parts: list[Value] = []
        for k in range(n // TMEM_LD_MAX):
            a = taddr if k == 0 else bld.value("add", [taddr, bld.const(k * TMEM_LD_MAX, U32)], U32)
            types = [r.type for r in op.results[k * TMEM_LD_MAX : (k + 1) * TMEM_LD_MAX]]
            piece = bld.create("tcgen05_ld", [a], types, {**op.attrs, "n": TMEM_LD_MAX})
            parts.extend(piece.results)
        for r, v in zip(op.results, parts):
            r.replace_all_uses_with(v)
        op.erase()

    def _wait_loop(self, fn: Function, b: Block, op: Op) -> Block:
        """b: ...; mbarrier_wait a, parity; rest  ->  b: ...; br W;  W: p = *_wait a, parity; cbr p, C, W;
        C: rest."""
        idx = b.ops.index(op)
        pos = fn.blocks.index(b)
        w = fn.add_block(Block(), pos + 1)
        c = fn.add_block(Block(), pos + 2)
        for moved in b.ops[idx + 1 :]:
            c.append(moved)
        del b.ops[idx + 1 :]
        test = "mbarrier_try_wait" if self.num >= 90 else "mbarrier_test_wait"
        bw = Builder(w, op.span)
        p = bw.value(test, list(op.operands), BOOL)
        bw.cbr(p, c, [], w, [])
        op.erase()
        Builder(b, op.span).br(w)
        return c

    def _elect(self, bld: Builder, op: Op) -> None:
        mask = op.operands[0]
        am = bld.value("activemask", [], U32)
        m = bld.value("and", [am, mask], U32)
        nm = bld.value("neg", [m], U32)
        low = bld.value("and", [m, nm], U32)
        lane = bld.value("sreg", [], U32, {"name": "laneid"})
        s = bld.value("shr", [low, lane], U32)
        p = bld.value("cmp", [s, bld.const(1, U32)], BOOL, {"pred": "eq"})
        op.result.replace_all_uses_with(p)
        op.erase()

    def _ptradd(self, bld: Builder, op: Op) -> None:
        ptr_t = op.operands[0].type
        off = op.operands[1]
        want = 32 if isinstance(ptr_t, PtrType) and ptr_t.space == "shared" else 64
        ot = off.type
        if not isinstance(ot, ScalarType) or ot.bits == want:
            return
        signed = ot.is_signed
        nt = (I64 if signed else U64) if want == 64 else (I32 if signed else U32)
        if _is_const(off):
            v = int(off.op.attrs["value"]) & ((1 << want) - 1)
            if signed and v >= 1 << (want - 1):
                v -= 1 << want
            op.set_operand(1, bld.const(v, nt))
        else:
            op.set_operand(1, bld.value("cvt", [off], nt))

    def _shfl64(self, bld: Builder, op: Op) -> None:
        """shfl.sync is .b32 only: shuffle the low and high 32-bit halves separately."""
        v, lane, mask = op.operands
        h = bld.create("unpack_b64", [v], [U32, U32])
        lo = bld.value("shfl", [h.results[0], lane, mask], U32, dict(op.attrs))
        hi = bld.value("shfl", [h.results[1], lane, mask], U32, dict(op.attrs))
        r = bld.value("pack_b64", [lo, hi], op.result.type)
        op.result.replace_all_uses_with(r)
        op.erase()

    def _bitcount64(self, bld: Builder, op: Op) -> None:
        """popc / clz of a 64-bit value have a 32-bit result in PTX (`popc.b64 %r, %rd`): the op becomes
        `popcw` / `clzw` (u32), widened back for the users that want the 64-bit type; users that
        narrow it to 32 bits again (`cvt`) read the u32 directly."""
        w = bld.value(op.name + "w", [op.operands[0]], U32)
        t = op.result.type
        for u in list(op.result.users):
            if u.name == "cvt" and not u.attrs and _bits_of(u.result.type) == 32 and u.result.type != BOOL:
                r: Value = w
                if u.result.type != U32:
                    r = Builder(u.block, u.span).before(u).value("bitcast", [w], u.result.type)
                u.result.replace_all_uses_with(r)
                u.erase()
        if op.result.uses:
            wide = bld.value("cvt", [w], t)
            op.result.replace_all_uses_with(wide)
        op.erase()

    def _cvt_bf16(self, bld: Builder, op: Op) -> bool:
        """Before sm_90 PTX converts bf16 only from f32 (`cvt.rn.bf16.f32`). bf16 -> T: put the 16 bits
        into the top half of an f32 (exact), then convert f32 -> T. T -> bf16: f16 goes through f32
        (exact); f64 and integers are narrowed to f32 with round-to-odd (truncate, then set the lowest
        bit when inexact) so that the final f32 -> bf16 rounding to nearest even rounds only once."""
        s, d = op.operands[0], op.result
        st, dt = s.type, d.type
        if not (isinstance(st, ScalarType) and isinstance(dt, ScalarType)) or st == dt:
            return False
        if st.name == "bf16":
            zero = bld.const(0, U16)
            f = bld.value("pack_b32", [zero, s], F32)
            r = f if dt == F32 else bld.value("cvt", [f], dt, dict(op.attrs))
        elif dt.name == "bf16" and st != F32 and not st.is_bool:
            rnd = op.attrs.get("rnd")
            if st.name == "f16":
                f = bld.value("cvt", [s], F32)
            elif rnd in (None, "rn"):
                f = bld.value("cvt", [s], F32, {"rnd": "rz"})
                back = bld.value("cvt", [f], st)
                inexact = bld.value("cmp", [back, s], BOOL, {"pred": "ne"})
                bits = bld.value("bitcast", [f], U32)
                mag = bld.value("and", [bits, bld.const(0x7FFFFFFF, U32)], U32)
                finite = bld.value("cmp", [mag, bld.const(0x7F800000, U32)], BOOL, {"pred": "ne"})
                inexact = bld.value("and", [inexact, finite], BOOL)
                sticky = bld.value("select", [inexact, bld.const(1, U32), bld.const(0, U32)], U32)
                f = bld.value("bitcast", [bld.value("or", [bits, sticky], U32)], F32)
            else:
                f = bld.value("cvt", [s], F32, {"rnd": rnd})
            r = bld.value("cvt", [f], dt, dict(op.attrs))
        else:
            return False
        d.replace_all_uses_with(r)
        op.erase()
        return True

    def _widen_half(self, bld: Builder, op: Op) -> bool:
        """An f16 / bf16 op without a valid native PTX form: do it in f32 (f16 and bf16 convert to f32
        exactly) and narrow the result back with round-to-nearest-even. The inserted `cvt`s are
        legalized in turn (bf16 -> f32 before sm_90 is a `pack_b32`)."""
        if not op.operands:
            return False
        t = op.operands[0].type
        if not (isinstance(t, ScalarType) and t.name in ("f16", "bf16")):
            return False
        if t.name == "f16" and op.name in _F16_NATIVE:
            return False
        wide: list[Value] = []
        for v in op.operands:
            if _is_const(v):
                wide.append(bld.const(float(v.op.attrs["value"]), F32))
            else:
                wide.append(bld.value("cvt", [v], F32))
        res = op.result
        if res.type == t:
            w = bld.value(op.name, wide, F32, dict(op.attrs))
            r = bld.value("cvt", [w], t)
        else:
            r = bld.value(op.name, wide, res.type, dict(op.attrs))
        res.replace_all_uses_with(r)
        op.erase()
        return True

    def _smem_desc(self, bld: Builder, op: Op) -> None:
        """tcgen05 shared-memory descriptor: addr>>4 [0,14), LBO>>4 [16,30), SBO>>4 [32,46), version 1 at
        bit 46, swizzle mode at bits [61,64)."""
        p, lbo, sbo, swz = op.operands
        a32 = bld.value("bitcast", [p], U32)

        def field(v: Value, shift: int) -> Value:
            x = bld.value("cvt", [v], U64)
            x = bld.value("shr", [x, bld.const(4, U64)], U64)
            x = bld.value("and", [x, bld.const(0x3FFF, U64)], U64)
            if shift:
                x = bld.value("shl", [x, bld.const(shift, U64)], U64)
            return x

        d = field(a32, 0)
        d = bld.value("or", [d, field(lbo, 16)], U64)
        d = bld.value("or", [d, field(sbo, 32)], U64)
        s = bld.value("cvt", [swz], U64)
        s = bld.value("shl", [s, bld.const(61, U64)], U64)
        d = bld.value("or", [d, s], U64)
        d = bld.value("or", [d, bld.const(1 << 46, U64)], U64)
        op.result.replace_all_uses_with(d)
        op.erase()

    # -- constants -------------------------------------------------------------------------------
    def _materialize(self, fn: Function) -> None:
        for b in fn.blocks:
            for op in list(b.ops):
                if op.name == "const":
                    continue
                for i, v in enumerate(list(op.operands)):
                    if _is_const(v) and not imm_ok(op, i, v):
                        c = Builder(b, op.span).before(op).value("copy", [v], v.type)
                        op.set_operand(i, c)
