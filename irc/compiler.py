"""The compiler driver: the one place that strings the pipeline together.

    .kdsl --front end--> IR --optimization passes--> IR --analyzer--> findings
          --backend (legalize, regalloc, out-of-SSA, allocation checker)--> PTX model --printer--> PTX text
    .ptx  --parser--> PTX model --lifter--> IR --analyzer--> findings

The CLI (`irc.cli`), the Python API (`irc.api`) and the tests all call these functions, so every entry
point compiles and checks exactly the same way.
"""

from __future__ import annotations

import gc
import sys
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any

from irc.diagnostics import CompileError, Diagnostic, Severity
from irc.ir.core import Module
from irc.records import field, record


@record
class CompileOptions:
    arch: str = "sm_80"
    defines: dict[str, Any] = field(default_factory=dict)
    optimize: bool = True
    verify_each: bool = False
    dump_after: set[str] | str | None = None
    time_passes: bool = False
    check: bool = True  # run the analyzer; error findings stop code generation
    check_alloc: bool = True  # the allocation checker (on by default)
    contracts: Any = None  # `[[tool.irc.contract]]` rules (irc.tooling.contracts.Contracts)


@record
class CompileResult:
    module: Module  # the optimized IR
    ptx_text: str
    ptx: Any  # irc.ptxisa.model.Module
    stats: dict[str, dict]
    diagnostics: list[Diagnostic]  # warnings and notes (errors raise CompileError)
    path: str = "<kdsl>"
    arch: str = "sm_80"


def _errors(diags: list[Diagnostic]) -> list[Diagnostic]:
    return [d for d in diags if d.severity == Severity.ERROR]


def frontend(text: str, path: str, *, defines: dict[str, Any] | None = None, arch: str = "sm_80") -> Module:
    """.kdsl text -> verified IR module. Raises CompileError with every front-end diagnostic."""
    from irc.frontend.kdsl.lower import compile_to_ir

    return compile_to_ir(text, path, defines=defines or {}, arch=arch)


def operand_ranges(module: Module) -> list[Diagnostic]:
    """Constants outside the op table's operand ranges (`irc.ir.ranges`): ptxas would reject them."""
    from irc.ir.ranges import check_module

    return check_module(module)


def optimize(module: Module, opts: CompileOptions, ctx=None):
    from irc.passes.manager import PassContext, PassManager
    from irc.passes.pipeline import optimization_passes

    ctx = ctx or PassContext(arch=opts.arch)
    pm = PassManager(
        optimization_passes() if opts.optimize else [],
        verify_each=opts.verify_each,
        dump_after=opts.dump_after,
        time_passes=opts.time_passes,
        out=sys.stderr,
    )
    pm.run(module, ctx)
    return ctx


def analyze(
    module: Module,
    arch: str,
    sources: dict[str, str],
    contracts: Any = None,
    checks: Iterable[str] | None = None,
    contract_findings: bool | None = None,
) -> list[Diagnostic]:
    """Run the analyzer (all checks, or only `checks`) and apply `// irc: allow(...)` comments (kernel
    `@allow` is applied inside). `contracts` (`irc.tooling.contracts.Contracts`) and the file's
    `// irc: assume(...)` comments give each kernel's launch contract; the findings about the contracts
    themselves come with the run of all checks, or where `contract_findings` asks (a driver that runs the
    checks in two parts reports them once)."""
    from irc.analysis import check_module
    from irc.analysis.report import group, kernel_notes, map_to_source
    from irc.tooling import suppress
    from irc.tooling.contracts import Binder

    src = module.source
    binder = None
    if src is not None and sources.get(str(src)) is not None:
        binder = Binder(contracts, str(src), sources[str(src)])
    diags = check_module(
        module, arch=arch, checks=checks, contract_for=binder.for_kernel if binder is not None else None
    )
    if binder is not None and (checks is None if contract_findings is None else contract_findings):
        diags = binder.diags + diags
    if diags and src is not None and str(src).endswith(".ptx") and sources.get(str(src)) is not None:
        from irc.tooling.locsource import user_sources

        diags = map_to_source(diags, sources[str(src)], str(src))  # .loc: the user's source line
        diags = kernel_notes(diags)  # (a .kdsl finding shows its kernel in the source excerpt)
        sources = {**sources, **user_sources(diags, sources)}  # `// irc: allow(...)` in the .cu/.py too
    return suppress.filter(group(diags), sources)


def compile_kdsl(text: str, path: str, opts: CompileOptions | None = None) -> CompileResult:
    """Compile .kdsl source to PTX. Raises CompileError (with every diagnostic found so far) when the
    source, the analyzer or the target-dependent backend checks have errors. `// irc: allow(...)` comments
    apply to the analyzer's and the backend's findings alike. The cyclic garbage collector is paused
    meanwhile (see `gc_paused`): its re-scans of the growing IR made compile time superlinear in size."""
    from irc.deep import run_deep
    from irc.diagnostics import Span

    with gc_paused():
        # the passes, the analyzer and the backend walk def-use chains recursively; a chain as long as
        # the IR-size limit allows (`v = v + 1` ten thousand times) needs a deep stack, and deeper still is
        # a limit-error, never a RecursionError (fuzz campaign finds in ranges, addrsplit, hoist)
        return run_deep(_compile_kdsl, text, path, opts, span=Span.point(path, 1, 1))


