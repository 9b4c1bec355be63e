"""`irc check --why`: for each divergence finding, the whole uniformity chain from the seed (`tid.x`) to
the branch condition, built from `UniformityFacts.why`.

Kept apart from the checks: it re-builds the file's IR (only when `--why` is asked for), finds the
branches the finding's labels point at, and walks `facts.why` from each branch's condition. A finding
whose labels point at no branch gets no chain (it is not guessed).
"""

from __future__ import annotations

from typing import Any

from irc.diagnostics import CompileError, Diagnostic, Span
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
            for st in reversed(steps):
                lvl = st.level.name.lower()
                r = ctx.facts.reason(st.value)
                seed = r is not None and r.kind == "seed"
                name = st.text if seed and not st.value.name else ctx.name(st.value)
                opname = st.op.name if st.op is not None else "block argument"
                how = "the seed" if seed else _HOW.get(st.text, st.text)
                code = _source_line(src_lines, st.op)
                lines.append(
                    f"`{name}` = {opname} ({lvl}) at {_where(st.op, sp)}: {how}"
                    + (f"  | {code}" if code else "")
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
        for s in [lab.span for lab in d.labels] + ([d.span] if d.span else []):
            chain = table.get((s.line, s.col))
            if chain:
                notes.append(f"why (line {s.line}, seed first):\n" + "\n".join(f"  {c}" for c in chain))
                break
        out.append(replace(d, notes=notes) if len(notes) != len(d.notes) else d)
    return out
