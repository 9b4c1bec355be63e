"""Run-time operand-range checks: the op table's `OperandRange` facts (irc/ir/optable.py) for operands
whose value is only known when the kernel runs (a barrier id in a register, a parity computed from a loop
counter). On hardware such values are undefined behaviour (a hang, a trap, another barrier); the emulator
reports them as `OperandRangeError` at the instruction's line with the offending threads.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from irc.emu.errors import EmuError
from irc.ir.ranges import ptx_ranges
from irc.ptxisa.model import Imm, Instr, Reg


class OperandRangeError(EmuError):
    kind = "operand-range"


def wrap(m, ins: Instr, h: Callable, terminator: bool = False) -> Callable:
    """`h` with a range check of the operands the table names in front (or `h` itself when none)."""
    checks = []
    seen = set()
    for pos, r in ptx_ranges(ins.opcode):
        if pos >= len(ins.operands) or (pos, r.lo, r.hi, r.multiple, r.pow2) in seen:
            continue
        o = ins.operands[pos]
        if not isinstance(o, (Reg, Imm)):
            continue
        seen.add((pos, r.lo, r.hi, r.multiple, r.pow2))
        checks.append((m.read(o, "u32"), r))
    if not checks:
        return h

    def checked(idx):
        t = m._split(ins, idx)[0] if terminator else idx
        for read, r in checks:
            v = np.asarray(read(t), dtype=np.int64)
            bad = (v < r.lo) | (v > r.hi) | (v % r.multiple != 0)
            if r.pow2:
                bad = bad | ((v & (v - 1)) != 0)
            if bad.any():
                ids = m.ids(t)
                ids_bad = ids[np.broadcast_to(bad, (len(ids),))]
                first = int(np.broadcast_to(v, (len(ids),))[np.argmax(np.broadcast_to(bad, (len(ids),)))])
                raise m.error(
                    OperandRangeError,
                    f"{ins.opcode}: {r.what} {first} is out of range (it must be {r.describe()})",
                    ids_bad,
                    ins.line,
                )
        return h(idx)

    return checked
