"""`async-overwrite` for tensor memory: a TMEM write to columns a `tcgen05.ld` may still be reading.

`tcgen05.ld` is asynchronous: it completes at `tcgen05.wait::ld` (which waits for all of the thread's earlier
loads). Triton's ordinary sm_100a output reads the destination registers before the wait, so a register read
is not judged (docs/analyzer.md, `async-unwaited`). What the wait orders is the load against later writes of
the same columns: a `tcgen05.st` of this thread, or a `tcgen05.mma` / `tcgen05.cp` that writes them (issued by
one elected thread, after the barrier this thread passes too) may land before the load has read them.

A forward dataflow per thread keeps the loads issued since the last `tcgen05.wait::ld` (a call may wait:
nothing pending after it). At each TMEM write it compares columns. A TMEM address is (lane << 16) | column;
both addresses are split into the sum of their non-constant terms and a constant, and the terms whose low 16
bits are zero (`and x, 0x600000`, `shl x, 21`: a warp's lane quarter) are set apart as lane terms. Two
addresses are compared only when their column terms are the same values (the allocation's base, read once
from shared memory); then the columns are `constant + [0, width)`: `.32x32b.xN` and `.16x64b.xN` read N,
`.16x128b.xN` 2N, `.16x256b.xN` 4N; an MMA writes N columns of its accumulator (N from a constant
instruction descriptor; 8, the least, when the descriptor is not constant); `tcgen05.cp` writes its shape's
bits / 32. A thread's own `tcgen05.st` must also use the same lane terms (another quarter of lanes is other
memory); an MMA writes every lane of its accumulator. Addresses that cannot be compared are not judged.
"""

from __future__ import annotations

import re

from irc.analysis.checks.common import FunctionContext, witness_json
from irc.analysis.uniformity_base import const_value
from irc.diagnostics import Diagnostic, Label, error
from irc.ir.core import Block, Op, OpResult, Value

CHECK = "async-overwrite"
_SHAPE = re.compile(r"\.(32x32b|16x64b|16x128b|16x256b|16x32bx2)\.x(\d+)")
_CP = re.compile(r"\.(\d+)x(\d+)b")
_COL_FACTOR = {"32x32b": 1, "16x64b": 1, "16x128b": 2, "16x256b": 4, "16x32bx2": 1}
MIN_MMA_N = 8


def _text(op: Op) -> str:
    return str(op.attrs.get("text", ""))


def _is_ld(op: Op) -> bool:
    return op.name == "tcgen05_ld" or (
        op.name in ("ptx_collective", "opaque") and _text(op).startswith("tcgen05.ld")
    )


def _is_wait_ld(op: Op) -> bool:
    return op.name == "tcgen05_wait_ld" or _text(op).startswith("tcgen05.wait::ld")


def _write_kind(op: Op) -> str | None:
    """ "st", "mma" or "cp" for an op that writes tensor memory."""
    t = _text(op)
    if op.name == "tcgen05_st" or t.startswith("tcgen05.st"):
        return "st"
    if op.name == "tcgen05_mma" or t.startswith("tcgen05.mma"):
        return "mma"
    if t.startswith("tcgen05.cp"):
        return "cp"
    return None


