"""Lift a parsed PTX program (`irc.ptxisa.model.Module`) into irc's SSA IR, so that `irc check
kernel.ptx` runs exactly the analyzer that runs on .kdsl, on PTX from any generator.

Why it is shaped like this:
  * One IR `Function` per `.entry` (kernel) and per `.func` with a body (`is_kernel=False`). Parameters
    are the entry block's arguments, so `ld.param` of a parameter *is* that argument (grid-uniform).
    `.reqntid` gives `attrs["launch"]`; `.maxntid` is only an upper bound, so it is kept as
    `attrs["max_threads"]` and never as `launch` (the analyzer's "x extent is a multiple of 32"
    assumption applies when unknown; `attrs["ntid_x_multiple_of_32"] = False` is set when a
    `.maxntid`/`.reqntid` x extent says otherwise).
  * CFG: labels, `bra`/`bra.uni` (`@%p` -> `cbr`, `@!%p` swaps the successors), fall-through,
    `ret`/`exit` -> `ret`, `trap` -> `trap`, `brx.idx` -> a chain of `cbr (idx == k)`. A predicated
    non-branch instruction (`@%p bar.sync 0`, `@%p ld ...`) gets its own block: `cbr %p -> [instr] ->
    join`, so control dependence on the predicate is exact (design notes). Unreachable code is dropped.
  * SSA: Braun et al., "Simple and Efficient Construction of SSA Form" (CC 2013), on the fly with sealed
    blocks and trivial-phi removal; phis are block arguments. Blocks are processed in reverse post-order;
    a split's join block shares its head's definition table, so long runs of predicated instructions
    cost O(1) each. Linear-ish time.
  * A register-to-register `mov` is folded into the renaming: the destination names the same SSA value.
    That is what makes `mov.f32 %f10, %f8; ...; sub.f32 %f27, %f10, %f8` (no write to %f8 in between)
    a self-cancel and the fixed builder kernel (where `%f8` is rewritten in between) clean. The op that
    defines a value is therefore the instruction that last *computed* it (the in-place
    `max.f32 %f8, %f8, %f9` for the old_max bug). Value name hints are register names without `%`.
  * Types come from the instruction's type suffix (`.f32` -> f32, `.s32` -> i32, `.pred` -> bool, ...;
    narrower memory types are widened to the register). A value used at another type gets a `bitcast`
    (same width) or a `cvt` (other width), cached per block so that `sub %f8, %f8` keeps one operand.
  * Every op carries the span of its PTX instruction (columns from the source line: first non-blank
    character through the `;`) when the source text is available (`source=` or `Module.meta["source"]`).

Uninitialized registers: reading a register with no write on some path reads `undef`; correlated
predication (`@%p1 ld %f1` ... `@%p1 st %f1`) is recognized by `irc.analysis.benign_undef`.

Instructions irc does not model become `opaque {text}` (conservative effects); those the PTX facts table
(`irc.ptxisa.facts`) does not know produce one `unknown-instruction` warning per opcode per file.

The lifter is split by concern: `lift_cfg` (blocks, branches, predication), `lift_ssa` (SSA construction),
`lift_ops` (op handlers), `lift_types` (type facts); the benign-undef dataflow is an analysis
(`irc.analysis.benign_undef`).
"""

from __future__ import annotations

import gc
from typing import Any

from irc.diagnostics import CompileError, Diagnostic, Span, warning
from irc.frontend.ptx import lift_async as _lift_async
from irc.frontend.ptx.immediates import float_imm_bits
from irc.frontend.ptx.lift_cfg import CfgMixin, LiftScope, PBlock
from irc.frontend.ptx.lift_ops import HANDLERS
from irc.frontend.ptx.lift_ssa import SsaMixin
from irc.frontend.ptx.lift_types import (
    ALL_TYPES,
    PTX_TYPES,
    SPACE_OF,
    SREG64,
    SREG_NAMES,
    bit_width,
    reg_type,
    uint,
    widen,
)
from irc.frontend.ptx.operands import OperandError, check_int_width, int_imm
from irc.frontend.ptx.operands import diagnostic as operand_diagnostic
from irc.ir.builder import Builder
from irc.ir.core import Block, BlockArg, Function, Module, Op, Value
from irc.ir.graphs import reverse_postorder
from irc.ir.types import (
    B32,
    BOOL,
    U32,
    U64,
    PtrType,
    ScalarType,
    Type,
)
from irc.ptxisa import facts as isa
from irc.ptxisa import model as P

