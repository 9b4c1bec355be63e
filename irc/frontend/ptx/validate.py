"""Validate parsed PTX like ptxas does, for what irc parses: the header, declarations, opcode and modifier
combinations, operand types, and per-target availability.

Why: `irc check` runs in CI on nvcc and Triton output and on hand-written PTX. A file ptxas rejects must not
pass as "no findings" (`.target sm_999`, `atom.shared.frobnicate.u32`, an undeclared `%r999`, `wgmma` on
sm_100a), and a file ptxas accepts must never be rejected. So every rule here is one ptxas enforces
(measured with ptxas 13.5), and where irc's tables do not cover an instruction the validator says nothing
about it (the lifter's `unknown-instruction` warning still marks the gap).

What it reports (each a located error with a caret):
  * `invalid-ptx`: a missing, misplaced or unknown `.version`; an unknown `.target`; a `.version` too low for
    the target or for an instruction form; a bad `.address_size`; an unknown or misplaced modifier; operands
    of the wrong number, kind or type; an undeclared register, label or symbol; a duplicate declaration.
  * `unsupported-target`: an instruction form the module's target does not have (`wgmma` off sm_90a).
The instruction forms and their gates are the rows of `irc.ptxisa.syntax_table`; target facts come from
`irc.target` (`PTX_TARGETS`, `KNOWN_PTX_VERSIONS`, `family_admits_target`).
"""

from __future__ import annotations

from irc.diagnostics import Diagnostic, Span
from irc.frontend.ptx.validate_body import Function
from irc.frontend.ptx.validate_ctx import INVALID, TARGET, Ctx
from irc.frontend.ptx.validate_debug import text_checks
from irc.ptxisa import model as P
from irc.target import ARCHES, KNOWN_PTX_VERSIONS, format_version

__all__ = ["validate", "validate_text", "rejects", "INVALID", "TARGET", "REJECTING_CHECKS"]

#: Errors on a `.ptx` file that mean "ptxas rejects this file": `irc check` exits 2 for them (docs/cli.md).
#: `parse-error` (irc cannot read it) and `const-error` (an immediate outside the instruction's range) come
#: from the parser and the lifter.
REJECTING_CHECKS = frozenset({INVALID, TARGET, "parse-error", "const-error"})

_HEADER = (".version", ".target", ".address_size")
_TARGET_EXTRAS = {"texmode_unified", "texmode_independent", "debug", "map_f64_to_f32"}


def validate(ptx: P.Module, text: str, *, text_checks_on: bool = True) -> list[Diagnostic]:
    """Every reason ptxas would reject `ptx` (parsed from `text`) that irc's tables know of.
    `text_checks_on`: also the `.file` numbers and the labels of `.loc` and `.section` (off for one
    function cut out of a large file, whose debug sections stay behind: `validate_text` checks them once
    on the whole file)."""
    ctx = Ctx(ptx, text)
    _header(ctx)
    if text_checks_on:
        text_checks(ctx, text)
    _module_names(ctx)
    for f in ptx.functions:
        Function(ctx, f).run()
    return ctx.diags


def validate_text(text: str, path: str) -> list[Diagnostic]:
    """The checks `validate` makes on the text alone, for a file checked one function at a time."""
    ctx = Ctx(P.Module(path=path), text)
    text_checks(ctx, text)
    return ctx.diags


def rejects(d: Diagnostic) -> bool:
    """Whether `d`, found in a `.ptx` file, says that ptxas rejects the file."""
    return d.is_error and d.check in REJECTING_CHECKS


