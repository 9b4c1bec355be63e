"""Launch contracts: what the host code guarantees about a kernel's launches, as solver constraints.

A contract fixes the block (`block = [256, 1, 1]`), the grid, and states facts as C-like expressions over
the kernel's parameters and the launch (`n % 64 == 0`, `gridDim.x * blockDim.x == n`). Findings that need a
launch outside the contract disappear; findings that remain say which contract they assumed. Contracts
come from `[[tool.irc.contract]]` in pyproject.toml / irc.toml and from `// irc: assume(...)` comments on
the kernel (`irc.tooling.contracts` collects both; docs/analyzer.md has the grammar).

Expression grammar (C precedence; all arithmetic in 64-bit signed integers, parameters sign- or
zero-extended by their type):

    expr   := or
    or     := and ('||' and)*
    and    := bor ('&&' bor)*
    bor    := bxor ('|' bxor)*        bxor := band ('^' band)*        band := cmp ('&' cmp)*
    cmp    := shift (('==' | '!=' | '<' | '<=' | '>' | '>=') shift)?
    shift  := sum (('<<' | '>>') sum)*
    sum    := prod (('+' | '-') prod)*
    prod   := unary (('*' | '/' | '%') unary)*
    unary  := ('-' | '!' | '~') unary | atom
    atom   := INTEGER | NAME | NAME '.' ('x' | 'y' | 'z') | '(' expr ')'

Names: a parameter (`n`; `param_2` for the third parameter of lifted PTX), `blockDim.x` / `ntid.x`,
`gridDim.x` / `nctaid.x`. Thread and block indices are not allowed (a contract is about every thread).
"""

from __future__ import annotations

import re
from typing import Any

from irc.records import field, record

_TOKEN = re.compile(
    r"\s*(?:(?P<num>0[xX][0-9a-fA-F]+|\d+)[uUlL]*|(?P<name>[A-Za-z_][A-Za-z_0-9]*)|"
    r"(?P<op>\|\||&&|==|!=|<=|>=|<<|>>|[-+*/%<>()!~&|^.]))"
)
_BIN = [
    ("||",),
    ("&&",),
    ("|",),
    ("^",),
    ("&",),
    ("==", "!=", "<", "<=", ">", ">="),
    ("<<", ">>"),
    ("+", "-"),
    ("*", "/", "%"),
]
_LAUNCH = {
    "blockDim": "ntid",
    "ntid": "ntid",
    "gridDim": "nctaid",
    "nctaid": "nctaid",
}
_FORBIDDEN = {"threadIdx", "tid", "blockIdx", "ctaid", "laneid"}


class AssumeError(ValueError):
    """A malformed expression; `col` is the 1-based column in the expression text."""

    def __init__(self, message: str, col: int):
        super().__init__(message)
        self.col = col


def parse(text: str) -> tuple:
    """The expression as a tree: ("int", v) | ("name", n) | ("launch", kind, axis) | (op, a[, b])."""
    toks: list[tuple[str, str, int]] = []
    pos = 0
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None or m.end() == pos:
            if text[pos:].strip() == "":
                break
            raise AssumeError(
                f"unexpected `{text[pos:].strip()[0]}`",
                pos + 1 + (len(text[pos:]) - len(text[pos:].lstrip())),
            )
        kind = m.lastgroup or "op"
        toks.append((kind, m.group(kind), m.start(kind) + 1))
        pos = m.end()
    toks.append(("end", "", len(text) + 1))
    i = [0]

    def peek() -> tuple[str, str, int]:
        return toks[i[0]]

    def take() -> tuple[str, str, int]:
        t = toks[i[0]]
        i[0] += 1
        return t

    def binary(level: int) -> tuple:
        if level == len(_BIN):
            return unary()
        left = binary(level + 1)
        while peek()[0] == "op" and peek()[1] in _BIN[level]:
            op = take()[1]
            right = binary(level + 1)
            left = (op, left, right)
            if level == 5:  # comparisons do not chain
                break
        return left

    def unary() -> tuple:
        t = peek()
        if t[0] == "op" and t[1] in ("-", "!", "~"):
            take()
            return ("u" + t[1], unary())
        return atom()

    def atom() -> tuple:
        t = take()
        if t[0] == "num":
            return ("int", int(t[1], 0))
        if t[0] == "name":
            if t[1] in _FORBIDDEN:
                raise AssumeError(f"`{t[1]}` differs between threads: a contract is about every thread", t[2])
            if peek()[1] == ".":
                take()
                ax = take()
                if ax[0] != "name" or ax[1] not in ("x", "y", "z"):
                    raise AssumeError("expected `x`, `y` or `z`", ax[2])
                if t[1] not in _LAUNCH:
                    raise AssumeError(f"unknown name `{t[1]}.{ax[1]}`", t[2])
                return ("launch", _LAUNCH[t[1]], "xyz".index(ax[1]))
            return ("name", t[1], t[2])
        if t[1] == "(":
            e = binary(0)
            close = take()
            if close[1] != ")":
                raise AssumeError("expected `)`", close[2])
            return e
        raise AssumeError(
            "expected a number, a name or `(`" if t[0] != "end" else "the expression ends early", t[2]
        )

    tree = binary(0)
    if peek()[0] != "end":
        raise AssumeError(f"unexpected `{peek()[1]}`", peek()[2])
    return tree


