"""Instruction selection: spell each legalized, allocated IR op as one PTX instruction of the model.

The selector makes no decisions beyond spelling (legalization made them): operand types choose the type
suffix, constants become immediates, each value its allocated register. Every instruction records in
`Instr.meta` the SSA values (ids) it reads (`uses`: [(register, id)]) and writes (`defs`), and edge copies
record `copy` / `swap`; CFG edges record in `Function.meta["edge_binds"]` which register must hold which
incoming value for each block argument. The allocation checker reads only that, never the allocator.
"""

from __future__ import annotations

import struct

import numpy as np

from irc.backends.ptx.layout import SharedLayout
from irc.backends.ptx.liveness import CLASS_DECL, CLASS_PREFIX, CLASSES
from irc.backends.ptx.model import (
    Addr,
    Imm,
    Instr,
    Label,
    Loc,
    Operand,
    Pair,
    Param,
    Reg,
    RegDecl,
    Sink,
    Stmt,
    Sym,
    VarDecl,
    Vec,
)
from irc.backends.ptx.model import Function as PFunction
from irc.backends.ptx.outofssa import EdgeCopies, Move
from irc.backends.ptx.regalloc import Allocation
from irc.diagnostics import InternalCompilerError, Span
from irc.ir.core import Block, Function, Op, OpResult, Value
from irc.ir.types import PtrType, ScalarType, TensorMapType, Type, bit_width

_MOV_TY = {"p": "pred", "rs": "b16", "r": "b32", "f": "f32", "rd": "b64", "fd": "f64"}
_XOR_TY = {"p": "pred", "rs": "b16", "r": "b32", "f": "b32", "rd": "b64", "fd": "b64"}


def _bits(t: Type) -> int:
    try:
        return bit_width(t)
    except TypeError:
        raise InternalCompilerError(f"type {t} has no width") from None


def arith_ty(t: Type) -> str:
    """Type suffix of arithmetic / compare / select (8-bit values compute as 16-bit)."""
    if isinstance(t, PtrType):
        return "u64" if t.space != "shared" else "u32"
    if not isinstance(t, ScalarType):
        raise InternalCompilerError(f"no arithmetic on {t}")
    if t.is_bool:
        return "pred"
    if t.is_float:
        return t.name
    k = t.name[0]
    bits = max(t.bits, 16)
    return f"{'s' if k == 'i' else 'u' if k == 'u' else 'b'}{bits}"


def int_ty(t: Type) -> str:
    """Like arith_ty but never b-typed (neg/abs/div need a signedness); b as u."""
    s = arith_ty(t)
    return "u" + s[1:] if s.startswith("b") else s


def signed_ty(t: Type) -> str:
    s = arith_ty(t)
    return "s" + s[1:] if s[0] in "ub" and s != "pred" else s


def bit_ty(t: Type) -> str:
    if isinstance(t, ScalarType) and t.is_bool:
        return "pred"
    return f"b{max(_bits(t), 16)}"


def mem_ty(t: Type) -> str:
    """Type suffix of ld/st/cvt: keeps 8-bit sizes; f16/bf16 as b16 for memory."""
    if isinstance(t, PtrType):
        return "u64" if t.space != "shared" else "u32"
    assert isinstance(t, ScalarType)
    if t.name in ("f16", "bf16"):
        return "b16"
    if t.is_float:
        return t.name
    k = t.name[0]
    return f"{'s' if k == 'i' else 'u' if k == 'u' else 'b'}{t.bits}"


def cvt_ty(t: Type) -> str:
    if isinstance(t, PtrType):
        return "u64" if t.space != "shared" else "u32"
    assert isinstance(t, ScalarType)
    if t.is_float:
        return t.name
    k = t.name[0]
    return f"{'s' if k == 'i' else 'u'}{t.bits}"


def space_of(v: Value) -> str:
    t = v.type
    if isinstance(t, PtrType):
        return "shared" if t.space == "shared" else "global"
    return "global"