__all__ = ["lift_module", "lift_ptx"]


# ---------------------------------------------------------------------------------------- the lifter


class ModuleCtx:
    def __init__(self, ptx: P.Module, source: str | None):
        self.ptx = ptx
        self.path = ptx.path
        self.lines = source.split("\n") if source is not None else None
        self.span_cache: dict[int, Span] = {}
        self.notes: list[Diagnostic] = []
        self.unknown: set[str] = set()
        self.funcs = {f.name: f for f in ptx.functions}
        self.gvars = {g.name: g for g in ptx.globals}

    def span(self, instr: P.Instr) -> Span | None:
        ln = instr.line
        if ln <= 0:
            return None
        s = self.span_cache.get(ln)
        if s is not None:
            return s
        col, end = 1, 2
        if self.lines is not None and ln <= len(self.lines):
            text = self.lines[ln - 1]
            col = len(text) - len(text.lstrip()) + 1
            semi = text.find(";", col - 1)
            end = semi + 2 if semi >= 0 else len(text.rstrip()) + 1
        s = Span(self.path, ln, col, ln, max(end, col + 1))
        self.span_cache[ln] = s
        return s


# name -> whether it spells a special register (a pure function of the name; bounded memo)
_SPECIAL_MEMO: dict[str, bool] = {}


def shared_bytes(f: P.Function, gvars) -> dict[str, int]:  # type: ignore[no-untyped-def]
    """Sizes of the .shared variables a function can name (its own and the module's; 0 for the dynamic
    `.extern` array); the shared-race analysis bounds its witnesses by them."""
    out = {g.name: 0 if g.extern else g.size_bytes() for g in gvars if g.space == "shared"}

    def walk(stmts) -> None:  # type: ignore[no-untyped-def]
        for s in stmts or []:
            if isinstance(s, P.VarDecl) and s.space == "shared":
                out[s.name] = 0 if s.extern else s.size_bytes()  # 0: dynamic, sized at launch
            elif isinstance(s, P.Scope):
                walk(s.body)

    walk(f.body)
    return out


#: Statements above which lifting runs on a deep stack (`run_deep`).


def _pblock_succs(p: PBlock) -> list[PBlock]:
    return p.succs


