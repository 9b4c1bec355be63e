"""Benchmark: `irc check` on a generated ~2,000-op kernel must take well under 200 ms.

Why this shape: real kernels the analyzer sees (lifted Triton/nvcc PTX) are a few thousand instructions
with nested uniform loops, tid-dependent guards, shared-memory tiles, barriers and warp shuffles, so the
generated kernel mixes exactly those (every construct is correct code: the run must also report nothing).
Usage: python bench/bench_analysis.py [target_ops]
"""

from __future__ import annotations

import sys
import time

from irc.analysis import check_module
from irc.ir.parser import parse_module


class _Kernel:
    def __init__(self) -> None:
        self.blocks: list[list[str]] = []
        self.n = 0
        self.ops = 0

    def fresh(self, hint: str) -> str:
        self.n += 1
        return f"%{hint}.{self.n}"

    def block(self, args: str = "") -> int:
        self.blocks.append([f"^bb{len(self.blocks)}{args}:"])
        return len(self.blocks) - 1

    def emit(self, b: int, line: str) -> None:
        self.blocks[b].append("  " + line)
        self.ops += 1

    def tile_step(self, b: int, i: str) -> int:
        """Guarded global load -> shared store -> barrier -> neighbour read -> shuffle reduce -> guarded store."""
        off = self.fresh("off")
        self.emit(b, f"{off} = mul %tid.0, %c4.0 : u32")
        row = self.fresh("row")
        self.emit(b, f"{row} = add {i}, %tid.0 : u32")
        ok = self.fresh("ok")
        self.emit(b, f'{ok} = cmp {row}, %n.0 {{pred = "lt"}} : bool')
        then = self.block()
        join = self.block(f"({self.fresh('v')}: f32)")
        v = self.blocks[join][0].split("(")[1].split(":")[0]
        self.emit(b, f"cbr {ok}, ^bb{then}, ^bb{join}(%fz.0)")
        gp = self.fresh("gp")
        self.emit(then, f"{gp} = ptradd %in.0, {off} : *global f32")
        x = self.fresh("x")
        self.emit(then, f"{x} = load {gp} : f32")
        self.emit(then, f"br ^bb{join}({x})")
        sp = self.fresh("sp")
        self.emit(join, f"{sp} = ptradd %tile.0, {off} : *shared f32")
        self.emit(join, f"store {sp}, {v}")
        self.emit(join, "barrier {id = 0}")
        y = self.fresh("y")
        self.emit(join, f"{y} = load {sp} : f32")
        acc = y
        for d in (16, 8, 4, 2, 1):
            c = self.fresh("d")
            self.emit(join, f"{c} = const {{value = {d}}} : u32")
            r = self.fresh("r")
            self.emit(join, f'{r} = shfl {acc}, {c}, %full.0 {{mode = "down"}} : f32')
            a = self.fresh("a")
            self.emit(join, f"{a} = add {acc}, {r} : f32")
            acc = a
        self.emit(join, "barrier {id = 0}")
        st = self.block()
        nxt = self.block()
        self.emit(join, f"cbr {ok}, ^bb{st}, ^bb{nxt}")
        op = self.fresh("op")
        self.emit(st, f"{op} = ptradd %out.0, {off} : *global f32")
        self.emit(st, f"store {op}, {acc}")
        self.emit(st, f"br ^bb{nxt}")
        return nxt

    def build(self, target_ops: int) -> str:
        b = self.block()
        for line in (
            '%tid.0 = sreg {name = "tid.x"} : u32',
            '%cta.0 = sreg {name = "ctaid.x"} : u32',
            '%ncta.0 = sreg {name = "nctaid.x"} : u32',
            "%c4.0 = const {value = 4} : u32",
            "%one.0 = const {value = 1} : u32",
            "%fz.0 = const {value = 0.0} : f32",
            "%full.0 = const {value = 4294967295} : u32",
            '%tile.0 = shared_addr {sym = "tile"} : *shared f32',
        ):
            self.emit(b, line)
        while self.ops < target_ops:
            # a grid-stride loop (block-uniform trip count) with several tile steps inside
            i = self.fresh("i")
            h = self.block(f"({i}: u32)")
            self.emit(b, f"br ^bb{h}(%cta.0)")
            c = self.fresh("more")
            self.emit(h, f'{c} = cmp {i}, %n.0 {{pred = "lt"}} : bool')
            body = self.block()
            ex = self.block()
            self.emit(h, f"cbr {c}, ^bb{body}, ^bb{ex}")
            cur = body
            for _ in range(4):
                cur = self.tile_step(cur, i)
            nxt = self.fresh("i")
            self.emit(cur, f"{nxt} = add {i}, %ncta.0 : u32")
            self.emit(cur, f"br ^bb{h}({nxt})")
            b = ex
        self.emit(b, "ret")
        body_text = "\n".join("\n".join(bl) for bl in self.blocks)
        return (
            'module "bench.kdsl" {\n'
            "kernel @bench(%in.0: *global f32, %out.0: *global f32, %n.0: u32) "
            "attributes {launch = [256, 1, 1]} {\n"
            "  shared @tile: [f32; 256] align 16\n" + body_text + "\n}\n}\n"
        )


def main(target_ops: int = 2000, repeat: int = 5) -> float:
    k = _Kernel()
    text = k.build(target_ops)
    module = parse_module(text, "bench.kdsl")
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        diags = check_module(module)
        best = min(best, time.perf_counter() - t0)
        assert diags == [], [d.message for d in diags[:3]]
    print(f"analyzed {k.ops} ops in {len(k.blocks)} blocks: best {best * 1000:.1f} ms of {repeat} runs")
    return best


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 2000)