def _columns(op: Op, kind: str) -> int | None:
    """How many columns the load or write spans, from its shape (None: not known)."""
    t = _text(op)
    if kind in ("ld", "st"):
        if op.name == "tcgen05_ld":
            return int(op.attrs.get("n", 0) or 0) or None
        if op.name == "tcgen05_st":
            return max(1, len(op.operands) - 1)
        m = _SHAPE.search(t)
        return _COL_FACTOR[m.group(1)] * int(m.group(2)) if m else None
    if kind == "mma":
        idesc = const_value(op.operands[3]) if len(op.operands) > 3 else None
        if isinstance(idesc, int) and not isinstance(idesc, bool):
            n = ((idesc >> 17) & 0x3F) << 3
            return n or MIN_MMA_N
        return MIN_MMA_N
    m = _CP.search(t)
    return max(1, int(m.group(2)) // 32) if m else None


def _strip(v: Value) -> Value:
    while isinstance(v, OpResult) and v.op.name in ("bitcast", "copy", "cvt") and v.op.operands:
        v = v.op.operands[0]
    return v


def _lane_only(v: Value) -> bool:
    """Whether `v`'s low 16 bits are zero: it moves the address between lanes only."""
    v = _strip(v)
    if not isinstance(v, OpResult):
        return False
    op = v.op
    if op.name == "and" and len(op.operands) == 2:
        return any(isinstance(c, int) and c & 0xFFFF == 0 for c in map(const_value, op.operands))
    if op.name == "shl" and len(op.operands) == 2:
        k = const_value(op.operands[1])
        return isinstance(k, int) and 16 <= k < 32
    return False


def _split(addr: Value, depth: int = 12) -> tuple[list[int], list[int], int] | None:
    """(column terms, lane terms, constant) of a TMEM address, terms as value ids; None when unsure."""
    cols: list[int] = []
    lanes: list[int] = []
    const = 0
    work = [(addr, 0)]
    while work:
        v, d = work.pop()
        v = _strip(v)
        c = const_value(v)
        if isinstance(c, int) and not isinstance(c, bool):
            const += c
            continue
        if d < depth and isinstance(v, OpResult) and v.op.name == "add" and len(v.op.operands) == 2:
            work += [(o, d + 1) for o in v.op.operands]
            continue
        (lanes if _lane_only(v) else cols).append(id(v))
    return sorted(cols), sorted(lanes), const


def _offset(op: Op) -> int:
    off = op.attrs.get("offset", 0)
    return int(off) if isinstance(off, int) and not isinstance(off, bool) else 0


def _overlap(ld: Op, wr: Op, kind: str) -> bool:
    a, b = _split(ld.operands[0]), _split(wr.operands[0])
    if a is None or b is None or a[0] != b[0] or (kind == "st" and a[1] != b[1]):
        return False
    n_ld, n_wr = _columns(ld, "ld"), _columns(wr, kind)
    if n_ld is None or n_wr is None:
        return False
    lo_ld, lo_wr = (a[2] + _offset(ld)) & 0xFFFF, (b[2] + _offset(wr)) & 0xFFFF
    return lo_ld < lo_wr + n_wr and lo_wr < lo_ld + n_ld


def _pending(ctx: FunctionContext) -> list[tuple[Op, str, list[Op]]]:
    """For each TMEM write: (the write, its kind, the loads of this thread that may be pending there, in
    program order)."""
    cfg = ctx.cfg

    def transfer(b: Block, st: set, report: list | None) -> set:
        for op in b.ops:
            if _is_ld(op) and op.operands:
                st.add(op)
            elif _is_wait_ld(op) or op.name == "call":
                st = set()
            elif st and op.operands and report is not None:
                k = _write_kind(op)
                if k is not None:
                    report.append((op, k, set(st)))
        return st

    state_in = cfg.union_fixpoint(transfer)
    found: list[tuple[Op, str, set]] = []
    for b in cfg.rpo:
        if b in state_in:
            transfer(b, set(state_in[b]), found)

    def at(op: Op) -> tuple[int, int]:
        assert op.block is not None
        return cfg.rpo_index[op.block], op.block.ops.index(op)

    return [(wr, k, sorted(lds, key=at)) for wr, k, lds in found]


def check_tmem_overwrite(ctx: FunctionContext) -> list[Diagnostic]:
    fn = ctx.fn
    if not any(_is_ld(op) for op in fn.ops()):
        return []
    found: list[Diagnostic] = []
    for wr, kind, lds in _pending(ctx):
        hit = next((ld for ld in lds if _overlap(ld, wr, kind)), None)
        if hit is None or wr.block is None:
            continue
        from irc.analysis.symbolic.queries import reachable_by

        res, w = reachable_by(ctx, wr.block)
        if res.unsat:
            continue  # dead code
        what = {"st": "`tcgen05.st`", "mma": "`tcgen05.mma` (its accumulator)", "cp": "`tcgen05.cp`"}[kind]
        if w is not None:
            t = w.threads[0]
            w.story = (
                f"thread ({t[0]}, {t[1]}, {t[2]}) of {{block}} issues the tcgen05.ld at {w.ref(hit.span)} and "
                f"reaches the write at {w.ref(wr.span)} with no tcgen05.wait::ld in between"
            )
        labels = [Label(hit.span, "this tcgen05.ld reads the columns asynchronously")] if hit.span else []
        found.append(
            error(
                CHECK,
                f"{what} writes tensor-memory columns that the tcgen05.ld at {_line(hit)} may still be "
                f"reading: no `tcgen05.wait::ld` orders the load before the write, so it can read the new "
                f"values",
                wr.span,
                labels=labels,
                help="execute `tcgen05.wait::ld` after the load and before the columns are written again "
                "(before the barrier that hands them to the MMA issuer, with `tcgen05.fence::before_thread_sync`)",
                witness=witness_json(w),
            )
        )
    return found


def _line(op: Op) -> str:
    return f"line {op.span.line}" if op.span is not None else "here"


__all__ = ["CHECK", "check_tmem_overwrite"]