class FnLifter(CfgMixin, SsaMixin):
    """Lifts one PTX function: CFG and predication (`CfgMixin`), SSA (`SsaMixin`), ops (`lift_ops`)."""

    def __init__(self, mc: ModuleCtx, f: P.Function):
        self.mc = mc
        self.f = f
        self.regtypes: dict[str, Type] = {}
        self.prefixes: dict[str, Type] = {}
        self.params = {p.name: p for p in f.params}
        self.ret_params = {p.name for p in f.ret_params}
        self.local_vars: dict[str, P.VarDecl] = {}
        self.scope_no = 0
        # SSA state
        self.defs: dict[Block, dict[str, Value]] = {}
        self.sealed: set[Block] = set()
        self.preds: dict[Block, list[tuple[Block, int]]] = {}
        self.incomplete: dict[Block, list[tuple[str, BlockArg]]] = {}
        self.phi_ops: dict[BlockArg, list[Value]] = {}
        self.phi_var: dict[BlockArg, str] = {}
        self.phi_users: dict[BlockArg, list[BlockArg]] = {}
        self.dead_phis: set[BlockArg] = set()
        self.fwd: dict[Value, Value] = {}
        self.undefs: dict[str, Value] = {}
        self.undef_ops: list[Op] = []
        self.cache: dict[Block, dict[Any, Value]] = {}
        self.split_guard: dict[Block, tuple[Value, bool]] = {}
        self.b = Builder()
        self.last_span: Span | None = None
        self.done: set[int] = set()
        self.conv_src: dict[Value, Value] = {}
        self.join_root: dict[Block, Block] = {}

    # -------------------------------------------------------------------------------- registers
    def _declare(self, d: P.RegDecl, scope: LiftScope | None) -> None:
        t = reg_type(d.type)
        if d.prefix is not None:
            if scope is None:
                self.prefixes[d.prefix] = t
            else:
                for i in range(d.count):
                    n = f"{d.prefix}{i}"
                    k = f"{n}@{self.scope_no}"
                    scope.regs[n] = k
                    self.regtypes[k] = t
            return
        for n in d.names:
            if scope is None:
                self.regtypes[n] = t
            else:
                k = f"{n}@{self.scope_no}"
                scope.regs[n] = k
                self.regtypes[k] = t

    def regtype(self, key: str) -> Type:
        t = self.regtypes.get(key)
        if t is not None:
            return t
        i = len(key)
        while i > 0 and key[i - 1].isdigit():
            i -= 1
        t = self.prefixes.get(key[:i], B32)
        self.regtypes[key] = t
        return t

    def is_special(self, name: str) -> bool:
        if name in self.regtypes or not name.startswith("%"):
            return False
        r = _SPECIAL_MEMO.get(name)
        if r is None:
            base = name[1:].split(".", 1)[0]
            i = len(base)
            while i > 0 and base[i - 1].isdigit():
                i -= 1
            r = base in SREG_NAMES or (base[:i] in ("pm", "envreg") and i < len(base))
            if len(_SPECIAL_MEMO) < 65536:
                _SPECIAL_MEMO[name] = r
        return r

    def key(self, r: P.Reg, scope: LiftScope | None) -> str:
        return scope.reg(r.name) if scope is not None else r.name

    def val(self, o: P.Operand, t: Type | None, scope: LiftScope | None) -> Value:
        """Value of a source operand, converted to `t` (None: the value's own type)."""
        if isinstance(o, P.Reg):
            name = o.name
            k = scope.reg(name) if scope is not None else name
            if k == name and self.is_special(name):
                v = self.sreg(name)
            else:
                v = self.read(k, self.b.block)
            return v if t is None else self.conv(v, t)
        if isinstance(o, P.Imm):
            t = t or (ScalarType("f32") if isinstance(o.value, float) else B32)
            if isinstance(t, ScalarType) and t.is_float:
                return self.const(float(o.value), t)
            if t == BOOL:
                return self.const(bool(o.value), t)
            if isinstance(o.value, float):  # a float bit pattern in an integer operand: its bits
                bits = t.bits if isinstance(t, ScalarType) else 64
                if isinstance(t, ScalarType) and not t.name.startswith("b"):
                    # ptxas accepts float literals only for bit-typed (.b32/.b64) integer operands
                    raise OperandError(
                        f"the floating-point immediate `{o.text}` cannot be a `.{t.name}` integer operand "
                        f"(ptxas: arguments mismatch); write the integer, or use a `.b{t.bits}` instruction"
                    )
                return self.const(uint(float_imm_bits(o.value, o.text, bits), t), t)
            v = int_imm(o)
            if isinstance(t, ScalarType) and t.is_int:
                check_int_width(v, t.bits, o.text)
            return self.const(uint(v, t), t)
        if isinstance(o, P.Neg):
            v = self.val(o.inner, BOOL, scope)
            return self.b.value("not", [v])
        if isinstance(o, P.Sym):
            return self.sym_addr(o.name, t or U64)
        if isinstance(o, P.Addr):
            p, off = self.addr(o, "generic", U32, scope)
            return p
        raise OperandError(f"`{o}` cannot be used as a scalar operand here")

    def sreg(self, name: str) -> Value:
        cache = self.cache.setdefault(self.b.block, {})
        hit = cache.get(("s", name))
        if hit is not None:
            return hit
        n = name[1:]
        if n.split(".", 1)[0] in SREG64:
            r = self.b.value("opaque", [], U64, {"text": f"mov {name}"}, hint=n)
        else:
            r = self.b.value("sreg", [], U32, {"name": n}, hint=n.replace(".", "_"))
        cache[("s", name)] = r
        return r

    def sym_addr(self, name: str, t: Type) -> Value:
        """The address of a variable or parameter symbol: uniform, pure."""
        if name == "WARP_SZ" and name not in self.mc.gvars:  # PTX's predefined constant (`warpSize`)
            return self.const(32, t if isinstance(t, ScalarType) else U32)
        if name in self.params:
            space = "param"
        elif name in self.local_vars:
            space = SPACE_OF.get(self.local_vars[name].space, "local")
            if space == "param":
                space = "local"  # call-sequence parameters are per-thread
        elif name in self.ret_params:
            space = "local"
        elif name in self.mc.gvars:
            space = SPACE_OF.get(self.mc.gvars[name].space, "global")
        else:
            space = "global"
        cache = self.cache.setdefault(self.b.block, {})
        k = ("a", name, t)
        hit = cache.get(k)
        if hit is not None:
            return hit
        r = self.b.value("shared_addr", [], t, {"sym": name, "space": space}, hint=name)
        cache[k] = r
        return r

    def addr(self, a: P.Addr, space: str, elem: Type, scope: LiftScope | None) -> tuple[Value, int]:
        ptr_space = "shared" if space == "shared" else "global"
        pt = PtrType(ptr_space, elem)
        base = a.base
        if isinstance(base, P.Reg):
            v = self.val(base, None, scope)
        elif isinstance(base, P.Sym):
            v = self.sym_addr(base.name, U32 if ptr_space == "shared" else U64)
        else:
            v = self.const(a.offset, U64)
            return self.conv(v, pt), 0
        return self.conv(v, pt), a.offset

    def dest_type(self, o: P.Operand, t: Type, scope: LiftScope | None) -> Type:
        if isinstance(o, P.Reg) and t != BOOL:
            rt = self.regtype(self.key(o, scope))
            if isinstance(rt, ScalarType) and rt.name != "bool" and rt.bits != bit_width(t):
                return widen(t, rt.bits)
        return t

    def put(self, o: P.Operand, v: Value, scope: LiftScope | None) -> None:
        if isinstance(o, P.Reg):
            self.write(self.key(o, scope), v)

    # -------------------------------------------------------------------------------- function
    def run(self) -> Function:
        f = self.f
        ptypes: list[Type] = []
        pnames: list[str] = []
        for p in f.params:
            t = p.type.lstrip(".")
            ptypes.append(U64 if p.dims else PTX_TYPES.get(t, ALL_TYPES.get(t, U64)))
            pnames.append(p.name)
        fn = Function(f.name, ptypes, is_kernel=f.kind == "entry", param_names=pnames,
                      span=Span(self.mc.path, f.line, 1, f.line, 2) if f.line else None)  # fmt: skip
        d = f.directives
        if "reqntid" in d:
            fn.attrs["launch"] = (list(d["reqntid"]) + [1, 1])[:3]
            if fn.attrs["launch"][0] % 32:
                fn.attrs["ntid_x_multiple_of_32"] = False
        if "maxntid" in d:
            fn.attrs["max_threads"] = (list(d["maxntid"]) + [1, 1])[:3]
            if d["maxntid"][0] % 32:
                fn.attrs["ntid_x_multiple_of_32"] = False
        if "maxnreg" in d:
            fn.attrs["max_registers"] = d["maxnreg"][0]
        if "minnctapersm" in d:
            fn.attrs["min_blocks_per_sm"] = d["minnctapersm"][0]
        if "reqnctapercluster" in d:
            fn.attrs["cluster"] = (list(d["reqnctapercluster"]) + [1, 1])[:3]
        self.fn = fn
        fn.ptx_shared_bytes = shared_bytes(f, self.mc.gvars.values())  # type: ignore[attr-defined]
        self.param_args = dict(zip(pnames, fn.params))
        self.param_decl = {p.name: p for p in f.params}

        pbs = self.build_pblocks()
        # reachability + predecessor counts + RPO
        entry_pb = pbs[0]
        rpo = reverse_postorder(entry_pb, _pblock_succs)
        for p in rpo:
            for s in p.succs:
                s.npreds += 1
        entry = fn.entry
        self.defs[entry] = {}
        self.preds[entry] = []
        self.sealed.add(entry)
        for i, p in enumerate(f.params):
            self.defs[entry][f"param:{p.name}"] = fn.params[i]
        if entry_pb.npreds:
            first = self._head(entry_pb)
            self.b.at_end(entry)
            self.b.span = None
            self.b.br(first)
            self.preds[first].append((entry, 0))
        else:
            entry_pb.head = entry
        for p in rpo:
            self.process(p)
        self.finish()
        _lift_async.refine_tensormaps(self)
        return fn

    def _head(self, p: PBlock) -> Block:
        if p.head is None:
            p.head = self.fn.add_block(Block())
            self.defs[p.head] = {}
            self.preds[p.head] = []
        return p.head

    def _new_block(self) -> Block:
        b = self.fn.add_block(Block())
        self.defs[b] = {}
        self.preds[b] = []
        return b

    def process(self, p: PBlock) -> None:
        head = self._head(p)
        if p.npreds == 0 and head not in self.sealed:
            self.seal(head)
        self.done.add(id(p))
        self.b.at_end(head)
        for instr, scope in p.instrs:
            span = self.mc.span(instr)
            self.last_span = span
            self.b.span = span
            try:
                if instr.pred is not None:
                    self.split(instr, scope)
                else:
                    self.lower(instr, scope)
            except OperandError as e:
                raise CompileError([operand_diagnostic(e, span)]) from None
        # terminator
        t = p.term
        k = t[0]
        blk = self.b.block
        tin = t[1] if len(t) > 1 else None
        span = self.mc.span(tin) if isinstance(tin, P.Instr) else self.last_span
        self.b.span = span
        self.last_span = span
        if k == "ret" or k == "trap":
            if k == "ret":
                self.b.ret()
            else:
                self.b.create("trap", [], [])
        elif k == "fall" or k == "br":
            self.b.br(self._head(p.succs[0]))
        elif k == "cbr":
            instr, scope = t[1], t[2]
            c = self.val(instr.pred, BOOL, scope)
            a, bb = self._head(p.succs[0]), self._head(p.succs[1])
            if instr.pred_neg:
                self.b.cbr(c, bb, None, a, None)
            else:
                self.b.cbr(c, a, None, bb, None)
        elif k == "eq":
            instr, scope, kk = t[1], t[2], t[3]
            idx = self.val(instr.operands[0], U32, scope)
            c = self.b.value("cmp", [idx, self.const(kk, U32)], attrs={"pred": "eq"})
            self.b.cbr(c, self._head(p.succs[0]), None, self._head(p.succs[1]), None)
        term = blk.ops[-1] if blk.ops and blk.ops[-1].has_trait("terminator") else None
        if term is None:
            return
        for si, s in enumerate(term.successors):
            self.preds[s].append((blk, si))
        for s in p.succs:
            s.npreds -= 1
            if s.npreds == 0 and s.head is not None and s.head not in self.sealed and id(s) in self.done:
                self.seal(s.head)

    # ------------------------------------------------------------------------------- lowering
    def lower(self, instr: P.Instr, scope: LiftScope | None) -> None:
        base = instr.base
        h = HANDLERS.get(base)
        if h is not None and h(self, instr, scope, instr.mods):
            return
        self.generic(instr, scope)

    def generic(self, instr: P.Instr, scope: LiftScope | None, opname: str | None = None) -> None:
        """Opaque / ptx_pure / ptx_collective: defined registers are results, read registers operands."""
        oi = isa.info(instr)
        if opname is None:
            if not oi.known:
                if instr.opcode not in self.mc.unknown:
                    self.mc.unknown.add(instr.opcode)
                    self.mc.notes.append(
                        warning(  # a gap in the analysis: --werror must be able to catch it
                            "unknown-instruction",
                            f"PTX instruction `{instr.opcode}` is not modeled; treated as opaque "
                            "(conservative effects)",
                            self.mc.span(instr),
                        )
                    )
                opname = "opaque"
            elif oi.cluster_barrier:
                opname = "opaque"
            elif oi.warp_collective or oi.barrier or oi.warp_granular_barrier:
                opname = "ptx_collective"
            elif oi.pure and oi.mem == "none":
                opname = "ptx_pure"
            else:
                opname = "opaque"
        defs = isa.def_regs(instr)
        uses = isa.use_regs(instr)
        if instr.pred is not None:
            uses = uses[1:]
        ops = []
        for r in uses:
            ops.append(self.val(r, None, scope))
        rtypes = [self.regtype(self.key(r, scope)) if not self.is_special(r.name) else U32 for r in defs]
        attrs: dict[str, Any] = {"text": instr.opcode}
        if (
            opname == "ptx_collective"
            and ".sync" in instr.opcode
            and ".aligned" not in instr.opcode
            and ops
            and isinstance(instr.operands[-1], P.Reg)
        ):
            attrs["mask_operand"] = len(ops) - 1  # `match/vote/redux.sync ..., %mask`: the lanes named
        addr = next((o for o in instr.operands if isinstance(o, P.Addr)), None)
        if opname == "ptx_collective" and addr is not None and addr.offset and isinstance(addr.base, P.Reg):
            attrs["offset"] = addr.offset  # `ldmatrix/stmatrix [%r+off]`: the operand is %r, the offset here
        if (
            instr.opcode.startswith("wgmma.wait_group")
            and instr.operands
            and isinstance(instr.operands[0], P.Imm)
        ):
            attrs["n"] = int(instr.operands[0].value)  # the groups left pending (`async-unwaited`)
        op = self.b.create(opname, ops, rtypes, attrs)
        for r, v in zip(defs, op.results):
            self.put(r, v, scope)


