"""Basic blocks and reverse post-order for the emulator's scheduler.

Why RPO: the scheduler always runs the lowest-RPO block that has runnable threads, which makes diverged
threads wait at join points (immediate post-dominators in reducible code) and so reconverge without a
SIMT stack. Barriers end a block (threads park after them) and mbarrier waits start one (a thread whose
wait fails parks there and re-executes the wait when the barrier's phase changes).
"""

from __future__ import annotations

from irc.ir.graphs import weak_topological_order
from irc.ptxisa.facts import opcode_info
from irc.ptxisa.model import Function, Instr, Label, Scope, Stmt, Sym
from irc.records import field, record


def is_barrier(ins: Instr) -> bool:
    """A CTA or cluster barrier wait: the thread parks after it (`parks` in the PTX facts)."""
    return opcode_info(ins.opcode).parks


def ends_block(ins: Instr) -> bool:
    """Terminators (branches, returns, traps) and barrier waits end a block (PTX facts)."""
    f = opcode_info(ins.opcode)
    return f.terminator or f.parks


def starts_block(ins: Instr) -> bool:
    """An mbarrier wait test starts a block, so a failed wait re-executes from it (PTX facts)."""
    return opcode_info(ins.opcode).polls


def publishes(ins: Instr) -> bool:
    """A memory operation other threads can observe (shared, global, generic; mbarrier and async copies
    included) or a fence: under an interleaving schedule a block ends after it, so warps interleave there."""
    f = opcode_info(ins.opcode)
    if f.fence:
        return True
    if f.mem == "none":
        return False
    return not f.spaces or any(s not in ("param", "local", "const") for s in f.spaces)


def collective(ins: Instr) -> bool:
    """A warp collective (or `.aligned` form): the lanes of a warp must run it together."""
    return opcode_info(ins.opcode).warp_collective or "aligned" in ins.mods or ins.base in ("bar", "barrier")


@record
class Block:
    label: str | None
    instrs: list[Instr] = field(default_factory=list)
    succs: list[int] = field(default_factory=list)  # original indices
    fallthrough: int | None = None


def flatten(body: list[Stmt]) -> list[Instr | Label]:
    out: list[Instr | Label] = []
    for s in body:
        if isinstance(s, (Instr, Label)):
            out.append(s)
        elif isinstance(s, Scope):
            out.extend(flatten(s.body))
    return out


def build_blocks(fn: Function, split_mem: bool = False) -> tuple[list[Block], dict[str, int]]:
    """Split the function into basic blocks and return them in reverse post-order with a label map.
    `split_mem`: also end a block after every publishing memory operation (`publishes`), the points where
    an interleaving schedule switches warps."""
    items = flatten(fn.body or [])
    blocks: list[Block] = [Block(None)]
    labels: dict[str, int] = {}
    for it in items:
        cur = blocks[-1]
        if isinstance(it, Label):
            if cur.instrs or cur.label is not None:
                blocks.append(Block(it.name))
            else:
                cur.label = it.name
            labels[it.name] = len(blocks) - 1
            continue
        if starts_block(it) and cur.instrs:
            blocks.append(Block(None))
            cur = blocks[-1]
        cur.instrs.append(it)
        if ends_block(it) or (split_mem and publishes(it)):
            blocks.append(Block(None))
    # edges
    for i, b in enumerate(blocks):
        nxt = i + 1 if i + 1 < len(blocks) else None
        last = b.instrs[-1] if b.instrs else None
        if last is not None and last.base == "bra":
            target = _target(last)
            if target not in labels:
                raise KeyError(f"branch to unknown label {target!r} (line {last.line})")
            b.succs.append(labels[target])
            if last.pred is not None and nxt is not None:
                b.succs.append(nxt)
                b.fallthrough = nxt
        elif last is not None and last.base in ("ret", "exit", "trap"):
            if last.pred is not None and nxt is not None:
                b.succs.append(nxt)
                b.fallthrough = nxt
        elif nxt is not None:
            b.succs.append(nxt)
            b.fallthrough = nxt
    order = _rpo(blocks)
    remap = {old: new for new, old in enumerate(order)}
    out: list[Block] = []
    for old in order:
        b = blocks[old]
        nb = Block(
            b.label,
            b.instrs,
            [remap[s] for s in b.succs],
            remap[b.fallthrough] if b.fallthrough is not None else None,
        )
        out.append(nb)
    new_labels = {name: remap[i] for name, i in labels.items()}
    return out, new_labels


def _target(ins: Instr) -> str:
    for o in ins.operands:
        if isinstance(o, Sym):
            return o.name
    raise KeyError(f"branch without a label operand (line {ins.line})")


def _rpo(blocks: list[Block]) -> list[int]:
    """Bourdoncle's weak topological order: a reverse post-order in which every loop is contiguous (header
    first, exits after the whole body), so threads leaving a loop early wait for the rest of their warp.
    Blocks no path reaches come last, in text order."""
    succ = [sorted(set(b.succs), reverse=True) for b in blocks]  # later text first -> lands last
    order = weak_topological_order(0, succ)
    seen = set(order)
    return order + [i for i in range(len(blocks)) if i not in seen]
