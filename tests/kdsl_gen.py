"""A hypothesis generator of random, well-formed .kdsl kernels for differential testing.

Every generated kernel is correct by construction:

- integer arithmetic on `u32`/`i32` (wrapping, bit-exact; divisors are never zero and signed division
  never overflows), float arithmetic on `f32` without anything the optimizer may legally reassociate;
- branches on thread-dependent data, `for` loops (constant, block-uniform and per-thread trip counts,
  with `step`), bounded `while` loops, `break`/`continue` only in loops whose body is already divergent;
- `var`s carried across loops and swapped (`let t = a; a = b; b = t;`: parallel copies out of SSA);
- shared memory phases (every thread writes its own slot, `barrier()`, read another slot, `barrier()`)
  only at block-uniform points, shuffles/votes only at warp-uniform points (full warps);
- early `return` only in the tail of the kernel, after which no barrier or warp collective follows.

The kernel signature is fixed (`KernelCase.args` builds matching numpy arguments); each thread writes
`NOUT_I` u32 and `NOUT_F` f32 results at `gid * NOUT_x + j`. The analyzer must not flag any of these
kernels (a finding is a false positive), and every pipeline must compute identical outputs.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from hypothesis import strategies as st

NOUT_I = 8
NOUT_F = 4
IN_SIZE = 256  # inp/finp length (a power of two: indices are masked with IN_SIZE - 1)
SIGNATURE = (
    "out: *global u32, outf: *global f32, inp: *global u32, finp: *global f32, n: u32, s: i32, fs: f32"
)

U32_LITS = [
    0,
    1,
    2,
    3,
    5,
    7,
    8,
    16,
    31,
    32,
    33,
    255,
    256,
    1000,
    0x7FFFFFFF,
    0x80000000,
    0xFFFFFFFF,
    0xDEADBEEF,
]
I32_LITS = [0, 1, 2, 3, -1, -2, -7, 8, 31, 100, -100, 0x7FFFFFFF, -0x7FFFFFFF]
F32_LITS = [
    "0.0",
    "1.0",
    "0.5",
    "2.0",
    "3.25",
    "0.1",
    "100.0",
    "1e-3",
    "1e30",
    "1e-30",
    "(-1.5)",
    "(-0.0)",
    "1024.0",
    "0.75",
]
F32_RARE = ["inf", "(-inf)", "nan"]
#: Edge-value modes (`kernel_cases(edge=True)`): literals drawn more often from these pools and kernel
#: inputs full of these values, so folding, value numbering and the backend meet NaN payloads and signs,
#: signed zeros, the integer bounds and wrap-around (issue 27).
EDGE_MODES = ("nan", "negzero", "bounds", "wrap")
EDGE_F32 = {
    "nan": ["nan", "(-nan)", "(nan as f32)", "(-(nan as f32))", "inf", "(-inf)", "0.0"],
    "negzero": ["(-0.0)", "0.0", "(-(0.0 as f32))", "1e-45", "(-1e-45)", "1.17549435e-38", "(-1e-40)"],
}
EDGE_INT = {
    "u32": [
        "0u32",
        "1u32",
        "4294967295u32",
        "2147483648u32",
        "2147483647u32",
        "4294967294u32",
        "2147483649u32",
    ],
    "i32": [
        "0i32",
        "(-1i32)",
        "2147483647i32",
        "(-2147483647i32 - 1i32)",
        "(-2147483647i32)",
        "1i32",
        "2147483646i32",
    ],
}
_F32_BITS = {  # kernel inputs per mode (bit patterns)
    "nan": [0x7FC00000, 0xFFC00000, 0x7FC00123, 0xFFC0BEEF, 0x7F800000, 0xFF800000, 0x7FFFFFFF, 0x80000000],
    "negzero": [
        0x80000000,
        0x00000000,
        0x00000001,
        0x80000001,
        0x007FFFFF,
        0x807FFFFF,
        0x00800000,
        0x3F800000,
    ],
}
_U32_EDGE = [
    0,
    1,
    0xFFFFFFFF,
    0x80000000,
    0x7FFFFFFF,
    0xFFFFFFFE,
    0x80000001,
    0x7FFFFFFE,
    31,
    32,
    33,
    0x10000,
]
CONST_DIVS_U = [2, 3, 4, 7, 8, 16, 10, 1024, 0x80000000]
CONST_DIVS_I = [2, 3, 4, -1, -2, -4, 7, 8, -8, 16, 10, 1024]


@dataclass
class KernelCase:
    source: str
    block: int
    grid: int
    n: int
    s: int
    fs: float
    seed: int
    notes: list[str] = field(default_factory=list)
    mode: str = "plain"  # or one of EDGE_MODES

    @property
    def threads(self) -> int:
        return self.block * self.grid

    def args(self) -> list:
        rng = np.random.default_rng(self.seed)
        t = self.threads
        out = np.full(t * NOUT_I, 0xA5A5A5A5, dtype=np.uint32)
        outf = np.full(t * NOUT_F, -7.0, dtype=np.float32)
        inp = rng.integers(0, 2**32, IN_SIZE, dtype=np.uint64).astype(np.uint32)
        inp[:16] = [0, 1, 2, 3, 31, 32, 33, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF, 0xFFFFFFFE, 7, 8, 9, 100, 255]
        finp = (rng.standard_normal(IN_SIZE) * rng.choice([1.0, 10.0, 1e6], IN_SIZE)).astype(np.float32)
        finp[:8] = [0.0, -0.0, 1.0, -1.0, 0.5, 2.5, -2.5, 1e30]
        if self.mode in _F32_BITS:  # every other input an edge value (NaNs with payloads, signed zeros)
            edge = np.array(_F32_BITS[self.mode], np.uint32)
            finp.view(np.uint32)[::2] = edge[rng.integers(0, len(edge), IN_SIZE // 2)]
        if self.mode in ("bounds", "wrap"):
            edge = np.array(_U32_EDGE, np.uint64).astype(np.uint32)
            inp[::2] = edge[rng.integers(0, len(edge), IN_SIZE // 2)]
        return [out, outf, inp, finp, self.n, self.s, self.fs]


def _lit_u32(v: int) -> str:
    return f"{v}u32"


def _lit_i32(v: int) -> str:
    return f"{v}i32" if v >= 0 else f"(-{-v}i32)"


class _Gen:
    def __init__(self, draw, block: int, max_stmts: int, rare_floats: bool, mode: str = "plain"):
        self.mode = mode
        self.draw = draw
        self.block = block
        self.lines: list[str] = []
        self.indent = 1
        self.scopes: list[list[tuple[str, str, bool]]] = [[]]
        self.counter = 0
        self.budget = max_stmts
        self.rare_floats = rare_floats
        self.shared_phases = 0
        self.collectives = 0

    # -- drawing helpers -------------------------------------------------------------------------------
    def pick(self, xs):
        return self.draw(st.sampled_from(xs))

    def num(self, lo: int, hi: int) -> int:
        return self.draw(st.integers(lo, hi))

    def coin(self, p_true_percent: int = 50) -> bool:
        return self.num(0, 99) < p_true_percent

    def fresh(self, prefix: str) -> str:
        self.counter += 1
        return f"{prefix}{self.counter}"

    def emit(self, line: str) -> None:
        self.lines.append("    " * self.indent + line)

    def vars(self, ty: str, mutable: bool | None = None) -> list[str]:
        out = []
        for scope in self.scopes:
            for name, t, mut in scope:
                if t == ty and (mutable is None or mut == mutable):
                    out.append(name)
        return out

    def declare(self, name: str, ty: str, mutable: bool) -> None:
        self.scopes[-1].append((name, ty, mutable))

    # -- expressions -----------------------------------------------------------------------------------
    def expr(self, ty: str, depth: int) -> str:
        if depth <= 0 or self.coin(30):
            return self.leaf(ty)
        return getattr(self, f"_expr_{ty}")(depth - 1)

    def leaf(self, ty: str) -> str:
        if ty == "f32" and self.mode in EDGE_F32 and self.coin(25):
            return self.pick(EDGE_F32[self.mode])
        if ty in EDGE_INT and self.mode in ("bounds", "wrap") and self.coin(25):
            return self.pick(EDGE_INT[ty])
        vs = self.vars(ty)
        if vs and self.coin(60):
            return self.pick(vs)
        if ty == "u32":
            k = self.num(0, 7)
            if k == 0:
                return _lit_u32(self.pick(U32_LITS))
            if k == 1:
                return _lit_u32(self.num(0, 2**32 - 1))
            if k == 2:
                return self.pick(["tid.x", "gid", "laneid", "n", "ctaid.x", "ntid.x"])
            if k == 3:
                idx = self.pick(["gid", "tid.x", "(gid * 7u32 + 3u32)", "laneid", "n", "(tid.x ^ 5u32)"])
                return f"inp[{idx} & {IN_SIZE - 1}u32]"
            return "gid"
        if ty == "i32":
            k = self.num(0, 4)
            if k == 0:
                return _lit_i32(self.pick(I32_LITS))
            if k == 1:
                return _lit_i32(self.num(-(2**31) + 1, 2**31 - 1))
            if k == 2:
                return self.pick(["s", "(tid.x as i32)", "(laneid as i32)"])
            return f"(inp[(gid + 11u32) & {IN_SIZE - 1}u32] as i32)"
        if ty == "f32":
            k = self.num(0, 4)
            if k == 0:
                lits = F32_LITS + (F32_RARE if self.rare_floats else [])
                return self.pick(lits)
            if k == 1:
                return self.pick(["fs", "(tid.x as f32)", "(gid as f32)"])
            idx = self.pick(["gid", "tid.x", "(gid * 5u32 + 1u32)", "laneid"])
            return f"finp[{idx} & {IN_SIZE - 1}u32]"
        # bool
        return self._cmp(0)

    def two(self, ty: str, depth: int) -> tuple[str, str]:
        """Two operands that are not the same text (`a - a` and friends are `self-cancel` findings)."""
        a, b = self.expr(ty, depth), self.expr(ty, depth)
        if a == b:
            b = {"u32": "(gid + 12345u32)", "i32": "(s + 9i32)", "f32": "(fs + 0.5)", "bool": "(n > 3u32)"}[
                ty
            ]
            if a == b:
                b = {"u32": "laneid", "i32": "(s + 5i32)", "f32": "(fs * 3.0)", "bool": "(n < 3u32)"}[ty]
        return a, b

    def _cmp(self, depth: int) -> str:
        ty = self.pick(["u32", "i32", "f32"])
        op = self.pick(["<", "<=", ">", ">=", "==", "!="])
        a, b = self.two(ty, depth)
        return f"({a} {op} {b})"

    def _expr_bool(self, depth: int) -> str:
        k = self.num(0, 5)
        if k <= 2:
            return self._cmp(depth)
        if k in (3, 4):
            a, b = self.two("bool", depth)
            return f"({a} {'&&' if k == 3 else '||'} {b})"
        return f"(!{self.expr('bool', depth)})"

    def _int_common(self, ty: str, depth: int) -> str:
        e = lambda: self.expr(ty, depth)  # noqa: E731
        lit = _lit_u32 if ty == "u32" else _lit_i32
        k = self.num(0, 16)
        if k <= 4:
            a, b = self.two(ty, depth)
            return f"({a} {self.pick(['+', '-', '*', '&', '|', '^'])} {b})"
        if k == 5:  # masked shift
            return f"({e()} {self.pick(['<<', '>>'])} ({e()} & {lit(31)}))"
        if k == 6:  # shift by a constant, sometimes past the width
            return f"({e()} {self.pick(['<<', '>>'])} {lit(self.pick([1, 4, 16, 31]))})"
        if k == 7:  # multiply / divide / remainder by a constant (strength reduction)
            divs = CONST_DIVS_U if ty == "u32" else CONST_DIVS_I
            return f"({e()} {self.pick(['*', '/', '%'])} {lit(self.pick(divs))})"
        if k == 8:  # divide by a non-zero runtime value
            if ty == "u32":
                return f"({e()} {self.pick(['/', '%'])} ({e()} | 1u32))"
            return f"({e()} {self.pick(['/', '%'])} (({e()} & 255i32) | 1i32))"
        if k == 9:
            a, b = self.two(ty, depth)
            return f"{self.pick(['min', 'max'])}({a}, {b})"
        if k == 10:
            return f"({self.expr('bool', depth)} ? {e()} : {e()})"
        if k == 11:
            return f"select({self.expr('bool', depth)}, {e()}, {e()})"
        if k == 12:
            other = self.pick(["i32", "f32"] if ty == "u32" else ["u32", "f32"])
            return f"({self.expr(other, depth)} as {ty})"
        if k == 13:
            return f"({self.expr('bool', depth)} as u32)" if ty == "u32" else f"(-{e()})"
        if k == 14:
            return f"(~{e()})"
        return e()

    def _expr_u32(self, depth: int) -> str:
        if self.coin(12):
            return f"{self.pick(['popc', 'clz'])}({self.expr('u32', depth)})"
        return self._int_common("u32", depth)

    def _expr_i32(self, depth: int) -> str:
        if self.coin(8):
            return f"abs({self.expr('i32', depth)})"
        return self._int_common("i32", depth)

    def _expr_f32(self, depth: int) -> str:
        e = lambda: self.expr("f32", depth)  # noqa: E731
        k = self.num(0, 10)
        if k <= 3:
            a, b = self.two("f32", depth)
            return f"({a} {self.pick(['+', '-', '*'])} {b})"
        if k == 4:
            return (
                f"({e()} {self.pick(['*', '/'])} {self.pick(['2.0', '0.5', '4.0', '0.25', '-1.0', '1.0'])})"
            )
        if k == 5:
            a, b = self.two("f32", depth)
            return f"{self.pick(['min', 'max'])}({a}, {b})"
        if k == 6:
            return f"{self.pick(['abs', 'floor', 'ceil', 'trunc'])}({e()})"
        if k == 7:
            return f"({self.expr(self.pick(['u32', 'i32']), depth)} as f32)"
        if k == 8:
            return f"({self.expr('bool', depth)} ? {e()} : {e()})"
        if k == 9:
            return f"(-{e()})"
        return f"select({self.expr('bool', depth)}, {e()}, {e()})"

    # -- conditions by uniformity ------------------------------------------------------------------------
    def divergent_cond(self) -> str:
        k = self.num(0, 3)
        if k == 0:
            return f"((tid.x & {self.num(1, 15)}u32) {self.pick(['==', '!=', '<'])} {self.num(0, 7)}u32)"
        if k == 1:
            return f"(laneid {self.pick(['<', '>=', '!='])} {self.num(1, 31)}u32)"
        return self.expr("bool", 2)

    def block_uniform_cond(self) -> str:
        return self.pick(
            [
                f"(n > {self.num(0, 20)}u32)",
                f"(s {self.pick(['<', '>=', '!='])} {_lit_i32(self.num(-5, 5))})",
                "(ctaid.x == 0u32)",
                f"((n & {self.num(1, 7)}u32) == 0u32)",
                f"(fs > {self.pick(['0.0', '1.0', '-2.0'])})",
            ]
        )

    def warp_uniform_cond(self) -> str:
        nw = self.block // 32
        w = self.num(0, max(0, nw - 1))
        return self.pick(
            [
                f"(tid.x < {32 * max(1, w)}u32)",
                f"((tid.x >> 5u32) == {w}u32)",
                f"(tid.x / 32u32 != {w}u32)",
                f"(tid.x >= {32 * w}u32)",
            ]
        )

    # -- statements ------------------------------------------------------------------------------------
    def scoped(self, ctx: dict, max_len: int) -> None:
        self.scopes.append([])
        self.seq(ctx, max_len)
        local = self.scopes.pop()
        # fold the block's own values into an outer variable, so that they are observable in the output
        # (and carried around loops) rather than dead code
        for ty in ("u32", "i32", "f32"):
            names = [n for n, t, _ in local if t == ty]
            outer = self.vars(ty, mutable=True)
            if names and outer:
                dst = self.pick(outer)
                if ty == "f32":
                    self.emit(f"{dst} = {dst} + {' + '.join(names[-3:])};")
                else:
                    self.emit(f"{dst} = {dst} + ({' + '.join(names[-3:])});")

    def seq(self, ctx: dict, max_len: int) -> None:
        for _ in range(self.num(1, max_len)):
            if self.budget <= 0:
                break
            self.stmt(ctx)

    def stmt(self, ctx: dict) -> None:
        self.budget -= 1
        uni = ctx["uni"]
        kinds = ["let", "var", "assign", "assign", "compound", "swap", "if", "store"]
        if ctx["depth"] < 3:
            kinds += ["if", "for", "while"]
        if uni == "block" and not ctx["tail"]:
            kinds += ["shared", "shared"]
        if uni in ("block", "warp") and not ctx["tail"]:
            kinds += ["shuffle", "shuffle", "vote"]
        if uni == "block" and not ctx["tail"] and ctx["depth"] < 3:
            kinds += ["warp_if", "uniform_if"]
        if ctx["breakable"]:
            kinds += ["break"]
        if ctx["tail"]:
            kinds += ["return"]
        getattr(self, f"_s_{self.pick(kinds)}")(ctx)

    def _ty(self) -> str:
        return self.pick(["u32", "u32", "i32", "f32"])

    def _s_let(self, ctx: dict) -> None:
        ty = self._ty()
        name = self.fresh("l")
        self.emit(f"let {name}: {ty} = {self.expr(ty, 3)};")
        self.declare(name, ty, False)

    def _s_var(self, ctx: dict) -> None:
        ty = self._ty()
        name = self.fresh("v")
        self.emit(
            f"var {name} = {self.expr(ty, 2)};"
            if self.coin(30) and ty == "f32"
            else f"var {name}: {ty} = {self.expr(ty, 2)};"
        )
        self.declare(name, ty, True)

    def _s_assign(self, ctx: dict) -> None:
        ty = self._ty()
        vs = self.vars(ty, mutable=True)
        if not vs:
            return self._s_var(ctx)
        self.emit(f"{self.pick(vs)} = {self.expr(ty, 3)};")

    def _s_compound(self, ctx: dict) -> None:
        ty = self._ty()
        vs = self.vars(ty, mutable=True)
        if not vs:
            return self._s_var(ctx)
        ops = ["+=", "-=", "*="] if ty == "f32" else ["+=", "-=", "*=", "&=", "|=", "^="]
        v = self.pick(vs)
        rhs = self.expr(ty, 2)
        if rhs == v:
            rhs = {"u32": "(gid + 12345u32)", "i32": "(s + 9i32)", "f32": "(fs + 0.5)"}[ty]
        self.emit(f"{v} {self.pick(ops)} {rhs};")

    def _s_swap(self, ctx: dict) -> None:
        ty = self._ty()
        vs = self.vars(ty, mutable=True)
        if len(vs) < 2:
            return self._s_var(ctx)
        a, b = self.draw(st.permutations(vs))[:2]
        t = self.fresh("t")
        if self.coin(30):  # a three-way rotation
            cs = [c for c in vs if c not in (a, b)]
            if cs:
                c = cs[0]
                self.emit(f"let {t} = {a}; {a} = {b}; {b} = {c}; {c} = {t};")
                return
        self.emit(f"let {t} = {a}; {a} = {b}; {b} = {t};")

    def _s_store(self, ctx: dict) -> None:
        if self.coin(70):
            self.emit(f"out[base + {self.num(0, NOUT_I - 1)}u32] = {self.expr('u32', 2)};")
        else:
            self.emit(f"outf[fbase + {self.num(0, NOUT_F - 1)}u32] = {self.expr('f32', 2)};")

    def _nested(self, ctx: dict, **kw) -> dict:
        c = dict(ctx)
        c["depth"] = ctx["depth"] + 1
        c.update(kw)
        return c

    def _body(self, ctx: dict, max_len: int = 4) -> None:
        self.indent += 1
        self.scoped(ctx, max_len)
        self.indent -= 1

    def _if(self, cond: str, ctx: dict) -> None:
        self.emit(f"if {cond} {{")
        self._body(ctx)
        if self.coin(50):
            if self.coin(25):  # `else if` on a divergent condition: both of its arms are divergent
                ctx = self._nested(ctx, uni=None)
                self.emit(f"}} else if {self.divergent_cond()} {{")
                self._body(ctx)
            self.emit("} else {")
            self._body(ctx)
        self.emit("}")

    def _s_if(self, ctx: dict) -> None:
        self._if(self.divergent_cond(), self._nested(ctx, uni=None))

    def _s_uniform_if(self, ctx: dict) -> None:
        self._if(self.block_uniform_cond(), self._nested(ctx))

    def _s_warp_if(self, ctx: dict) -> None:
        self._if(self.warp_uniform_cond(), self._nested(ctx, uni="warp"))

    def _loop_ctx(self, ctx: dict, uniform_trip: bool) -> dict:
        """A loop whose trip count is uniform keeps the uniformity of its context (and has no break);
        otherwise its body is divergent and may break/continue."""
        if uniform_trip and ctx["uni"] and self.coin(70):
            return self._nested(ctx, breakable=False)
        return self._nested(ctx, uni=None, breakable=True)

    def _s_for(self, ctx: dict) -> None:
        i = self.fresh("i")
        k = self.num(0, 4)
        if k == 0:
            ty, head, uniform = "u32", f"0u32..{self.num(0, 6)}u32", True
        elif k == 1:
            a = self.num(-4, 3)
            ty, head, uniform = (
                "i32",
                f"{_lit_i32(a)}..{_lit_i32(a + self.num(0, 6))} step {self.num(1, 3)}",
                True,
            )
        elif k == 2:
            ty, head, uniform = "u32", f"0u32..(n & {self.pick([3, 7])}u32)", True
        elif k == 3:
            ty, head, uniform = "u32", f"(tid.x & 3u32)..{self.num(2, 7)}u32", False
        else:
            bound = self.pick(["(tid.x & 7u32)", f"({self.expr('u32', 1)} & 7u32)", "(laneid % 5u32)"])
            ty, head, uniform = "u32", f"0u32..{bound} step {self.num(1, 2)}", False
        body = self._loop_ctx(ctx, uniform)
        prefix = "unroll " if uniform and k == 0 and self.coin(20) else ""
        self.emit(f"{prefix}for {i} in {head} {{")
        self.scopes.append([(i, ty, False)])
        self._body(body)
        self.scopes.pop()
        self.emit("}")

    def _s_while(self, ctx: dict) -> None:
        w = self.fresh("w")
        uniform = self.coin(40)
        bound = (
            f"{self.num(0, 5)}u32"
            if uniform
            else self.pick(["(gid & 7u32)", f"({self.expr('u32', 1)} % 6u32)"])
        )
        self.emit(f"var {w}: u32 = 0u32;")
        self.emit(f"while {w} < {bound} {{")
        self.indent += 1
        self.emit(f"{w} += 1u32;")
        self.indent -= 1
        self.scopes.append([(w, "u32", False)])  # readable, never reassigned by the body
        self._body(self._loop_ctx(ctx, uniform))
        self.scopes.pop()
        self.emit("}")

    def _s_break(self, ctx: dict) -> None:
        self.emit(f"if {self.divergent_cond()} {{ {self.pick(['break', 'continue'])}; }}")

    def _s_return(self, ctx: dict) -> None:
        if self.coin(80):
            self.emit(f"if {self.divergent_cond()} {{ return; }}")
        else:
            self.emit(f"if (gid & {self.num(1, 7)}u32) == {self.num(0, 1)}u32 {{ return; }}")

    def _s_shared(self, ctx: dict) -> None:
        self.shared_phases += 1
        b = self.block
        idx = self.pick(
            [
                f"(tid.x + {self.num(1, b - 1)}u32) % {b}u32",
                f"{b - 1}u32 - tid.x",
                f"tid.x ^ {self.num(1, b - 1)}u32",
                "tid.x",
                "0u32",
            ]
        )
        if self.coin(65):
            arr, ty = "sm", "u32"
        else:
            arr, ty = "smf", "f32"
        self.emit(f"{arr}[tid.x] = {self.expr(ty, 2)};")
        self.emit("barrier();")
        name = self.fresh("r")
        self.emit(f"let {name}: {ty} = {arr}[{idx}];")
        self.declare(name, ty, False)
        self.emit("barrier();")

    def _s_shuffle(self, ctx: dict) -> None:
        self.collectives += 1
        ty = self._ty()
        vs = self.vars(ty, mutable=True)
        src = self.expr(ty, 1)
        k = self.num(0, 3)
        if k == 0:
            call = f"shfl_xor({src}, {self.pick([1, 2, 4, 8, 16, 3, 31])})"
        elif k == 1:
            call = f"shfl_down({src}, {self.num(1, 16)}u32)"
        elif k == 2:
            call = f"shfl_up({src}, {self.num(1, 16)}u32)"
        else:
            call = f"shfl_idx({src}, {self.pick(['0u32', '31u32', '(laneid ^ 1u32)', '((laneid + 3u32) & 31u32)'])})"
        if vs and self.coin(60):
            v = self.pick(vs)
            if ty == "f32":
                self.emit(f"{v} = {v} + {call};")
            else:
                self.emit(f"{v} = {v} ^ {call};")
        else:
            name = self.fresh("x")
            self.emit(f"let {name}: {ty} = {call};")
            self.declare(name, ty, False)

    def _s_vote(self, ctx: dict) -> None:
        self.collectives += 1
        name = self.fresh("b")
        p = self.expr("bool", 1)
        k = self.num(0, 2)
        if k == 0:
            self.emit(f"let {name}: u32 = ballot({p});")
        else:
            self.emit(f"let {name}: u32 = {self.pick(['vote_all', 'vote_any'])}({p}) as u32;")
        self.declare(name, "u32", False)


@st.composite
def kernel_cases(draw, max_stmts: int = 24, rare_floats: bool = True, edge: bool = False) -> KernelCase:
    """A random correct kernel; `edge=True`: in one of the `EDGE_MODES` (edge literals and inputs)."""
    block = draw(st.sampled_from([32, 64, 128]))
    grid = draw(st.sampled_from([1, 2]))
    mode = draw(st.sampled_from(EDGE_MODES)) if edge else "plain"
    g = _Gen(draw, block, max_stmts, edge or (rare_floats and draw(st.booleans())), mode)
    launch = draw(st.booleans())
    g.emit(f"shared sm: [u32; {block}];")
    g.emit(f"shared smf: [f32; {block}];")
    g.emit("let gid = ctaid.x * ntid.x + tid.x;")
    g.emit(f"let base = gid * {NOUT_I}u32;")
    g.emit(f"let fbase = gid * {NOUT_F}u32;")
    g.scopes[-1] += [("gid", "u32", False)]  # `gid as u32` would equal `gid`: no same-type casts
    for ty in ("u32", "i32", "f32", "u32"):
        name = g.fresh("v")
        g.emit(f"var {name}: {ty} = {g.expr(ty, 2)};")
        g.declare(name, ty, True)
    ctx = {"uni": "block", "depth": 0, "tail": False, "breakable": False}
    g.seq(ctx, 10)
    if draw(st.booleans()):
        g.budget = max(g.budget, 4)
        g.seq(dict(ctx, tail=True), 5)
    # results: every top-level u32/i32 value mixed into slot 0, then the values themselves
    ints = [f"({v} as u32)" if t == "i32" else v for s in g.scopes for v, t, _ in s if t in ("u32", "i32")]
    floats = [v for s in g.scopes for v, t, _ in s if t == "f32"]
    mix = " ^ ".join(f"({x} * {2 * i + 1}u32)" for i, x in enumerate(ints)) or "0u32"
    g.emit(f"out[base] = {mix};")
    for j, x in enumerate(ints[-(NOUT_I - 1) :]):
        g.emit(f"out[base + {j + 1}u32] = {x};")
    for j, x in enumerate(floats[-NOUT_F:]):
        g.emit(f"outf[fbase + {j}u32] = {x};")
    head = f"@launch(block = {block})\n" if launch else ""
    src = head + f"kernel k({SIGNATURE}) {{\n" + "\n".join(g.lines) + "\n}\n"
    return KernelCase(
        source=src,
        block=block,
        grid=grid,
        n=draw(st.sampled_from([0, 1, 5, 8, 13, 255, 2**32 - 1])),
        s=draw(st.sampled_from([0, 1, -1, 3, -5, 2**31 - 1, -(2**31)])),
        fs=draw(st.sampled_from(_FS.get(mode, [0.0, 1.0, -2.5, 0.1, 1e20]))),
        seed=draw(st.integers(0, 2**16)),
        mode=mode,
    )


_FS = {"nan": [float("nan"), -float("nan"), float("inf"), 1.0], "negzero": [-0.0, 0.0, 1e-45, -1e-45]}
