"""The emulator's semantics table: opcode prefix -> handler factory.

Why a table of factories: each instruction is decoded once per launch into a closure `handler(idx)` that
captures its register arrays, types and modes, so the hot loop never looks at opcode strings. Lookup is by
the longest dotted prefix (`cp.async.bulk.tensor` before `cp.async`).
"""

from __future__ import annotations

from collections.abc import Callable

OPS: dict[str, Callable] = {}


def op(*names: str) -> Callable[[Callable], Callable]:
    def deco(fn: Callable) -> Callable:
        for n in names:
            OPS[n] = fn
        return fn

    return deco


def lookup(opcode: str) -> Callable | None:
    parts = opcode.split(".")
    for k in range(len(parts), 0, -1):
        f = OPS.get(".".join(parts[:k]))
        if f is not None:
            return f
    return None
