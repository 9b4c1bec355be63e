"""Lift a parsed PTX program (`irc.backends.ptx.model.Module`) into irc's SSA IR, so that `irc check
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

Uninitialized registers. Reading a register with no write on some path from the entry reads `undef`
(the analyzer reports `uninitialized` on uses of `undef`). Generators emit *correlated predication*
(`@%p1 ld %f1, [..]` ... `@%p1 st [..], %f1`): `%f1` is undefined on the `!%p1` path but never read
there. The rule: a read of a value into which `undef` flows (through block arguments) is *benign* when
every edge through which `undef` enters is taken only when some condition `c` has a polarity `s`
(`c` is the SSA predicate of a `cbr`/split; equal `cmp`s of equal operands count as the same `c`, `not`
flips `s`) and the read itself is reachable only when `c` has polarity `!s` (must-facts of a forward
dataflow over the CFG). A read directly of `undef` (no write on any path) is never benign. If every
read of a register's `undef` is benign, the `undef` is replaced by `const 0` (a legal choice for an
unspecified value that is never observed), so the analyzer sees nothing; otherwise it stays `undef`.
Known imprecision: an `undef` shared by a benign and a non-benign read is reported for both; a guard
redefined inside a loop between the skipped write and the read is trusted (same SSA value).

Instructions irc does not model become `opaque {text}` (conservative effects); those the PTX facts table
(`irc.backends.ptx.isa`) does not know produce one `unknown-instruction` note per opcode per file.
"""

from __future__ import annotations

import gc
import sys
from typing import Any

from irc.backends.ptx import isa
from irc.backends.ptx import model as P
from irc.diagnostics import CompileError, Diagnostic, Span, error, note
from irc.frontend.kdsl.deep import run_deep
from irc.frontend.ptx.operands import OperandError, check_int_width, int_imm
from irc.frontend.ptx.operands import diagnostic as operand_diagnostic
from irc.ir.builder import Builder
from irc.ir.core import Block, BlockArg, Function, Module, Op, OpResult, Value
from irc.ir.types import (
    B32,
    BOOL,
    U32,
    U64,
    PtrType,
    ScalarType,
    Type,
)
from irc.ir.types import bit_width as _bit_width

__all__ = ["lift_module", "lift_ptx"]


# ------------------------------------------------------------------------------------------ type facts

_KIND = {"s": "i", "u": "u", "b": "b", "f": "f"}
_PTX_TYPES: dict[str, Type] = {}
for _k in ("s", "u", "b"):
    for _w in (8, 16, 32, 64):
        _PTX_TYPES[f"{_k}{_w}"] = ScalarType(f"{_KIND[_k]}{_w}")
for _n in ("f16", "bf16", "f32", "f64"):
    _PTX_TYPES[_n] = ScalarType(_n)
_PTX_TYPES["pred"] = BOOL
_PACKED = {"f16x2": B32, "bf16x2": B32, "tf32": B32, "b128": ScalarType("b64"), "e4m3x2": ScalarType("b16"),
           "e5m2x2": ScalarType("b16"), "s16x2": B32, "u16x2": B32}  # fmt: skip
_ALL_TYPES = dict(_PTX_TYPES)
_ALL_TYPES.update(_PACKED)

_SREG_NAMES = {
    "tid", "ntid", "ctaid", "nctaid", "laneid", "warpid", "nwarpid", "smid", "nsmid", "gridid", "clusterid",
    "nclusterid", "cluster_ctaid", "cluster_nctaid", "cluster_ctarank", "cluster_nctarank",
    "is_explicit_cluster", "lanemask_eq", "lanemask_le", "lanemask_lt", "lanemask_ge", "lanemask_gt",
    "clock", "clock64", "globaltimer", "globaltimer_lo", "globaltimer_hi", "dynamic_smem_size",
    "total_smem_size", "aggr_smem_size", "envreg", "pm", "reserved_smem_offset_begin",
    "reserved_smem_offset_end", "reserved_smem_offset_cap", "reserved_smem_offset_0",
    "reserved_smem_offset_1", "current_graph_exec",
}  # fmt: skip
_SREG64 = {"clock64", "globaltimer", "gridid", "current_graph_exec"}

_CMP = {"lo": "lt", "ls": "le", "hi": "gt", "hs": "ge"}
_CMPS = {"eq", "ne", "lt", "le", "gt", "ge", "lo", "ls", "hi", "hs", "equ", "neu", "ltu", "leu", "gtu",
         "geu", "num", "nan"}  # fmt: skip
_BIN = {"add": "add", "sub": "sub", "div": "div", "rem": "rem", "min": "min", "max": "max", "and": "and",
        "or": "or", "xor": "xor", "shl": "shl", "shr": "shr"}  # fmt: skip
_UN = {"neg": "neg", "not": "not", "abs": "abs", "sqrt": "sqrt", "rsqrt": "rsqrt", "rcp": "rcp",
       "ex2": "exp2", "lg2": "log2", "sin": "sin", "cos": "cos", "tanh": "tanh"}  # fmt: skip
_PURE_TEXT = {"lop3", "prmt", "bfe", "bfi", "brev", "popc", "clz", "shf", "bfind", "fns", "testp", "copysign",
              "cnot", "sad", "dp4a", "dp2a", "bmsk", "szext", "mul24", "mad24", "addc", "subc", "madc",
              "set", "slct", "isspacep", "createpolicy", "mapa", "getctarank", "istypep", "min", "max",
              "mbarrier.pending_count"}  # fmt: skip
