"""Known-bits facts for linear thread ids, used by the uniformity solver (`irc.analysis.uniformity`).

Why: warps are formed from the *linear* thread id `L = tid.x + ntid.x * (tid.y + ntid.y * tid.z)`
(consecutive runs of 32), whatever the block shape. So `L = 32 * warp + lane` exactly, `L / 32` is the warp
index (cooperative groups' `meta_group_rank()`), and `L < 32` is exactly warp 0. nvcc lowers
`thread_rank()` to that expression (two `mad.lo`), which the base rules (stated for `tid.x`) did not see.

Facts recorded on the solver:
- `suni` (memo of `_warp_uniform_struct`, computed on demand): values structurally uniform per warp
  (constants, kernel parameters, `ntid`/`nctaid`/`ctaid`/cluster registers, `tid.y`/`tid.z` under the
  block-shape rule, pure ops of those). No fixpoint needed: none of them can become less uniform.
- `lane_form`: `v = 32 * w + lane` with `w` uniform per warp and an unknown offset that is a multiple of
  32: the linear id itself, and `u + L` with `u` a multiple of 32 that is uniform per warp
  (`ctaid.x * ntid.x + tid.x` when `ntid.x` is a multiple of 32, the grid-linear id of a 1-D launch).
- `exact`: the lane form holds with no block-shape assumption (the linear id from all three axes).

`warp_index` then makes `v >> s` (s >= 5), unsigned `v / c` and `v & m` (c, m multiples of 32) WARP, and
`minus_lane` makes `(tid.x + u) - (tid.x & 31)` WARP (u uniform per warp, also carried round a loop by
uniform steps: a grid-stride loop that runs while any lane of the warp is in range).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from irc.analysis.uniformity_base import Level, Reason, int_const
from irc.ir.core import BlockArg, Op, OpResult, Value
from irc.ir.types import ScalarType

if TYPE_CHECKING:  # the solver imports this module
    from irc.analysis.uniformity import Solver

_UNIFORM_SREG_PREFIXES = ("ntid.", "nctaid.", "ctaid.", "cluster", "nclusterid.", "clusterid.", "smid")
_THROUGH = ("copy", "bitcast", "cvt")
# the ops `structural` looks at (casts keep a lane form, `add` makes one); others are skipped early
NAMES = frozenset({"copy", "bitcast", "cvt", "add"})
_PURE: dict[str, bool] = {}


def has_trait(op: Op, trait: str) -> bool:
    """`op.has_trait(trait)` memoized per op name (the solver's hot path); only used for "pure"."""
    r = _PURE.get(op.name)
    if r is None:
        r = _PURE[op.name] = op.has_trait(trait)
    return r


def _strip(v: Value) -> Value:
    """Look through copies and integer casts of at least 16 bits (they keep the low 5 bits)."""
    for _ in range(16):
        if not isinstance(v, OpResult) or v.op.name not in _THROUGH or not v.op.operands:
            return v
        t = v.type
        if not (isinstance(t, ScalarType) and t.is_int and t.bits >= 16):
            return v
        v = v.op.operands[0]
    return v


def _sreg(v: Value) -> str | None:
    v = _strip(v)
    if isinstance(v, OpResult) and v.op.name == "sreg":
        return str(v.op.attrs.get("name"))
    return None


def _is_mul_of(v: Value, x: str, y: str) -> bool:
    """v == sreg x * sreg y (either order)."""
    v = _strip(v)
    if not (isinstance(v, OpResult) and v.op.name == "mul" and len(v.op.operands) == 2):
        return False
    a, b = (_sreg(o) for o in v.op.operands)
    return {a, b} == {x, y}


def _is_yz_linear(s: Solver, v: Value) -> bool:
    """v == tid.y + ntid.y * tid.z (or tid.y when the block is known to have one z plane)."""
    v = _strip(v)
    if _sreg(v) == "tid.y":
        return s.dims is not None and s.dims[2] == 1
    if not (isinstance(v, OpResult) and v.op.name == "add" and len(v.op.operands) == 2):
        return False
    a, b = v.op.operands
    return (_sreg(a) == "tid.y" and _is_mul_of(b, "ntid.y", "tid.z")) or (
        _sreg(b) == "tid.y" and _is_mul_of(a, "ntid.y", "tid.z")
    )


def _is_row_offset(s: Solver, v: Value) -> bool:
    """v == ntid.x * (tid.y + ntid.y * tid.z): the linear id of lane 0 of the row."""
    v = _strip(v)
    if not (isinstance(v, OpResult) and v.op.name == "mul" and len(v.op.operands) == 2):
        return False
    a, b = v.op.operands
    return (_sreg(a) == "ntid.x" and _is_yz_linear(s, b)) or (_sreg(b) == "ntid.x" and _is_yz_linear(s, a))


def _warp_uniform_struct(s: Solver, v: Value, depth: int = 0) -> bool:
    """Structurally uniform per warp (memoized, computed on demand): constants, kernel parameters,
    `ntid`/`nctaid`/`ctaid`/cluster registers, `tid.y`/`tid.z` where the solver's own rule makes them
    WARP, and pure ops of those. No fixpoint needed: none of these can become less uniform."""
    memo = s.suni
    hit = memo.get(v)
    if hit is not None:
        return hit
    res = False
    if not isinstance(v, OpResult):
        res = v in s.entry_args
    else:
        op = v.op
        n = op.name
        if n == "const":
            res = True
        elif n == "sreg":
            name = str(op.attrs.get("name", ""))
            if name.startswith(_UNIFORM_SREG_PREFIXES):
                res = True
            elif name in ("tid.y", "tid.z") and s.f.warp_structure:
                d = s.dims
                stride = 1 if d is None else (d[0] if name == "tid.y" else d[0] * d[1])
                res = d is None or stride % 32 == 0
        elif op.operands and depth < 24 and n not in ("load", "load_vec", "undef") and has_trait(op, "pure"):
            res = all(_warp_uniform_struct(s, o, depth + 1) for o in op.operands)
    memo[v] = res
    return res


def structural(s: Solver, op: Op, r: Value) -> None:
    """Record `lane_form` / `exact` facts for the first result `r` of `op`."""
    n = op.name
    ops = op.operands
    if not ops:
        return
    if n in _THROUGH:
        t = r.type
        if isinstance(t, ScalarType) and t.is_int and t.bits >= 16 and ops[0] in s.lane_form:
            s.lane_form.add(r)
            if ops[0] in s.exact:
                s.exact.add(r)
        return
    if n != "add" or len(ops) != 2:
        return
    a, b = ops
    tid_off = s.tid_off
    for x, y in ((a, b), (b, a)):
        if tid_off.get(y) == 0 and _sreg(y) == "tid.x" and _is_row_offset(s, x):
            s.lane_form.add(r)
            s.exact.add(r)
            s.tid_off[r] = 0  # exactly the linear thread id
            return
        if y not in s.aligned:
            continue
        k = tid_off.get(x)
        lane_x = x in s.lane_form or (k is not None and k % 32 == 0)
        if lane_x and _warp_uniform_struct(s, y):
            s.lane_form.add(r)
            return


def propagate_exact(s: Solver, op: Op, r: Value) -> None:
    """A lane-preserving form derived from an exact linear id (by the base rules) is exact too."""
    if r in s.exact:
        return
    if (r in s.tid_off or r in s.lane_form) and any(o in s.exact for o in op.operands):
        s.exact.add(r)
        s.lane_form.add(r)


def warp_index(s: Solver, op: Op) -> tuple[Level, Reason | None] | None:
    """`v >> c` (c >= 5), unsigned `v / c` and `v & c` (c a multiple of 32) of a lane form: WARP."""
    n = op.name
    a, b = op.operands
    c = int_const(b)
    if n == "and" and a not in s.lane_form:
        a, c = b, int_const(a)
    if a not in s.lane_form or c is None:
        return None
    if not (s.f.warp_structure or a in s.exact):
        return None
    t = a.type
    unsigned = isinstance(t, ScalarType) and not t.is_signed
    ok = (
        (n == "shr" and c >= 5)
        or (n == "div" and c > 0 and c % 32 == 0 and unsigned)
        or (n == "and" and c % 32 == 0)
    )
    if not ok:
        return None
    return Level.WARP, Reason("seed", "the linear thread id (uniform per warp: a function of the warp index)")


def minus_lane(s: Solver, op: Op) -> tuple[Level, Reason | None] | None:
    """`v - (tid.x & 31)` with `v = tid.x + u`, `u` uniform per warp: `u + 32 * (tid.x >> 5)`, uniform per
    warp when the block's warps lie along x (`warp_structure`). A grid-stride loop that runs while any lane
    of the warp is in range tests it (`for (i = base + tid; i - lane < n; i += stride)`: the warp stays
    converged for its ballots). `v` may be carried by a loop that adds warp-uniform steps."""
    if op.name != "sub" or len(op.operands) != 2 or not s.f.warp_structure:
        return None
    v, m = op.operands
    m = _strip(m)
    if not (isinstance(m, OpResult) and m.op.name == "and" and len(m.op.operands) == 2):
        return None
    x, c = m.op.operands
    if int_const(c) != 31:
        x, c = c, x
    if int_const(c) != 31 or _sreg(x) != "tid.x" or not tid_plus_uniform(s, v):
        return None
    return Level.WARP, Reason("seed", "tid.x + u minus its lane: the warp's first index (uniform per warp)")


def tid_plus_uniform(s: Solver, v: Value) -> bool:
    """Whether `v = tid.x + u` with `u` uniform per warp: `tid.x`, `u + v'`, `a * b + v'` (a, b uniform), casts
    of at least 32 bits, and a block argument every incoming value of which is such a value or itself plus
    a uniform step (a grid-stride counter). Memoized per value."""
    hit = s.tplus.get(v)
    if hit is None:
        hit = s.tplus[v] = _tid_plus(s, v, frozenset(), 0)
    return hit


def _tid_plus(s: Solver, v: Value, assumed: frozenset, depth: int) -> bool:
    if depth > 24:
        return False
    if v in assumed:
        return True  # the argument under question, one step round its loop
    if _sreg(v) == "tid.x":
        return True
    if isinstance(v, BlockArg):
        ins = v.incoming()
        return bool(ins) and all(_tid_plus(s, x, assumed | {v}, depth + 1) for x in ins)
    if not isinstance(v, OpResult) or len(v.op.results) != 1:
        return False
    op = v.op
    ops = op.operands
    if op.name in _THROUGH and ops:
        t = v.type
        return (
            isinstance(t, ScalarType)
            and t.is_int
            and t.bits >= 32
            and _tid_plus(s, ops[0], assumed, depth + 1)
        )
    if op.name == "add" and len(ops) == 2:
        return any(
            _warp_uniform_struct(s, u) and _tid_plus(s, x, assumed, depth + 1)
            for x, u in ((ops[0], ops[1]), (ops[1], ops[0]))
        )
    if op.name == "mad" and len(ops) == 3:
        return (
            _warp_uniform_struct(s, ops[0])
            and _warp_uniform_struct(s, ops[1])
            and _tid_plus(s, ops[2], assumed, depth + 1)
        )
    return False


def shifted_compare(s: Solver, op: Op) -> tuple[Level, Reason | None] | None:
    """`(L << sh) < c` (and `<=`, `>`, `>=`) with `L = tid + k` a thread index (below 1024 + k): the same
    as comparing `L` with `ceil(c / 2^sh)`, a warp boundary when that minus k is a multiple of 32. nvcc
    writes `meta_group_rank() == 0` of a cooperative-groups tile as `(thread_rank << 11) > 65535`."""
    a, b = op.operands
    pred = op.attrs.get("pred")
    flip = {"lt": "gt", "gt": "lt", "le": "ge", "ge": "le"}
    c = int_const(b)
    x = _strip(a)
    if c is None:
        c, x, pred = int_const(a), _strip(b), flip.get(str(pred))
    if c is None or pred not in ("lt", "ge", "le", "gt") or c < 0:
        return None
    if not (isinstance(x, OpResult) and x.op.name == "shl" and len(x.op.operands) == 2):
        return None
    sh = int_const(x.op.operands[1])
    base = _strip(x.op.operands[0])
    k = s.tid_off.get(base)
    if sh is None or not 0 <= sh < 32 or k is None or k < 0 or k % 32:
        return None
    if not (s.f.warp_structure or base in s.exact):
        return None
    t = x.type
    bits = t.bits if isinstance(t, ScalarType) else 32
    if ((1023 + k) << sh) >= (1 << (bits - 1)):
        return None  # the shift could wrap
    step = 1 << sh
    bound = -(-c // step) if pred in ("lt", "ge") else c // step + 1  # x < bound
    if (bound - k) % 32:
        return None
    return Level.WARP, Reason("seed", "the linear thread id (uniform per warp: a function of the warp index)")
