"""Instruction selection: spell each legalized, allocated IR op as one PTX instruction of the model.

The selector makes no decisions beyond spelling (legalization made them): operand types choose the type
suffix, constants become immediates, each value its allocated register. Every instruction records in
`Instr.meta` the SSA values (ids) it reads (`uses`: [(register, id)]) and writes (`defs`), and edge copies
record `copy` / `swap`; CFG edges record in `Function.meta["edge_binds"]` which register must hold which
incoming value for each block argument. The allocation checker reads only that, never the allocator.
"""

from __future__ import annotations

import re
import struct
from collections.abc import Callable

from irc.backends.ptx.layout import SharedLayout
from irc.backends.ptx.liveness import CLASS_DECL, CLASS_PREFIX, CLASSES
from irc.backends.ptx.outofssa import EdgeCopies, Move
from irc.backends.ptx.regalloc import Allocation
from irc.diagnostics import InternalCompilerError, Span
from irc.floatbits import bf16_bits_truncated, f16_bits
from irc.ir.core import Block, Function, Op, OpResult, Value
from irc.ir.optable import OPS, Template
from irc.ir.types import PtrType, ScalarType, TensorMapType, Type, bit_width
from irc.ptxisa.model import (
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
from irc.ptxisa.model import Function as PFunction
from irc.ptxisa.template import TYPE_PLACEHOLDER
from irc.ptxisa.template import Operand as TOperand
from irc.ptxisa.template import parse as parse_template

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


def sel_ty(t: Type) -> str:
    """Type suffix of `selp`: the arithmetic type, with f16 / bf16 moved as b16."""
    ty = arith_ty(t)
    return "b16" if ty in ("f16", "bf16") else ty


#: Type rules of op-table templates (`{a}`, `{i0}`, ...; see irc.ir.optable): name -> suffix of a type.
TYPE_RULES: dict[str, Callable[[Type], str]] = {
    "a": arith_ty,
    "i": int_ty,
    "s": signed_ty,
    "b": bit_ty,
    "w": lambda t: f"b{_bits(t)}",
    "h": lambda t: f"b{max(_bits(t), 16)}",
    "sel": sel_ty,
    "m": lambda t: mem_ty(t),
    "sp": lambda t: "shared" if isinstance(t, PtrType) and t.space == "shared" else "global",
}
TYPE_RULE = TYPE_PLACEHOLDER  # (one spelling of the rule names, shared with the lifter's inversion)


def _kind(t: Type) -> str:
    if isinstance(t, ScalarType) and t.is_bool:
        return "bool"
    if isinstance(t, ScalarType) and t.is_float:
        return "float"
    return "int"


def select_variant(template: Template, op: Op) -> str | None:
    """The template variant that applies to `op` (see irc.ir.optable for the selectors), or None."""
    if isinstance(template, str):
        return template
    for key, tpl in template.items():
        if key == "*":
            return tpl
        if "=" in key:
            name, _, values = key.partition("=")
            if str(op.attrs.get(name)) in values.split("|"):
                return tpl
            continue
        on_operand = key.endswith("0")
        vals = op.operands if on_operand else op.results
        if vals and _kind(vals[0].type) == key.rstrip("0"):
            return tpl
    return None


_PLACEHOLDER = re.compile(r"\{(\w+)\}")
# pattern -> its pieces: literal text (str), or (name, type rule or None, operand index or None) for `{name}`
_PIECES: dict[str, list] = {}


def _pieces(pattern: str) -> list:
    got = _PIECES.get(pattern)
    if got is None:
        got = []
        pos = 0
        for m in _PLACEHOLDER.finditer(pattern):
            if m.start() > pos:
                got.append(pattern[pos : m.start()])
            name = m.group(1)
            r = TYPE_RULE.match(name)
            if r is not None:
                got.append((name, TYPE_RULES[r.group(1)], int(r.group(2)) if r.group(2) else None))
            else:
                got.append((name, None, None))
            pos = m.end()
        if pos < len(pattern):
            got.append(pattern[pos:])
        _PIECES[pattern] = got
    return got


def fill_opcode(pattern: str, op: Op) -> str:
    """An opcode pattern with its `{...}` placeholders filled from `op`'s types and attributes. (Each
    pattern is split into its pieces once: a regular-expression substitution per op cost more than
    the rest of its selection.)"""
    out: list[str] = []
    for piece in _pieces(pattern):
        if piece.__class__ is str:
            out.append(piece)
            continue
        name, rule, index = piece
        if rule is not None:
            t = op.operands[index].type if index is not None else op.results[0].type
            out.append(rule(t))
        elif name == "fpred":
            pred = str(op.attrs["pred"])
            out.append(_CMP_F.get(pred, pred))
        elif name not in op.attrs:
            raise InternalCompilerError(f"`{op.name}` has no attribute `{name}` for its template", op=op.name)
        else:
            out.append(str(op.attrs[name]))
    return "".join(out)


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
        bits = f16_bits(float(value))  # type: ignore[arg-type]
        return Imm(bits, f"0x{bits:04X}")
    if isinstance(t, ScalarType) and t.name == "bf16":
        bits = bf16_bits_truncated(float(value))  # type: ignore[arg-type]
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


_CMP_F = {
    "eq": "eq",
    "ne": "neu",
    "one": "ne",
    "lt": "lt",
    "le": "le",
    "gt": "gt",
    "ge": "ge",
}  # IR -> PTX (floats)


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
        self._regs: dict[Value, str] = {}
        self._opnds: dict[Value, Operand] = {}
        self._pairs: dict[Value, tuple[str, int]] = {}

    # -- helpers ---------------------------------------------------------------------------------
    def vid(self, v: Value) -> int:
        return self.lv.ids[v]

    def reg(self, v: Value) -> str:
        """`Allocation.reg`, spelled once per value (an instruction names each of its registers twice:
        as an operand and in the checker's use/def lists)."""
        r = self._regs.get(v)
        if r is None:
            r = self._regs[v] = self.alloc.reg(v)
        return r

    def opnd(self, v: Value) -> Operand:
        """`v` as an operand: its immediate or its register (made once per value; operands are frozen)."""
        o = self._opnds.get(v)
        if o is None:
            if isinstance(v, OpResult) and v.op.name == "const":
                o = format_imm(v.op.attrs["value"], v.type)
            else:
                o = Reg(self.reg(v))
            self._opnds[v] = o
        return o

    def _pair(self, v: Value) -> tuple[str, int]:
        """(register, value id) of `v` for the checker's use and def lists."""
        p = self._pairs.get(v)
        if p is None:
            p = self._pairs[v] = (self.reg(v), self.vid(v))
        return p

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
        pair = self._pair
        u = [pair(v) for v in uses if not self._is_imm(v)]
        if pred is not None:
            u.append(pair(pred))
        m["uses"] = u
        colour = self.alloc.colour
        m["defs"] = [pair(v) for v in defs if v in colour]
        ins = Instr(
            opcode, list(operands), Reg(self.reg(pred)) if pred is not None else None, pred_neg, meta=m
        )
        if self.file_index is not None and self.cur_span is not None:
            ins.loc = Loc(self.file_index, self.cur_span.line, self.cur_span.col)
        self.body.append(ins)
        return ins

    @staticmethod
    def _is_imm(v: Value) -> bool:
        return isinstance(v, OpResult) and v.op.name == "const"

    def addr(self, v: Value, offset: int = 0) -> Addr:
        return Addr(Reg(self.reg(v)), int(offset))

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
                if d.dynamic:
                    continue  # module-level `.extern .shared` (emit.py)
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
            r = Reg(self.reg(a))
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
    def _op(self, op: Op) -> None:  # noqa: C901 - one arm per custom op (irc.ir.optable.CUSTOM_PTX)
        n = op.name
        ops = op.operands
        res = op.results
        a = op.attrs
        E = self.emit
        o = self.opnd
        if n == "const":
            return
        d = OPS.get(n)
        if d is not None and d.ptx is not None:
            self._templated(op, d.ptx)
            return
        t = res[0].type if res else None
        if n == "copy":
            cls = self.alloc.cls[res[0]]
            E(f"mov.{_MOV_TY[cls]}", [o(res[0]), o(ops[0])], ops, res)
        elif n == "cvt":
            self._cvt(op)
        elif n == "load":
            sp = space_of(ops[0])
            head = "ld.volatile" if a.get("volatile") else "ld"
            nc = ".nc" if a.get("nc") and sp == "global" else ""
            E(f"{head}.{sp}{nc}.{mem_ty(t)}", [o(res[0]), self.addr(ops[0], a.get("offset", 0))], ops, res)
        elif n == "load_vec":
            sp = space_of(ops[0])
            nc = ".nc" if a.get("nc") and sp == "global" else ""
            E(
                f"ld.{sp}{nc}.v{len(res)}.{mem_ty(t)}",
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
        elif n == "barrier":
            head = "bar.arrive" if a.get("kind") == "arrive" else "bar.sync"
            if ops:
                args = [o(v) for v in ops]
            else:
                args = [format_imm(a.get("id", 0), ScalarType("u32"))]
                if a.get("count") is not None:
                    args.append(format_imm(a["count"], ScalarType("u32")))
            E(head, args, ops, res)
        elif n == "tma_load":
            coords = ops[2:-1]
            idx = Vec(tuple(o(v) for v in reversed(coords)))
            E(
                f"cp.async.bulk.tensor.{len(coords)}d.shared::cluster.global.mbarrier::complete_tx::bytes",
                [self.addr(ops[0]), Addr(Reg(self.reg(ops[1])), 0, idx), self.addr(ops[-1])],
                ops,
                res,
            )
        elif n == "tma_store":
            coords = ops[1:-1]
            idx = Vec(tuple(o(v) for v in reversed(coords)))
            E(
                f"cp.async.bulk.tensor.{len(coords)}d.global.shared::cta.bulk_group",
                [Addr(Reg(self.reg(ops[0])), 0, idx), self.addr(ops[-1])],
                ops,
                res,
            )
        elif n == "tma_prefetch":
            coords = ops[1:]
            idx = Vec(tuple(o(v) for v in reversed(coords)))
            E(
                f"cp.async.bulk.prefetch.tensor.{len(coords)}d.L2.global.tile",
                [Addr(Reg(self.reg(ops[0])), 0, idx)],
                ops,
                res,
            )
        elif n == "tcgen05_st":
            E(
                f"tcgen05.st.sync.aligned.32x32b.x{len(ops) - 1}.b32",
                [self.addr(ops[0]), self.vec(ops[1:])],
                ops,
                res,
            )
        else:
            raise InternalCompilerError(f"the PTX backend cannot select `{n}`", op=n, span=op.span)

    def _templated(self, op: Op, template: Template) -> None:
        """Spell `op` from its op-table template: the one generic path of instruction selection."""
        tpl = select_variant(template, op)
        if tpl is None:
            t = op.results[0].type if op.results else op.operands[0].type
            raise InternalCompilerError(
                f"`{op.name}` on {t} reached the PTX backend", op=op.name, span=op.span
            )
        parsed = parse_template(tpl)
        opcode = fill_opcode(parsed.opcode, op)
        if parsed.operands is None:
            operands = [self.opnd(v) for v in (*op.results, *op.operands)]
        else:
            operands = [self._toperand(x, op) for x in parsed.operands]
        self.emit(opcode, operands, op.operands, op.results)

    def _toperand(self, x: TOperand, op: Op) -> Operand:
        k = x.kind
        if k == "res":
            return self.opnd(op.results[x.index])
        if k == "opd":
            return self.opnd(op.operands[x.index])
        if k == "addr":
            return self.addr(op.operands[x.index], int(op.attrs.get(x.name, 0)) if x.name else 0)
        if k == "sym":
            return Sym(str(op.attrs[x.name]))
        if k == "sreg":
            return Reg("%" + str(op.attrs[x.name]))
        if k == "sinkpair":
            return Pair(Sink(), self.opnd(op.results[x.index]))
        if k == "allres":
            return self.vec(list(op.results))
        if k == "attr":
            n = int(op.attrs[x.name])
            return Imm(n, str(n))
        if k == "imm":
            return Imm(x.index, str(x.index))
        if k == "vec":
            items: list[Operand] = []
            for it in x.items:
                if it.kind == "range":
                    items.extend(self.opnd(v) for v in op.operands[it.index : it.end + 1])
                elif it.kind == "allres":
                    items.extend(self.opnd(v) for v in op.results)
                else:
                    items.append(self._toperand(it, op))
            return Vec(tuple(items))
        raise InternalCompilerError(f"template operand `{k}` of `{op.name}`", op=op.name, span=op.span)

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
