"""Facts for the `shared-race` check: concrete witnesses of unordered shared-memory conflicts.

Why concrete threads instead of a solver: an index such as `tid.x ^ 1`, `tid.x + s` with `s` halving in
a loop, or `ty * 16 + k` is decided exactly by evaluating it for every thread of the block as a vector
(the launch bounds fix the block: `@launch`, `.reqntid`, else `.maxntid`). The vectors are plain lists
(`irc.analysis.ivec`) while the work is small and numpy past that (see `backend`): the same values
either way, and a short `irc compile` never pays numpy's import. Values the analysis cannot evaluate (kernel parameters, loaded data, merges of per-thread paths) make an access "not
analysed" in that context: it is silent rather than guessed. What is found always comes with the two
threads, the byte and the iterations, which is the witness the check prints.

The pieces:
- `reach`: from the kernel entry and after every barrier, the accesses reachable without crossing a
  barrier (or, for pairs of lanes of one warp, without crossing any warp collective either). Each access
  is tagged with how many back edges of each loop the path took: a read in iteration k against a write
  in iteration k+1 is the missing second barrier of a tiled loop.
- `ThreadEval`: evaluates IR values for all threads of one block in a given loop-iteration context, and
  the guard "thread t executes this block in these iterations" from the dominating branch conditions.
- `find_witness`: joins two accesses' per-thread byte ranges and returns the first pair of different
  threads touching one byte.

One assumption is made on purpose: a loop whose continue condition is uniform but unknown (a trip count
from a kernel parameter) is taken to run at least twice for some input; nothing else is assumed.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable
from typing import Any

from irc.analysis.cfg import CFG, Loop
from irc.analysis.ivec import IVec
from irc.analysis.lanes import domain_for
from irc.analysis.shared_loc import access_bytes
from irc.ir.core import Block, BlockArg, Function, Op, OpResult, Value
from irc.ir.optable import OPS
from irc.ir.semantics import Unknown
from irc.ir.types import ArrayType, PtrType, ScalarType, size_of
from irc.records import field, record

MAX_ITERS = 16  # iterations enumerated per loop ("any iteration"; 4 each when two such loops nest)
MAX_PAIRS = 600  # pair evaluations per kernel; past the budget the rest is not analysed (cost)
MAX_ACCESSES = 400  # larger kernels are not analysed (cost)
MAX_BLOCKS = 3000
DEFAULT_BLOCK = (64, 1, 1)  # threads assumed when no launch bound is known (ntid stays unknown)
SYM_SPACING = 1 << 22
MAX_EVAL_DEPTH = 200  # nested value evaluations (recursion) before a value is unknown


class _Numpy:
    """numpy, imported on first use: only the per-thread evaluation of kernels with shared-memory writes
    needs it, and importing it costs about 0.1 s that `irc compile` / `irc check` of other kernels skip.
    The first attribute read replaces this placeholder with the module itself."""

    def __getattr__(self, name: str) -> Any:
        import numpy

        globals()["np"] = numpy
        return getattr(numpy, name)


np: Any = _Numpy()

Vector = Any  # per-thread values: an `IVec` or a numpy int64/bool array (see `backend`)
LIST_THREADS = 1024  # blocks up to this many threads are evaluated on lists (no numpy import)
LIST_JOIN_KEYS = 100_000  # witness joins up to this many byte keys run on dicts, larger ones on numpy
# Lists win while the work is small: numpy's import (~55 ms) is paid once per process, its per-element
# cost is far lower. So a process uses lists until it has indexed this many bytes of witness joins
# (~0.1 s of list work), and numpy from then on: a one-file `irc check` / `irc compile` of an ordinary
# kernel never imports numpy, a corpus run or a large kernel soon stops paying the list cost.
LIST_WORK_BUDGET = 300_000
_list_work = [0]


def backend(n_threads: int) -> Any:
    """The vector library for a block of `n_threads`: `irc.analysis.ivec.lib` or numpy (same results)."""
    if n_threads <= LIST_THREADS and _list_work[0] <= LIST_WORK_BUDGET:
        from irc.analysis.ivec import lib

        return lib
    return np


@record(eq=False)
class Access:
    op: Op
    block: Block
    index: int
    write: bool
    atomic: bool
    ptr: Value
    offset: int
    size: int
    # `wmma.store.d` m16n16k16: the row stride (elements) and element bytes. The warp writes a 16 x 16
    # tile at `ptr`; which lane stores which element is the hardware's, so each lane is given one 8-element
    # half-row ((lane / 2) * ld + (lane % 2) * 8): the lanes together write exactly the tile, one byte each
    wmma: tuple[Value, int] | None = None

    @property
    def kind(self) -> str:
        if self.op.name in ASYNC_WRITERS:
            return "copy"
        return "atomic" if self.atomic else ("write" if self.write else "read")


@record
class Side:
    """One side of a witness: the thread (linear id), the access, the byte and the loop iterations."""

    access: Access
    thread: int
    iters: dict[Loop, int] = field(default_factory=dict)


@record
class Witness:
    a: Side
    b: Side
    byte: int  # virtual address of the shared byte both touch
    same_warp: bool
    start: Op | None  # the barrier the interval starts after (None: kernel entry)


def shared_accesses(fn: Function, cfg: CFG) -> list[Access]:
    out: list[Access] = []
    for b in cfg.rpo:
        for i, op in enumerate(b.ops):
            a = _access(op, b, i)
            if a is not None:
                out.append(a)
    return out


def tests_own_value(cfg: CFG, acc: Access) -> bool:
    """A plain store whose guard reads the shared allocation it writes: `if (v > s_max) s_max = v`, the
    read-test-write that loses updates without an atomic. Its guard depends on loaded data, which the race
    question otherwise leaves alone (data invariants may keep two threads' guards apart); here the data
    is the contested location itself, which every thread reads before any of them writes, so two threads
    passing the test is the ordinary case, not a guess."""
    from irc.analysis.mbarrier import guards, shared_root

    if not acc.write or acc.atomic or acc.op.name not in ("store", "store_vec"):
        return False
    root = shared_root(acc.ptr)
    if root is None:
        return False
    seen: set[int] = set()
    work: list[tuple[Value, int]] = [(t.operands[0], 0) for t, _ in guards(cfg, acc.block) if t.operands]
    while work:
        v, depth = work.pop()
        if depth > 32 or id(v) in seen or not isinstance(v, OpResult):
            continue
        seen.add(id(v))
        if v.op.name == "load":
            if v.op.operands and shared_root(v.op.operands[0]) == root:
                return True
            continue
        work.extend((o, depth + 1) for o in v.op.operands)
    return False


def read_modify_write(a: Access, c: Access) -> bool:
    """Both accesses are halves of one read-modify-write at one address value: a plain load of `p` and a
    plain store to `p` whose value is computed from what was loaded (`bins[v] += 1`, lowered to
    `ld [p]; add; st [p]`). Its address may come from loaded data (a histogram's bin): two threads whose
    data give them one bin lose an update without an atomic. Why this shape only: a plain store through a
    loaded index alone (a scatter through a permutation) collides only if the data say so, which would be
    a guess; an increment of a data-chosen slot is the histogram idiom, where colliding is the point."""
    from irc.analysis.collectives import strip_copies

    if a.atomic or c.atomic or a.offset != c.offset or strip_copies(a.ptr) is not strip_copies(c.ptr):
        return False
    ops = {a.op, c.op}
    loads = [x for x in ops if x.name == "load"]
    stores = [x for x in ops if x.name == "store"]
    ptr = strip_copies(a.ptr)
    if not loads or not stores:
        from irc.analysis.mbarrier import users_through_casts

        # the other half: an op taking the same address (through copies) as its address operand
        users = [u for u in users_through_casts(ptr) if u.block is not None and u.operands]
        users = [u for u in users if strip_copies(u.operands[0]) is ptr]
        loads = loads or [u for u in users if u.name == "load"]
        stores = stores or [u for u in users if u.name == "store"]
    return any(_computed_from(st.operands[1], ld) for st in stores for ld in loads if len(st.operands) > 1)


def _computed_from(v: Value, ld: Op) -> bool:
    """Whether `v` is computed by pure ops from the result of load `ld`."""
    return _slice_meets(v, lambda op: op is ld)


def from_loaded_data(v: Value) -> bool:
    """Whether `v` is computed by pure ops from some load's result (a bin index read from the input)."""
    return _slice_meets(v, lambda op: op.name in ("load", "load_vec"))


def from_coordinates(v: Value) -> bool:
    """Whether the pure ops computing `v` read a thread coordinate (`tid`, `laneid`, `warpid`): a per-thread
    slot (`s_Hist[threadPos + bin * 64]`) rather than one every thread may hit."""
    return _slice_meets(v, lambda op: op.name == "sreg" and str(op.attrs.get("name", "")).startswith(_COORDS))


_COORDS = ("tid.", "laneid", "warpid")


def _slice_meets(v: Value, hit) -> bool:  # type: ignore[no-untyped-def]
    """Whether the pure ops computing `v` (16 deep) reach an op for which `hit` holds."""
    work = [(v, 0)]
    seen: set[int] = set()
    while work:
        x, d = work.pop()
        if d > 16 or id(x) in seen or not isinstance(x, OpResult):
            continue
        seen.add(id(x))
        if hit(x.op):
            return True
        if x.op.has_trait("pure") and x.op.name not in ("shfl", "sreg"):
            work.extend((o, d + 1) for o in x.op.operands)
    return False


def _is_shared_ptr(op: Op, v: Value) -> bool:
    sp = op.attrs.get("space")
    if sp == "shared":
        return True
    if sp == "generic":
        return _from_cvta_shared(v, 12)
    return (
        isinstance(v.type, PtrType) and v.type.space == "shared" and op.attrs.get("space") in (None, "shared")
    )


def _from_cvta_shared(v: Value, depth: int) -> bool:
    """Whether a generic address is computed from `cvta.shared` (a shared address made generic). The
    evaluation later decides the address itself; anything else in it stays unknown, hence silent."""
    if depth <= 0 or not isinstance(v, OpResult):
        return False
    op = v.op
    if op.name == "cvt" and op.attrs.get("cvta") == "shared":
        return True
    if op.name in ("bitcast", "copy", "cvt", "add", "sub", "ptradd"):
        return any(_from_cvta_shared(o, depth - 1) for o in op.operands)
    return False


# Asynchronous copies into shared memory are writes of their destination, at the point they are issued
# (they land at some point before the wait that covers them; a read of another thread's destination needs
# a barrier after that wait). Bytes: cp.async's size, a bulk copy's constant size, a tensor copy's box when
# the tensormap type knows it. Unknown sizes count as 16 bytes, the least any of them writes, so the
# overlap found is real.
ASYNC_WRITERS = ("cp_async", "bulk_load", "tma_load")
MIN_ASYNC_BYTES = 16


def async_bytes(op: Op) -> int:
    n = op.name
    if n == "cp_async":
        return int(op.attrs.get("bytes", 0) or 0) or 4
    if n == "bulk_load" and len(op.operands) > 2:
        c = _const(op.operands[2])
        return c if c is not None and c > 0 else MIN_ASYNC_BYTES
    m = op.operands[1] if len(op.operands) > 1 else None
    n = box_bytes(getattr(m, "type", None))
    return n if n is not None else MIN_ASYNC_BYTES


def box_bytes(t: object) -> int | None:
    """The bytes one copy through a descriptor of type `t` moves: its box's extents times its element's
    size; None when the box is unknown (a host-built descriptor) or the element has no size."""
    box = getattr(t, "box", None)
    if not box:
        return None
    try:
        total = size_of(t.elem)  # type: ignore[attr-defined]
    except TypeError:
        return None
    for e in box:
        total *= e
    return total


def _const(v: Value) -> int | None:
    while isinstance(v, OpResult) and v.op.name in ("bitcast", "copy", "cvt") and v.op.operands:
        v = v.op.operands[0]
    if isinstance(v, OpResult) and v.op.name == "const":
        c = v.op.attrs.get("value")
        return c if isinstance(c, int) and not isinstance(c, bool) else None
    return None


def is_stmatrix(op: Op) -> bool:
    """`stmatrix...shared.b16 [p], {...}`, which the PTX lifter keeps as an opaque collective: a warp's write
    of 8x8 b16 matrices to shared memory through the generic proxy."""
    t = str(op.attrs.get("text", ""))
    return op.name == "ptx_collective" and t.startswith("stmatrix.") and ".shared" in t


def _in_shared_symbol(v: Value) -> bool:
    """A `.shared` window address into a shared variable (`mov.u32 %r, smem` plus offsets)."""
    from irc.analysis.mbarrier import shared_root

    return shared_root(v) is not None


def _stmatrix_x4(op: Op) -> bool:
    """`stmatrix.sync.aligned.m8n8.x4[.trans].shared.b16 [p], {...}` (lifted as an opaque collective): each
    of the 32 lanes gives the address of one 16-byte row and the warp writes it, so per thread it is a
    16-byte store at its own address. The .x1 and .x2 forms read the addresses of lanes 0..7 / 0..15 only
    and are not analysed (the other lanes' operands are not addresses)."""
    return is_stmatrix(op) and ".x4" in str(op.attrs.get("text", ""))


def _wmma_store(op: Op) -> tuple[Value, int] | None:
    """(row stride, element bytes) of a shared `wmma.store.d...m16n16k16` (a lifted collective), else None."""
    t = str(op.attrs.get("text", ""))
    if op.name != "ptx_collective" or not t.startswith("wmma.store.d.") or "m16n16k16" not in t:
        return None
    if ".shared" not in t or len(op.operands) < 3:
        return None
    esize = {"f32": 4, "s32": 4, "f16": 2}.get(t.rsplit(".", 1)[-1])
    return (op.operands[-1], esize) if esize else None


def _access(op: Op, b: Block, i: int) -> Access | None:
    n = op.name
    wm = _wmma_store(op)
    if wm is not None and _in_shared_symbol(op.operands[0]):
        return Access(op, b, i, True, False, op.operands[0], 0, 8 * wm[1], wm)
    if _stmatrix_x4(op) and op.operands:
        p = op.operands[0]
        off = int(op.attrs.get("offset", 0) or 0)
        return Access(op, b, i, True, False, p, off, 16) if _in_shared_symbol(p) else None
    if n in ASYNC_WRITERS and op.operands:
        if op.attrs.get("multicast"):
            return None  # lands in other CTAs of the cluster too: not a per-block write
        return Access(op, b, i, True, False, op.operands[0], 0, async_bytes(op))
    if n not in ("load", "store", "load_vec", "store_vec", "atomic", "atomic_cas") or not op.operands:
        return None
    p = op.operands[0]
    if not _is_shared_ptr(op, p):
        return None
    off = int(op.attrs.get("offset", 0) or 0)
    if n in ("load", "store", "load_vec", "store_vec"):
        got = access_bytes(op)
        if got is None:
            return None
        size = got
    else:
        try:
            size = size_of(op.results[0].type) if op.results else size_of(op.operands[1].type)
        except (TypeError, AttributeError):
            return None
    write = n != "load" and n != "load_vec"
    # a strong (.relaxed/.acquire/.release) scalar load or store is an atomic access: a flag, not data
    atomic = n.startswith("atomic") or bool(op.attrs.get("strong"))
    return Access(op, b, i, write, atomic, p, off, max(size, 1))


# ---------------------------------------------------------------------------------------- reachability
# sorted (loop index, tag): 0 | 1 (iterations after the start or the loop's entry), "*" (any), "x0" | "x1"
# (left the start's loop in that relative iteration), "x" (left it, iteration unknown), "e0" (left a loop
# entered after the start in the iteration it was entered in)
Delta = tuple[tuple[int, object], ...]


def dead_edges(ev: ThreadEval) -> frozenset[tuple[int, int]]:
    """The edges (block, successor) no thread of the evaluated block takes: a branch outside every loop
    whose condition the evaluation decides alike for all threads (`if (blockDim.x >= 66)` around a
    reduction loop, for a 256-thread block). `reach` does not walk them: a read after the loop, reached
    from the barrier before it along the skipped-loop edge, was paired with the loop's first write."""
    out: set[tuple[int, int]] = set()
    for b in ev.cfg.rpo:
        t = b.terminator
        if t is None or t.name != "cbr" or not t.operands or ev.cfg.loops_containing(b):
            continue
        try:
            v = ev.value(t.operands[0], {})
        except Exception:  # noqa: BLE001 - a value the evaluation does not model: no edge is dead
            continue
        if v is None or len(v) == 0 or t.successors[0] is t.successors[1]:
            continue
        taken = v != 0
        if taken.all():
            out.add((id(b), id(t.successors[1])))
        elif not taken.any():
            out.add((id(b), id(t.successors[0])))
    return frozenset(out)


def reach(
    cfg: CFG,
    start: tuple[Block, int],
    stop,
    loop_index: dict[Loop, int],
    stop_loops: set[Loop],
    dead: frozenset[tuple[int, int]] = frozenset(),
) -> dict[Access, set[Delta]]:
    """Accesses reachable from `start` (block, op position) without passing an op for which `stop(op)`,
    nor an edge of `dead` (`dead_edges`). Each is tagged with the iteration offset per loop relative to
    the start (or to the loop's entry)."""
    sblock, spos = start
    start_loops = set(cfg.loops_containing(sblock))
    found: dict[Access, set[Delta]] = {}
    seen: set[tuple[Block, Delta]] = set()
    queue: list[tuple[Block, int, Delta]] = [(sblock, spos, ())]
    acc_at = _access_table(cfg)
    while queue:
        b, pos, d = queue.pop()
        blocked = False
        ops = b.ops
        for i in range(pos, len(ops)):
            op = ops[i]
            if stop(op):
                blocked = True
                break
            a = acc_at.get(op)
            if a is not None:
                found.setdefault(a, set()).add(d)
        if blocked:
            continue
        for s in cfg.succs.get(b, []):
            if (id(b), id(s)) in dead:
                continue
            nd = _transition(cfg, b, s, d, loop_index, start_loops, stop_loops)
            if nd is None:
                continue
            key = (s, nd)
            if key not in seen:
                seen.add(key)
                queue.append((s, 0, nd))
    return found


def region(cfg: CFG, start: tuple[Block, int], stop) -> frozenset[Block]:  # type: ignore[no-untyped-def]
    """The blocks a thread can enter from `start` (block, op position) without passing an op for which
    `stop(op)`: the barrier interval `reach` walks. The solver's race question asks that each thread
    reached its access through these blocks (`irc.analysis.symbolic.races.race`): a path condition alone
    admits the paths through barriers too (the remainder loop after an unrolled loop full of barriers)."""
    sblock, spos = start
    seen: set[Block] = {sblock}
    work: list[tuple[Block, int]] = [(sblock, spos)]
    while work:
        b, pos = work.pop()
        if any(stop(op) for op in b.ops[pos:]):
            continue
        for s in cfg.succs.get(b, []):
            if s not in seen:
                seen.add(s)
                work.append((s, 0))
    return frozenset(seen)


def _access_table(cfg: CFG) -> dict[Op, Access]:
    t = getattr(cfg, "_race_acc", None)
    if t is None:
        t = {a.op: a for a in shared_accesses(cfg.fn, cfg)}
        cfg._race_acc = t  # type: ignore[attr-defined]
    return t


def _transition(cfg, b, s, d: Delta, loop_index, start_loops, stop_loops) -> Delta | None:
    dd = dict(d)
    for lp in cfg.loops_containing(b):
        if s not in lp.blocks:  # leaving the loop
            k = loop_index[lp]
            cur = dd.get(k, 0)
            if lp in start_loops:
                dd[k] = f"x{cur}" if cur in (0, 1) else "x"  # see `incompatible`
            elif cur == 0:
                dd[k] = "e0"  # left in the iteration it was entered in (see `infeasible_exit`)
            else:
                dd.pop(k, None)
    for lp in cfg.loops_containing(s):
        if s not in lp.headers:
            continue
        k = loop_index[lp]
        if b in lp.blocks:  # back edge
            cur = dd.get(k, 0)
            if isinstance(cur, str):  # "*", or a loop already left
                continue
            if lp not in stop_loops:
                dd[k] = "*"
            elif cur == 0:
                dd[k] = 1
            else:
                return None
        else:
            dd[k] = 0
    return tuple(sorted(dd.items(), key=lambda kv: kv[0]))


def infeasible_exit(ev: ThreadEval, delta: Delta, loop_index: dict[Loop, int]) -> bool:
    """Whether the path a reach tag stands for left a loop in the first iteration after entering it, while
    every thread provably runs that loop's second iteration (`while stride > 0` from 128): the access it
    reached is not reachable that way (a tree reduction's read after the loop is never in one interval
    with the loop's first write)."""
    loops = None
    for k, tag in delta:
        if tag != "e0":
            continue
        if loops is None:
            loops = {i: lp for lp, i in loop_index.items()}
        lp = loops.get(k)
        if lp is None or ev.cfg.loops_containing(lp.header) != [lp]:
            continue  # nested: the outer iteration context is not known here
        ex = ev.exists(lp, 1, {lp: 1})
        if ex is not None and len(ex) and bool(ex.all()):
            return True
    return False


def incompatible(facts: Any, a: Access, da: Delta, c: Access, dc: Delta, loop_index: dict[Loop, int]) -> bool:
    """Two reach tags from one start that no two threads of a block can realise together: one access was
    reached by leaving the start's loop in relative iteration t, the other runs in a later iteration of
    it (or in iteration t itself, when the loop leaves only from its header and the access is in its body),
    or left it in another iteration, and the loop's exit is uniform across the block, so all threads leave
    together (a tree reduction's read after its halving loop against the loop's next write)."""
    from irc.analysis.uniformity import Level

    fa, fc = dict(da), dict(dc)
    loops = None
    for k in fa.keys() | fc.keys():
        ta, tc = fa.get(k), fc.get(k)
        for x, y, other in ((ta, tc, c), (tc, ta, a)):
            if not (isinstance(x, str) and x in ("x0", "x1")):
                continue
            if loops is None:
                loops = {i: lp for lp, i in loop_index.items()}
            lp = loops.get(k)
            if lp is None:
                continue
            t = int(x[1])
            top = all(u in lp.headers for u, _ in lp.exits) and other.block not in lp.headers
            clash = (isinstance(y, int) and (y > t or (top and y == t))) or (
                isinstance(y, str) and y in ("x0", "x1") and y != x
            )
            if clash and facts().loop_exit_level(lp) >= Level.BLOCK:
                return True
    return False


# ---------------------------------------------------------------------------------------- evaluation
def shared_layout(fn: Function) -> tuple[dict[str, int], dict[str, int]]:
    """Where the analysis places each shared allocation: name -> base address and name -> size in bytes.
    Allocations sit `SYM_SPACING` apart in name order, so addresses of two allocations never meet; dynamic
    shared memory (size 0: set at launch) gets half the spacing. The numeric evaluation and the symbolic
    encoding (`irc.analysis.symbolic`) use this one layout, so their witnesses name the same bytes."""
    sizes: dict[str, int] = {}
    for sd in fn.shared:
        try:
            sizes[sd.name] = size_of(sd.type)
        except TypeError:
            sizes[sd.name] = 0
    sizes.update(getattr(fn, "ptx_shared_bytes", {}) or {})
    for name, size in sizes.items():
        if size <= 0:  # dynamic shared memory: sized at launch, any offset may exist
            sizes[name] = SYM_SPACING // 2
    bases = {name: (i + 1) * SYM_SPACING for i, name in enumerate(sorted(sizes))}
    return bases, sizes


class ThreadEval:
    """IR values for every thread of one block (numpy vectors), per loop-iteration context."""

    def __init__(self, fn: Function, cfg: CFG, facts, dims: tuple[int, int, int], ntid_known: bool):
        """`facts`: a callable returning the uniformity facts (computed only if a loop bound is unknown)."""
        self.fn, self.cfg, self._facts = fn, cfg, facts
        self.dims, self.ntid_known = dims, ntid_known
        self._depth = 0
        bx, by, bz = dims
        self.n = bx * by * bz
        self.xp = xp = backend(self.n)
        self.lanes = domain_for(xp, self.n)  # the op table's semantics, one value per thread
        lin = xp.arange(self.n, dtype=xp.int64)
        self.lin = lin
        self.tids = (lin % bx, (lin // bx) % by, lin // (bx * by))
        self.bases, self.sizes = shared_layout(fn)
        self.memo: dict[tuple, Vector | None] = {}
        self.gmemo: dict[tuple, Vector | None] = {}
        self.assumptions: dict[int, set[tuple[int, int]]] = {}  # block -> (branch, side) assumed
        self.emem: dict[tuple, Vector | None] = {}
        self._loops: dict[int, list[Loop]] = {}

    def loops_of(self, b: Block) -> list[Loop]:
        r = self._loops.get(id(b))
        if r is None:
            r = self._loops[id(b)] = self.cfg.loops_containing(b)
        return r

    # ---------------------------------------------------------------- contexts
    def _key(self, block: Block | None, ctx: dict[Loop, int]) -> tuple:
        if block is None:
            return ()
        return tuple((id(lp), ctx.get(lp)) for lp in self.loops_of(block))

    def value(self, v: Value, ctx: dict[Loop, int]) -> Vector | None:
        blk = v.block if isinstance(v, BlockArg) else (v.op.block if isinstance(v, OpResult) else None)
        key = (id(v), self._key(blk, ctx))
        if key in self.memo:
            return self.memo[key]
        self.memo[key] = None  # cycles (unreachable in SSA, but be safe) evaluate to unknown
        if self._depth >= MAX_EVAL_DEPTH:
            return None  # a chain deeper than this (1,000 `add %r, %r, 1` in a row) is not analysed
        self._depth += 1
        try:
            r = self._value(v, ctx)
        finally:
            self._depth -= 1
        self.memo[key] = r
        return r

    def _value(self, v: Value, ctx: dict[Loop, int]) -> Vector | None:
        if isinstance(v, BlockArg):
            return self._blockarg(v, ctx)
        if isinstance(v, OpResult):
            if len(v.op.results) != 1:
                return None
            return self._op(v.op, ctx)
        return None

    def _blockarg(self, v: BlockArg, ctx: dict[Loop, int]) -> Vector | None:
        h = v.block
        if h is self.fn.entry:
            return None
        loops = [lp for lp in self.cfg.loops_containing(h) if h in lp.headers]
        preds = self.cfg.preds.get(h, [])
        if loops:
            lp = loops[0]
            j = ctx.get(lp)
            if j is None:
                return None
            if j == 0:
                srcs = [(p, ctx) for p in preds if p not in lp.blocks]
            else:
                c2 = dict(ctx)
                c2[lp] = j - 1
                srcs = [(p, c2) for p in preds if p in lp.blocks]
        else:
            srcs = [(p, ctx) for p in preds]
        out = None
        for p, c in srcs:
            t = p.terminator
            if t is None:
                return None
            for k, s in enumerate(t.successors):
                if s is not h:
                    continue
                args = t.succ_args[k]
                if v.index >= len(args):
                    return None
                x = self.value(args[v.index], c)
                if x is None:
                    return None
                if out is None:
                    out = x
                elif not self.xp.array_equal(out, x):
                    return None
        return out

    def _op(self, op: Op, ctx: dict[Loop, int]) -> Vector | None:
        xp = self.xp
        n = op.name
        rt = op.results[0].type
        if n == "const":
            c = op.attrs.get("value")
            if isinstance(c, bool):
                c = int(c)
            if not isinstance(c, int):
                return None
            return self._wrap(xp.full(self.n, c, dtype=xp.int64), rt)
        if n == "sreg":
            return self._sreg(str(op.attrs.get("name", "")))
        if n == "shared_addr":
            base = self.bases.get(str(op.attrs.get("sym")))
            return None if base is None else xp.full(self.n, base, dtype=xp.int64)
        if not _intlike(rt):
            return None
        xs = []
        for o in op.operands:
            if not _intlike(o.type):
                return None
            x = self.value(o, ctx)
            if x is None:
                return None
            xs.append(x)
        if n == "cvt" and "cvta" in op.attrs:
            return xs[0]  # the address model: generic and shared addresses of a byte are the same number
        d = OPS.get(n)
        if d is None or d.sem is None or not d.has("pure"):
            return None
        D = self.lanes
        try:
            r = d.sem(D, [D.to_lanes(x, o.type) for x, o in zip(xs, op.operands)], rt, op.attrs,
                      [o.type for o in op.operands])  # fmt: skip
        except Unknown:
            return None
        return D.from_lanes(r, rt)

    def _sreg(self, name: str) -> Vector | None:
        xp = self.xp
        axis = {"x": 0, "y": 1, "z": 2}
        if name.startswith("tid."):
            return self.tids[axis[name[-1]]].copy()
        if name.startswith("ntid."):
            return xp.full(self.n, self.dims[axis[name[-1]]], dtype=xp.int64) if self.ntid_known else None
        if name == "laneid":
            return self.lin % 32
        if name == "warpid":
            return self.lin // 32
        if name.startswith("ctaid.") or name.startswith("cluster_ctaid."):
            return xp.zeros(self.n, dtype=xp.int64)  # uniform in the block: block 0 is a valid witness
        return None

    def _wrap(self, x: Vector, t) -> Vector:
        if isinstance(t, ScalarType):
            if t.is_bool:
                return (x != 0).astype(self.xp.int64)
            w = t.bits
        elif isinstance(t, PtrType):
            w = t.bits
        else:
            return x
        if w >= 64:
            return x
        x = x & ((1 << w) - 1)
        if isinstance(t, ScalarType) and t.is_signed:
            x = self.xp.where(x >= (1 << (w - 1)), x - (1 << w), x)
        return x

    # ---------------------------------------------------------------- guards
    def guard(self, b: Block, ctx: dict[Loop, int]) -> Vector | None:
        """Mask of threads that execute block `b` in the iterations `ctx` (None: cannot tell)."""
        key = (id(b), self._key(b, ctx))
        if key in self.gmemo:
            return self.gmemo[key]
        r = self._guard(b, ctx)
        self.gmemo[key] = r
        return r

    def assumed(self, b: Block) -> set[tuple[int, int]]:
        """The (branch, side) pairs the guards of `b` assumed (unknown block-uniform conditions, in any
        iteration context): two accesses that assumed different sides of one branch never meet, since
        all threads of a block take the same side."""
        return self.assumptions.get(id(b), set())

    def _guard(self, b: Block, ctx: dict[Loop, int]) -> Vector | None:
        cfg = self.cfg
        mask = self.xp.ones(self.n, dtype=bool)
        mine = set(cfg.loops_containing(b))
        d = cfg.idom.get(b)
        while d is not None:
            t = d.terminator
            if (
                t is not None
                and t.name == "cbr"
                and len(t.successors) == 2
                and t.successors[0] is not t.successors[1]
            ):
                # Exact or nothing: a thread that reaches d reaches b when b post-dominates d; else b
                # must sit under exactly one successor entered only from d (the condition decides);
                # any other shape (b reached from both sides under further conditions) is not decided.
                if cfg.post_dominates(b, d):
                    d = cfg.idom.get(d)
                    continue
                # a branch whose arms rejoin before `b` (its immediate post-dominator dominates `b`: an
                # if/else or a `? :` with a load) does not decide whether `b` runs
                j = cfg.ipdom.get(d)
                if (
                    isinstance(j, Block)
                    and j is not b
                    and cfg.dominates(j, b)
                    and set(cfg.loops_containing(j)) <= mine
                ):
                    d = cfg.idom.get(d)
                    continue
                taken = [
                    k
                    for k, s in enumerate(t.successors)
                    if cfg.dominates(s, b) and not cfg.dominates(t.successors[1 - k], b)
                ]
                if len(taken) != 1 or len(self._entry_preds(t.successors[taken[0]])) != 1:
                    return None
                k = taken[0]
                s = t.successors[k]
                dl = set(cfg.loops_containing(d))
                if not dl <= mine:
                    return None  # a branch in a loop already left: which iteration's value?
                c = self.value(t.operands[0], ctx)
                if c is None:
                    if not self._assumable(d, t.operands[0], s, ctx, b):
                        return None
                    self.assumptions.setdefault(id(b), set()).add((id(d), k))
                else:
                    mask &= (c != 0) if k == 0 else (c == 0)
            d = cfg.idom.get(d)
        for lp in mine:
            j = ctx.get(lp)
            if j is None:
                return None
            ex = self.exists(lp, j, ctx)
            if ex is None:
                return None
            mask &= ex
        return mask

    def threads(self, mask: Vector) -> list[int]:
        """The linear thread ids (of the block) in `mask`, in order, on either vector backend."""
        sel = self.xp.flatnonzero(mask)
        return [int(i) for i in (sel.v if hasattr(sel, "v") else sel.tolist())]

    def warps(self, mask: Vector) -> set[int]:
        """The warps (of the block, by linear thread id) with a thread in `mask`."""
        return {t // 32 for t in self.threads(mask)}

    def single_issuer(self, b: Block) -> Block | None:
        """The block, entered only from an `elect` branch's true side, through which at most one thread of
        the CTA reaches `b`, or None. Why it is one thread: the branch sits outside every loop (each thread
        passes it at most once), and every thread that reaches it is in one warp, whose `elect` is true in
        exactly one lane. Two accesses under the same such block are made by one and the same thread."""
        key = ("issuer", id(b))
        if key not in self.gmemo:
            self.gmemo[key] = self._single_issuer(b)
        return self.gmemo[key]

    def _single_issuer(self, b: Block) -> Block | None:
        cfg = self.cfg
        s, d = b, cfg.idom.get(b)
        while d is not None:
            t = d.terminator
            if (
                t is not None
                and t.name == "cbr"
                and len(t.successors) == 2
                and t.successors[0] is s
                and t.successors[1] is not s
                and self._entry_preds(s) == [d]
                and not cfg.loops_containing(d)
            ):
                e = self._elect_block(t.operands[0])
                if e is None or cfg.loops_containing(e):
                    return None
                g = self.guard(e, {})  # the threads that run the `elect`
                if g is None or not g.any():
                    return None
                return s if len(self.warps(g)) == 1 else None
            s, d = d, cfg.idom.get(d)
        return None

    def _elect_block(self, v: Value) -> Block | None:
        """The block of the one `elect` whose result `v` is, directly or through the block argument of an
        `a && elect_one()` (whose other incoming values are `false`); None otherwise."""
        if isinstance(v, OpResult):
            return v.op.block if v.op.name == "elect" else None
        if not isinstance(v, BlockArg) or v.block is self.fn.entry:
            return None
        found: set[int] = set()
        out: Block | None = None
        for pr in self.cfg.preds.get(v.block, []):
            t = pr.terminator
            if t is None:
                return None
            for k, sc in enumerate(t.successors):
                if sc is not v.block:
                    continue
                x = t.succ_args[k][v.index] if v.index < len(t.succ_args[k]) else None
                if isinstance(x, OpResult) and x.op.name == "const" and x.op.attrs.get("value") is False:
                    continue
                if not (isinstance(x, OpResult) and x.op.name == "elect"):
                    return None
                found.add(id(x.op))
                out = x.op.block
        return out if len(found) == 1 else None

    def _entry_preds(self, s: Block) -> list[Block]:
        """Predecessors of `s`, without the back edges when `s` is a loop header (a loop entered only from
        the branch `d` is reached only when `d` takes that edge)."""
        preds = self.cfg.preds.get(s, [])
        for lp in self.loops_of(s):
            if s in lp.headers:
                preds = [p for p in preds if p not in lp.blocks]
        return preds

    def _assumable(self, d: Block, cond: Value, taken: Block, ctx: dict[Loop, int], b: Block) -> bool:
        """An unknown, block-uniform condition: a loop-continue condition in iteration 0 or 1 (assume it
        continues), the zero-trip test of a loop, or a branch that decides no loop exit (assume the side
        toward the access)."""
        from irc.analysis.uniformity import Level

        cfg = self.cfg
        for lp in cfg.loops_containing(d):
            if taken in lp.blocks and any(u is d for u, _ in lp.exits):
                if ctx.get(lp, 0) <= 1 and self._facts().level(cond) >= Level.BLOCK:
                    return True
        # the zero-trip test in front of a (rotated) loop: `if n < 16 skip the loop`, where the skip target
        # post-dominates the loop; the access is inside that loop, so entering it is what we assume
        t = d.terminator
        other = t.successors[1] if t.successors[0] is taken else t.successors[0]
        for lp in cfg.loops_containing(b):
            h = lp.header
            if lp in cfg.loops_containing(d) or not cfg.dominates(taken, h):
                continue
            if cfg.post_dominates(other, h) and self._facts().level(cond) >= Level.BLOCK:
                return True
        # any other unknown condition that is uniform across the block and decides no loop's exit (an
        # early exit on a parameter: `if head >= num_heads { return; }`): the block's threads all take
        # the same side, and only the side toward the access can race, so that side is assumed
        if any(any(u is d for u, _ in lp.exits) for lp in cfg.loops_containing(d)):
            return False
        return self._facts().level(cond) >= Level.BLOCK

    def exists(self, lp: Loop, j: int, ctx: dict[Loop, int]) -> Vector | None:
        """Threads for which iteration j of `lp` happens (given they entered the loop)."""
        if j == 0:
            return self.xp.ones(self.n, dtype=bool)
        key = (id(lp), j, tuple((id(x), ctx.get(x)) for x in self.loops_of(lp.header) if x is not lp))
        if key not in self.emem:
            self.emem[key] = self._exists(lp, j, ctx)
        return self.emem[key]

    def _exists(self, lp: Loop, j: int, ctx: dict[Loop, int]) -> Vector | None:
        c = dict(ctx)
        c[lp] = j - 1
        prev = self.exists(lp, j - 1, ctx)
        if prev is None:
            return None
        cfg = self.cfg
        latches = cfg.latches(lp)
        mask = prev.copy()
        for e in lp.exiting_blocks:
            if not all(cfg.dominates(e, la) for la in latches):
                return None  # a conditional `break`: iteration existence is not decidable here
            t = e.terminator
            if t is None or t.name != "cbr":
                return None
            stay = [k for k, s in enumerate(t.successors) if s in lp.blocks]
            if len(stay) != 1:
                continue
            v = self.value(t.operands[0], c)
            if v is None:
                if j - 1 <= 0:
                    from irc.analysis.uniformity import Level

                    if self._facts().level(t.operands[0]) >= Level.BLOCK:
                        continue
                return None
            mask &= (v != 0) if stay[0] == 0 else (v == 0)
        return mask


def _intlike(t) -> bool:
    if isinstance(t, PtrType):
        return True
    return isinstance(t, ScalarType) and (t.is_int or t.is_bool)


# ---------------------------------------------------------------------------------------- witnesses
def entries(ev: ThreadEval, a: Access, delta: Delta, loop_index: dict[Loop, int]):
    """(threads, addresses, context index per entry, contexts) at which `a` runs for a reach tag `delta`.
    None when a needed value is unknown (the access is then not analysed for this tag). Contexts past what
    can be decided in an "any iteration" loop are skipped, never guessed."""
    xp = ev.xp
    d = dict(delta)
    loops = list(reversed(ev.cfg.loops_containing(a.block)))  # outermost first
    tags = [d.get(loop_index[lp], 0) for lp in loops]
    if any(isinstance(t, str) and t != "*" for t in tags):
        return None
    n_any = sum(1 for t in tags if t == "*")
    span = MAX_ITERS if n_any <= 1 else 4
    choices = [list(range(span)) if t == "*" else [int(t)] for t in tags]
    ts: list[Vector] = []
    ads: list[Vector] = []
    cis: list[Vector] = []
    cts: list[dict[Loop, int]] = []
    star = [lp for lp, t in zip(loops, tags) if t == "*"]
    for combo in _product(choices):
        ctx = dict(zip(loops, combo))
        if n_any == 1:
            # iterations of the one "any iteration" loop that no thread reaches (or that cannot be
            # decided) end the enumeration: later ones are no better
            lp = star[0]
            ex = ev.exists(lp, ctx[lp], ctx)
            if ctx[lp] > 1 and (ex is None or not ex.any()):
                break
        g = ev.guard(a.block, ctx)
        if g is None:
            if any(t == "*" and j > 1 for t, j in zip(tags, combo)):
                continue
            return None
        if not g.any():
            continue
        p = ev.value(a.ptr, ctx)
        if p is None:
            return None
        if a.wmma is not None:  # each lane's half-row of the warp's tile
            ld = ev.value(a.wmma[0], ctx)
            if ld is None:
                return None
            lane = ev.lin % 32
            p = p + ((lane // 2) * ld + (lane % 2) * 8) * a.wmma[1]
        sel = xp.flatnonzero(g)
        ts.append(sel)
        ads.append(p[sel] + a.offset)
        cis.append(xp.full(len(sel), len(cts), xp.int64))
        cts.append(ctx)
    if not ts:
        z = xp.zeros(0, xp.int64)
        return z, z, z, []
    return xp.concatenate(ts), xp.concatenate(ads), xp.concatenate(cis), cts


def _product(choices: list[list[int]]):
    if not choices:
        yield ()
        return
    head, rest = choices[0], choices[1:]
    for h in head:
        for r in _product(rest):
            yield (h, *r)


_DERIVED: dict[tuple, tuple] = {}


def _derived(E, key: tuple, build: Callable[[], Any]) -> Any:
    """`build()`, a value derived from the `entries` result E (one access is joined against many),
    cached while E lives: E is kept beside the value, so its id cannot be reused meanwhile."""
    k = (id(E), *key)
    hit = _DERIVED.get(k)
    if hit is not None and hit[0] is E:
        return hit[1]
    r = build()
    if len(_DERIVED) > 12_288:
        _DERIVED.clear()
    _DERIVED[k] = (E, r)
    return r


def _expanded(E, size: int):
    """(byte keys, entry index per key, sorted keys) of an `entries` result on numpy."""

    def build():  # type: ignore[no-untyped-def]
        keys = (E[1][:, None] + np.arange(size)).ravel()
        return keys, np.repeat(np.arange(len(E[0])), size), np.sort(keys)

    return _derived(E, ("expanded", size), build)


def find_witness(ev: ThreadEval, A, B, sa: int, sb: int, want_same_warp: bool, ranges=None):
    """(entry of A, entry of B, byte) for two different threads touching one byte, in the same warp iff
    `want_same_warp`, preferring the lowest byte (then the lowest thread of A); None if there is none. A
    and B are `entries` results; `ranges`, if given, are the [lo, hi) byte ranges that count (the declared
    shared arrays). Small joins run on dicts, large ones as a numpy sort-join: the same answer."""
    if len(A[0]) == 0 or len(B[0]) == 0:
        return None
    if isinstance(A[0], IVec):
        if len(A[0]) * sa + len(B[0]) * sb <= LIST_JOIN_KEYS and _list_work[0] <= LIST_WORK_BUDGET:
            return _witness_lists(A, B, sa, sb, want_same_warp, ranges)
        A, B = _as_numpy(A), _as_numpy(B)
    return _witness_numpy(A, B, sa, sb, want_same_warp, ranges)


def _witness_lists(A, B, sa: int, sb: int, want_same_warp: bool, ranges):
    """`find_witness` on lists, by byte: the bytes both sides touch in increasing order, and for each the
    lowest and highest (warp, thread, entry) of B's side per group (the byte, or the byte and the warp),
    which is what the numpy join's stable lexsort picks; the first byte with a witness decides.

    A byte's answer depends only on its two rows (`_row_witness`), and where neither side's addresses
    share bytes every byte of an address has that address's row: then the join runs address against
    address (the overlaps of two sorted lists of disjoint intervals, in increasing order, each answered
    at its first byte; runs of intervals that meet nothing are skipped by bisection) instead of byte
    against byte. Why: a 16-byte `ldmatrix` row against a tile's
    stores is 16 times fewer steps, and no set of every common byte is built."""
    rk = None if ranges is None else tuple(ranges)
    ia, ib = _byte_index(A, sa, rk), _byte_index(B, sb, rk)
    ta, tb = A[0].v, B[0].v
    if ia[0] is not None and ib[0] is not None:
        (xa, ra), (xb, rb) = ia[0], ib[0]
        i = j = 0
        while i < len(xa) and j < len(xb):
            a, b = xa[i], xb[j]
            if a + sa <= b:  # A's intervals that end by b meet neither this B interval nor a later one
                i = bisect_right(xa, b - sa, i)
            elif b + sb <= a:
                j = bisect_right(xb, a - sb, j)
            else:
                got = _row_witness(ra[i], rb[j], ta, tb, want_same_warp)
                if got is not None:
                    return got[0], got[1], max(a, b)
                if a + sa <= b + sb:
                    i += 1
                else:
                    j += 1
        return None
    ba, bb = _bytes_of(ia, sa), _bytes_of(ib, sb)
    for k in sorted(ba.keys() & bb.keys()):
        got = _row_witness(ba[k], bb[k], ta, tb, want_same_warp)
        if got is not None:
            return got[0], got[1], k
    return None


def _row_witness(ra: tuple, rb: tuple, ta: list, tb: list, want_same_warp: bool) -> tuple[int, int] | None:
    """(entry of A, entry of B) for two different threads touching a byte whose index rows are `ra` and
    `rb` (`_build_byte_index`), in the same warp iff `want_same_warp`, the lowest thread of A first; None if
    there is none."""
    ja, wa0, wa1, xa0, xa1 = ra
    jb, wb0, wb1, xb0, xb1 = rb
    if want_same_warp:
        if xa0 == xa1 == xb0 == xb1 or wa1 < wb0 or wb1 < wa0:
            return None  # one thread on both sides, or no warp in common
    elif wa0 == wa1 == wb0 == wb1:
        return None  # one warp on both sides
    groups: dict[int, list] = {}
    for j in jb:
        x = tb[j]
        w = x // 32
        t = (w, x, j)
        g = w % 64 if want_same_warp else 0
        cur = groups.get(g)
        if cur is None:
            groups[g] = [t, t]
        elif t > cur[1]:  # entries come in increasing j: never below an equal (w, x)
            cur[1] = t
        elif t < cur[0]:
            cur[0] = t
    best = None
    for i in ja:
        x = ta[i]
        if best is not None and x >= best[0]:
            continue
        w = x // 32
        cur = groups.get(w % 64 if want_same_warp else 0)
        if cur is None:
            continue
        lo, hi = cur
        if want_same_warp:
            pick = lo if lo[1] != x else hi
            ok = pick[1] != x
        else:
            pick = lo if lo[0] != w else hi
            ok = pick[0] != w
        if ok:
            best = (x, i, pick[2])
    return None if best is None else (best[1], best[2])


def _byte_index(E, size: int, ranges: tuple | None) -> list:
    """The index of an `entries` result (on lists) by the bytes inside `ranges` (all when None): each
    byte's row is (the entries that touch it, in entry order; the lowest and highest warp and thread
    among them). `[(addresses, rows), None]` (addresses sorted, rows beside them) when no two addresses
    share a byte and each address's bytes lie inside one range (all of an address's bytes have its row);
    otherwise `[None, byte -> row]`. `_bytes_of` gives the byte map of either."""
    return _derived(E, ("bytes", size, ranges), lambda: _build_byte_index(E, size, ranges))


def _bytes_of(ix: list, size: int) -> dict[int, tuple]:
    """byte -> row of a `_byte_index` result (made from its address rows once, when first asked)."""
    if ix[1] is None:
        out: dict[int, tuple] = {}
        for a, row in zip(*ix[0]):
            out.update(dict.fromkeys(range(a, a + size), row))
        ix[1] = out
    return ix[1]


def _row(js: list[int], ts: list) -> tuple:
    """The index row of the entries `js` (threads `ts`)."""
    if len(js) == 1:
        x = ts[js[0]]
        return (js, x // 32, x // 32, x, x)
    xs = [ts[j] for j in js]
    x0, x1 = min(xs), max(xs)
    return (js, x0 // 32, x1 // 32, x0, x1)


def _build_byte_index(E, size: int, ranges: tuple | None) -> list:
    _list_work[0] += len(E[1].v) * size
    by_addr: dict[int, list[int]] = {}  # address -> its entries, in entry order (first-touch order)
    for j, a in enumerate(E[1].v):
        lst = by_addr.get(a)
        if lst is None:
            by_addr[a] = [j]
        else:
            lst.append(j)
    starts = sorted(by_addr)
    if any(b - a < size for a, b in zip(starts, starts[1:])):
        return [None, _build_byte_index_overlapping(E, size, ranges)]
    # No two addresses' accesses share a byte: a byte's entries are its address's (one row, shared by
    # its bytes: readers only read it).
    ts = E[0].v
    if ranges is None or all(any(lo <= a and a + size <= hi for lo, hi in ranges) for a in starts):
        return [(starts, [_row(by_addr[a], ts) for a in starts]), None]
    out: dict[int, tuple] = {}
    for a, js in by_addr.items():
        row = _row(js, ts)
        if any(lo <= a and a + size <= hi for lo, hi in ranges):
            out.update(dict.fromkeys(range(a, a + size), row))
        else:
            for byte in range(a, a + size):
                if any(lo <= byte < hi for lo, hi in ranges):
                    out[byte] = row
    return [None, out]


def _build_byte_index_overlapping(E, size: int, ranges: tuple | None) -> dict[int, tuple]:
    """`_build_byte_index` when accesses at two addresses share bytes: byte by byte."""
    idx: dict[int, list[int]] = {}
    for j, a in enumerate(E[1].v):
        for byte in range(a, a + size):
            lst = idx.get(byte)
            if lst is None:
                idx[byte] = [j]
            else:
                lst.append(j)
    if ranges is not None:
        # the bytes outside every range, asked byte by byte only for an address whose access is not
        # wholly inside one range (there are few addresses, and almost every access is inside its array)
        out_of = {
            b
            for a in set(E[1].v)
            if not any(lo <= a and a + size <= hi for lo, hi in ranges)
            for b in range(a, a + size)
            if not any(lo <= b < hi for lo, hi in ranges)
        }
        if out_of:
            idx = {b: js for b, js in idx.items() if b not in out_of}
    ts = E[0].v
    return {b: _row(js, ts) for b, js in idx.items()}


def _as_numpy(E):
    """An `entries` result on lists as numpy arrays (a join too large for dicts)."""
    return _derived(
        E,
        ("numpy",),
        lambda: (
            np.asarray(E[0].v, np.int64),
            np.asarray(E[1].v, np.int64),
            np.asarray(E[2].v, np.int64),
            E[3],
        ),
    )


def _in_ranges(keys, ranges):
    ok = np.zeros(len(keys), bool)
    for lo, hi in ranges:
        ok |= (keys >= lo) & (keys < hi)
    return ok


def _witness_numpy(A, B, sa: int, sb: int, want_same_warp: bool, ranges):
    """`find_witness` vectorised as a sort-join: per byte (and warp), the lowest and highest thread of
    B's side."""
    ta, aa, _, _ = A
    tb, ab, _, _ = B
    if len(ta) == 0 or len(tb) == 0:
        return None
    if aa.min() >= ab.max() + sb or ab.min() >= aa.max() + sa:
        return None  # disjoint address ranges
    ka, ra, sa_sorted = _expanded(A, sa)
    kb, rb, sb_sorted = _expanded(B, sb)
    inbounds = None if ranges is None else (lambda keys: _in_ranges(keys, ranges))
    # bytes both sides touch, by binary search in the sorted other side (no hashing: this runs per pair)
    hit_a = sb_sorted[np.minimum(np.searchsorted(sb_sorted, ka), len(sb_sorted) - 1)] == ka
    if inbounds is not None and hit_a.any():
        hit_a &= inbounds(ka)
    if not hit_a.any():
        return None
    hit_b = sa_sorted[np.minimum(np.searchsorted(sa_sorted, kb), len(sa_sorted) - 1)] == kb
    if inbounds is not None:
        hit_b &= inbounds(kb)
    ka, ra = ka[hit_a], ra[hit_a]
    kb, rb = kb[hit_b], rb[hit_b]
    xa, xb = ta[ra], tb[rb]
    wa, wb = xa // 32, xb // 32
    if want_same_warp:
        ga, gb = ka * 64 + (wa % 64), kb * 64 + (wb % 64)  # warps of one block: < 32
    else:
        ga, gb = ka, kb
    order = np.lexsort((xb, wb, gb))
    gbs = gb[order]
    ukeys, first = np.unique(gbs, return_index=True)
    last = np.append(first[1:], len(gbs)) - 1
    pos = np.searchsorted(ukeys, ga)
    pos_c = np.minimum(pos, len(ukeys) - 1)
    found = ukeys[pos_c] == ga
    lo, hi = order[first[pos_c]], order[last[pos_c]]
    if want_same_warp:
        pick = np.where(xb[lo] != xa, lo, hi)
        ok = found & (xb[pick] != xa)
    else:
        pick = np.where(wb[lo] != wa, lo, hi)
        ok = found & (wb[pick] != wa)
    if not ok.any():
        return None
    cand = np.flatnonzero(ok)
    i = cand[np.lexsort((xa[cand], ka[cand]))[0]]
    return int(ra[i]), int(rb[pick[i]]), int(ka[i])


def _unravel(flat: int, dims: list[int]) -> list[int]:
    """Row-major indices of element `flat` of an array of shape `dims` (numpy's `unravel_index`)."""
    out = []
    for d in reversed(dims):
        flat, r = divmod(flat, d)
        out.append(r)
    return out[::-1]


def shared_name(ev: ThreadEval, addr: int) -> tuple[str, int]:
    for name, base in ev.bases.items():
        if base <= addr < base + max(ev.sizes.get(name, 0), 1):
            return name, addr - base
    return "shared", addr


def element(ev: ThreadEval, fn: Function, name: str, off: int, size: int) -> str:
    """`tile[1]` / `As[0][3]` for a byte offset (declared element type if known, else the access size)."""
    try:
        sd = fn.shared_decl(name)
    except (KeyError, ValueError):
        sd = None
    t = sd.type if sd is not None else None
    if isinstance(t, ArrayType):
        es = size_of(t.elem)
        if es > 1 and off % es == 0:
            flat = off // es
            idx = _unravel(flat, list(t.dims)) if flat < t.count else [flat]
            return name + "".join(f"[{i}]" for i in idx)
    if size > 0 and off % size == 0:
        return f"{name}[{off // size}]"
    return f"{name}+{off:#x}"