def _compile_kdsl(text: str, path: str, opts: CompileOptions | None) -> CompileResult:
    from irc.analysis.checks import CHECKS, SOURCE_CHECKS
    from irc.backends.ptx.emit import compile_module
    from irc.tooling import suppress

    opts = opts or CompileOptions()
    sources = {path: text}
    module = frontend(text, path, defines=opts.defines, arch=opts.arch)
    # Checks about what the source says run before the optimizer merges values (GVN makes `min(v | 0, v)`
    # a `min(v, v)`): their findings are the same at -O0 and -O2. The rest run on the optimized IR.
    early = (
        analyze(module, opts.arch, sources, opts.contracts, checks=sorted(SOURCE_CHECKS))
        if opts.check
        else []
    )
    ctx = optimize(module, opts)
    diags = list(module.warnings) + list(ctx.diagnostics) + operand_ranges(module) + early
    if opts.check:
        late = [c for c in CHECKS if c not in SOURCE_CHECKS]
        diags += analyze(module, opts.arch, sources, opts.contracts, checks=late, contract_findings=True)
    if _errors(diags):
        raise CompileError(sorted(diags, key=Diagnostic.sort_key))
    start = len(ctx.diagnostics)
    try:
        res = compile_module(module, opts.arch, ctx=ctx, source_path=path, check_alloc=opts.check_alloc)
    except CompileError as e:  # no code without these: a suppression comment cannot waive them
        raise CompileError(sorted(diags + e.diagnostics, key=Diagnostic.sort_key)) from None
    diags += suppress.filter(ctx.diagnostics[start:], sources)
    for fn in module.functions:
        fn.release_dropped()
    return CompileResult(module, res.text, res.ptx, res.stats, diags, path, opts.arch)


def check_kdsl(
    text: str, path: str, *, arch: str = "sm_80", defines: dict[str, Any] | None = None, contracts: Any = None
) -> list[Diagnostic]:
    """All findings for a .kdsl file: exactly what `irc compile` would report (front-end errors, the
    analyzer's findings, and the backend's target checks: `unsupported-target`, `shared-overflow`,
    `register-pressure`), with `// irc: allow(...)` applied."""
    from irc.tooling import suppress

    try:
        opts = CompileOptions(arch=arch, defines=dict(defines or {}), contracts=contracts)
        return compile_kdsl(text, path, opts).diagnostics
    except CompileError as e:
        return suppress.filter(e.diagnostics, {path: text})


@contextmanager
def gc_paused() -> Iterator[None]:
    """Pause Python's cyclic garbage collector while one file is processed.

    Why: the IR is a graph full of reference cycles (ops <-> blocks <-> values), so building a large module
    triggers hundreds of young and middle generation collections that re-scan the growing graph: measured
    at ~45% of `irc check` time on PTX. Pausing it for the file and letting the next automatic collection
    free the whole module at once costs one scan instead."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def check_ptx(text: str, path: str, contracts: Any = None) -> list[Diagnostic]:
    """All findings for a .ptx file from any generator (the target is the file's own `.target`). Files
    larger than the `ptx_split_bytes` limit are checked one function at a time (docs/limits.md)."""
    from irc import limits

    try:
        limits.check_size(text, path, "max_ptx_bytes")
    except CompileError as e:
        return e.diagnostics
    from irc.analysis.report import message_lines

    if len(text) > limits.get("ptx_split_bytes"):
        return message_lines(check_ptx_by_function(text, path, contracts), text, path)
    return message_lines(_check_ptx_module(text, path, contracts), text, path)


def check_ptx_by_function(text: str, path: str, contracts: Any = None) -> list[Diagnostic]:
    """`check_ptx` with memory bounded by the largest function: each function is parsed, lifted and
    analyzed as a module of its own (with the declarations it uses) and dropped before the next one.
    Interprocedural facts across functions are not used in this mode."""
    from irc.frontend.ptx.split import chunks
    from irc.frontend.ptx.validate import validate_text

    out: list[Diagnostic] = validate_text(text, path)  # (labels of debug sections, which chunks leave out)
    if out:
        return out
    seen: set[tuple] = set()
    for chunk, lines, _name in chunks(text):
        for d in _check_ptx_module(chunk, path, contracts, text_checks=False):
            d = lines.diagnostic(d, path)
            key = (d.check, d.message, d.span, d.origin, d.kernel)  # a callee's findings: once
            if key not in seen:
                seen.add(key)
                out.append(d)
    return out


def _check_ptx_module(
    text: str, path: str, contracts: Any = None, text_checks: bool = True
) -> list[Diagnostic]:
    from irc.frontend.ptx.lift import lift_module
    from irc.frontend.ptx.parser import parse_ptx
    from irc.frontend.ptx.validate import validate

    with gc_paused():
        try:
            ptx = parse_ptx(text, path)
        except CompileError as e:
            return e.diagnostics
        invalid = validate(ptx, text, text_checks_on=text_checks)
        if invalid:  # ptxas rejects the file: findings about its behaviour would describe no program
            return invalid
        try:
            module, notes = lift_module(ptx, text)
        except CompileError as e:
            return e.diagnostics
        from irc.frontend.ptx.operands import immediate_ranges

        notes = notes + immediate_ranges(ptx, path, text.splitlines())
        module.source_text = text  # type: ignore[attr-defined]  # .loc lines for checks that need them
        try:
            return notes + analyze(module, ptx.target, {path: text}, contracts)
        finally:
            module.dispose()
