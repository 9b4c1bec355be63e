"""Operand checks of the PTX validator: an instruction's operands against the form it matched (their number,
kind and type, vectors, addresses and their state spaces), with the type rules measured with ptxas
(`irc.ptxisa.syntax.reg_compatible`, `imm_compatible`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from irc.frontend.ptx.validate_ctx import INVALID, opcode_end
from irc.ptxisa import model as P
from irc.ptxisa import syntax as S

if TYPE_CHECKING:
    from irc.frontend.ptx.validate_body import Function


class Operands:
    """Check one instruction's operands against its matched form."""

    def __init__(self, fn: Function, ins: P.Instr, m: S.Match) -> None:
        self.fn = fn
        self.ins = ins
        self.m = m
        self.ctx = fn.ctx

    def fail(self, msg: str, needle: str | None = None) -> None:
        ctx = self.ctx
        ctx.err(
            INVALID, f"{self.ins.opcode}: {msg}", ctx.span(self.ins.line, needle, opcode_end(ctx, self.ins))
        )

    def want(self, spec: S.OpSpec) -> str | None:
        t = spec.type
        types = self.m.types
        if t == "*":
            return None
        if t == "T":
            return types[-1].lstrip(".") if types else None
        if t[0] == "T" and t[1:].isdigit():
            i = int(t[1:])
            return types[i].lstrip(".") if i < len(types) else None
        if t == "2T":
            base = types[-1].lstrip(".") if types else None
            return _double(base) if base else None
        return t

    def check(self) -> None:
        """Report every operand that does not fit the form."""
        specs = self.m.form.operands
        assert specs is not None
        ops = self.ins.operands
        mods = self.ins.opcode.split(".")
        for i, spec in enumerate(specs):
            if spec.iff is not None and (spec.iff[1:] in mods) != (i < len(ops)):
                if spec.iff[1:] in mods:
                    self.fail(f"`{spec.iff}` needs its operand (operand {i + 1})")
                else:
                    self.fail(f"operand {i + 1} is allowed only with `{spec.iff}`")
                return
        need = sum(1 for s in specs if not s.optional)
        if not need <= len(ops) <= len(specs):
            exp = str(need) if need == len(specs) else f"{need} to {len(specs)}"
            self.fail(f"expected {exp} operands, found {len(ops)}")
            return
        for spec, o in zip(specs, ops):
            if not self.one(spec, o):
                return

    def one(self, spec: S.OpSpec, o: P.Operand) -> bool:
        k = spec.kind
        want = self.want(spec)
        relaxed = self.m.form.relaxed
        if k == "x":
            return True
        if k in ("m", "mt"):
            if not isinstance(o, P.Addr):
                self.fail(f"expected an address `[...]`, found `{o}`", str(o))
                return False
            if k == "mt" and isinstance(o.base, P.Reg):
                rt = self.fn.reg_type(o.base.name)
                if rt is not None and S.type_size(rt) != 32:
                    self.fail(
                        f"`{o.base.name}` is .{rt}: a tensor-memory address is a 32-bit register", o.base.name
                    )
                    return False
            return self.address(o)
        if isinstance(o, P.Addr) and k not in ("m",):
            self.fail(f"an address `{o}` where a {_kind_text(k)} is expected", "[")
            return False
        if k in ("vd", "vs"):
            n = self.m.vec
            if n > 1 or isinstance(o, P.Vec):
                items = o.items if isinstance(o, P.Vec) else None
                if items is None:
                    self.fail(f"expected a vector of {n} elements, found `{o}`", str(o))
                    return False
                if len(items) != n:
                    self.fail(f"expected a vector of {n} elements, found {len(items)}", "{")
                    return False
                sizes = {S.type_size(t) for t in map(self._reg_of, items) if t is not None}
                if len(sizes) > 1:
                    self.fail(f"the elements of `{o}` differ in size", "{")
                    return False
                return all(
                    self.scalar(it, "d" if k == "vd" else "s", want, relaxed, sink_ok=True) for it in items
                )
            return self.scalar(o, "d" if k == "vd" else "s", want, relaxed)
        if k in ("dp", "sp") and isinstance(o, P.Vec):
            return self.packed(o, k == "dp", want)
        if isinstance(o, P.Vec):
            self.fail(f"a vector `{o}` where a {_kind_text(k)} is expected", "{")
            return False
        if k == "z":
            if isinstance(o, P.Sink):
                return True
            self.fail(f"`{o}`: this form writes to the sink `_` only", str(o))
            return False
        if k == "dP" and not isinstance(o, P.Pair):
            self.fail(f"`{o}`: the destination is a pair `d|p` (a value and a predicate)", str(o))
            return False
        if k in ("dq", "dP"):
            if isinstance(o, P.Pair):
                return self.scalar(o.first, "d", want, relaxed, sink_ok=True) and self.scalar(
                    o.second, "d", "pred", False
                )
            return self.scalar(o, "d", want, relaxed, sink_ok=True)
        if k in ("dp", "sp"):
            k = k[0]
        if k == "p":
            if isinstance(o, P.Pair):
                if not spec.pair:
                    self.fail(f"`{o}`: this form has one predicate destination", str(o.first))
                    return False
                return self.scalar(o.first, "d", "pred", False) and self.scalar(o.second, "d", "pred", False)
            return self.scalar(o, "d", "pred", False)
        if isinstance(o, P.Pair):
            if spec.pair:  # `d|p`: a value and a predicate (shfl.sync, elect.sync, match.all)
                return self.scalar(o.first, "d", want, relaxed, sink_ok=True) and self.scalar(
                    o.second, "d", "pred", False
                )
            self.fail(f"`{o}` is not allowed here", str(o.first))
            return False
        if k == "n":
            inner = o.inner if isinstance(o, P.Neg) else o
            return self.scalar(inner, "s", "pred", False)
        if isinstance(o, P.Neg):
            self.fail(f"`{o}`: negation is allowed only on predicate operands", "!")
            return False
        return self.scalar(o, k, want, relaxed, sink_ok=k == "d_")

    def scalar(self, o: P.Operand, k: str, want: str | None, relaxed: bool, sink_ok: bool = False) -> bool:
        if isinstance(o, P.Sink):
            if sink_ok or k == "d_":
                return True
            self.fail("`_` is not allowed here", "_")
            return False
        if isinstance(o, (P.Vec, P.Pair, P.Addr, P.Neg)):
            self.fail(f"unexpected operand `{o}`", str(o)[:1])
            return False
        dest = k in ("d", "d_")
        if isinstance(o, P.Imm):
            if dest or k == "r":
                self.fail(f"`{o.text}`: a register is required here", o.text)
                return False
            if want is not None and not S.imm_compatible(o.text, want):
                self.fail(f"the immediate `{o.text}` does not fit type .{want}", o.text)
                return False
            return True
        if isinstance(o, P.Sym):
            if k == "i":
                self.fail(f"`{o.name}`: an immediate is required here", o.name)
                return False
            if o.name == "WARP_SZ":  # (the predefined integer constant)
                if want is not None and not S.imm_compatible("32", want):
                    self.fail(f"`WARP_SZ` is an integer constant; .{want} expected", o.name)
                    return False
                return not dest or self._dest_sym(o)
            is_var = self.fn.var_space(o.name) is not None  # (a function's address only warns)
            if (
                self.ins.base == "mov"
                and is_var
                and want is not None
                and (want[0] == "f" or want.startswith("bf"))
            ):
                self.fail(f"`{o.name}` is an address: it is no .{want} value", o.name)
                return False
            return not dest or self._dest_sym(o)
        if isinstance(o, P.Reg):
            if k == "i":
                self.fail(f"`{o.name}`: an immediate is required here", o.name)
                return False
            rt = self.fn.reg_type(o.name)
            if rt is None:  # a special register (`names` checked that it exists)
                reg, _ = S.special_register(o.name)
                if reg is None or want is None or _special_fits(reg.type, want):
                    return True
                self.fail(f"`{o.name}` is .{reg.type}; .{want} expected", o.name)
                return False
            if want is not None and not S.reg_compatible(rt, want, relaxed):
                self.fail(f"`{o.name}` is a .{rt} register; .{want} expected", o.name)
                return False
            return True
        return True

    def _reg_of(self, o: P.Operand) -> str | None:
        return self.fn.reg_type(o.name) if isinstance(o, P.Reg) else None

    def packed(self, v: P.Vec, dest: bool, want: str | None) -> bool:
        """`mov.b64 {%r1, %r2}, %rd1`: the elements are registers of one size that add up to the type."""
        size = S.type_size(want) if want else None
        sizes = set()
        for it in v.items:
            if isinstance(it, P.Sink) and dest:
                continue
            if not isinstance(it, P.Reg):
                self.fail(f"`{it}`: a vector here holds registers", str(it))
                return False
            rt = self.fn.reg_type(it.name)
            if rt is not None:
                sizes.add(S.type_size(rt))
        if len(sizes) > 1:
            self.fail(f"the elements of `{v}` differ in size", "{")
            return False
        if size is not None and sizes and None not in sizes and sizes.pop() * len(v.items) != size:
            self.fail(f"`{v}` does not pack into .{want}", "{")
            return False
        return True

    def _dest_sym(self, o: P.Sym) -> bool:
        self.fail(f"`{o.name}`: a register is required as the destination", o.name)
        return False

    def address(self, a: P.Addr) -> bool:
        b = a.base
        space = _instr_space(self.ins.opcode)
        # the space rules of ordinary memory accesses (not cp.async's global source, which ptxas takes in
        # 32 bits, nor tensor-memory or tensor-map addresses)
        checked = self.ins.base in _SPACE_CHECKED
        if b is None and space != "local" and checked:
            self.fail("an immediate address is allowed only in .local", "[")
            return False
        if isinstance(b, P.Reg):
            rt = self.fn.reg_type(b.name)
            if rt is not None and rt[0] not in "bus":
                self.fail(f"`{b.name}` is a .{rt} register; an address needs an integer register", b.name)
                return False
            if rt is not None and checked and space in (None, "global") and S.type_size(rt) == 32:
                self.fail(
                    f"`{b.name}` is 32 bits wide: a 64-bit address is required (32-bit compilation is no longer supported)",
                    b.name,
                )
                return False
        elif isinstance(b, P.Sym):
            var = self.fn.var_space(b.name)
            if var is not None and space is not None and _space_clash(var, space):
                self.fail(f"`{b.name}` is in .{var}, the instruction accesses .{space}", b.name)
                return False
            if (
                var == "param"
                and self.ins.base == "st"
                and self.fn.f.kind == "entry"
                and b.name in self.fn.params
            ):
                self.fail(f"`{b.name}` is a kernel parameter: it cannot be written", b.name)
                return False
            if var == "param" and space is None and checked:  # a generic address is never a parameter
                self.fail(
                    f"`{b.name}` is a parameter: a generic access cannot name it (write `.param`)", b.name
                )
                return False
        return True