# ------------------------------------------------------------------------------------------ entry


def lift_module(ptx: P.Module, source: str | None = None) -> tuple[Module, list[Diagnostic]]:
    """Lift every `.entry` and every `.func` with a body into one IR module.

    Returns the module and the lifter's notes (`unknown-instruction`, one per unmodeled opcode). `source`
    is the PTX text (for span columns); without it `ptx.meta["source"]` is used when present, else spans
    start at column 1."""
    if source is None:
        src = ptx.meta.get("source") if isinstance(ptx.meta, dict) else None
        source = src if isinstance(src, str) else None
    mc = ModuleCtx(ptx, source)
    mod = Module(ptx.path)
    mod.attrs["target"] = ptx.target
    mod.attrs["ptx_version"] = ptx.version
    # The IR is cyclic (ops <-> values <-> blocks) and lifting allocates only live objects: pausing the
    # cyclic collector while building avoids repeated full scans of the growing module (~1.5x faster).
    gc_was = gc.isenabled()
    gc.disable()

    def lift_all() -> None:
        for f in ptx.functions:
            if f.body is None:
                continue
            fl = FnLifter(mc, f)
            fn = fl.run()
            _lift_async.declare_shared(fn, mc.gvars, fl.local_vars)  # sizes/alignments for the TMA checks
            mod.add_function(fn)

    try:
        lift_all()
    finally:
        if gc_was:
            gc.enable()
    return mod, mc.notes


def lift_ptx(text: str, path: str = "<ptx>") -> tuple[Module, list[Diagnostic]]:
    """Parse and lift PTX text (spans get exact columns)."""
    from irc.frontend.ptx.parser import parse_ptx

    return lift_module(parse_ptx(text, path), text)