@record
class Assume:
    text: str  # the expression as written
    where: str  # "pyproject.toml" or "kernel.cu:12"
    tree: tuple = ()


@record
class Contract:
    """The launch facts one kernel's checks may rely on."""

    block: tuple[int, int, int] | None = None
    grid: tuple[int, int, int] | None = None
    assumes: list[Assume] = field(default_factory=list)
    param_names: list[str] | None = None  # the source's names of the kernel's parameters, in order
    origin: str = ""  # where the block/grid came from

    @property
    def empty(self) -> bool:
        return self.block is None and self.grid is None and not self.assumes

    @property
    def text(self) -> str:
        parts = []
        if self.block is not None:
            parts.append(
                f"block {'x'.join(map(str, self.block))}" + (f" ({self.origin})" if self.origin else "")
            )
        if self.grid is not None:
            parts.append(
                f"grid {'x'.join(map(str, self.grid))}" + (f" ({self.origin})" if self.origin else "")
            )
        parts += [f"`{a.text}` ({a.where})" for a in self.assumes]
        return ", ".join(parts)

    def names(self, fn: Any) -> dict[str, int]:
        """Parameter name -> index: the source's names, and `param_N` / the IR's own names."""
        out: dict[str, int] = {}
        for i, a in enumerate(fn.params):
            out[f"param_{i}"] = i
            nm = a.name or ""
            if "_param_" in nm:
                out["param_" + nm.rsplit("_param_", 1)[1].split(".", 1)[0]] = i
            elif nm:
                out[nm.split(".", 1)[0]] = i
        for i, n in enumerate(self.param_names or []):
            if n and i < len(fn.params):
                out[n] = i
        return out

    def constraints(self, launch: Any) -> list:
        z = launch.z
        bv = z.BitVecVal
        cs: list = []
        if self.block is not None:
            cs += [n == bv(v, 32) for n, v in zip(launch.ntid, self.block)]
        if self.grid is not None:
            cs += [n == bv(v, 32) for n, v in zip(launch.nctaid, self.grid)]
        names = self.names(launch.fn)
        for a in self.assumes:
            cs.append(_to_bool(z, _encode(z, a.tree, launch, names, a)))
        return cs


def _param64(z: Any, launch: Any, idx: int) -> Any:
    a = launch.fn.params[idx]
    t = a.type
    if getattr(t, "is_bool", False):
        return z.If(z.Bool(f"param:{idx}:{a.name}"), z.BitVecVal(1, 64), z.BitVecVal(0, 64))
    bits = getattr(t, "bits", 64) or 64
    p = launch.param(idx, bits)
    if bits >= 64:
        return p
    return z.SignExt(64 - bits, p) if getattr(t, "is_signed", False) else z.ZeroExt(64 - bits, p)


def _to_bool(z: Any, t: Any) -> Any:
    return t if z.is_bool(t) else t != 0


def _to_int(z: Any, t: Any) -> Any:
    return z.If(t, z.BitVecVal(1, 64), z.BitVecVal(0, 64)) if z.is_bool(t) else t


def _encode(z: Any, e: tuple, launch: Any, names: dict[str, int], a: Assume) -> Any:
    k = e[0]
    if k == "int":
        return z.BitVecVal(e[1], 64)
    if k == "name":
        idx = names.get(e[1])
        if idx is None:
            known = ", ".join(sorted(n for n in names if not n.startswith("param_"))) or "none"
            raise AssumeError(f"`{e[1]}` is not a parameter of the kernel (parameters: {known})", e[2])
        return _param64(z, launch, idx)
    if k == "launch":
        arr = launch.ntid if e[1] == "ntid" else launch.nctaid
        return z.ZeroExt(32, arr[e[2]])
    if k in ("u-", "u~", "u!"):
        x = _encode(z, e[1], launch, names, a)
        if k == "u!":
            return z.Not(_to_bool(z, x))
        x = _to_int(z, x)
        return -x if k == "u-" else ~x
    x = _encode(z, e[1], launch, names, a)
    y = _encode(z, e[2], launch, names, a)
    if k in ("&&", "||"):
        xs, ys = _to_bool(z, x), _to_bool(z, y)
        return z.And(xs, ys) if k == "&&" else z.Or(xs, ys)
    x, y = _to_int(z, x), _to_int(z, y)
    ops = {
        "+": lambda: x + y,
        "-": lambda: x - y,
        "*": lambda: x * y,
        "/": lambda: x / y,
        "%": lambda: z.SRem(x, y),
        "<<": lambda: x << y,
        ">>": lambda: x >> y,
        "&": lambda: x & y,
        "|": lambda: x | y,
        "^": lambda: x ^ y,
        "==": lambda: x == y,
        "!=": lambda: x != y,
        "<": lambda: x < y,
        "<=": lambda: x <= y,
        ">": lambda: x > y,
        ">=": lambda: x >= y,
    }
    return ops[k]()


def check_names(tree: tuple, names: set[str]) -> tuple[str, int] | None:
    """The first parameter name in `tree` that is not in `names` (with its column), else None."""
    if tree[0] == "name":
        return None if tree[1] in names else (tree[1], tree[2])
    for sub in tree[1:]:
        if isinstance(sub, tuple):
            bad = check_names(sub, names)
            if bad is not None:
                return bad
    return None
