"""The checks of the PTX validator that read the text itself: `.file` numbers, and the labels that debug
information names (`.section .debug_str` and `.loc ... function_name`), which the parser skips. They run
on the whole file, also when a large file is checked one function at a time."""

from __future__ import annotations

import re

from irc.frontend.ptx.validate_ctx import INVALID, Ctx


def text_checks(ctx: Ctx, text: str) -> None:
    file_numbers(ctx, text)
    pragma_versions(ctx, text)
    labels = section_labels(ctx, text)
    loc_labels(ctx, text, labels)


_FILE = re.compile(r"\.file[ \t]+(\d+)")


def file_numbers(ctx: Ctx, text: str) -> None:
    """Each `.file N` once (ptxas: "Duplicate file index")."""
    seen: set[str] = set()
    for m in _FILE.finditer(text):
        if m.start() and (text[m.start() - 1].isalnum() or text[m.start() - 1] in "._$"):
            continue  # (a longer word: `.filex`, `x.file`)
        if m.group(1) in seen:
            line = text.count("\n", 0, m.start(1)) + 1
            ctx.err(INVALID, f"duplicate file index `{m.group(1)}`", ctx.span(line, m.group(1)))
        seen.add(m.group(1))


#: `.pragma` strings and the PTX ISA version that introduced them (measured with ptxas 13.5: "Feature
#: 'used_bytes_mask' requires PTX ISA .version 8.3 or later")
PRAGMA_VERSIONS = {"used_bytes_mask": (8, 3), "enable_smem_spilling": (8, 7)}
_PRAGMA = re.compile(r'\.pragma\s+"(\w+)')


def pragma_versions(ctx: Ctx, text: str) -> None:
    """A pragma newer than the module's `.version`."""
    if ctx.version is None:
        return
    for m in _PRAGMA.finditer(text):
        need = PRAGMA_VERSIONS.get(m.group(1))
        if need is not None and ctx.version < need:
            line = text.count("\n", 0, m.start(1)) + 1
            ctx.err(INVALID, f"`.pragma \"{m.group(1)}\"` requires PTX ISA .version {need[0]}.{need[1]} or later",
                    ctx.span(line, m.group(1)))  # fmt: skip


_LABEL_DEF = re.compile(r"^[ \t]*([$\w]+)[ \t]*:", re.M)
_FUNCTION_NAME = re.compile(r"function_name\s+([$\w]+)")  # (only `.loc` lines say it)


_SECTION = re.compile(r"\.section\b[^{;]*\{(.*?)\}", re.S)


def section_labels(ctx: Ctx, text: str) -> set[str]:
    """The labels the `.section` blocks define (debug information; the parser skips them); one defined
    twice is reported."""
    seen: set[str] = set()
    if ".section" not in text:
        return seen
    for sec in _SECTION.finditer(text):
        for m in _LABEL_DEF.finditer(sec.group(1)):
            name = m.group(1)
            if name in seen:
                line = text.count("\n", 0, sec.start(1) + m.start(1)) + 1
                ctx.err(INVALID, f"duplicate label `{name}`", ctx.span(line, name))
            seen.add(name)
    return seen


def loc_labels(ctx: Ctx, text: str, defined: set[str]) -> None:
    """`.loc 1 2 3, function_name $L__info_string0, inlined_at ...`: the label must exist (it is defined in
    a `.section .debug_str`: `defined`). ptxas resolves the labels of
    the `.loc` lines that the instructions of an `.entry` keep after its optimizer ran, so a label whose
    every `.loc` precedes only a constant materialization (`mov.f32 %f2, 0f00000000`,
    `add.u64 %rd1, %SPL, 0`) or inline assembly may go unresolved: that case is not reported (measured)."""
    if "function_name" not in text:
        return
    if set(_FUNCTION_NAME.findall(text)) <= defined:
        return  # (the common case: every label exists; the walk below is only for the others)
    from irc.frontend.ptx.split import items

    funcs = [it for it in items(text) if it.is_function]
    live = _reachable(text, funcs)
    missing: dict[str, int] = {}  # label -> offset of its first `.loc`, for labels some kept `.loc` names
    for it in funcs:
        body = text[it.start : it.end]
        if it.name not in live:
            continue  # (ptxas drops a .func no kernel calls before it looks at its debug information)
        chain: list[tuple[str, int]] = []  # (label, offset) of the `.loc` lines before the next instruction
        pos = 0
        for line in body.split("\n"):
            s = line.strip()
            if s.startswith(".loc"):
                m = _FUNCTION_NAME.search(line)
                if m is not None:
                    chain.append((m.group(1), it.start + pos + m.start(1)))
            elif s and s[0] != "." and not s.endswith(":") and (s[:2] != "//" or "inline asm" in s):
                if chain and not _droppable(s):
                    for name, off in chain:
                        if name not in defined:
                            missing.setdefault(name, off)
                chain = []
            pos += len(line) + 1
    for name, off in missing.items():
        line_no = text.count("\n", 0, off) + 1
        ctx.err(INVALID, f"`.loc` names the label `{name}`, which is not defined", ctx.span(line_no, name))


_CALLEE = re.compile(r"\bcall(?:\.uni)?\s+(?:\([^)]*\)\s*,\s*)?([$\w]+)")
_CONSTANT = re.compile(r"^\s*(?:-?[0-9]|0[fFdDxX]|%SP[LH]?\b|[A-Za-z_$][\w$]*$)")


def _reachable(text: str, funcs: list) -> set[str | None]:  # type: ignore[type-arg]
    """The names of the kernels and of the functions they call, transitively."""
    calls = {it.name: set(_CALLEE.findall(text, it.start, it.end)) for it in funcs}
    todo = [it.name for it in funcs if ".entry" in text[it.start : it.end].split("{", 1)[0]]
    live: set[str | None] = set(todo)
    while todo:
        for callee in calls.get(todo.pop(), ()):
            if callee not in live:
                live.add(callee)
                todo.append(callee)
    return live


def _droppable(line: str) -> bool:
    """An instruction ptxas may fold away (all of its sources constants, symbols or the stack pointer), or
    inline assembly (not looked into)."""
    if line.startswith(("//", "{")):
        return True
    parts = line.rstrip(";").split(None, 1)
    if parts and parts[0].startswith("@"):
        return False
    if len(parts) < 2 or "[" in parts[1]:
        return False
    ops = [o.strip() for o in parts[1].split(",")]
    return len(ops) > 1 and all(_CONSTANT.match(o) for o in ops[1:])
