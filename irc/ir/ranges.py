"""Operand-range facts of the op table (`OpDef.ranges`) checked on constants.

ptxas rejects some immediates (a barrier id above 15, an mbarrier parity other than 0/1, an mbarrier
count outside 1..2^20-1), and the hardware misbehaves on others; irc must never emit such PTX, so every
constant operand is checked against the table here, once for every producer of IR: the .kdsl front end
and backend (after optimization, when constants are known) and lifted PTX. Values known only at run time
are checked by the emulator (`irc.emu.ranges`) from the same table.
"""

from __future__ import annotations

import functools

from irc.diagnostics import Diagnostic, error
from irc.ir.core import Module, Op
from irc.ir.optable import OPS, OperandRange


def constant_of(op: Op, r: OperandRange) -> int | None:
    """The constant value `r` describes in `op` (an attribute, or a `const` operand), else None."""
    if isinstance(r.where, str):
        v = op.attrs.get(r.where)
    else:
        if r.where >= len(op.operands):
            return None
        src = getattr(op.operands[r.where], "op", None)
        if src is None or src.name != "const":
            return None
        v = src.attrs.get("value")
    if isinstance(v, bool) or not isinstance(v, int):
        return None
    return v


def check_op(op: Op) -> Diagnostic | None:
    d = OPS.get(op.name)
    if d is None or not d.ranges:
        return None
    for r in d.ranges:
        v = constant_of(op, r)
        if v is not None and not r.admits(v):
            return error(
                "const-error",
                f"{r.what} {v} is out of range: it must be {r.describe()}",
                op.span,
                help="ptxas rejects this operand (or the hardware misbehaves on it)",
            )
    return None


def check_module(module: Module) -> list[Diagnostic]:
    """One `const-error` per op whose constant operand is outside its declared range."""
    out = []
    for fn in module.functions:
        for op in fn.ops():
            diag = check_op(op)
            if diag is not None:
                out.append(diag)
    return out


@functools.cache
def _ptx_table() -> dict[str, tuple[tuple[int, OperandRange], ...]]:
    out: dict[str, set[tuple[int, OperandRange]]] = {}
    for d in OPS.values():
        for r in d.ranges:
            for prefix, pos in r.ptx:
                out.setdefault(prefix, set()).add((pos, r))
    return {k: tuple(sorted(v, key=lambda x: (x[0], x[1].lo, x[1].hi))) for k, v in out.items()}


def ptx_ranges(opcode: str) -> tuple[tuple[int, OperandRange], ...]:
    """(operand position, range) for a PTX opcode, by its longest dotted prefix in the op table's `ptx`
    entries (`bar.sync` -> the barrier id and thread count)."""
    parts = opcode.split(".")
    tab = _ptx_table()
    for k in range(len(parts), 0, -1):
        hit = tab.get(".".join(parts[:k]))
        if hit is not None:
            return hit
    return ()