def format_imm(value: object, t: Type) -> Imm:
    """An immediate in PTX spelling for a value of type `t`."""
    if isinstance(t, ScalarType) and t.is_bool:
        return Imm(1 if value else 0, "1" if value else "0")
    if isinstance(t, ScalarType) and t.name == "f32":
        v = float(value)  # type: ignore[arg-type]
        return Imm(v, "0f" + struct.pack(">f", v).hex().upper())
    if isinstance(t, ScalarType) and t.name == "f64":
        v = float(value)  # type: ignore[arg-type]
        return Imm(v, "0d" + struct.pack(">d", v).hex().upper())
    if isinstance(t, ScalarType) and t.name == "f16":
        bits = int(np.array([float(value)], dtype=np.float16).view(np.uint16)[0])  # type: ignore[arg-type]
        return Imm(bits, f"0x{bits:04X}")
    if isinstance(t, ScalarType) and t.name == "bf16":
        bits = int(np.array([float(value)], dtype=np.float32).view(np.uint32)[0]) >> 16  # type: ignore[arg-type]
        return Imm(bits, f"0x{bits:04X}")
    n = int(value)  # type: ignore[call-overload]
    bits = _bits(t)
    signed = isinstance(t, ScalarType) and t.is_signed
    n &= (1 << bits) - 1
    if signed and n >= 1 << (bits - 1):
        n -= 1 << bits
    if n > 0xFFFFFFFF:
        return Imm(n, f"0x{n:X}")
    return Imm(n, str(n))


_CMP_F = {"eq": "eq", "ne": "neu", "lt": "lt", "le": "le", "gt": "gt", "ge": "ge"}
_ROUND = {"floor": "rmi", "ceil": "rpi", "trunc": "rzi", "round": "rni"}
_FLOAT_UNARY = {
    "sqrt": "sqrt.rn",
    "rsqrt": "rsqrt.approx",
    "rcp": "rcp.rn",
    "exp2": "ex2.approx",
    "log2": "lg2.approx",
    "sin": "sin.approx",
    "cos": "cos.approx",
    "tanh": "tanh.approx",
}


