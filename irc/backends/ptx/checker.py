"""Allocation checker (the idea of regalloc2's `checker.rs`): symbolic execution of the allocated PTX.

Independent of the allocator: it reads only the emitted instructions, the SSA value ids the selector
recorded in `Instr.meta`, and the edge bindings. The abstract state maps each physical register to the
set of SSA values it may hold. Transfer: an instruction first checks every use (the expected value must be
in its register's set), then `copy` moves the source's set to the destination, `swap` exchanges two sets,
`copy_imm` puts the constant's id, and each definition sets its register to exactly {value}. On a CFG edge
the block-argument bindings are checked (the argument's register must hold the incoming value) and then
rebind the register to {argument}. At a join the states intersect (a value survives only if every path
put it there). Any violation is an InternalCompilerError naming the instruction and both values.
"""

from __future__ import annotations

from irc.diagnostics import InternalCompilerError
from irc.ptxisa.model import Function, Instr, Label, Stmt

State = dict[str, frozenset[int]]

_TERMINATORS = ("ret", "trap", "exit")


def _blocks(body: list[Stmt]) -> tuple[list[tuple[str, list[Instr]]], dict[str, int]]:
    blocks: list[tuple[str, list[Instr]]] = []
    cur: list[Instr] | None = None
    for s in body:
        if isinstance(s, Label):
            cur = []
            blocks.append((s.name, cur))
        elif isinstance(s, Instr):
            if cur is None:
                cur = []
                blocks.append(("<entry>", cur))
            cur.append(s)
    return blocks, {name: i for i, (name, _) in enumerate(blocks)}


def _succs(blocks: list[tuple[str, list[Instr]]], index: dict[str, int], i: int) -> list[int]:
    _, ins = blocks[i]
    out: list[int] = []
    fall = True
    for x in ins:
        if x.base == "bra":
            out.append(index[str(x.operands[0])])
            if x.pred is None:
                fall = False
                break
        elif x.base in _TERMINATORS and x.pred is None:
            fall = False
            break
    if fall and i + 1 < len(blocks):
        out.append(i + 1)
    return out


class AllocationChecker:
    """Checks one allocated PTX function.

    Needs: instructions carrying `meta` uses/defs/copy/swap and `Function.meta["edge_binds"]`. Establishes:
    every register read holds the SSA value the program means there, on every path -- or raises."""

    def __init__(self, fn: Function, names: dict[int, str] | None = None):
        self.fn = fn
        self.names = names or {}
        self._ones: dict[int, frozenset[int]] = {}

    def name(self, vid: int | None) -> str:
        if vid is None:
            return "<none>"
        return self.names.get(vid, f"v{vid}")

    def fail(self, ins: Instr | None, msg: str) -> None:
        where = f" at `{ins}`" if ins is not None else ""
        raise InternalCompilerError(
            f"register allocation checker: {msg}{where} in kernel `{self.fn.name}`",
            op=str(ins) if ins is not None else None,
        )

    def _expect(self, st: State, reg: str, vid: int, ins: Instr | None, what: str = "reads") -> None:
        have = st.get(reg, frozenset())
        if vid not in have:
            held = ", ".join(self.name(v) for v in sorted(have)) or "nothing"
            self.fail(ins, f"{what} {reg} expecting {self.name(vid)} but it holds {held}")

    def _one(self, vid: int) -> frozenset[int]:
        """{vid}, one shared set per value (states hold thousands of them)."""
        s = self._ones.get(vid)
        if s is None:
            s = self._ones[vid] = frozenset({vid})
        return s

    def transfer(self, st: State, ins: Instr) -> None:
        m = ins.meta
        for reg, vid in m.get("uses", ()):
            have = st.get(reg)
            if have is None or vid not in have:
                self._expect(st, reg, vid, ins)
        if len(m) == 2 and "defs" in m and "uses" in m:  # (most instructions: uses and defs only)
            for reg, vid in m["defs"]:
                st[reg] = self._one(vid)
            return
        if "copy" in m:
            dst, src, vid = m["copy"]
            self._expect(st, src, vid, ins, "copy reads")
            st[dst] = st.get(src, frozenset())
        if "copy_imm" in m:
            dst, vid = m["copy_imm"]
            st[dst] = frozenset({vid})
        if "swap" in m:
            a, b, vid = m["swap"]
            if vid is not None:
                self._expect(st, b, vid, ins, "swap reads")
            st[a], st[b] = st.get(b, frozenset()), st.get(a, frozenset())
        for reg, vid in m.get("defs", ()):
            st[reg] = self._one(vid)

    def run(self) -> None:
        blocks, index = _blocks(self.fn.body or [])
        if not blocks:
            return
        binds: dict[tuple[str, str], list[tuple[str, int, int]]] = self.fn.meta.get("edge_binds", {})
        ins_state: list[State | None] = [None] * len(blocks)
        ins_state[0] = {}
        work = [0]
        queued = {0}
        while work:
            i = work.pop(0)
            queued.discard(i)
            st = dict(ins_state[i] or {})
            name, instrs = blocks[i]
            for x in instrs:
                self.transfer(st, x)
            for j in _succs(blocks, index, i):
                out = dict(st)
                for reg, arg, inc in binds.get((name, blocks[j][0]), []):
                    self._expect(
                        out,
                        reg,
                        inc,
                        instrs[-1] if instrs else None,
                        f"edge {name} -> {blocks[j][0]}: block argument {self.name(arg)} in",
                    )
                    out[reg] = frozenset({arg})
                old = ins_state[j]
                if old is None:
                    new = out
                else:
                    new = {}
                    for r, a in old.items():
                        b = out.get(r)
                        if b is not None:
                            x = a if a is b else a & b  # (the same set: both paths put one value there)
                            if x:
                                new[r] = x
                if old is None or new != old:
                    ins_state[j] = new
                    if j not in queued:
                        queued.add(j)
                        work.append(j)


def check_allocation(fn: Function, names: dict[int, str] | None = None) -> None:
    """Raise InternalCompilerError when the allocated `fn` reads a register not holding the value meant."""
    AllocationChecker(fn, names).run()