def imm_class(text: str) -> str:
    """The part of an immediate's spelling `syntax.imm_compatible` depends on."""
    t = text.lstrip("-")
    neg = "-" if t is not text and text.startswith("-") else ""
    if t[:2] in ("0f", "0F"):
        return neg + "f"
    if t[:2] in ("0d", "0D"):
        return neg + "d"
    if t[:2] in ("0x", "0X"):
        return "i"
    return "x" if ("." in t or "e" in t or "E" in t) else "i"


def _special_fits(reg: str, want: str) -> bool:
    """mov/cvt from a special register (measured): no float type; a 32- or 64-bit type of the register's
    own size (a 16-bit one takes the low half of a 32-bit register)."""
    if reg == "pred" or want == "pred":
        return reg == want
    if want[0] == "f" or want.startswith("bf"):
        return False
    ws, rs = S.type_size(want), S.type_size(reg)
    return ws == rs or (ws == 16 and rs == 32)


def _kind_text(k: str) -> str:
    return {"d": "destination register", "d_": "destination register", "r": "register", "i": "immediate"}.get(
        k, "register or immediate"
    )


def _double(t: str) -> str | None:
    size = S.type_size(t)
    if size is None:
        return None
    return t[0] + str(2 * size)


_SPACE_MODS = ("global", "shared", "local", "param", "const")
_SPACE_CHECKED = frozenset({"ld", "ldu", "st", "atom", "red", "prefetch", "prefetchu", "mbarrier", "wmma"})


def _instr_space(opcode: str) -> str | None:
    for m in opcode.split(".")[1:]:
        base = m.split("::", 1)[0]
        if base in _SPACE_MODS:
            return base
    return None


def _space_clash(var_space: str, ins_space: str) -> bool:
    return var_space.split("::", 1)[0] != ins_space