class InstructionSelector:
    """Builds the PTX function of one kernel.

    Needs: the legalized function, its `Allocation` and edge copies. Establishes: a model Function whose
    body holds the shared declarations, register declarations (fixed class order), the parameter
    prologue, then one label per block followed by its instructions; meta for the checker."""

    def __init__(
        self,
        fn: Function,
        alloc: Allocation,
        edges: list[EdgeCopies],
        layout: SharedLayout,
        *,
        file_index: int | None = None,
        dyn_symbol: str = "irc_dyn_smem",
    ):
        self.fn = fn
        self.alloc = alloc
        self.lv = alloc.liveness
        self.edges = {(id(e.pred), e.succ_index): e for e in edges}
        self.edge_list = edges
        self.layout = layout
        self.file_index = file_index
        self.dyn_symbol = dyn_symbol
        self.body: list[Stmt] = []
        self.cur_span: Span | None = None
        self.param_names: dict[Value, str] = {}
        self.binds: dict[tuple[str, str], list[tuple[str, int, int]]] = {}

    # -- helpers ---------------------------------------------------------------------------------
    def vid(self, v: Value) -> int:
        return self.lv.ids[v]

    def opnd(self, v: Value) -> Operand:
        if isinstance(v, OpResult) and v.op.name == "const":
            return format_imm(v.op.attrs["value"], v.type)
        return Reg(self.alloc.reg(v))

    def emit(
        self,
        opcode: str,
        operands: list[Operand],
        uses: list[Value] = (),
        defs: list[Value] = (),
        pred: Value | None = None,
        pred_neg: bool = False,
        **meta,
    ) -> Instr:
        m = dict(meta)
        u = [(self.alloc.reg(v), self.vid(v)) for v in uses if not self._is_imm(v)]
        if pred is not None:
            u.append((self.alloc.reg(pred), self.vid(pred)))
        m["uses"] = u
        m["defs"] = [(self.alloc.reg(v), self.vid(v)) for v in defs if v in self.alloc.colour]
        ins = Instr(
            opcode, list(operands), Reg(self.alloc.reg(pred)) if pred is not None else None, pred_neg, meta=m
        )
        if self.file_index is not None and self.cur_span is not None:
            ins.loc = Loc(self.file_index, self.cur_span.line, self.cur_span.col)
        self.body.append(ins)
        return ins

    @staticmethod
    def _is_imm(v: Value) -> bool:
        return isinstance(v, OpResult) and v.op.name == "const"

    def addr(self, v: Value, offset: int = 0) -> Addr:
        return Addr(Reg(self.alloc.reg(v)), int(offset))

    def vec(self, vals: list[Value]) -> Vec:
        return Vec(tuple(self.opnd(v) for v in vals))

    # -- layout ----------------------------------------------------------------------------------
    def label(self, b: Block) -> str:
        return f"$L__BB{self.block_index[id(b)]}"

    def edge_label(self, e: EdgeCopies) -> str:
        return f"$L__E{self.block_index[id(e.pred)]}_{e.succ_index}"

    def target(self, b: Block, si: int) -> str:
        e = self.edges.get((id(b), si))
        t = b.terminator
        assert t is not None
        if e is not None and e.split:
            return self.edge_label(e)
        return self.label(t.successors[si])

    def run(self, name: str) -> PFunction:
        fn = self.fn
        self.block_index = {id(b): i for i, b in enumerate(fn.blocks)}
        reachable = {id(b) for b in self.lv.rpo}
        order: list[tuple[str, object]] = []  # ("block", Block) | ("edge", EdgeCopies)
        splits: dict[int, list[EdgeCopies]] = {}
        for e in self.edge_list:
            if e.split:
                splits.setdefault(id(e.succ), []).append(e)
        for b in fn.blocks:
            if id(b) not in reachable:
                continue
            for e in splits.get(id(b), []):
                order.append(("edge", e))
            order.append(("block", b))
        labels = [self.edge_label(x) if k == "edge" else self.label(x) for k, x in order]  # type: ignore[arg-type]

        pf = PFunction(name=name, kind="entry", visible=True)
        self._params(pf)
        self._directives(pf)
        for i, (kind, x) in enumerate(order):
            nxt = labels[i + 1] if i + 1 < len(labels) else None
            self.body.append(Label(labels[i]))
            if kind == "edge":
                e: EdgeCopies = x  # type: ignore[assignment]
                self.cur_span = e.pred.terminator.span if e.pred.terminator is not None else None
                self._moves(e.moves)
                s_label = self.label(e.succ)
                self.binds[(labels[i], s_label)] = list(e.binds)
                if nxt != s_label:
                    self.emit("bra.uni", [Sym(s_label)])
            else:
                b: Block = x  # type: ignore[assignment]
                if b is fn.entry:
                    self._prologue()
                self._block(b, labels[i], nxt)
        decls: list[Stmt] = []
        if not self.layout.dynamic:
            for d in fn.shared:
                decls.append(
                    VarDecl(
                        "shared",
                        ".b8",
                        d.name,
                        align=self.layout.aligns[d.name],
                        dims=[max(self.layout.sizes[d.name], 1)],
                    )
                )
        regs = self.alloc.registers()
        for c in CLASSES:
            if regs[c]:
                decls.append(RegDecl(CLASS_DECL[c], CLASS_PREFIX[c], regs[c]))
        pf.body = decls + self.body
        pf.meta["edge_binds"] = self.binds
        return pf

    def _params(self, pf: PFunction) -> None:
        for i, a in enumerate(self.fn.entry.args):
            pname = f"{self.fn.name}_param_{i}"
            self.param_names[a] = pname
            t = a.type
            if isinstance(t, TensorMapType):
                pf.params.append(Param(pname, ".b8", align=64, dims=[128]))
            elif isinstance(t, PtrType):
                pf.params.append(Param(pname, ".u64"))
            else:
                pf.params.append(Param(pname, "." + mem_ty(t)))

    def _directives(self, pf: PFunction) -> None:
        at = self.fn.attrs
        if at.get("launch"):
            pf.directives["reqntid"] = [int(x) for x in at["launch"]]
        if at.get("max_registers"):
            pf.directives["maxnreg"] = [int(at["max_registers"])]
        if at.get("min_blocks_per_sm"):
            pf.directives["minnctapersm"] = [int(at["min_blocks_per_sm"])]
        if at.get("cluster"):
            pf.directives["reqnctapercluster"] = [int(x) for x in at["cluster"]]

    def _prologue(self) -> None:
        self.cur_span = self.fn.span
        for a in self.fn.entry.args:
            if a not in self.alloc.colour:
                continue
            r = Reg(self.alloc.reg(a))
            pname = Sym(self.param_names[a])
            t = a.type
            if isinstance(t, TensorMapType):
                self.emit("mov.u64", [r, pname], defs=[a])
                self.emit("cvta.param.u64", [r, r], uses=[a], defs=[a])
            elif isinstance(t, PtrType):
                self.emit("ld.param.u64", [r, Addr(pname)], defs=[a])
                if t.space != "shared":
                    self.emit("cvta.to.global.u64", [r, r], uses=[a], defs=[a])
            else:
                self.emit(f"ld.param.{mem_ty(t)}", [r, Addr(pname)], defs=[a])

    # -- copies ----------------------------------------------------------------------------------
    def _moves(self, moves: list[Move]) -> None:
        for m in moves:
            if m.kind == "swap":
                ty = _XOR_TY[m.cls]
                a, b = Reg(m.dst), Reg(m.src)
                ins = self.emit(f"xor.{ty}", [a, a, b])
                ins.meta["swap"] = (m.dst, m.src, m.vid)
                ins.meta["uses"] = []
                self.emit(f"xor.{ty}", [b, a, b]).meta["swap_part"] = True
                self.emit(f"xor.{ty}", [a, a, b]).meta["swap_part"] = True
            elif m.imm is not None:
                ins = self.emit(f"mov.{_MOV_TY[m.cls]}", [Reg(m.dst), self.opnd(m.imm)])
                ins.meta["copy_imm"] = (m.dst, m.vid)
            else:
                ins = self.emit(f"mov.{_MOV_TY[m.cls]}", [Reg(m.dst), Reg(m.src)])
                ins.meta["copy"] = (m.dst, m.src, m.vid)

    # -- blocks ----------------------------------------------------------------------------------
    def _block(self, b: Block, label: str, nxt: str | None) -> None:
        for op in b.ops:
            self.cur_span = op.span or self.cur_span
            if op is b.terminator:
                self._terminator(b, op, label, nxt)
            else:
                self._op(op)

    def _terminator(self, b: Block, op: Op, label: str, nxt: str | None) -> None:
        n = op.name
        if n == "br":
            e = self.edges.get((id(b), 0))
            if e is not None and not e.split:
                self._moves(e.moves)
            s_label = self.label(op.successors[0])
            if e is not None:
                self.binds[(label, s_label)] = list(e.binds)
            if nxt != s_label:
                self.emit("bra.uni", [Sym(s_label)])
            return
        if n == "cbr":
            c = op.operands[0]
            for si in range(2):
                e = self.edges.get((id(b), si))
                if e is not None and not e.split:
                    if e.moves:  # only reachable with split_critical_edges=False (a deliberate bug)
                        self._moves(e.moves)
                    self.binds[(label, self.label(op.successors[si]))] = list(e.binds)
            tl, el = self.target(b, 0), self.target(b, 1)
            if el == nxt:
                self.emit("bra", [Sym(tl)], pred=c)
            elif tl == nxt:
                self.emit("bra", [Sym(el)], pred=c, pred_neg=True)
            else:
                self.emit("bra", [Sym(tl)], pred=c)
                self.emit("bra.uni", [Sym(el)])
            return
        if n == "ret":
            self.emit("ret", [])
            return
        if n == "trap":
            self.emit("trap", [])
            return
        raise InternalCompilerError(f"unknown terminator `{n}`", op=n, span=op.span)

    # -- ops -------------------------------------------------------------------------------------
    def _op(self, op: Op) -> None:  # noqa: C901 - one arm per op kind, by design
        n = op.name
        ops = op.operands
        res = op.results
        a = op.attrs
        E = self.emit
        o = self.opnd
        if n == "const":
            return
        t = res[0].type if res else None
        if n == "copy":
            cls = self.alloc.cls[res[0]]
            E(f"mov.{_MOV_TY[cls]}", [o(res[0]), o(ops[0])], ops, res)
        elif n == "sreg":
            E("mov.u32", [o(res[0]), Reg("%" + str(a["name"]))], [], res)
        elif n == "bitcast":
            E(f"mov.b{max(_bits(t), 16)}", [o(res[0]), o(ops[0])], ops, res)
        elif n == "cvt":
            self._cvt(op)
        elif n in ("add", "sub"):
            E(f"{n}.{arith_ty(t)}", [o(res[0]), o(ops[0]), o(ops[1])], ops, res)
        elif n == "mul":
            ty = arith_ty(t)
            E(f"mul.{ty}" if t.is_float else f"mul.lo.{ty}", [o(res[0]), o(ops[0]), o(ops[1])], ops, res)
        elif n == "div":
            ty = int_ty(t)
            E(f"div.rn.{ty}" if t.is_float else f"div.{ty}", [o(res[0]), o(ops[0]), o(ops[1])], ops, res)
        elif n == "rem":
            E(f"rem.{int_ty(t)}", [o(res[0]), o(ops[0]), o(ops[1])], ops, res)
        elif n in ("and", "or", "xor"):
            E(f"{n}.{bit_ty(t)}", [o(res[0]), o(ops[0]), o(ops[1])], ops, res)
        elif n == "not":
            E(f"not.{bit_ty(t)}", [o(res[0]), o(ops[0])], ops, res)
        elif n in ("min", "max"):
            E(f"{n}.{int_ty(t)}", [o(res[0]), o(ops[0]), o(ops[1])], ops, res)
        elif n in ("shl", "shlw"):
            E(f"shl.{bit_ty(t)}", [o(res[0]), o(ops[0]), o(ops[1])], ops, res)
        elif n in ("shr", "shrw"):
            E(f"shr.{arith_ty(t)}", [o(res[0]), o(ops[0]), o(ops[1])], ops, res)
        elif n == "mulhi":
            E(f"mul.hi.{int_ty(t)}", [o(res[0]), o(ops[0]), o(ops[1])], ops, res)
        elif n == "mulwide":
            E(f"mul.wide.{int_ty(ops[0].type)}", [o(res[0]), o(ops[0]), o(ops[1])], ops, res)
        elif n in ("neg", "abs"):
            E(f"{n}.{signed_ty(t)}", [o(res[0]), o(ops[0])], ops, res)
        elif n in _FLOAT_UNARY:
            E(f"{_FLOAT_UNARY[n]}.{arith_ty(t)}", [o(res[0]), o(ops[0])], ops, res)
        elif n in _ROUND:
            ty = arith_ty(t)
            E(f"cvt.{_ROUND[n]}.{ty}.{ty}", [o(res[0]), o(ops[0])], ops, res)
        elif n in ("popc", "clz", "brev"):
            if _bits(t) != 32 and n != "brev":
                raise InternalCompilerError(
                    f"`{n}` on {t} is not supported by the PTX backend", op=n, span=op.span
                )
            E(f"{n}.b{_bits(t)}", [o(res[0]), o(ops[0])], ops, res)
        elif n == "fma":
            ty = arith_ty(t)
            E(f"fma.rn.{ty}" if t.is_float else f"mad.lo.{ty}", [o(res[0])] + [o(v) for v in ops], ops, res)
        elif n == "cmp":
            ty = arith_ty(ops[0].type)
            if ty == "pred":
                raise InternalCompilerError("cmp on bool reached the PTX backend", op=n, span=op.span)
            pred = str(a["pred"])
            if ops[0].type.is_float if isinstance(ops[0].type, ScalarType) else False:
                pred = _CMP_F.get(pred, pred)
            E(f"setp.{pred}.{ty}", [o(res[0]), o(ops[0]), o(ops[1])], ops, res)
        elif n == "select":
            ty = arith_ty(t)
            if ty == "pred":
                raise InternalCompilerError("select of bools reached the PTX backend", op=n, span=op.span)
            if ty in ("f16", "bf16"):
                ty = "b16"
            E(f"selp.{ty}", [o(res[0]), o(ops[1]), o(ops[2]), o(ops[0])], ops, res)
        elif n == "pack_half2":
            E("cvt.rn.f16x2.f32", [o(res[0]), o(ops[1]), o(ops[0])], ops, res)
        elif n == "unpack_b32":
            E("mov.b32", [Vec((o(res[0]), o(res[1]))), o(ops[0])], ops, res)
        elif n == "unpack_b64":
            E("mov.b64", [Vec((o(res[0]), o(res[1]))), o(ops[0])], ops, res)
        elif n in ("pack_b32", "pack_b64"):
            E(f"mov.{n[-3:]}", [o(res[0]), Vec((o(ops[0]), o(ops[1])))], ops, res)
        elif n in ("popcw", "clzw"):
            E(f"{n[:-1]}.b{_bits(ops[0].type)}", [o(res[0]), o(ops[0])], ops, res)
        elif n == "ptradd":
            E(f"add.{arith_ty(t)}", [o(res[0]), o(ops[0]), o(ops[1])], ops, res)
        elif n == "shared_addr":
            E("mov.u32", [o(res[0]), Sym(str(a["sym"]))], [], res)
        elif n == "load":
            sp = space_of(ops[0])
            head = "ld.volatile" if a.get("volatile") else "ld"
            nc = ".nc" if a.get("nc") and sp == "global" else ""
            E(f"{head}.{sp}{nc}.{mem_ty(t)}", [o(res[0]), self.addr(ops[0], a.get("offset", 0))], ops, res)
        elif n == "store":
            sp = space_of(ops[0])
            head = "st.volatile" if a.get("volatile") else "st"
            E(
                f"{head}.{sp}.{mem_ty(ops[1].type)}",
                [self.addr(ops[0], a.get("offset", 0)), o(ops[1])],
                ops,
                res,
            )
        elif n == "load_vec":
            sp = space_of(ops[0])
            E(
                f"ld.{sp}.v{len(res)}.{mem_ty(t)}",
                [self.vec(res), self.addr(ops[0], a.get("offset", 0))],
                ops,
                res,
            )
        elif n == "store_vec":
            sp = space_of(ops[0])
            vals = ops[1:]
            E(
                f"st.{sp}.v{len(vals)}.{mem_ty(vals[0].type)}",
                [self.addr(ops[0], a.get("offset", 0)), self.vec(vals)],
                ops,
                res,
            )
        elif n == "atomic":
            self._atomic(op)
        elif n == "atomic_cas":
            E(
                f"atom.{space_of(ops[0])}.cas.b{_bits(t)}",
                [o(res[0]), self.addr(ops[0]), o(ops[1]), o(ops[2])],
                ops,
                res,
            )
        elif n == "barrier":
            head = "bar.arrive" if a.get("kind") == "arrive" else "bar.sync"
            if ops:
                args = [o(v) for v in ops]
            else:
                args = [format_imm(a.get("id", 0), ScalarType("u32"))]
                if a.get("count") is not None:
                    args.append(format_imm(a["count"], ScalarType("u32")))
            E(head, args, ops, res)
        elif n == "syncwarp":
            E("bar.warp.sync", [o(ops[0])], ops, res)
        elif n == "fence":
            E(self._fence(str(a["scope"]), op), [], ops, res)
        elif n == "fence_proxy_async":
            E("fence.proxy.async.shared::cta", [], ops, res)
        elif n == "fence_mbarrier_init":
            E("fence.mbarrier_init.release.cluster", [], ops, res)
        elif n == "shfl":
            mode = str(a["mode"])
            clamp = Imm(0, "0") if mode == "up" else Imm(31, "31")
            E(f"shfl.sync.{mode}.b32", [o(res[0]), o(ops[0]), o(ops[1]), clamp, o(ops[2])], ops, res)
        elif n == "vote":
            mode = str(a["mode"])
            ty = "b32" if mode == "ballot" else "pred"
            E(f"vote.sync.{mode}.{ty}", [o(res[0]), o(ops[0]), o(ops[1])], ops, res)
        elif n == "activemask":
            E("activemask.b32", [o(res[0])], ops, res)
        elif n == "elect":
            E("elect.sync", [Pair(Sink(), o(res[0])), o(ops[0])], ops, res)
        elif n == "redux":
            kind = str(a["kind"])
            ty = "b32" if kind in ("and", "or", "xor") else "u32"
            E(f"redux.sync.{kind}.{ty}", [o(res[0]), o(ops[0]), o(ops[1])], ops, res)
        elif n == "cp_async":
            E(
                "cp.async.ca.shared.global",
                [self.addr(ops[0]), self.addr(ops[1]), Imm(int(a["bytes"]), str(int(a["bytes"])))],
                ops,
                res,
            )
        elif n == "cp_async_commit":
            E("cp.async.commit_group", [], ops, res)
        elif n == "cp_async_wait":
            E("cp.async.wait_group", [Imm(int(a["n"]), str(int(a["n"])))], ops, res)
        elif n == "mbarrier_init":
            E("mbarrier.init.shared.b64", [self.addr(ops[0]), o(ops[1])], ops, res)
        elif n == "mbarrier_arrive":
            E("mbarrier.arrive.shared.b64", [o(res[0]), self.addr(ops[0])], ops, res)
        elif n in ("mbarrier_test_wait", "mbarrier_try_wait"):
            kind = "test_wait" if n == "mbarrier_test_wait" else "try_wait"
            E(f"mbarrier.{kind}.parity.shared.b64", [o(res[0]), self.addr(ops[0]), o(ops[1])], ops, res)
        elif n == "mbarrier_inval":
            E("mbarrier.inval.shared.b64", [self.addr(ops[0])], ops, res)
        elif n == "mbarrier_arrive_expect_tx":
            E("mbarrier.arrive.expect_tx.shared.b64", [o(res[0]), self.addr(ops[0]), o(ops[1])], ops, res)
        elif n == "mbarrier_expect_tx":
            E("mbarrier.expect_tx.relaxed.cta.shared.b64", [self.addr(ops[0]), o(ops[1])], ops, res)
        elif n == "tma_load":
            coords = ops[2:-1]
            idx = Vec(tuple(o(v) for v in reversed(coords)))
            E(
                f"cp.async.bulk.tensor.{len(coords)}d.shared::cluster.global.mbarrier::complete_tx::bytes",
                [self.addr(ops[0]), Addr(Reg(self.alloc.reg(ops[1])), 0, idx), self.addr(ops[-1])],
                ops,
                res,
            )
        elif n == "tma_store":
            coords = ops[1:-1]
            idx = Vec(tuple(o(v) for v in reversed(coords)))
            E(
                f"cp.async.bulk.tensor.{len(coords)}d.global.shared::cta.bulk_group",
                [Addr(Reg(self.alloc.reg(ops[0])), 0, idx), self.addr(ops[-1])],
                ops,
                res,
            )
        elif n == "tma_store_commit":
            E("cp.async.bulk.commit_group", [], ops, res)
        elif n == "tma_store_wait":
            E("cp.async.bulk.wait_group.read", [Imm(int(a["n"]), str(int(a["n"])))], ops, res)
        elif n == "tma_prefetch":
            coords = ops[1:]
            idx = Vec(tuple(o(v) for v in reversed(coords)))
            E(
                f"cp.async.bulk.prefetch.tensor.{len(coords)}d.L2.global.tile",
                [Addr(Reg(self.alloc.reg(ops[0])), 0, idx)],
                ops,
                res,
            )
        elif n == "ldmatrix":
            tr = ".trans" if a.get("trans") else ""
            E(
                f"ldmatrix.sync.aligned.m8n8.x{int(a['num'])}{tr}.shared.b16",
                [self.vec(res), self.addr(ops[0])],
                ops,
                res,
            )
        elif n == "mma_m16n8k16":
            ab = str(a["ab"])
            E(
                f"mma.sync.aligned.m16n8k16.row.col.f32.{ab}.{ab}.f32",
                [self.vec(res), self.vec(ops[0:4]), self.vec(ops[4:6]), self.vec(ops[6:10])],
                ops,
                res,
            )
        elif n == "wmma_load":
            frag = str(a["frag"])
            sp = space_of(ops[0])
            if frag == "c":
                head = f"wmma.load.c.sync.aligned.row.m16n16k16.{sp}.f32"
            else:
                layout = "row" if frag == "a" else "col"
                head = f"wmma.load.{frag}.sync.aligned.{layout}.m16n16k16.{sp}.f16"
            E(head, [self.vec(res), self.addr(ops[0]), o(ops[1])], ops, res)
        elif n == "wmma_mma":
            E(
                "wmma.mma.sync.aligned.row.col.m16n16k16.f32.f32",
                [self.vec(res), self.vec(ops[0:8]), self.vec(ops[8:16]), self.vec(ops[16:24])],
                ops,
                res,
            )
        elif n == "wmma_store":
            sp = space_of(ops[0])
            E(
                f"wmma.store.d.sync.aligned.row.m16n16k16.{sp}.f32",
                [self.addr(ops[0]), self.vec(ops[1:-1]), o(ops[-1])],
                ops,
                res,
            )
        elif n == "tmem_alloc":
            E(
                "tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32",
                [self.addr(ops[0]), o(ops[1])],
                ops,
                res,
            )
        elif n == "tmem_relinquish":
            E("tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned", [], ops, res)
        elif n == "tmem_dealloc":
            E("tcgen05.dealloc.cta_group::1.sync.aligned.b32", [o(ops[0]), o(ops[1])], ops, res)
        elif n == "tcgen05_mma":
            E("tcgen05.mma.cta_group::1.kind::f16", [self.addr(ops[0])] + [o(v) for v in ops[1:]], ops, res)
        elif n == "tcgen05_commit":
            E(
                "tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64",
                [self.addr(ops[0])],
                ops,
                res,
            )
        elif n == "tcgen05_ld":
            E(
                f"tcgen05.ld.sync.aligned.32x32b.x{int(a['n'])}.b32",
                [self.vec(res), self.addr(ops[0])],
                ops,
                res,
            )
        elif n == "tcgen05_wait_ld":
            E("tcgen05.wait::ld.sync.aligned", [], ops, res)
        elif n == "tcgen05_st":
            E(
                f"tcgen05.st.sync.aligned.32x32b.x{len(ops) - 1}.b32",
                [self.addr(ops[0]), self.vec(ops[1:])],
                ops,
                res,
            )
        elif n == "tcgen05_wait_st":
            E("tcgen05.wait::st.sync.aligned", [], ops, res)
        elif n == "tcgen05_fence":
            E(f"tcgen05.fence::{a['kind']}_thread_sync", [], ops, res)
        else:
            raise InternalCompilerError(f"the PTX backend cannot select `{n}`", op=n, span=op.span)

    def _fence(self, scope: str, op: Op) -> str:
        table = {
            "block": "fence.acq_rel.cta",
            "cta": "fence.acq_rel.cta",
            "gpu": "fence.acq_rel.gpu",
            "sys": "fence.acq_rel.sys",
            "proxy_async": "fence.proxy.async.shared::cta",
            "mbarrier_init": "fence.mbarrier_init.release.cluster",
        }
        if scope not in table:
            raise InternalCompilerError(f"unknown fence scope {scope!r}", op="fence", span=op.span)
        return table[scope]

    def _atomic(self, op: Op) -> None:
        kind = str(op.attrs["kind"])
        t = op.results[0].type
        bits = _bits(t)
        if kind in ("and", "or", "xor", "exch"):
            ty = f"b{bits}"
        elif kind in ("inc", "dec"):
            ty = "u32"
        elif isinstance(t, ScalarType) and t.is_float:
            ty = t.name
        elif kind == "add":
            ty = f"u{bits}" if bits == 64 else int_ty(t)
        else:
            ty = int_ty(t)
        ops, res = op.operands, op.results
        self.emit(
            f"atom.{space_of(ops[0])}.{kind}.{ty}",
            [self.opnd(res[0]), self.addr(ops[0]), self.opnd(ops[1])],
            ops,
            res,
        )

    def _cvt(self, op: Op) -> None:
        s, d = op.operands[0], op.results[0]
        st, dt = s.type, d.type
        o = self.opnd
        if st == dt or (_bits(st) == _bits(dt) and (isinstance(st, PtrType) or isinstance(dt, PtrType))):
            cls = self.alloc.cls[d]
            self.emit(f"mov.{_MOV_TY[cls]}", [o(d), o(s)], [s], [d])
            return
        sf = isinstance(st, ScalarType) and st.is_float
        df = isinstance(dt, ScalarType) and dt.is_float
        rnd = op.attrs.get("rnd")
        mods = ""
        if sf and not df:
            mods = "." + str(rnd or "rzi")
        elif df and not sf:
            mods = "." + str(rnd or "rn")
        elif sf and df and _bits(dt) < _bits(st):
            mods = "." + str(rnd or "rn")
        elif rnd:
            mods = "." + str(rnd)
        if op.attrs.get("sat"):
            mods += ".sat"
        self.emit(f"cvt{mods}.{cvt_ty(dt)}.{cvt_ty(st)}", [o(d), o(s)], [s], [d])
