"""When a maybe-unwritten PTX register read by if-converted code is discarded in every thread (precision).

Why: nvcc if-converts guarded source code into `selp`. cub's block scan keeps `warp_prefix` unassigned in
warp 0 (`if (warp_id == k) warp_prefix = aggregate;` for k = 1..7) and uses it only under
`if (warp_id != 0)`; nvcc turns the assignments into a `selp` chain that starts from whatever the register
held before, computes `warp_prefix + x` unconditionally and keeps that sum with a last `selp` on
`tid.x > 31`. Every thread that would see the unwritten value throws it away, but no guard of the read
matches the guard of the write, so the guard rule (`uninit_guard`) cannot see it.

The rule decides it by running the threads: for every `tid.x` of the block (the `.maxntid`/`.reqntid` or
launch extent, else 1024), evaluate the conditions of the selects on the way (pure integer expressions
of `tid.x` and constants; each op's `fold` from the op table) and follow the unwritten value from the read
through the arm each select picks in that thread, through pure arithmetic and through block arguments.
The read is silent when in no thread the value reaches anything else: a branch condition, an address, a
stored value, a collective, a call. A condition that is not such an expression keeps both arms; other
special registers, `tid.y`/`tid.z` of a block whose extent there is not 1, and a walk longer than the
budget give no proof (the read is reported).
"""

from __future__ import annotations

from irc.ir.core import Op, OpResult, Value
from irc.ir.optable import OPS

_MAX_THREADS = 1024
_BUDGET = 200_000  # walk steps over all threads
_FOLLOW = frozenset(
    {"add", "sub", "mul", "and", "or", "xor", "min", "max", "shl", "shr", "not", "neg", "abs", "cmp", "cvt"}
    | {"copy", "bitcast", "fma", "select"}
)


def _extent(fn_attrs: dict, axis: int) -> int | None:
    for key in ("launch", "max_threads"):
        d = fn_attrs.get(key)
        if isinstance(d, (list, tuple)) and len(d) > axis and isinstance(d[axis], int) and d[axis] > 0:
            return d[axis]
    return None


class ThreadEval:
    """Values of pure integer expressions of `tid.x` in one thread (None: not such an expression)."""

    def __init__(self, tid: int, tid_yz_zero: bool):
        self.tid = tid
        self.yz_zero = tid_yz_zero
        self.memo: dict[int, int | bool | None] = {}

    def value(self, v: Value, depth: int = 0) -> int | bool | None:
        if not isinstance(v, OpResult) or depth > 24:
            return None
        key = id(v)
        if key in self.memo:
            return self.memo[key]
        r = self._eval(v, depth)
        self.memo[key] = r
        return r

    def _eval(self, v: OpResult, depth: int) -> int | bool | None:
        op = v.op
        n = op.name
        if n == "const":
            c = op.attrs.get("value")
            return c if isinstance(c, (int, bool)) else None
        if n == "sreg":
            name = op.attrs.get("name")
            if name == "tid.x":
                return self.tid
            return 0 if name in ("tid.y", "tid.z") and self.yz_zero else None
        args = [self.value(o, depth + 1) for o in op.operands]
        if any(a is None for a in args):
            return None
        d = OPS.get(n)
        if d is None or d.sem is None or "pure" not in d.traits or len(op.results) != 1:
            return None
        val = d.fold(args, v.type, op.attrs, [o.type for o in op.operands])  # the op table's semantics
        return val if isinstance(val, (int, bool)) else None


class DiscardedReads:
    """`discarded(v, op)`: in every thread, the value `op` reads from `v` dies in the arms that selects do
    not pick (see the module docstring)."""

    def __init__(self, fn_attrs: dict):
        nx = _extent(fn_attrs, 0)
        self.threads = nx if nx is not None and nx <= _MAX_THREADS else _MAX_THREADS
        self.yz_zero = _extent(fn_attrs, 1) == 1 and _extent(fn_attrs, 2) == 1
        self.budget = _BUDGET

    def discarded(self, v: Value, op: Op) -> bool:
        if op.name not in _FOLLOW or op.name == "cmp":
            return False  # only a select or arithmetic feeding selects can be if-converted away
        for tid in range(self.threads):
            if not self._dies(v, op, ThreadEval(tid, self.yz_zero)):
                return False
        return True

    def _dies(self, root: Value, first: Op, ev: ThreadEval) -> bool:
        seen: set[int] = {id(root)}
        work: list[tuple[Value, Op]] = [(root, first)]
        while work:
            x, u = work.pop()
            self.budget -= 1
            if self.budget < 0:
                return False
            out = self._step(x, u, ev)
            if out is None:
                return False
            for r in out:
                if id(r) in seen:
                    continue
                seen.add(id(r))
                for user in r.users:
                    work.append((r, user))
        return True

    def _step(self, x: Value, u: Op, ev: ThreadEval) -> list[Value] | None:
        """The values the unwritten `x` flows into through `u` in this thread, or None when `u` uses it."""
        if u.successors:
            if any(o is x for o in u.operands):
                return None  # a branch on it
            return [s.args[i] for s, args in zip(u.successors, u.succ_args) for i, a in enumerate(args)
                    if a is x and i < len(s.args)]  # fmt: skip
        if u.name not in _FOLLOW:
            return None
        if u.name == "select" and len(u.operands) == 3:
            c, a, b = u.operands
            if c is x:
                return None
            cv = ev.value(c)
            if isinstance(cv, bool):
                picked = a if cv else b
                return list(u.results) if picked is x else []
        return list(u.results)
