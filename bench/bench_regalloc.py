"""Benchmark: SSA register allocation (liveness + MaxLive + colouring) and out-of-SSA on a generated kernel
of N ops (default 10,000) with a loop carrying 16 values and ~40 values live at once.

    python bench/bench_regalloc.py [N]
Prints the time of allocate + out-of-SSA (target: < 1 s for 10,000 ops) and of the whole compile."""

from __future__ import annotations

import random
import sys
import time

from irc.backends.ptx.emit import compile_module
from irc.backends.ptx.legalize import Legalize
from irc.backends.ptx.outofssa import OutOfSSA
from irc.backends.ptx.regalloc import allocate
from irc.ir.builder import Builder
from irc.ir.core import Block, Function, Module
from irc.ir.types import BOOL, U32, U64, ptr
from irc.passes.manager import PassContext


def generate(n_ops: int, seed: int = 1) -> Module:
    """entry -> loop header (16 carried u32 values + counter) -> body of ~n_ops ops -> back edge / exit."""
    rng = random.Random(seed)
    m = Module("bench.kdsl")
    fn = m.add_function(Function("bench", [ptr("global", U32), U32], param_names=["out", "n"]))
    out, n = fn.params
    entry = fn.entry
    b = Builder(entry)
    tid = b.value("sreg", [], U32, {"name": "tid.x"})
    init = [b.value("add", [tid, b.const(i, U32)], U32) for i in range(16)]
    head = fn.add_block(Block([U32] * 17))
    body = fn.add_block(Block())
    exit_ = fn.add_block(Block())
    b.br(head, init + [b.const(0, U32)])
    b.at_end(head)
    carried, i = head.args[:16], head.args[16]
    c = b.value("cmp", [i, n], BOOL, {"pred": "lt"})
    b.cbr(c, body, [], exit_, [])
    b.at_end(body)
    window = list(carried)
    kinds = ["add", "mul", "xor", "sub", "and", "or"]
    for _ in range(n_ops):
        x, y = rng.choice(window), rng.choice(window)
        v = b.value(rng.choice(kinds), [x, y], U32)
        window.append(v)
        if len(window) > 40:
            window.pop(rng.randrange(len(window) - 8))
    nxt = window[-16:]
    b.br(head, nxt + [b.value("add", [i, b.const(1, U32)], U32)])
    b.at_end(exit_)
    acc = carried[0]
    for v in carried[1:]:
        acc = b.value("add", [acc, v], U32)
    t64 = b.value("cvt", [tid], U64)
    off = b.value("mul", [t64, b.const(4, U64)], U64)
    b.create("store", [b.value("ptradd", [out, off], ptr("global", U32)), acc])
    b.ret()
    return m


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 10_000
    m = generate(n)
    Legalize().run(m, PassContext(arch="sm_80"))
    fn = m.kernels[0]
    ops = sum(len(b.ops) for b in fn.blocks)
    t0 = time.perf_counter()
    alloc = allocate(fn)
    OutOfSSA(alloc).run()
    t1 = time.perf_counter()
    print(f"ops={ops} max_live={alloc.max_live} allocate+out-of-ssa: {t1 - t0:.3f} s")
    t0 = time.perf_counter()
    r = compile_module(generate(n), "sm_80")
    t1 = time.perf_counter()
    print(
        f"full compile_module (legalize, regalloc, out-of-SSA, isel, checker, print): {t1 - t0:.3f} s, "
        f"{len(r.text.splitlines())} PTX lines"
    )


if __name__ == "__main__":
    main()