_ATOM_KINDS = {"add", "min", "max", "and", "or", "xor", "exch", "inc", "dec", "cas"}
_SPACE_OF = {"global": "global", "shared": "shared", "shared::cta": "shared", "shared::cluster": "shared",
             "local": "local", "param": "param", "const": "const"}  # fmt: skip
_ROUND = {"rn", "rz", "rm", "rp", "rni", "rzi", "rmi", "rpi", "rna", "rs"}


def _suffix_type(mods: list[str]) -> Type | None:
    """The IR type named by the last type modifier of an opcode (`add.s32` -> i32)."""
    for m in reversed(mods):
        t = _ALL_TYPES.get(m)
        if t is not None:
            return t
    return None


def _type_mods(mods: list[str]) -> list[str]:
    return [m for m in mods if m in _ALL_TYPES]


def _reg_type(decl_type: str) -> Type:
    t = decl_type.lstrip(".")
    return _ALL_TYPES.get(t, B32)


def _widen(t: Type, width: int) -> Type:
    """`t` of the same kind at `width` bits (an 8-bit load into a 32-bit register reads as 32 bits)."""
    if isinstance(t, ScalarType) and t.name != "bool" and t.bits != width and not t.is_float:
        return ScalarType(f"{t.name[0]}{width}")
    return t


_WIDTHS: dict[Type, int] = {}


def bit_width(t: Type) -> int:
    """Register width of `t`, cached (ScalarType.bits parses the name on every call)."""
    w = _WIDTHS.get(t)
    if w is None:
        w = _WIDTHS[t] = _bit_width(t)
    return w


def _uint(v: int, t: Type) -> int:
    """Immediates of unsigned/bit types as their unsigned value (`-1` mask -> 0xffffffff)."""
    if isinstance(t, ScalarType) and t.name[0] in "ub" and t.name != "bool" and v < 0:
        return v & ((1 << t.bits) - 1)
    return v


# --------------------------------------------------------------------------------------- flattening


class _Scope:
    """A `{ ... }` scope: its registers and labels get function-unique keys (inline asm repeats names)."""

    __slots__ = ("regs", "labels", "parent")

    def __init__(self, parent: _Scope | None):
        self.regs: dict[str, str] = {}
        self.labels: dict[str, str] = {}
        self.parent = parent

    def _lookup(self, table: str, name: str) -> str:
        s: _Scope | None = self
        while s is not None:
            k = getattr(s, table).get(name)
            if k is not None:
                return k
            s = s.parent
        return name

    def reg(self, name: str) -> str:
        return self._lookup("regs", name)

    def label(self, name: str) -> str:
        return self._lookup("labels", name)


class _PB:
    """A pre-SSA basic block: instructions and a terminator description."""

    __slots__ = ("instrs", "term", "succs", "npreds", "head", "index", "preds")

    def __init__(self, index: int):
        self.instrs: list[tuple[P.Instr, _Scope | None]] = []
        # ("fall",) ("br", T) ("cbr", predkey, neg, T_taken, instr, scope) ("ret", instr) ("trap", instr)
        # ("eq", key, k, instr, scope) for brx.idx steps
        self.term: tuple = ("fall",)
        self.succs: list[_PB] = []
        self.npreds = 0
        self.head: Block | None = None
        self.index = index
        self.preds: list[_PB] = []


# ---------------------------------------------------------------------------------------- the lifter


class _ModuleCtx:
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


