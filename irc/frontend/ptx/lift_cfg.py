"""Control flow of the PTX lifter: scopes, pre-SSA basic blocks and predication.

Labels, `bra`/`bra.uni` (`@%p` -> `cbr`, `@!%p` swaps the successors), fall-through, `ret`/`exit` ->
`ret`, `trap` -> `trap`, `brx.idx` -> a chain of `cbr (idx == k)`. A predicated non-branch instruction gets
its own block (`split`: `cbr %p -> [instr] -> join`), so control dependence on the predicate is exact.
`CfgMixin` is one half of `irc.frontend.ptx.lift.FnLifter`; it uses the lifter's state (`self.f`, the
builder, the SSA tables) and its `val`/`process` methods.
"""

from __future__ import annotations

from typing import Any

from irc.diagnostics import error
from irc.ir.core import Block, BlockArg
from irc.ir.types import BOOL
from irc.ptxisa import model as P

__all__ = ["LiftScope", "PBlock", "CfgMixin"]


# --------------------------------------------------------------------------------------- flattening


class LiftScope:
    """A `{ ... }` scope: its registers and labels get function-unique keys (inline asm repeats names)."""

    __slots__ = ("regs", "labels", "parent")

    def __init__(self, parent: LiftScope | None):
        self.regs: dict[str, str] = {}
        self.labels: dict[str, str] = {}
        self.parent = parent

    def _lookup(self, table: str, name: str) -> str:
        s: LiftScope | None = self
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


class PBlock:
    """A pre-SSA basic block: instructions and a terminator description."""

    __slots__ = ("instrs", "term", "succs", "npreds", "head", "index", "preds")

    def __init__(self, index: int):
        self.instrs: list[tuple[P.Instr, LiftScope | None]] = []
        # ("fall",) ("br", T) ("cbr", predkey, neg, T_taken, instr, scope) ("ret", instr) ("trap", instr)
        # ("eq", key, k, instr, scope) for brx.idx steps
        self.term: tuple = ("fall",)
        self.succs: list[PBlock] = []
        self.npreds = 0
        self.head: Block | None = None
        self.index = index
        self.preds: list[PBlock] = []


class CfgMixin:
    """Flattening, pre-SSA blocks, `brx.idx` and predication (see the module docstring)."""

    # ---------------------------------------------------------------------------- flattening
    def flatten(self) -> list[tuple[str, Any, LiftScope | None]]:
        out: list[tuple[str, Any, LiftScope | None]] = []

        def walk(stmts: list[P.Stmt], scope: LiftScope | None) -> None:
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
                    walk(s.body, LiftScope(scope))

        walk(self.f.body or [], None)
        return out

    def build_pblocks(self) -> list[PBlock]:
        items = self.flatten()
        pbs: list[PBlock] = []
        labels: dict[str, PBlock] = {}
        cur = PBlock(0)
        pbs.append(cur)
        fresh = True  # current block has no instructions yet

        def new() -> PBlock:
            nonlocal cur, fresh
            cur = PBlock(len(pbs))
            pbs.append(cur)
            fresh = True
            return cur

        pending: list[tuple[PBlock, str, int]] = []  # (block, label, succ slot) to resolve
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
                        stub = PBlock(-1)
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
        nxt_of: dict[int, PBlock | None] = {}
        for i, p in enumerate(by_layout):
            nxt_of[id(p)] = by_layout[i + 1] if i + 1 < len(by_layout) else None
        tgt_of: dict[tuple[int, int], PBlock] = {}
        for blk, name, slot in pending:
            t = labels.get(name)
            if t is None:
                br = blk.term[1] if len(blk.term) > 1 and isinstance(blk.term[1], P.Instr) else None
                self.mc.notes.append(  # ptxas rejects it; analysed as an exit
                    error(
                        "parse-error", f"branch to unknown label `{name}`", self.mc.span(br) if br else None
                    )
                )
                t = PBlock(-1)
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
                    fall = PBlock(-1)
                    fall.term = ("ret", None)
                    pbs.append(fall)
                p.succs = [taken, fall]
            elif k == "eq":
                p.succs = [tgt_of[(id(p), 0)], p.succs[0] if p.succs else tgt_of[(id(p), 1)]]
        return pbs

    def _lower_brx(
        self, instr: P.Instr, scope: LiftScope | None, cur: PBlock, pbs: list[PBlock], pending: list
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
                nxt = PBlock(-1)
                pbs.append(nxt)
                step.succs = [nxt]
                step = nxt

    def split(self, instr: P.Instr, scope: LiftScope | None) -> None:
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