def _header(ctx: Ctx) -> None:
    top: list[tuple[str, int, int]] = ctx.ptx.meta.get("top", [])
    seen: dict[str, int] = {}
    for i, (d, line, col) in enumerate(top):
        if d in _HEADER:
            if d in seen:
                ctx.err(
                    INVALID,
                    f"`{d}` appears twice (first on line {seen[d]})",
                    Span.point(ctx.path, line, col, len(d)),
                )
            seen.setdefault(d, line)
        if i == 0 and d != ".version":
            ctx.err(
                INVALID,
                "a PTX module must begin with `.version`"
                + ("" if ".version" in (t[0] for t in top) else " (there is none)"),
                Span.point(ctx.path, line, col, len(d)),
                help="write `.version 8.0` (or the version the target needs) as the first directive",
            )
    if not top:
        ctx.err(INVALID, "a PTX module must begin with `.version`", Span.point(ctx.path, 1, 1))
    vline = seen.get(".version")
    if vline is not None:
        try:
            v = tuple(int(p) for p in ctx.ptx.version.split("."))
        except ValueError:
            v = ()
        if len(v) == 2 and v in KNOWN_PTX_VERSIONS:
            ctx.version = (v[0], v[1])
        else:
            newest = format_version(KNOWN_PTX_VERSIONS[-1])
            ctx.err(
                INVALID,
                f"unknown PTX ISA version `{ctx.ptx.version}` (ptxas knows up to {newest})",
                ctx.span(vline, ctx.ptx.version),
            )
    tline = seen.get(".target")
    if tline is None:
        if top:
            ctx.err(
                INVALID, "the module has no `.target` directive", Span.point(ctx.path, top[0][1], top[0][2])
            )
        return
    if ctx.target is None:
        ctx.err(
            INVALID,
            f"unknown target `{ctx.ptx.target}`",
            ctx.span(tline, ctx.ptx.target),
            help=f"use a target ptxas knows: {', '.join(ARCHES)}, ...",
        )
    else:
        for extra in ctx.ptx.meta.get("target_extras", []):
            if extra not in _TARGET_EXTRAS:
                ctx.err(INVALID, f"unknown `.target` option `{extra}`", ctx.span(tline, extra))
            elif extra == "map_f64_to_f32" and ctx.target.number >= 13:
                ctx.err(
                    INVALID, "`map_f64_to_f32` is not supported on sm_13 or newer", ctx.span(tline, extra)
                )
        content = bool(ctx.ptx.globals or ctx.ptx.functions)  # (ptxas checks nothing in a bare header)
        if content and ctx.version is not None and ctx.version < ctx.target.min_version:
            need = format_version(ctx.target.min_version)
            ctx.err(
                INVALID,
                f"PTX ISA {format_version(ctx.version)} does not support `.target {ctx.target.name}` (it needs {need})",
                ctx.span(vline or tline, ctx.ptx.version),
                help=f"raise `.version` to {need} or more",
            )
    aline = seen.get(".address_size")
    if aline is not None and ctx.ptx.address_size != 64:
        size = ctx.ptx.address_size
        why = "32-bit compilation is no longer supported" if size == 32 else "it must be 64 (or 32)"
        ctx.err(INVALID, f"`.address_size {size}`: {why}", ctx.span(aline, str(size)))


def _module_names(ctx: Ctx) -> None:
    """Duplicate module-scope names: globals and function definitions (a prototype may repeat)."""
    seen: dict[str, int] = {}
    for g in ctx.ptx.globals:
        if g.name in seen:
            ctx.err(
                INVALID,
                f"duplicate definition of `{g.name}` (first on line {seen[g.name]})",
                ctx.span(g.line, g.name),
            )
        seen.setdefault(g.name, g.line)
    bodies: dict[str, int] = {}
    for f in ctx.ptx.functions:
        if f.name in seen:
            ctx.err(
                INVALID, f"`{f.name}` is defined as a variable and as a function", ctx.span(f.line, f.name)
            )
        if f.body is not None:
            if f.name in bodies:
                ctx.err(
                    INVALID,
                    f"duplicate definition of function `{f.name}` (first on line {bodies[f.name]})",
                    ctx.span(f.line, f.name),
                )
            bodies.setdefault(f.name, f.line)
