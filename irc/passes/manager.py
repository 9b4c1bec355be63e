"""The pass manager: an ordered pipeline of named passes over a Module.

Options mirror the CLI: `verify_each` runs the verifier after every pass (tests always do), `dump_after`
prints the IR after the named passes (or "all"), `time_passes` records wall time per pass. A verifier
failure after a pass is an internal compiler error naming that pass: passes must keep the IR valid.
"""

from __future__ import annotations

import sys
import time
from typing import Any, TextIO

from irc.diagnostics import Diagnostic, InternalCompilerError
from irc.ir.core import Module
from irc.ir.verifier import verify
from irc.records import field, record


@record
class PassContext:
    """What passes may read and report into: target, options, and diagnostics (checks report here)."""

    arch: str = "sm_80"
    diagnostics: list[Diagnostic] = field(default_factory=list)
    options: dict[str, Any] = field(default_factory=dict)
    facts: dict[str, Any] = field(default_factory=dict)  # analyses store their results by name


class Pass:
    """A transformation or check. Subclasses set `name` and document, in their docstring, the invariant
    they need and the one they establish."""

    name: str = "pass"

    def run(self, module: Module, ctx: PassContext) -> None:
        raise NotImplementedError


class PassManager:
    def __init__(
        self,
        passes: list[Pass],
        *,
        verify_each: bool = False,
        dump_after: set[str] | str | None = None,
        time_passes: bool = False,
        out: TextIO | None = None,
    ):
        self.passes = list(passes)
        self.verify_each = verify_each
        self.dump_after = dump_after
        self.time_passes = time_passes
        self.timings: list[tuple[str, float]] = []
        self.out = out or sys.stderr

    @property
    def names(self) -> list[str]:
        return [p.name for p in self.passes]

    def _dump(self, name: str) -> bool:
        d = self.dump_after
        return d == "all" or (isinstance(d, (set, frozenset, list, tuple)) and name in d) or d == name

    def run(self, module: Module, ctx: PassContext | None = None) -> PassContext:
        ctx = ctx or PassContext()
        for p in self.passes:
            t0 = time.perf_counter()
            p.run(module, ctx)
            self.timings.append((p.name, time.perf_counter() - t0))
            if self.verify_each:
                errs = verify(module)
                if errs:
                    raise InternalCompilerError(
                        f"IR invalid after pass `{p.name}`:\n" + "\n".join(e.message for e in errs[:20]),
                        op=p.name,
                    )
            if self._dump(p.name):
                from irc.ir.printer import print_module  # only for --dump-after: not on the start-up path

                self.out.write(f"// ----- IR after {p.name} -----\n{print_module(module)}")
        if self.time_passes:
            total = sum(t for _, t in self.timings) or 1e-9
            self.out.write("// pass timings\n")
            for n, t in self.timings:
                self.out.write(f"//   {n:<24} {t * 1000:8.2f} ms  {100 * t / total:5.1f}%\n")
        return ctx
