"""PTX backend driver: legalize -> register allocation -> out-of-SSA -> instruction selection -> allocation
checker -> PTX text.

(The checker runs on the selected instructions because it checks what will actually be printed.)

The `.version` is the lowest that both the target (`irc.target.min_ptx_version`) and every emitted
instruction form need; form minima come from `irc.ptxisa.forms.min_version_for` (the emitted forms,
measured with ptxas, live in `irc.ptxisa.forms.EMITTED_FORMS` next to the reference-form gates). The output is deterministic: values, blocks,
registers and labels are numbered in layout order, never by id() or hash order.
"""

from __future__ import annotations

from irc.backends.ptx.checker import check_allocation
from irc.backends.ptx.isel import InstructionSelector
from irc.backends.ptx.layout import DYN_ALIGN, DYN_SMEM, SharedLayout, layout_shared
from irc.backends.ptx.legalize import Legalize
from irc.backends.ptx.outofssa import OutOfSSA
from irc.backends.ptx.printer import print_ptx
from irc.backends.ptx.regalloc import allocate
from irc.diagnostics import CompileError, Span, warning
from irc.ir.core import Module
from irc.passes.manager import PassContext
from irc.ptxisa import model as ptx
from irc.ptxisa.forms import DIRECTIVE_VERSIONS, min_version_for
from irc.records import field, record
from irc.target import min_ptx_version, parse_arch


def required_version(fn: ptx.Function) -> tuple[int, int]:
    """The lowest PTX version every instruction and directive of `fn` is valid in."""
    need = (0, 0)
    for ins in fn.instructions():
        v = min_version_for(ins)
        if v > need:
            need = v
    for d in fn.directives:
        v = DIRECTIVE_VERSIONS.get(d)
        if v is not None and v > need:
            need = v
    return need


# 32-bit register slots each allocated register of a class occupies in hardware (predicates live in a
# separate predicate file; 16-bit values still take a 32-bit register).
_SLOTS = {"p": 0, "rs": 1, "r": 1, "f": 1, "rd": 2, "fd": 2}
MAX_HW_REGISTERS = 255


def _register_pressure(fn, stats: dict, ctx: PassContext) -> None:
    """`register-pressure` (warning): the allocation needs more 32-bit registers than `@max_registers`
    (or the hardware's 255), so ptxas will spill. The count is the sum over classes of MaxLive in 32-bit
    slots: an upper bound of what is live at once, exact when one point is the peak of every class."""
    need = sum(_SLOTS.get(c, 1) * n for c, n in stats["registers"].items())
    stats["register_slots"] = need
    limit = fn.attrs.get("max_registers") or MAX_HW_REGISTERS
    if need > limit and "register-pressure" not in (fn.attrs.get("allow") or ()):  # `@allow` waives it
        what = (
            f"`@max_registers({limit})`"
            if fn.attrs.get("max_registers")
            else "the 255 registers a thread can have"
        )
        ctx.diagnostics.append(
            warning(
                "register-pressure",
                f"kernel `{fn.name}` needs {need} 32-bit registers at its peak, more than {what}: ptxas will spill "
                "to local memory",
                Span(fn.span.file, fn.span.line, fn.span.col, fn.span.line, fn.span.col + 1)
                if fn.span
                else None,
                help="reduce what is live at once (fewer accumulators or unrolled copies), or raise the limit",
            )
        )


@record
class EmitResult:
    """The PTX program model, its text, and per-kernel statistics (`irc compile --stats`)."""

    ptx: ptx.Module
    text: str
    stats: dict[str, dict] = field(default_factory=dict)


def compile_module(
    module: Module,
    arch: str,
    *,
    ctx: PassContext | None = None,
    source_path: str | None = None,
    check_alloc: bool = True,
) -> EmitResult:
    """Compile every kernel of `module` (optimized IR) to PTX for `arch`.

    The IR is legalized in place (the module is consumed). Errors (`unsupported-target`,
    `shared-overflow`) are collected into `ctx.diagnostics` and raised together as a CompileError; an
    allocation bug is an InternalCompilerError from the checker."""
    parse_arch(arch)
    ctx = ctx if ctx is not None else PassContext(arch=arch)
    ctx.arch = arch
    start = len(ctx.diagnostics)
    Legalize().run(module, ctx)
    errors = [d for d in ctx.diagnostics[start:] if d.is_error]
    if errors:
        raise CompileError(errors)
    path = source_path or module.source
    pm = ptx.Module(target=arch, path=path or "<ptx>")
    file_index = None
    if path:
        pm.files[1] = path
        file_index = 1
    layouts: dict[str, SharedLayout] = ctx.facts.get("shared_layout", {})
    version = min_ptx_version(arch)
    stats: dict[str, dict] = {}
    any_dynamic = False
    externs: dict[str, int] = {}  # `dynamic` shared arrays: name -> alignment
    for fn in module.kernels:
        layout = layouts.get(fn.name) or layout_shared(fn, arch)
        alloc = allocate(fn)
        edges = OutOfSSA(alloc).run()
        sel = InstructionSelector(fn, alloc, edges, layout, file_index=file_index, dyn_symbol=DYN_SMEM)
        pf = sel.run(fn.name)
        if check_alloc:
            check_allocation(pf)
        need = required_version(pf)
        fv = max(tuple(min_ptx_version(arch)), need)
        version = max(tuple(version), need)
        dyn_bytes = (layout.dyn_array_offset or layout.total) if layout.dynamic else 0
        pf.meta["dynamic_shared_bytes"] = dyn_bytes
        for name in layout.externs:
            externs[name] = max(externs.get(name, 1), layout.aligns[name])
        pm.functions.append(pf)
        any_dynamic = any_dynamic or layout.dynamic
        stats[fn.name] = {
            "max_live": dict(alloc.max_live),
            "registers": alloc.registers(),
            "shared_bytes": layout.total,
            "dynamic_shared_bytes": dyn_bytes,
            "dynamic_shared_array": any(d.dynamic for d in fn.shared),
            "ptx_version": f"{fv[0]}.{fv[1]}",
        }
        _register_pressure(fn, stats[fn.name], ctx)
    if any_dynamic:
        pm.globals.append(ptx.VarDecl("shared", ".b8", DYN_SMEM, align=DYN_ALIGN, dims=[0], extern=True))
    for name, align in externs.items():
        pm.globals.append(ptx.VarDecl("shared", ".b8", name, align=align, dims=[0], extern=True))
    pm.version = f"{version[0]}.{version[1]}"
    text = print_ptx(pm)
    return EmitResult(pm, text, stats)
