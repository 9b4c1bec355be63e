"""The launch a query ranges over: block and grid extents, the block both threads are in, and the kernel
parameters, as solver symbols with the bounds the kernel and its contract give.

Block extents come from `@launch` / `.reqntid` (fixed), else `.maxntid` (an upper bound on the product),
else any legal block (each extent at least 1, x and y at most 1024, z at most 64, at most 1024 threads).
Grid extents are at least 1 (x below 2^31, y and z at most 65535). A contract
(`irc.analysis.symbolic.contract`) adds the user's facts: exact sizes, `n % 64 == 0`, ...
"""

from __future__ import annotations

from typing import Any

from irc.analysis.symbolic.solver import Z3Context
from irc.ir.core import Function

AXES = ("x", "y", "z")
MAX_BLOCK = (1024, 1024, 64)
MAX_GRID = ((1 << 31) - 1, 65535, 65535)


class Launch:
    """Shared symbols of one query: `ntid`, `nctaid`, `ctaid` (one block: both threads are in it), the
    parameters, and the constraints that bound them."""

    def __init__(self, fn: Function, contract: Any = None):
        z = self.z = Z3Context()
        self.fn = fn
        bv = z.BitVecVal
        # narrow symbols, zero-extended: the solver then knows the high bits are 0 (multiplications by
        # the block extent bit-blast into far smaller circuits)
        self.ntid = [z.ZeroExt(32 - w, z.BitVec(f"ntid.{a}", w)) for a, w in zip(AXES, (11, 11, 7))]
        self.nctaid = [z.BitVec(f"nctaid.{a}", 32) for a in AXES]
        self.ctaid = [z.BitVec(f"ctaid.{a}", 32) for a in AXES]
        cs: list = []
        fixed = fn.attrs.get("launch")
        bound = fn.attrs.get("max_threads")
        self.fixed_block: tuple[int, int, int] | None = None
        self.one_d = False
        if isinstance(fixed, (list, tuple)) and fixed and all(isinstance(x, int) for x in fixed):
            dims = (list(fixed) + [1, 1, 1])[:3]
            self.fixed_block = (dims[0], dims[1], dims[2])
            cs += [n == bv(d, 32) for n, d in zip(self.ntid, dims)]
        elif not reads_yz(fn):
            # a kernel that reads no y or z coordinate of its threads is written for 1-D blocks
            # (`lane = threadIdx.x & 31` is its lane only then): docs/analyzer.md, "The launch"
            self.one_d = True
            cs += [
                z.UGE(self.ntid[0], 1),
                z.ULE(self.ntid[0], MAX_BLOCK[0]),
                self.ntid[1] == 1,
                self.ntid[2] == 1,
            ]
            if isinstance(bound, (list, tuple)) and bound and isinstance(bound[0], int):
                cs.append(z.ULE(self.ntid[0], bv(max(1, bound[0] * max(1, _prod(bound[1:]))), 32)))
        else:
            for n, hi in zip(self.ntid, MAX_BLOCK):
                cs += [z.UGE(n, 1), z.ULE(n, hi)]
            limit = 1024
            if isinstance(bound, (list, tuple)) and bound and all(isinstance(x, int) for x in bound):
                b = (list(bound) + [1, 1, 1])[:3]
                limit = max(1, b[0] * b[1] * b[2])
            # each extent is below 2^11 (z below 2^7), so the product fits 32 bits without wrapping
            total = self.ntid[0] * self.ntid[1] * self.ntid[2]
            cs.append(z.ULE(total, bv(limit, 32)))
        for n, c, hi in zip(self.nctaid, self.ctaid, MAX_GRID):
            cs += [z.UGE(n, 1), z.ULE(n, hi), z.ULT(c, n)]
        self.params: dict[int, Any] = {}
        self.constraints = cs
        self.contract = contract
        if contract is not None:
            self.constraints += contract.constraints(self)

    def param(self, index: int, bits: int) -> Any:
        """The symbol of parameter `index` (one per parameter; both threads see the same value)."""
        p = self.params.get(index)
        if p is None:
            z = self.z
            name = self.fn.params[index].name or f"param{index}"
            p = self.params[index] = z.BitVec(f"param:{index}:{name}", bits)
        return p


def _prod(xs: object) -> int:
    out = 1
    for x in xs:  # type: ignore[attr-defined]
        if isinstance(x, int):
            out *= x
    return out


_YZ = frozenset({"tid.y", "tid.z", "ntid.y", "ntid.z"})
_Z = frozenset({"tid.z", "ntid.z"})


def reads_yz(fn: Function) -> bool:
    """Whether `fn`, or a function it calls (transitively), reads a y/z thread coordinate or block extent."""
    return _reads(fn, _YZ)


def reads_z(fn: Function) -> bool:
    """Whether `fn`, or a function it calls (transitively), reads a z thread coordinate or block extent."""
    return _reads(fn, _Z)


def _reads(fn: Function, names) -> bool:  # type: ignore[no-untyped-def]
    mod = fn.module
    by_name = {f.name: f for f in mod.functions} if mod is not None else {}
    seen = {fn.name}
    work = [fn]
    while work:
        f = work.pop()
        for op in f.ops():
            if op.name == "sreg" and str(op.attrs.get("name")) in names:
                return True
            if op.name == "call":
                callee = by_name.get(str(op.attrs.get("callee")))
                if callee is None and op.attrs.get("callee") is not None:
                    return True  # an unknown callee may read them
                if callee is not None and callee.name not in seen:
                    seen.add(callee.name)
                    work.append(callee)
    return False
