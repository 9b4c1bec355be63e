"""`irc compile --emit cfg`: each kernel's control-flow graph as Graphviz dot, annotated with what the
analyzer knows: how uniform the control reaching each block is, how uniform each branch condition is,
and the barriers and warp collectives in the block.

Colours follow the level: grid/block-uniform blocks are plain, warp-uniform ones light yellow,
thread-varying ones light red, so the divergent region of a kernel is visible at a glance. SVG output
uses the `dot` binary or the `graphviz` Python package when one is present.
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Callable

from irc.diagnostics import Span
from irc.ir.core import Module

_FILL = {"grid": "white", "block": "white", "warp": "lightyellow", "thread": "mistyrose"}


def _q(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def module_to_dot(
    module: Module, arch: str = "sm_80", where: Callable[[Span], str] | None = None, names=None
) -> str:
    """One `digraph` with a cluster per kernel; node labels list level, sync ops and the branch level.
    `where` spells an op's location (default `line N`; lifted PTX: the .cu line, then the PTX line),
    `names` a kernel's name (default as is; `.cu`: demangled)."""
    from irc.analysis.checks.common import FunctionContext, condition_value
    from irc.ir.optable import OPS
    from irc.ir.printer import Namer

    out = ["digraph irc_cfg {", "  node [shape=box, fontname=monospace, style=filled];"]
    for fi, fn in enumerate(f for f in module.functions if f.is_kernel):
        ctx = FunctionContext(fn, module, arch)
        nm = Namer(fn)
        cfg = ctx.cfg
        out.append(f"  subgraph cluster_{fi} {{")
        out.append(f"    label={_q('kernel ' + (names(fn.name) if names else fn.name))};")
        ids = {b: f"k{fi}_{i}" for i, b in enumerate(fn.blocks)}
        for b in fn.blocks:
            reachable = b in cfg.rpo_index
            lvl = ctx.facts.block_level(b).name.lower() if reachable else "unreachable"
            rows = [f"{nm.b(b)}", f"control: {lvl}"]
            for op in b.ops:
                d = OPS.get(op.name)
                traits = d.traits if d is not None else ()
                if "barrier" in traits or "warp_collective" in traits:
                    loc = ""
                    if op.span is not None:
                        loc = f" ({where(op.span) if where else f'line {op.span.line}'})"
                    rows.append(f"{'barrier' if 'barrier' in traits else 'warp op'}: {op.name}{loc}")
            cond = condition_value(b)
            if cond is not None and reachable:
                rows.append(f"branch on {ctx.name(cond)}: {ctx.facts.level(cond).name.lower()}")
            label = "\\l".join(r.replace("\\", "\\\\").replace('"', '\\"') for r in rows) + "\\l"
            fill = _FILL.get(lvl, "lightgrey")
            out.append(f'    {ids[b]} [label="{label}", fillcolor={_q(fill)}];')
        for b in fn.blocks:
            t = b.terminator
            succs = list(t.successors) if t is not None else []
            for i, s in enumerate(succs):
                attrs = ""
                if len(succs) == 2 and t is not None and t.name == "cbr":
                    attrs = f" [label={_q('T' if i == 0 else 'F')}]"
                target = getattr(s, "block", s)
                if target in ids:
                    out.append(f"    {ids[b]} -> {ids[target]}{attrs};")
        out.append("  }")
    out.append("}")
    return "\n".join(out) + "\n"


def dot_to_svg(dot: str) -> str | None:
    """Render with the `dot` binary, else the `graphviz` Python package; None when neither exists."""
    exe = shutil.which("dot")
    if exe:
        r = subprocess.run([exe, "-Tsvg"], input=dot, capture_output=True, text=True, timeout=60)
        if r.returncode == 0:
            return r.stdout
    try:
        import graphviz  # type: ignore[import-not-found]
    except ImportError:
        return None
    try:
        return graphviz.Source(dot).pipe(format="svg").decode()
    except Exception:  # the package without its binary  # noqa: BLE001
        return None
