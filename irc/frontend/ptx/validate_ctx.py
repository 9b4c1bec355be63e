"""The context of one validation run (`irc.frontend.ptx.validate`): the file, its lines for carets, the
module's target and `.version`, what was already found valid, and the check names."""

from __future__ import annotations

from irc.diagnostics import Diagnostic, Span, error
from irc.ptxisa import model as P
from irc.target import ptx_target

INVALID = "invalid-ptx"
TARGET = "unsupported-target"
HELP = "ptxas rejects this file"


class Ctx:
    """What one validation run needs: the file, its lines (for columns), the module's target and version."""

    def __init__(self, ptx: P.Module, text: str) -> None:
        self.path = ptx.path
        self.lines = text.split("\n")
        self.ptx = ptx
        self.diags: list[Diagnostic] = []
        self.target = ptx_target(ptx.target)
        self.version: tuple[int, int] | None = None
        self.ok: set[tuple] = set()  # signatures of instructions found valid (`Function.instr`)
        self.globals = {g.name: g.space for g in ptx.globals}
        self.functions = {fn.name for fn in ptx.functions} | set(ptx.meta.get("opaque_names", []))

    def span(self, line: int, needle: str | None = None, start: int = 0) -> Span:
        """The span of `needle` on `line` (searched from column `start`), else of the line's first token."""
        text = self.lines[line - 1] if 0 < line <= len(self.lines) else ""
        if needle:
            i = text.find(needle, start)
            if i >= 0:
                return Span(self.path, line, i + 1, line, i + 1 + len(needle))
        col = len(text) - len(text.lstrip()) + 1
        end = len(text.rstrip()) + 1
        semi = text.find(";", col - 1)
        if semi >= 0:
            end = semi + 2
        return Span(self.path, line, col, line, max(end, col + 1))

    def err(self, check: str, msg: str, span: Span, help: str = HELP) -> None:
        self.diags.append(error(check, msg, span, help=help))


def opcode_col(ctx: Ctx, ins: P.Instr) -> int:
    """0-based column of the instruction's opcode on its line."""
    text = ctx.lines[ins.line - 1] if 0 < ins.line <= len(ctx.lines) else ""
    i = text.find(ins.opcode)
    return max(i, 0)


def opcode_end(ctx: Ctx, ins: P.Instr) -> int:
    return opcode_col(ctx, ins) + len(ins.opcode)