class _FnLifter:
    def __init__(self, mc: _ModuleCtx, f: P.Function):
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
    def _declare(self, d: P.RegDecl, scope: _Scope | None) -> None:
        t = _reg_type(d.type)
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
            r = base in _SREG_NAMES or (base[:i] in ("pm", "envreg") and i < len(base))
            if len(_SPECIAL_MEMO) < 65536:
                _SPECIAL_MEMO[name] = r
        return r

    # ---------------------------------------------------------------------------- flattening
    def flatten(self) -> list[tuple[str, Any, _Scope | None]]:
        out: list[tuple[str, Any, _Scope | None]] = []

        def walk(stmts: list[P.Stmt], scope: _Scope | None) -> None:
            if scope is not None:
                for s in stmts:
                    if isinstance(s, P.Label):
                        scope.labels[s.name] = f"{s.name}@{self.scope_no}"
            for s in stmts:
                if isinstance(s, P.Instr):
                    out.append(("I", s, scope))
                elif isinstance(s, P.Label):
                    out.append(("L", scope.label(s.name) if scope is not None else s.name, scope))
                elif isinstance(s, P.RegDecl):
                    self._declare(s, scope)
                elif isinstance(s, P.VarDecl):
                    self.local_vars[s.name] = s
                elif isinstance(s, P.Scope):
                    self.scope_no += 1
                    walk(s.body, _Scope(scope))

        walk(self.f.body or [], None)
        return out

    def build_pblocks(self) -> list[_PB]:
        items = self.flatten()
        pbs: list[_PB] = []
        labels: dict[str, _PB] = {}
        cur = _PB(0)
        pbs.append(cur)
        fresh = True  # current block has no instructions yet

        def new() -> _PB:
            nonlocal cur, fresh
            cur = _PB(len(pbs))
            pbs.append(cur)
            fresh = True
            return cur

        pending: list[tuple[_PB, str, int]] = []  # (block, label, succ slot) to resolve
        for kind, x, scope in items:
            if kind == "L":
                if not fresh:
                    new()
                labels[x] = cur
                continue
            instr: P.Instr = x
            base = instr.base
            if base == "bra" or base == "brx" or base == "ret" or base == "exit" or base == "trap":
                if base == "bra":
                    tgt = instr.operands[0] if instr.operands else None
                    name = tgt.name if isinstance(tgt, P.Sym) else ""
                    name = scope.label(name) if scope is not None else name
                    if instr.pred is None:
                        cur.term = ("br", instr)
                        pending.append((cur, name, 0))
                    else:
                        cur.term = ("cbr", instr, scope)
                        pending.append((cur, name, 0))
                elif base == "brx":
                    self._lower_brx(instr, scope, cur, pbs, pending)
                    new()
                    continue
                else:
                    kindname = "trap" if base == "trap" else "ret"
                    if instr.pred is None:
                        cur.term = (kindname, instr)
                    else:
                        stub = _PB(-1)
                        stub.term = (kindname, instr)
                        pbs.append(stub)
                        cur.term = ("cbr", instr, scope)
                        cur.succs.append(stub)
                new()
                continue
            cur.instrs.append((instr, scope))
            fresh = False
        # resolve branch targets; fall-through edges
        order = [p for p in pbs]
        by_layout = [p for p in pbs if p.index >= 0]
        nxt_of: dict[int, _PB | None] = {}
        for i, p in enumerate(by_layout):
            nxt_of[id(p)] = by_layout[i + 1] if i + 1 < len(by_layout) else None
        tgt_of: dict[tuple[int, int], _PB] = {}
        for blk, name, slot in pending:
            t = labels.get(name)
            if t is None:
                br = blk.term[1] if len(blk.term) > 1 and isinstance(blk.term[1], P.Instr) else None
                self.mc.notes.append(  # ptxas rejects it; analysed as an exit
                    error(
                        "parse-error", f"branch to unknown label `{name}`", self.mc.span(br) if br else None
                    )
                )
                t = _PB(-1)
                t.term = ("ret", None)
                pbs.append(t)
            tgt_of[(id(blk), slot)] = t
        for p in order:
            k = p.term[0]
            fall = nxt_of.get(id(p))
            if k == "fall":
                if fall is None:
                    p.term = ("ret", None)
                else:
                    p.succs = [fall]
            elif k == "br":
                p.succs = [tgt_of[(id(p), 0)]]
            elif k == "cbr":
                if p.succs:  # predicated ret/trap: taken = stub
                    taken = p.succs[0]
                else:
                    taken = tgt_of[(id(p), 0)]
                if fall is None:
                    fall = _PB(-1)
                    fall.term = ("ret", None)
                    pbs.append(fall)
                p.succs = [taken, fall]
            elif k == "eq":
                p.succs = [tgt_of[(id(p), 0)], p.succs[0] if p.succs else tgt_of[(id(p), 1)]]
        return pbs

    def _lower_brx(
        self, instr: P.Instr, scope: _Scope | None, cur: _PB, pbs: list[_PB], pending: list
    ) -> None:
        """`brx.idx %r, table` -> a chain of `cbr (%r == k)` steps (the last target is the default)."""
        tbl = (
            instr.operands[1].name if len(instr.operands) > 1 and isinstance(instr.operands[1], P.Sym) else ""
        )
        targets = list(self.f.meta.get("branchtargets", {}).get(tbl, []))
        if not targets:
            cur.term = ("ret", instr)
            return
        step = cur
        for k, lab in enumerate(targets):
            name = scope.label(lab) if scope is not None else lab
            if k == len(targets) - 1:
                step.term = ("br", instr)
                pending.append((step, name, 0))
            else:
                step.term = ("eq", instr, scope, k)
                pending.append((step, name, 0))
                nxt = _PB(-1)
                pbs.append(nxt)
                step.succs = [nxt]
                step = nxt

    # --------------------------------------------------------------------------------- SSA core
    def find(self, v: Value) -> Value:
        f = self.fwd.get(v)
        if f is None:
            return v
        while True:
            g = self.fwd.get(f)
            if g is None:
                return f
            f = g

    def write(self, key: str, v: Value, block: Block | None = None) -> None:
        if v.name is None:
            v.name = key.split("@", 1)[0].lstrip("%")
        self.defs[block or self.b.block][key] = v

    def read(self, key: str, block: Block) -> Value:
        d = self.defs[block].get(key)
        if d is not None:
            f = self.fwd.get(d)
            return d if f is None else self.find(d)
        root = self.join_root.get(block)
        return self._read_rec(key, block if root is None else root)

    def _read_rec(self, key: str, block: Block) -> Value:
        if block not in self.sealed:
            phi = self._new_phi(key, block)
            self.incomplete.setdefault(block, []).append((key, phi))
            val: Value = phi
        else:
            ps = self.preds[block]
            if len(ps) == 1:
                val = self.read(key, ps[0][0])
            elif not ps:
                val = self.undef(key)
            else:
                phi = self._new_phi(key, block)
                self.defs[block][key] = phi
                val = self._add_phi_operands(key, phi)
        self.defs[block][key] = val
        return val

    def _new_phi(self, key: str, block: Block) -> BlockArg:
        a = block.add_arg(self.regtype(key), key.split("@", 1)[0].lstrip("%"))
        self.phi_var[a] = key
        self.phi_users[a] = []
        return a

    def _add_phi_operands(self, key: str, phi: BlockArg) -> Value:
        ops = []
        for pb, _ in self.preds[phi.block]:
            v = self.read(key, pb)
            ops.append(v)
            if isinstance(v, BlockArg) and v in self.phi_users:
                self.phi_users[v].append(phi)
        self.phi_ops[phi] = ops
        return self._try_remove_trivial(phi)

    def _try_remove_trivial(self, phi0: BlockArg) -> Value:
        result: Value | None = None
        work = [phi0]
        first = True
        while work:
            phi = work.pop()
            if phi in self.dead_phis or phi not in self.phi_ops:
                if first:
                    result = self.find(phi)
                first = False
                continue
            same: Value | None = None
            trivial = True
            for op in self.phi_ops[phi]:
                op = self.strip(self.find(op))
                if op is same or op is phi:
                    continue
                if same is not None:
                    trivial = False
                    break
                same = op
            if not trivial:
                if first:
                    result = phi
                first = False
                continue
            if same is None:
                same = self.undef(self.phi_var[phi])
            if same.type != phi.type:
                same = self._conv_at_start(same, phi.type, phi.block)
            self.dead_phis.add(phi)
            self.fwd[phi] = same
            phi.replace_all_uses_with(same)
            if first:
                result = same
            first = False
            for u in self.phi_users.get(phi, ()):
                if u is not phi and u not in self.dead_phis and u in self.phi_ops:
                    work.append(u)
        assert result is not None
        return result

    def strip(self, v: Value) -> Value:
        """The value a lifter-made conversion converts (a register used at another type is the same
        register value: phis of `bitcast x` and `x` are trivial)."""
        s = self.conv_src.get(v)
        while s is not None:
            v = s
            s = self.conv_src.get(v)
        return v

    def _conv_at_start(self, v: Value, t: Type, block: Block) -> Value:
        cache = self.cache.setdefault(block, {})
        k = (v, t)
        hit = cache.get(k)
        if hit is not None:
            return hit
        name = "bitcast" if bit_width(v.type) == bit_width(t) else "cvt"
        op = Op(name, [v], [t], span=self.last_span, result_names=[v.name])
        block.insert(0, op)
        cache[k] = op.result
        self.conv_src[op.result] = v
        return op.result

    def seal(self, block: Block) -> None:
        for key, phi in self.incomplete.pop(block, []):
            self._add_phi_operands(key, phi)
        self.sealed.add(block)

    def undef(self, key: str) -> Value:
        u = self.undefs.get(key)
        if u is None:
            op = Op("undef", [], [self.regtype(key)], {"reg": key.split("@", 1)[0]}, span=self.last_span,
                    result_names=[key.split("@", 1)[0].lstrip("%")])  # fmt: skip
            self.undef_ops.append(op)
            u = op.result
            self.undefs[key] = u
        return u

    # ------------------------------------------------------------------------------ value helpers
    def conv(self, v: Value, t: Type) -> Value:
        if v.type == t:
            return v
        v = self.strip(v)
        if v.type == t:
            return v
        block = self.b.block
        cache = self.cache.setdefault(block, {})
        k = (v, t)
        hit = cache.get(k)
        if hit is not None:
            return hit
        try:
            same = bit_width(v.type) == bit_width(t)
        except TypeError:
            same = False
        r = self.b.value("bitcast" if same else "cvt", [v], t, hint=v.name)
        cache[k] = r
        self.conv_src[r] = v
        return r

    def const(self, value: int | float | bool, t: Type) -> Value:
        cache = self.cache.setdefault(self.b.block, {})
        k = ("c", value, t)
        hit = cache.get(k)
        if hit is not None:
            return hit
        r = self.b.const(value, t)
        cache[k] = r
        return r

    def key(self, r: P.Reg, scope: _Scope | None) -> str:
        return scope.reg(r.name) if scope is not None else r.name

    def val(self, o: P.Operand, t: Type | None, scope: _Scope | None) -> Value:
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
            v = int_imm(o)
            if isinstance(t, ScalarType) and t.is_int:
                check_int_width(v, t.bits, o.text)
            return self.const(_uint(v, t), t)
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
        if n.split(".", 1)[0] in _SREG64:
            r = self.b.value("opaque", [], U64, {"text": f"mov {name}"}, hint=n)
        else:
            r = self.b.value("sreg", [], U32, {"name": n}, hint=n.replace(".", "_"))
        cache[("s", name)] = r
        return r

    def sym_addr(self, name: str, t: Type) -> Value:
        """The address of a variable or parameter symbol: uniform, pure."""
        if name in self.params:
            space = "param"
        elif name in self.local_vars:
            space = _SPACE_OF.get(self.local_vars[name].space, "local")
            if space == "param":
                space = "local"  # call-sequence parameters are per-thread
        elif name in self.ret_params:
            space = "local"
        elif name in self.mc.gvars:
            space = _SPACE_OF.get(self.mc.gvars[name].space, "global")
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

    def addr(self, a: P.Addr, space: str, elem: Type, scope: _Scope | None) -> tuple[Value, int]:
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

    def dest_type(self, o: P.Operand, t: Type, scope: _Scope | None) -> Type:
        if isinstance(o, P.Reg) and t != BOOL:
            rt = self.regtype(self.key(o, scope))
            if isinstance(rt, ScalarType) and rt.name != "bool" and rt.bits != bit_width(t):
                return _widen(t, rt.bits)
        return t

    def put(self, o: P.Operand, v: Value, scope: _Scope | None) -> None:
        if isinstance(o, P.Reg):
            self.write(self.key(o, scope), v)

    # -------------------------------------------------------------------------------- function
    def run(self) -> Function:
        f = self.f
        ptypes: list[Type] = []
        pnames: list[str] = []
        for p in f.params:
            t = p.type.lstrip(".")
            ptypes.append(U64 if p.dims else _PTX_TYPES.get(t, _ALL_TYPES.get(t, U64)))
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
        self.param_args = dict(zip(pnames, fn.params))
        self.param_decl = {p.name: p for p in f.params}

        pbs = self.build_pblocks()
        # reachability + predecessor counts + RPO
        entry_pb = pbs[0]
        seen = {id(entry_pb)}
        post: list[_PB] = []
        stack: list[tuple[_PB, int]] = [(entry_pb, 0)]
        while stack:
            p, i = stack.pop()
            if i < len(p.succs):
                stack.append((p, i + 1))
                s = p.succs[i]
                if id(s) not in seen:
                    seen.add(id(s))
                    stack.append((s, 0))
            else:
                post.append(p)
        rpo = post[::-1]
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
        return fn

    def _head(self, p: _PB) -> Block:
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

    def process(self, p: _PB) -> None:
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

    def split(self, instr: P.Instr, scope: _Scope | None) -> None:
        """`@%p instr` -> cbr %p -> [instr] -> join; the join shares the head's definitions."""
        a = self.b.block
        c = self.val(instr.pred, BOOL, scope)
        t = self._new_block()
        j = self._new_block()
        if instr.pred_neg:
            self.b.cbr(c, j, None, t, None)
            skip, tin = 0, 1
        else:
            self.b.cbr(c, t, None, j, None)
            skip, tin = 1, 0
        self.preds[t].append((a, tin))
        self.sealed.add(t)
        self.split_guard[t] = (c, not instr.pred_neg)
        self.b.at_end(t)
        self.lower(instr, scope)
        t_end = self.b.block  # lowering never adds blocks, but stay general
        self.b.br(j)
        # join: preds (a, skip) then (t_end, 0)
        self.preds[j] = [(a, skip), (t_end, 0)]
        self.sealed.add(j)
        shared = self.defs[a]
        written = self.defs[t_end]
        for key, v in list(written.items()):
            before = self.read(key, a)
            v = self.find(v)
            if self.strip(v) is self.strip(before):
                continue
            phi = self._new_phi(key, j)
            self.phi_ops[phi] = [before, v]
            for x in (before, v):
                if isinstance(x, BlockArg) and x in self.phi_users:
                    self.phi_users[x].append(phi)
            shared[key] = self._try_remove_trivial(phi)
        self.defs[j] = shared
        self.join_root[j] = self.join_root.get(a, a)
        self.b.at_end(j)

    # ------------------------------------------------------------------------------- finishing
    def finish(self) -> None:
        fn = self.fn
        entry = fn.entry
        # materialize edge arguments
        for blk in fn.blocks:
            if not blk.args:
                continue
            live = [a for a in blk.args if a not in self.dead_phis]
            if len(live) != len(blk.args):
                blk.args[:] = live
                for i, a in enumerate(live):
                    a.index = i
            if not live:
                continue
            for k, (pb, si) in enumerate(self.preds[blk]):
                term = pb.ops[-1]
                vals = []
                for a in live:
                    v = self.find(self.phi_ops[a][k])
                    if v.type != a.type:
                        v = self._conv_before_term(v, a.type, pb)
                    vals.append(v)
                term.succ_args[si] = vals
                for v in vals:
                    v.uses.append(term)
        for r in self.conv_src:
            if not r.uses and isinstance(r, OpResult) and r.op.block is not None:
                r.op.erase()
        self._check_uninitialized()
        if self.undef_ops:
            for op in reversed(self.undef_ops):
                if op.results[0].uses:
                    entry.insert(0, op)
                else:
                    op.block = None

    def _conv_before_term(self, v: Value, t: Type, blk: Block) -> Value:
        name = "bitcast" if bit_width(v.type) == bit_width(t) else "cvt"
        op = Op(name, [v], [t], span=blk.ops[-1].span, result_names=[v.name])
        blk.insert_before_terminator(op)
        return op.result

    # ------------------------------------------------------------------------- uninitialized rule
    def _check_uninitialized(self) -> None:
        used = [u for u in self.undefs.values() if u.uses]
        if not used:
            return
        facts, edge_facts = self._guard_facts()
        for u in used:
            if not self._all_reads_benign(u, facts, edge_facts):
                continue
            uop = u.op  # type: ignore[attr-defined]
            t = u.type
            z: Any = 0.0 if isinstance(t, ScalarType) and t.is_float else (False if t == BOOL else 0)
            uop.name = "const"
            uop.attrs = {"value": z}

    def _pkey(self, v: Value, depth: int = 0) -> Any:
        """Structural key of a predicate value: equal `cmp`s of equal operands are the same condition."""
        if isinstance(v, OpResult) and depth < 4:
            op = v.op
            if op.name == "cmp":
                return ("cmp", op.attrs.get("pred"), *(self._pkey(o, depth + 1) for o in op.operands))
            if op.name == "const":
                return ("const", op.attrs.get("value"), str(v.type))
            if op.name in ("sreg", "shared_addr"):
                return (op.name, tuple(op.attrs.items()))
            if op.name in ("bitcast", "cvt"):
                return (op.name, str(v.type), self._pkey(op.operands[0], depth + 1))
        return id(v)

    def _fact(self, c: Value, pol: bool) -> tuple[Any, bool]:
        while isinstance(c, OpResult) and c.op.name == "not":
            c, pol = c.op.operands[0], not pol
        return (self._pkey(c), pol)

    def _guard_facts(self) -> tuple[dict[Block, frozenset], dict[tuple[Block, int], frozenset]]:
        """Must-facts (condition key, polarity) that hold on entry to each block / along each edge."""
        fn = self.fn
        blocks = fn.blocks
        edge_add: dict[Block, list[tuple[Any, bool]]] = {}
        for b in blocks:
            t = b.ops[-1] if b.ops else None
            if t is not None and t.name == "cbr":
                c = t.operands[0]
                edge_add[b] = [self._fact(c, True), self._fact(c, False)]
        preds: dict[Block, list[tuple[Block, int]]] = {b: [] for b in blocks}
        for b in blocks:
            t = b.ops[-1] if b.ops else None
            if t is None:
                continue
            for si, s in enumerate(t.successors):
                preds[s].append((b, si))
        TOP = None
        facts: dict[Block, frozenset | None] = {b: TOP for b in blocks}
        facts[fn.entry] = frozenset()

        def efacts(b: Block, si: int) -> frozenset | None:
            f = facts[b]
            if f is None:
                return None
            ea = edge_add.get(b)
            return f | {ea[si]} if ea is not None else f

        changed = True
        while changed:
            changed = False
            for b in blocks[1:]:
                acc: frozenset | None = None
                for pb, si in preds[b]:
                    e = efacts(pb, si)
                    if e is None:
                        continue
                    acc = e if acc is None else acc & e
                if acc is not None and acc != facts[b]:
                    facts[b] = acc
                    changed = True
        out = {b: (f or frozenset()) for b, f in facts.items()}
        edges = {}
        for b in blocks:
            for pb, si in preds[b]:
                edges[(pb, si)] = efacts(pb, si) or frozenset()
        return out, edges

    def _all_reads_benign(self, u: Value, facts: dict, edge_facts: dict) -> bool:
        """True when every read of a value into which `u` flows is guarded by a condition whose negation
        holds on every edge through which `u` enters a block argument (see the module docstring)."""
        direct: set[Value] = {u}  # u and its conversions
        seen: set[Value] = {u}
        entries: list[frozenset] = []
        reads: list[Op] = []
        work = [u]
        while work:
            v = work.pop()
            is_direct = v in direct
            for op in v.users:
                if op.successors:
                    for si, (s, args) in enumerate(zip(op.successors, op.succ_args)):
                        for i, x in enumerate(args):
                            if x is v:
                                if is_direct:
                                    entries.append(edge_facts.get((op.block, si), frozenset()))
                                a = s.args[i]
                                if a not in seen:
                                    seen.add(a)
                                    work.append(a)
                    if any(o is v for o in op.operands):
                        if is_direct:
                            return False
                        reads.append(op)
                elif op.name in ("bitcast", "cvt") and len(op.operands) == 1:
                    r = op.results[0]
                    if r not in seen:
                        seen.add(r)
                        if is_direct:
                            direct.add(r)
                        work.append(r)
                else:
                    if is_direct:
                        return False
                    reads.append(op)
        for op in reads:
            rf = facts.get(op.block)
            if not rf:
                return False
            for ef in entries:
                if not any((k, not pol) in ef for k, pol in rf):
                    return False
        return True

    # ------------------------------------------------------------------------------- lowering
    def lower(self, instr: P.Instr, scope: _Scope | None) -> None:
        base = instr.base
        h = _HANDLERS.get(base)
        if h is not None and h(self, instr, scope, instr.mods):
            return
        self.generic(instr, scope)

    def generic(self, instr: P.Instr, scope: _Scope | None, opname: str | None = None) -> None:
        """Opaque / ptx_pure / ptx_collective: defined registers are results, read registers operands."""
        oi = isa.info(instr)
        if opname is None:
            if not oi.known:
                if instr.opcode not in self.mc.unknown:
                    self.mc.unknown.add(instr.opcode)
                    self.mc.notes.append(
                        note(
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
        op = self.b.create(opname, ops, rtypes, {"text": instr.opcode})
        for r, v in zip(defs, op.results):
            self.put(r, v, scope)


# ------------------------------------------------------------------------------------ handlers
# Each handler returns True when it lowered the instruction, False to fall back to `generic`.


def _h_mov(L: _FnLifter, i: P.Instr, sc: _Scope | None, mods: list[str]) -> bool:
    ops = i.operands
    if len(ops) != 2:
        return False
    d, s = ops
    t = _suffix_type(mods) or B32
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
    if isinstance(s, P.Vec) or isinstance(d, P.Vec):
        L.generic(i, sc, "ptx_pure")
        return True
    return False


def _h_setp(L: _FnLifter, i: P.Instr, sc: _Scope | None, mods: list[str]) -> bool:
    ops = i.operands
    if not mods or mods[0] not in _CMPS or len(ops) < 3:
        return False
    t = _suffix_type(mods)
    if t is None or t == BOOL or (isinstance(t, ScalarType) and t == B32 and "f16x2" in mods):
        return False
    if any(m in ("f16x2", "bf16x2") for m in mods):
        return False
    cmp = _CMP.get(mods[0], mods[0])
    boolop = mods[1] if len(mods) > 1 and mods[1] in ("and", "or", "xor") else None
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


def _h_selp(L: _FnLifter, i: P.Instr, sc: _Scope | None, mods: list[str]) -> bool:
    ops = i.operands
    t = _suffix_type(mods)
    if len(ops) != 4 or t is None or not isinstance(ops[0], P.Reg):
        return False
    t = L.dest_type(ops[0], t, sc)
    c = L.val(ops[3], BOOL, sc)
    a = L.val(ops[1], t, sc)
    b = L.val(ops[2], t, sc)
    L.put(ops[0], L.b.value("select", [c, a, b]), sc)
    return True


_PACKED_SET = frozenset(_PACKED)


def _packed(mods: list[str]) -> bool:
    return not _PACKED_SET.isdisjoint(mods)


def _h_arith(L: _FnLifter, i: P.Instr, sc: _Scope | None, mods: list[str]) -> bool:
    base = i.base
    ops = i.operands
    t = _suffix_type(mods)
    if t is None or _packed(mods) or "cc" in mods or not ops or not isinstance(ops[0], P.Reg):
        return False
    d = ops[0]
    if base == "mul" and "wide" in mods:
        if len(ops) != 3:
            return False
        a, b = L.val(ops[1], t, sc), L.val(ops[2], t, sc)
        wt = ScalarType(f"{t.name[0]}{t.bits * 2}")  # type: ignore[attr-defined]
        L.put(d, L.b.value("mulwide", [a, b], wt), sc)
        return True
    if base in ("mad", "fma"):
        if len(ops) != 4:
            return False
        if isinstance(t, ScalarType) and t.is_float:
            a, b, c = (L.val(o, t, sc) for o in ops[1:])
            L.put(d, L.b.value("fma", [a, b, c]), sc)
            return True
        if "hi" in mods:
            return False
        a, b = L.val(ops[1], t, sc), L.val(ops[2], t, sc)
        if "wide" in mods:
            wt = ScalarType(f"{t.name[0]}{t.bits * 2}")  # type: ignore[attr-defined]
            m = L.b.value("mulwide", [a, b], wt)
            L.put(d, L.b.value("add", [m, L.val(ops[3], wt, sc)]), sc)
        else:
            m = L.b.value("mul", [a, b])
            L.put(d, L.b.value("add", [m, L.val(ops[3], t, sc)]), sc)
        return True
    if base == "mul":
        if len(ops) != 3:
            return False
        a, b = L.val(ops[1], t, sc), L.val(ops[2], t, sc)
        L.put(d, L.b.value("mulhi" if "hi" in mods else "mul", [a, b], a.type), sc)
        return True
    if base in _BIN:
        if len(ops) != 3 or (base in ("min", "max") and ("relu" in mods or "xorsign" in mods)):
            return False
        a = L.val(ops[1], t, sc)
        b = L.val(ops[2], t, sc)
        L.put(d, L.b.value(_BIN[base], [a, b]), sc)
        return True
    if base in _UN:
        if len(ops) != 2:
            return False
        L.put(d, L.b.value(_UN[base], [L.val(ops[1], t, sc)]), sc)
        return True
    return False


def _h_cvt(L: _FnLifter, i: P.Instr, sc: _Scope | None, mods: list[str]) -> bool:
    ops = i.operands
    tm = _type_mods(mods)
    if len(ops) != 2 or len(tm) != 2 or _packed(tm) or not isinstance(ops[0], P.Reg):
        return False
    dt = L.dest_type(ops[0], _PTX_TYPES[tm[0]], sc)
    st = _PTX_TYPES[tm[1]]
    if isinstance(ops[1], P.Reg) and not L.is_special(ops[1].name):
        st = L.dest_type(ops[1], st, sc)
    src = L.val(ops[1], st, sc)
    attrs = {}
    rnd = [m for m in mods if m in _ROUND]
    if rnd:
        attrs["rnd"] = rnd[0]
    if "sat" in mods:
        attrs["sat"] = True
    L.put(ops[0], L.b.value("cvt", [src], dt, attrs or None), sc)
    return True


def _h_cvta(L: _FnLifter, i: P.Instr, sc: _Scope | None, mods: list[str]) -> bool:
    ops = i.operands
    t = _suffix_type(mods) or U64
    if len(ops) != 2 or not isinstance(ops[0], P.Reg):
        return False
    src = L.val(ops[1], t, sc)
    kind = ".".join(m for m in mods if m not in _ALL_TYPES)
    L.put(ops[0], L.b.value("cvt", [src], L.dest_type(ops[0], t, sc), {"cvta": kind}), sc)
    return True


def _space(mods: list[str]) -> str:
    for m in mods:
        s = _SPACE_OF.get(m)
        if s is not None:
            return s
    return "generic"


def _h_ld(L: _FnLifter, i: P.Instr, sc: _Scope | None, mods: list[str]) -> bool:
    ops = i.operands
    t = _suffix_type(mods)
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
    if isinstance(d, P.Reg):
        dt = L.dest_type(d, t, sc)
        p, off = L.addr(a, space, dt, sc)
        if off:
            attrs["offset"] = off
        L.put(d, L.b.value("load", [p], dt, attrs), sc)
        return True
    if isinstance(d, P.Vec):
        dts = [L.dest_type(x, t, sc) if isinstance(x, P.Reg) else t for x in d.items]
        p, off = L.addr(a, space, dts[0], sc)
        if off:
            attrs["offset"] = off
        op = L.b.create("load_vec", [p], dts, attrs)
        for x, r in zip(d.items, op.results):
            L.put(x, r, sc)
        return True
    return False


def _h_st(L: _FnLifter, i: P.Instr, sc: _Scope | None, mods: list[str]) -> bool:
    ops = i.operands
    t = _suffix_type(mods)
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
        L.b.create("store_vec", [p, *vals], [], attrs)
        return True
    v = L.val(s, L.dest_type(s, t, sc), sc)
    p, off = L.addr(a, space, v.type, sc)
    if off:
        attrs["offset"] = off
    L.b.create("store", [p, v], [], attrs)
    return True


def _h_atom(L: _FnLifter, i: P.Instr, sc: _Scope | None, mods: list[str]) -> bool:
    ops = i.operands
    t = _suffix_type(mods)
    kinds = [m for m in mods if m in _ATOM_KINDS]
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


def _barrier_operands(L: _FnLifter, ops: list[P.Operand], sc: _Scope | None) -> tuple[list[Value], dict]:
    attrs: dict[str, Any] = {}
    vals: list[Value] = []
    if ops and all(isinstance(o, P.Imm) for o in ops):
        attrs["id"] = int_imm(ops[0], "barrier id")
        if len(ops) > 1:
            attrs["count"] = int_imm(ops[1], "barrier thread count")
    elif ops:
        vals = [L.val(o, U32, sc) for o in ops]
    return vals, attrs


def _h_bar(L: _FnLifter, i: P.Instr, sc: _Scope | None, mods: list[str]) -> bool:
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
        t = _suffix_type(mods) or U32
        L.put(ops[0], L.b.value("ptx_pure", [], L.dest_type(ops[0], t, sc), {"text": i.opcode}), sc)
        return True
    return False


def _h_shfl(L: _FnLifter, i: P.Instr, sc: _Scope | None, mods: list[str]) -> bool:
    ops = i.operands
    if "sync" not in mods or len(ops) != 5:
        return False
    mode = next((x for x in mods if x in ("up", "down", "bfly", "idx")), None)
    if mode is None:
        return False
    t = _suffix_type(mods) or B32
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


def _h_vote(L: _FnLifter, i: P.Instr, sc: _Scope | None, mods: list[str]) -> bool:
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


def _h_activemask(L: _FnLifter, i: P.Instr, sc: _Scope | None, mods: list[str]) -> bool:
    if len(i.operands) != 1 or not isinstance(i.operands[0], P.Reg):
        return False
    L.put(i.operands[0], L.b.value("activemask", [], U32), sc)
    return True


def _h_elect(L: _FnLifter, i: P.Instr, sc: _Scope | None, mods: list[str]) -> bool:
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


def _h_redux(L: _FnLifter, i: P.Instr, sc: _Scope | None, mods: list[str]) -> bool:
    ops = i.operands
    kind = next((x for x in mods if x in ("add", "min", "max", "and", "or", "xor")), None)
    t = _suffix_type(mods)
    if "sync" not in mods or len(ops) != 3 or kind is None or t not in (U32, ScalarType("i32"), B32):
        return False
    if not isinstance(ops[0], P.Reg):
        return False
    r = L.b.value("redux", [L.val(ops[1], U32, sc), L.val(ops[2], U32, sc)], U32, {"kind": kind})
    L.put(ops[0], r, sc)
    return True


def _h_fence(L: _FnLifter, i: P.Instr, sc: _Scope | None, mods: list[str]) -> bool:
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
        scope = next(({"cta": "block", "gpu": "gpu", "sys": "sys", "cluster": "cluster"}[x] for x in mods
                      if x in ("cta", "gpu", "sys", "cluster")), "sys")  # fmt: skip
    L.b.create("fence", [], [], {"scope": scope, "text": i.opcode})
    return True


def _h_call(L: _FnLifter, i: P.Instr, sc: _Scope | None, mods: list[str]) -> bool:
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


def _h_pure(L: _FnLifter, i: P.Instr, sc: _Scope | None, mods: list[str]) -> bool:
    L.generic(i, sc, "ptx_pure")
    return True


def _h_arith_or_pure(L: _FnLifter, i: P.Instr, sc: _Scope | None, mods: list[str]) -> bool:
    if _h_arith(L, i, sc, mods):
        return True
    if isa.info(i).pure:
        L.generic(i, sc, "ptx_pure")
        return True
    return False


_HANDLERS: dict[str, Any] = {
    "mov": _h_mov,
    "setp": _h_setp,
    "selp": _h_selp,
    "cvt": _h_cvt,
    "cvta": _h_cvta,
    "ld": _h_ld,
    "st": _h_st,
    "atom": _h_atom,
    "red": _h_atom,
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
for _b in ("add", "sub", "mul", "div", "rem", "min", "max", "and", "or", "xor", "shl", "shr", "neg", "not",
           "abs", "mad", "fma", "sqrt", "rsqrt", "rcp", "ex2", "lg2", "sin", "cos", "tanh"):  # fmt: skip
    _HANDLERS[_b] = _h_arith_or_pure
for _b in _PURE_TEXT:
    if "." not in _b and _b not in _HANDLERS:
        _HANDLERS[_b] = _h_pure


# ------------------------------------------------------------------------------------------ entry


def lift_module(ptx: P.Module, source: str | None = None) -> tuple[Module, list[Diagnostic]]:
    """Lift every `.entry` and every `.func` with a body into one IR module.

    Returns the module and the lifter's notes (`unknown-instruction`, one per unmodeled opcode). `source`
    is the PTX text (for span columns); without it `ptx.meta["source"]` is used when present, else spans
    start at column 1."""
    if source is None:
        src = ptx.meta.get("source") if isinstance(ptx.meta, dict) else None
        source = src if isinstance(src, str) else None
    mc = _ModuleCtx(ptx, source)
    mod = Module(ptx.path)
    mod.attrs["target"] = ptx.target
    mod.attrs["ptx_version"] = ptx.version
    old = sys.getrecursionlimit()
    if old < 20000:
        sys.setrecursionlimit(20000)
    # The IR is cyclic (ops <-> values <-> blocks) and lifting allocates only live objects: pausing the
    # cyclic collector while building avoids repeated full scans of the growing module (~1.5x faster).
    gc_was = gc.isenabled()
    gc.disable()

    def lift_all() -> None:
        for f in ptx.functions:
            if f.body is not None:
                mod.add_function(_FnLifter(mc, f).run())

    try:
        # SSA construction recurses along chains of blocks (20,000 branches in a row is legal PTX): run it
        # with a deep stack; deeper still is a limit-error, not a RecursionError.
        run_deep(lift_all, span=Span.point(ptx.path, 1, 1))
    finally:
        if gc_was:
            gc.enable()
        if old < 20000:
            sys.setrecursionlimit(old)
    return mod, mc.notes


def lift_ptx(text: str, path: str = "<ptx>") -> tuple[Module, list[Diagnostic]]:
    """Parse and lift PTX text (spans get exact columns)."""
    from irc.frontend.ptx.parser import parse_ptx

    return lift_module(parse_ptx(text, path), text)
