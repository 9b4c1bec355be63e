"""`irc check --why`: for each divergence finding, the whole uniformity chain from the seed (`tid.x`) to
the branch condition, built from `UniformityFacts.why`.

Kept apart from the checks: it re-builds the file's IR (only when `--why` is asked for), finds the
branches the finding's labels point at, and walks `facts.why` from each branch's condition. A finding
whose labels point at no branch gets no chain (it is not guessed).
"""

from __future__ import annotations

from typing import Any

from irc.diagnostics import CompileError, Diagnostic, Label, Span
from irc.records import replace


def _module(text: str, path: str, arch: str, defines: dict[str, Any]):
    from irc.compiler import CompileOptions, frontend, optimize

    if path.endswith(".ptx"):
        from irc.frontend.ptx.lift import lift_module
        from irc.frontend.ptx.parser import parse_ptx

        module, _ = lift_module(parse_ptx(text, path), text)
        return module
    module = frontend(text, path, defines=defines, arch=arch)
    optimize(module, CompileOptions(arch=arch, defines=defines))
    return module


def _where(op, fallback: Span | None) -> str:
    s = op.span if op is not None and op.span is not None else fallback
    return f"{s.line}:{s.col}" if s is not None else "?"


class _SourceMap:
    """For lifted PTX with `.loc` lines: a PTX line -> the user's (file, line, col) and that line's text,
    so each step of the chain reads in the .cu or .py file, the PTX line as a secondary note."""

    def __init__(self, text: str, path: str):
        from irc.ptxisa.lineinfo import LineInfo

        self.info = LineInfo(text) if ".loc" in text else None
        self.path = path
        self.files: dict[str, list[str] | None] = {}

    def at(self, line: int) -> tuple[str, int, int, str] | None:
        if self.info is None:
            return None
        got = self.info.at(line)
        if got is None:
            return None
        from irc.ptxisa.lineinfo import resolve

        f = resolve(got[0], self.path)
        if f not in self.files:
            try:
                with open(f, encoding="utf-8", errors="replace") as fh:
                    self.files[f] = fh.read().splitlines()
            except OSError:
                self.files[f] = None
        lines = self.files[f]
        code = ""
        if lines is not None and 0 < got[1] <= len(lines):
            code = " ".join(lines[got[1] - 1].split())
            code = code if len(code) <= 60 else code[:57] + "..."
        return f, got[1], max(got[2], 1), code


_HOW = {
    "operand": "computed from the step above",
    "sync": "merges values after a divergent branch",
    "temporal": "carried out of a loop that threads leave at different iterations",
    "control": "assigned under divergent control",
}


def _source_line(lines: list[str], op) -> str:
    s = op.span if op is not None else None
    if s is None or not 0 < s.line <= len(lines):
        return ""
    t = " ".join(lines[s.line - 1].split())
    return t if len(t) <= 60 else t[:57] + "..."


def chains(text: str, path: str, arch: str, defines: dict[str, Any]) -> dict[tuple[int, int], list[str]]:
    """For each conditional branch whose condition is not uniform: (line, col) of the branch span -> the
    chain, seed first, one line per step ("`gid` (thread) at 5:8: operand")."""
    from irc.analysis.checks.common import FunctionContext, branch_span, condition_value
    from irc.analysis.uniformity import Level

    try:
        module = _module(text, path, arch, defines)
    except CompileError:
        return {}
    out: dict[tuple[int, int], list[str]] = {}
    src_lines = text.splitlines()
    smap = _SourceMap(text, path) if path.endswith(".ptx") else None
    for fn in module.functions:
        if not fn.is_kernel:
            continue
        ctx = FunctionContext(fn, module, arch)
        for b in fn.blocks:
            cond = condition_value(b)
            if cond is None or ctx.facts.level(cond) == Level.GRID:
                continue
            sp = branch_span(b)
            if sp is None:
                continue
            steps = ctx.facts.why(cond)
            lines = []
            home = smap.at(sp.line) if smap else None  # steps in the branch's own file show line:col
            for st in reversed(steps):
                lvl = st.level.name.lower()
                r = ctx.facts.reason(st.value)
                seed = r is not None and r.kind == "seed"
                name = st.text if seed and not st.value.name else ctx.name(st.value)
                opname = st.op.name if st.op is not None else "block argument"
                how = "the seed" if seed else _HOW.get(st.text, st.text)
                code = _source_line(src_lines, st.op)
                where = _where(st.op, sp)
                src = smap.at(st.op.span.line) if smap and st.op is not None and st.op.span else None
                if src is not None:  # the user's line first, the PTX instruction as the secondary note
                    at = f"{src[1]}:{src[2]}" if home and src[0] == home[0] else f"{src[0]}:{src[1]}:{src[2]}"
                    lines.append(
                        f"`{name}` = {opname} ({lvl}) at {at}: {how}"
                        + (f"  | {src[3]}" if src[3] else "")
                        + f"  (PTX {where}: {code})"
                    )
                    continue
                lines.append(
                    f"`{name}` = {opname} ({lvl}) at {where}: {how}" + (f"  | {code}" if code else "")
                )
            out.setdefault((sp.line, sp.col), lines)
    if hasattr(module, "dispose"):
        module.dispose()
    return out


def annotate(
    diags: list[Diagnostic], text: str, path: str, arch: str, defines: dict[str, Any]
) -> list[Diagnostic]:
    """`diags` with a `why:` note (the chain) on each finding whose label or span is a divergent branch."""
    if not any(d.labels for d in diags):
        return diags
    table = chains(text, path, arch, defines)
    out = []
    for d in diags:
        notes = list(d.notes)
        for lab in d.labels + ([Label(d.span, "", d.origin)] if d.span else []):
            s = lab.origin or lab.span  # the branch in the file that was analysed (PTX under a .cu line)
            chain = table.get((s.line, s.col))
            if chain:
                v = lab.span
                head = f"line {v.line}" if v.file == s.file else f"{v.file}:{v.line}, PTX line {s.line}"
                notes.append(f"why ({head}, seed first):\n" + "\n".join(f"  {c}" for c in chain))
                break
        out.append(replace(d, notes=notes) if len(notes) != len(d.notes) else d)
    return out
