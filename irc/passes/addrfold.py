"""Address folding: a memory access through `ptradd p, const c` accesses `p` with `offset += c`.

PTX addresses `[%r+imm]` take a signed 32-bit immediate, so the folded offset must stay in that range.
The `ptradd` itself is left for DCE when no other use remains.
"""

from __future__ import annotations

from irc.ir.core import Module, OpResult
from irc.passes.manager import Pass, PassContext
from irc.passes.util import const_value

_MEM = ("load", "store", "load_vec", "store_vec")


class AddrFold(Pass):
    """Needs: verified IR. Establishes: no load/store address is a `ptradd` of a constant offset (within
    the 32-bit immediate range)."""

    name = "addrfold"

    def run(self, module: Module, ctx: PassContext) -> None:
        for fn in module.functions:
            for op in fn.ops():
                if op.name not in _MEM:
                    continue
                while True:
                    p = op.operands[0]
                    if not (isinstance(p, OpResult) and p.op.name == "ptradd"):
                        break
                    c = const_value(p.op.operands[1])
                    if not isinstance(c, int) or isinstance(c, bool):
                        break
                    off = int(op.attrs.get("offset", 0)) + c
                    if not -(1 << 31) <= off < (1 << 31):
                        break
                    op.set_operand(0, p.op.operands[0])
                    if off:
                        op.attrs["offset"] = off
                    else:
                        op.attrs.pop("offset", None)
