"""Resource limits: every bound irc puts on its input, in one place (documented in docs/limits.md).

irc promises bounded time and memory on any input, so everything whose cost grows with an input property
(nesting depth, file size, IR size, unrolled copies, the width of untyped constants) has a limit here.
Exceeding one is a `limit-error` diagnostic at the offending place, never a hang or a traceback. Work
inside the limits is linear (or close to it), so the defaults can be generous.

Each limit can be raised (or lowered) with the environment variable `IRC_LIMIT_<NAME>` (upper case), e.g.
`IRC_LIMIT_MAX_NESTING=4000`. The variables are read each time a limit is looked up, so tests and long
running hosts can change them without reimporting.
"""

from __future__ import annotations

import os

from irc.diagnostics import Diagnostic, Span, error
from irc.records import record


@record(frozen=True)
class Limit:
    name: str
    default: int
    what: str  # "nesting depth", used in the message
    help: str


LIMITS: dict[str, Limit] = {
    x.name: x
    for x in (
        Limit(
            "max_nesting",
            1024,
            "brackets (`{`, `(`, `[`) nested",
            "flatten the nesting (helper functions, early `continue`)",
        ),
        Limit("max_kdsl_bytes", 2 << 20, "bytes in a .kdsl file", "split the file"),
        Limit("max_ptx_bytes", 256 << 20, "bytes in a .ptx file", "split the file"),
        Limit(
            "ptx_split_bytes",
            4 << 20,
            "bytes above which a .ptx file is checked one function at a time",
            "not an error: larger files are checked per function",
        ),
        Limit(
            "max_ptx_function_lines",
            2_000_000,
            "lines in one PTX function",
            "split the kernel",
        ),
        Limit(
            "max_ir_ops",
            50_000,
            "IR operations in one function",
            "unroll less, or split the kernel into device functions",
        ),
        Limit(
            "max_analysis_blocks",
            4000,
            "blocks in one function the analyzer analyses (a `not-analysed` note, not an error)",
            "split the function",
        ),
        Limit(
            "analysis_steps_per_block",
            100,
            "analysis steps per block of one function (a `not-analysed` note, not an error)",
            "simplify the control flow",
        ),
        Limit(
            "max_unroll",
            1024,
            "copies made by one `unroll for` or compile-time list",
            "use a plain `for` loop, or unroll part of it",
        ),
        Limit(
            "max_unroll_total",
            65536,
            "copies made by nested `unroll for` loops together",
            "unroll fewer nested loops",
        ),
        Limit(
            "emu_max_threads",
            1 << 24,
            "threads in one emulator launch (grid x block)",
            "launch a smaller grid (the emulator runs every thread)",
        ),
        Limit(
            "emu_max_global_bytes",
            4 << 30,
            "bytes of global memory in one emulator launch (arrays and `.global` variables)",
            "pass smaller arrays",
        ),
        Limit(
            "emu_max_local_bytes",
            512 << 10,
            "bytes of `.local` memory per thread in the emulator (the GPU's limit is 512 KiB)",
            "use global memory for large per-thread buffers",
        ),
        Limit(
            "emu_max_call_depth",
            32,
            "nested calls the emulator inlines (`call` through `.func`, recursion)",
            "bound the recursion",
        ),
        Limit(
            "emu_max_inlined_instructions",
            50_000,
            "instructions the emulator copies when it inlines calls",
            "call fewer or smaller device functions (or keep the recursion shallow)",
        ),
        Limit(
            "max_baseline_bytes",
            64 << 20,
            "bytes in a baseline file (`--baseline`, `baseline =`)",
            "regenerate the baseline with --write-baseline after fixing findings",
        ),
        Limit(
            "max_config_bytes",
            4 << 20,
            "bytes in a configuration file (`irc.toml`, `pyproject.toml`)",
            "keep the configuration small",
        ),
        Limit(
            "max_const_bits",
            512,
            "bits in an untyped integer constant (`1 << 4000` needs 4001)",
            "give the constant a type (`1u64 << 40`) or compute a smaller value",
        ),
    )
}


def get(name: str) -> int:
    """The current value of limit `name`: `IRC_LIMIT_<NAME>` if set to an integer, else the default."""
    lim = LIMITS[name]
    raw = os.environ.get("IRC_LIMIT_" + name.upper())
    if raw is not None:
        try:
            return int(raw, 0)
        except ValueError:
            pass
    return lim.default


def file_limit(name: str) -> tuple[int, str]:
    """The byte limit `name` for a file irc reads whole (a baseline, a configuration), and how to name it
    in an error: a file over it is a usage error (exit 2), not a diagnostic."""
    return get(name), f"`{name}`; raise it with IRC_LIMIT_{name.upper()}=N"


def limit_error(name: str, found: str, span: Span | None) -> Diagnostic:
    """`limit-error`: `found` (what the input has) exceeds limit `name`; the message names the limit, its
    value and how to raise it."""
    lim = LIMITS[name]
    return error(
        "limit-error",
        f"{found}; the limit is {get(name)} (`{name}`)",
        span,
        help=f"{lim.help}, or raise the limit with IRC_LIMIT_{name.upper()}=N (see docs/limits.md)",
    )


def check_size(text: str, path: str, name: str) -> None:
    """Raise `CompileError([limit-error])` when `text` is longer than limit `name` (bytes, counted as
    characters: the check must be free, and every kdsl/PTX byte that matters is ASCII)."""
    from irc.diagnostics import CompileError

    if len(text) > get(name):
        raise CompileError([limit_error(name, f"the file has {len(text)} bytes", Span.point(path, 1, 1))])


OPENERS = frozenset(("LBRACE", "LPAR", "LSQB"))
CLOSERS = frozenset(("RBRACE", "RPAR", "RSQB"))


def nesting_error(tokens, path: str) -> Diagnostic | None:
    """The `limit-error` for the first token that opens a bracket deeper than `max_nesting` (a linear scan
    of the token list, before parsing: deeper input is refused before any tree walk starts), or None."""
    limit = get("max_nesting")
    depth = 0
    for t in tokens:
        if t.type in OPENERS:
            depth += 1
            if depth > limit:
                return limit_error(
                    "max_nesting",
                    f"the brackets here are nested {depth} deep",
                    Span(path, t.line, t.col, t.end_line, t.end_col),
                )
        elif t.type in CLOSERS and depth > 0:
            depth -= 1
    return None
