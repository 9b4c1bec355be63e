"""Operand shape errors found while lifting PTX: a diagnostic at the instruction, never a traceback.

The PTX parser accepts any operand in any position (generators differ, and most instructions are only
classified when lifted); the lifter then needs a scalar where it finds a vector, an integer where it finds
an infinite hex float (`0f7F800000` in `add.u64`), and so on. It raises `OperandError`, which the lifter
turns into a `parse-error` at the instruction's file:line:col (`irc.frontend.ptx.lift`).
"""

from __future__ import annotations

import math

from irc.diagnostics import Diagnostic, Span, error
from irc.ptxisa import model as P


class OperandError(ValueError):
    """A malformed operand for the instruction being lifted."""


def int_imm(o: P.Operand, what: str = "operand") -> int:
    """The integer value of an immediate operand (`bar.sync 1`), refusing vectors, registers where the form
    needs an immediate, and infinite or NaN floats."""
    if not isinstance(o, P.Imm):
        raise OperandError(f"expected an integer immediate as the {what}, found `{o}`")
    v = o.value
    if isinstance(v, float):
        if not math.isfinite(v):
            raise OperandError(f"the {what} `{o.text}` is an infinite or NaN floating-point immediate")
        return int(v)
    return v


#: ptxas 13.5 takes an integer literal wider than the instruction's type (`add.u32 %r1, %r2, 4294967296`
#: assembles: the value is truncated) and refuses only one it cannot hold ("Constant overflow", measured
#: between 2**66 and 10**20).
_LITERAL_LIMIT = 1 << 66


def check_int_width(v: int, bits: int, text: str) -> int:
    """Refuse an integer immediate ptxas refuses ("Constant overflow"); a value wider than the type is kept
    (the caller truncates it to `bits`, as ptxas does)."""
    if not -_LITERAL_LIMIT <= v <= _LITERAL_LIMIT:
        raise OperandError(f"the immediate `{text}` is too large for ptxas (constant overflow)")
    return v


def diagnostic(e: OperandError, span: Span | None) -> Diagnostic:
    return error("parse-error", str(e), span, help="the operand does not fit this instruction")


def _ptxas_admits(what: str, opcode: str, v: int) -> bool:
    """Where ptxas takes more than the op table's range (measured with ptxas 13.5): a barrier's thread
    count is any multiple of 32 (`bar.sync 0, 0` and `bar.sync 0, 2048` assemble; `bar.arrive` needs a
    non-zero count). A .kdsl program is held to the table (the hardware misbehaves beyond it)."""
    if what == "barrier thread count":
        return v % 32 == 0 and v >= 0 and (v != 0 or ".arrive" not in opcode)
    return False


def immediate_ranges(ptx: P.Module, path: str, lines: list[str] | None = None) -> list[Diagnostic]:
    """`const-error` for every immediate outside the op table's range at its PTX position
    (`bar.sync 16`, `tcgen05.alloc ... 48`) that ptxas rejects, whether or not the lifter models the
    instruction."""
    from irc.ir.ranges import ptx_ranges

    out = []
    for f in ptx.functions:
        for ins in f.instructions():
            for pos, r in ptx_ranges(ins.opcode):
                o = ins.operands[pos] if pos < len(ins.operands) else None
                if not isinstance(o, P.Imm) or not isinstance(o.value, int) or r.admits(o.value):
                    continue
                if o.value >= 1 << 32 and r.admits(o.value % (1 << 32)):
                    continue  # (ptxas truncates the literal to the operand's 32 bits first: `bar.sync 4294967296`)
                if _ptxas_admits(r.what, ins.opcode, o.value):
                    continue
                text = lines[ins.line - 1] if lines and 0 < ins.line <= len(lines) else ""
                col = len(text) - len(text.lstrip()) + 1
                span = Span(path, ins.line, col, ins.line, max(col + 1, len(text.rstrip()) + 1))
                out.append(
                    error(
                        "const-error",
                        f"{ins.opcode}: {r.what} {o.value} is out of range: it must be {r.describe()}",
                        span,
                        help="ptxas rejects this operand",
                    )
                )
                break
    return out
