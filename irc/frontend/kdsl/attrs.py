"""Validation of item attributes (spec section 7): `@launch`, `@max_registers`, `@min_blocks_per_sm`,
`@cluster` on kernels and `@allow` on kernels and functions.

Values are constant expressions (they may name `const`s and `param`s); a value that is not a constant or
is out of range is a `const-error`, an unknown attribute a `name-error`, `@cluster` before sm_90 an
`unsupported-target`. `@allow` names analyzer checks, written like `barrier-divergence` (the parser sees
`barrier - divergence`, which is turned back into the name here).
"""

from __future__ import annotations

from irc.diagnostics import warning
from irc.target import DEFAULT_ARCH, max_block

from . import ast
from .intrinsics import target_supports
from .typed import KernelInfo


def waivable_checks() -> frozenset[str]:
    """The checks `@allow` can waive: every check of the analyzer's table (the TMA checks with them) and
    `register-pressure` (a warning of the backend). Front-end and target errors cannot be waived: a kernel
    that does not compile for its target has no code to keep."""
    from irc.analysis import TMA_CHECKS
    from irc.analysis.checks import CHECKS

    return frozenset(CHECKS) | frozenset(TMA_CHECKS) | {"register-pressure"}


KERNEL_ATTRS = ("launch", "max_registers", "min_blocks_per_sm", "cluster", "allow")
MAX_BLOCK = max_block(DEFAULT_ARCH)


def check_name(e: ast.Expr | list) -> str | None:
    """`barrier - divergence` (as parsed) -> "barrier-divergence"; None if it is not a dashed name."""
    if isinstance(e, ast.Name):
        return e.ident
    if isinstance(e, ast.Binary) and e.op == "-":
        lhs, rhs = check_name(e.lhs), check_name(e.rhs)
        if lhs is not None and rhs is not None:
            return f"{lhs}-{rhs}"
    return None


def validate(an, item: ast.FnItem) -> tuple[KernelInfo, frozenset[str]]:
    """Check `item`'s attributes; returns the kernel facts (meaningful for kernels) and the allowed checks."""
    info = KernelInfo(item)
    allow: set[str] = set()
    seen: dict[str, ast.Attribute] = {}
    for attr in item.attrs:
        name = attr.name
        if name not in KERNEL_ATTRS:
            an.err(
                "name-error",
                f"unknown attribute `@{name}`",
                attr.span,
                help="attributes: " + ", ".join(f"@{a}" for a in KERNEL_ATTRS),
            )
            continue
        if name in seen and name != "allow":
            an.err("const-error", f"`@{name}` is given twice", attr.span)
            continue
        seen[name] = attr
        if name != "allow" and not item.kernel:
            an.err("const-error", f"`@{name}` applies to kernels only", attr.span)
            continue
        if name == "allow":
            allow |= _allow(an, attr)
        elif name == "launch":
            info.block = _launch(an, attr)
        elif name == "max_registers":
            info.max_registers = _single_int(an, attr, 1, 255)
        elif name == "min_blocks_per_sm":
            info.min_blocks_per_sm = _single_int(an, attr, 1, 64)
        elif name == "cluster":
            info.cluster = _cluster(an, attr)
    if "min_blocks_per_sm" in seen and "launch" not in seen:
        an.err(
            "const-error",
            "`@min_blocks_per_sm` needs `@launch(block = ...)`",
            seen["min_blocks_per_sm"].span,
            help="ptxas honours .minnctapersm only together with a known block size",
        )
    info.allow = frozenset(allow)
    return info, info.allow


def _values(an, attr: ast.Attribute, exprs: list[ast.Expr], what: str, lo: int, hi: int) -> list[int] | None:
    out = []
    for e in exprs:
        v = an.global_const(e, what)
        if v is None:
            return None
        if not isinstance(v, int) or isinstance(v, bool) or not lo <= v <= hi:
            an.err("const-error", f"{what} must be an integer in {lo}..{hi}, found {v}", e.span)
            return None
        out.append(v)
    return out


def _single_int(an, attr: ast.Attribute, lo: int, hi: int) -> int | None:
    args = attr.args
    if len(args) != 1 or args[0].key is not None or isinstance(args[0].value, list):
        an.err(
            "const-error",
            f"`@{attr.name}` takes one integer, e.g. `@{attr.name}({lo if lo > 1 else 2})`",
            attr.span,
        )
        return None
    vals = _values(an, attr, [args[0].value], f"`@{attr.name}`", lo, hi)
    return vals[0] if vals else None


def _dims(an, attr: ast.Attribute, value: ast.Expr | list, what: str, limits) -> tuple[int, int, int] | None:
    exprs = value if isinstance(value, list) else [value]
    if not 1 <= len(exprs) <= 3:
        an.err("const-error", f"{what} has 1 to 3 dimensions, found {len(exprs)}", attr.span)
        return None
    dims = []
    for e, hi in zip(exprs, limits):
        vals = _values(an, attr, [e], what, 1, hi)
        if vals is None:
            return None
        dims.append(vals[0])
    while len(dims) < 3:
        dims.append(1)
    return dims[0], dims[1], dims[2]


def _launch(an, attr: ast.Attribute) -> tuple[int, int, int] | None:
    if len(attr.args) != 1 or attr.args[0].key != "block":
        an.err("const-error", "`@launch` takes `block = N` or `block = (x, y, z)`", attr.span)
        return None
    block = _dims(an, attr, attr.args[0].value, "the block size", MAX_BLOCK)
    if block is not None and block[0] * block[1] * block[2] > 1024:
        an.err(
            "const-error",
            f"a block has at most 1024 threads, found {block[0] * block[1] * block[2]}",
            attr.args[0].span,
        )
        return None
    return block


def _cluster(an, attr: ast.Attribute) -> tuple[int, int, int] | None:
    if not target_supports("sm_90", an.arch):
        an.err(
            "unsupported-target", f"`@cluster` requires sm_90 or newer; the target is {an.arch}", attr.span
        )
    if any(a.key is not None for a in attr.args) or not attr.args:
        an.err("const-error", "`@cluster` takes the cluster shape: `@cluster(x, y, z)`", attr.span)
        return None
    value: list[ast.Expr] = []
    for a in attr.args:
        value.extend(a.value if isinstance(a.value, list) else [a.value])
    dims = _dims(an, attr, value, "the cluster shape", (16, 16, 16))
    if dims is not None and dims[0] * dims[1] * dims[2] > 16:
        an.err(
            "const-error", f"a cluster has at most 16 blocks, found {dims[0] * dims[1] * dims[2]}", attr.span
        )
        return None
    return dims


def _allow(an, attr: ast.Attribute) -> set[str]:
    out = set()
    for a in attr.args:
        name = check_name(a.value) if a.key is None and not isinstance(a.value, list) else None
        if name is None:
            an.err("const-error", "`@allow` takes check names, e.g. `@allow(barrier-divergence)`", a.span)
            continue
        waivable = waivable_checks()
        if name not in waivable:
            an.warnings.append(
                warning(
                    "name-error",
                    f"`{name}` is not a check `@allow` can waive; `@allow` ignores it",
                    a.span,
                    help="`@allow` takes: " + ", ".join(sorted(waivable)),
                )
            )
        out.add(name)
    return out
