"""Deleted ops leave no reference cycles behind a compile (`Function.release_dropped`).

Why it matters: each deleted op and its results form a cycle, and a compile deletes thousands of ops, so
without the release the first run of the cyclic garbage collector after a compile had to traverse them
all (10 ms of a 130 ms compile of `examples/fmha_sm100.kdsl`). The returned module must stay intact.
"""

from __future__ import annotations

import gc
import os

from irc.compiler import CompileOptions, compile_kdsl
from irc.ir.builder import Builder
from irc.ir.core import Function, Module
from irc.ir.types import U32
from irc.ir.verifier import verify

ROOT = os.path.dirname(os.path.dirname(__file__))


def test_compile_leaves_little_cyclic_garbage() -> None:
    path = os.path.join(ROOT, "examples", "fmha_sm100.kdsl")
    with open(path) as f:
        text = f.read()
    compile_kdsl(text, path, CompileOptions(arch="sm_100a"))  # warm up lazy imports
    gc.collect()
    was = gc.isenabled()
    gc.disable()
    try:
        res = compile_kdsl(text, path, CompileOptions(arch="sm_100a"))
        found = gc.collect()  # objects only the cyclic collector could free
    finally:
        if was:
            gc.enable()
    # thousands of ops are deleted on the way (each op, its results and lists: ~8 objects); what is left
    # is a few analysis structures
    assert found < 2000, found
    assert verify(res.module) == []
    assert all(op.block is b for fn in res.module.functions for b in fn.blocks for op in b.ops)


def test_release_keeps_an_op_put_back_in_a_block() -> None:
    fn = Function("k", [U32])
    b = Builder(fn.entry)
    x = b.value("add", [fn.params[0], fn.params[0]])
    y = b.value("mul", [x, x])
    b.ret()
    moved = y.op
    moved.drop_operands()  # deleted ...
    fn.entry.ops.remove(moved)
    moved.block = None
    dead = x.op
    moved.operands = [fn.params[0], fn.params[0]]  # ... and put back with new operands
    for v in moved.operands:
        v.uses.append(moved)
    fn.entry.insert(0, moved)
    dead.drop_operands()
    fn.entry.ops.remove(dead)
    dead.block = None
    fn.release_dropped()
    assert moved.results[0].op is moved and moved.block is fn.entry
    assert dead.results == [] and fn.dropped == []
    m = Module()
    m.add_function(fn)
    assert verify(m) == []
