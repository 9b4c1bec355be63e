"""THE table of PTX instruction facts, shared by the lifter, the analyzer, the emulator and the backend.

Why one table: "which operands does this instruction define", "is it a block-wide barrier", "may it
diverge across a warp", "does it end a block" and "which reference form gates it" must have one answer
across irc, or the analyzer and the emulator disagree about the same PTX. Facts are keyed by opcode prefix
on dot (or `::`) boundaries, longest prefix wins: `mbarrier.arrive.expect_tx` refines `mbarrier.arrive`
refines `mbarrier`. Look-ups are cached per opcode string, so `info()` costs a dict hit in the hot loops.

Operand conventions follow `irc.frontend.ptx.parser`: destinations come first; `%r|%p` is a `Pair`,
`_` a `Sink`, `{...}` a `Vec`; in `call` the parenthesised lists are `Vec`s. Target gates of the
reference forms are in `irc.ptxisa.gates`; the forms the backend emits are in `irc.ptxisa.forms`.
"""

from __future__ import annotations

from irc.ptxisa.isa_list import EXTRA_ROWS
from irc.ptxisa.model import Addr, Instr, Neg, Operand, Pair, Reg, Sink, Vec
from irc.records import record, replace

__all__ = [
    "InstrInfo",
    "info",
    "opcode_info",
    "dest_operands",
    "dest_count",
    "def_regs",
    "use_regs",
]

#: `prmt.b32.MODE d, a, b, c`: for each selector value c & 3, the source byte (0..7 of {b, a}) of result
#: bytes 0, 1, 2, 3 (PTX ISA, "prmt"). Read by the emulator and by the op table's semantics.
PRMT_MODES: dict[str, tuple[tuple[int, int, int, int], ...]] = {
    "f4e": ((0, 1, 2, 3), (1, 2, 3, 4), (2, 3, 4, 5), (3, 4, 5, 6)),
    "b4e": ((0, 7, 6, 5), (1, 0, 7, 6), (2, 1, 0, 7), (3, 2, 1, 0)),
    "rc8": ((0, 0, 0, 0), (1, 1, 1, 1), (2, 2, 2, 2), (3, 3, 3, 3)),
    "ecl": ((0, 1, 2, 3), (1, 1, 2, 3), (2, 2, 2, 3), (3, 3, 3, 3)),
    "ecr": ((0, 0, 0, 0), (0, 1, 1, 1), (0, 1, 2, 2), (0, 1, 2, 3)),
    "rc16": ((0, 1, 0, 1), (2, 3, 2, 3), (0, 1, 0, 1), (2, 3, 2, 3)),
}

_SPACES = ("global", "shared::cta", "shared::cluster", "shared", "local", "param", "const", "tex")


@record(frozen=True)
class InstrInfo:
    """Facts about one opcode (and, for barriers, its operands).

    `dests`: leading operand positions that PTX writes (a `Sink` or `Pair` there still counts as one
    position; see `dest_count` for defined registers). `mem`: none/read/write/readwrite. `spaces`: the
    state spaces named in the opcode (`generic` when a memory op names none). `form`: the reference form
    whose target gate applies (see `gate`). `known=False` means the default guess was used.
    `terminator`: ends a basic block (control leaves or the thread stops). `parks`: the executing thread
    stops until the other participants arrive (the waiting half of a CTA or cluster barrier), so a
    scheduler ends a block after it. `polls`: an mbarrier wait test that a scheduler re-executes when the
    barrier's phase changes, so it starts a block."""

    key: str
    dests: int = 1
    mem: str = "none"
    spaces: tuple[str, ...] = ()
    barrier: bool = False
    warp_granular_barrier: bool = False
    cluster_barrier: bool = False
    warp_collective: bool = False
    terminator: bool = False
    parks: bool = False
    polls: bool = False
    pure: bool = False
    is_async: bool = False
    fence: bool = False
    form: str | None = None
    known: bool = True


def _r(**kw) -> dict:
    return kw


# key -> facts. Unlisted fields take the InstrInfo defaults (1 dest, no memory, not pure).
_PURE = (
    "add sub mul mad mad24 mul24 sad fma div rem abs neg min max and or xor not cnot lop3 shl shr shf bfe bfi "
    "brev popc clz bfind fns prmt setp set selp slct mov cvt cvta sqrt rsqrt rcp sin cos lg2 ex2 tanh "
    "copysign testp dp4a dp2a isspacep bmsk szext mapa"
).split()
_TABLE: dict[str, dict] = {k: _r(pure=True) for k in _PURE}
_TABLE.update(
    {
        "mapa": _r(pure=True, form="mapa_shared_cluster"),
        "activemask": _r(form="activemask_b32"),
        "ld": _r(mem="read"),
        "ldu": _r(mem="read"),
        "st": _r(dests=0, mem="write"),
        "st.async": _r(dests=0, mem="write", is_async=True, form="st_async_u32"),
        "atom": _r(mem="readwrite"),
        "red": _r(dests=0, mem="readwrite"),
        "red.async": _r(dests=0, mem="readwrite", is_async=True, form="red_async_add_u32"),
        "prefetch": _r(dests=0),
        "prefetch.tensormap": _r(dests=0, form="prefetch_tensormap_generic"),
        "prefetch.param.tensormap": _r(dests=0, form="prefetch_param_tensormap_direct"),
        "prefetchu": _r(dests=0),
        "discard": _r(dests=0, mem="write"),
        "applypriority": _r(dests=0),
        "createpolicy": _r(pure=True),
        "membar": _r(dests=0, fence=True),
        "fence": _r(dests=0, fence=True, form="fence_acq_rel_cluster"),
        "fence.sc": _r(dests=0, fence=True),
        "fence.acq_rel": _r(dests=0, fence=True),
        "fence.proxy": _r(dests=0, fence=True, form="fence_proxy_async"),
        "fence.mbarrier_init": _r(dests=0, fence=True, form="fence_mbarrier_init_release_cluster"),
        # control flow
        "bra": _r(dests=0, terminator=True),
        "brx": _r(dests=0, terminator=True),
        "ret": _r(dests=0, terminator=True),
        "exit": _r(dests=0, terminator=True),
        "trap": _r(dests=0, terminator=True),
        "call": _r(dests=0, mem="readwrite"),
        "nanosleep": _r(dests=0),
        "pmevent": _r(dests=0),
        "brkpt": _r(dests=0, terminator=True),
        "setmaxnreg": _r(dests=0, warp_collective=True, form="setmaxnreg_inc_240"),
        "griddepcontrol": _r(dests=0, form="griddepcontrol"),
        # barriers (operand-dependent refinement in `info`)
        "bar": _r(dests=0, barrier=True, parks=True, form="bar_sync_0"),
        "bar.sync": _r(dests=0, barrier=True, parks=True, form="bar_sync_0"),
        "bar.cta.sync": _r(dests=0, barrier=True, parks=True),
        "bar.red": _r(dests=1, barrier=True, parks=True),
        "bar.cta.red": _r(dests=1, barrier=True, parks=True),
        "bar.arrive": _r(dests=0, form="bar_arrive_1_64"),
        "bar.cta.arrive": _r(dests=0),
        "barrier.sync": _r(dests=0, barrier=True, parks=True, form="barrier_sync_0"),
        "barrier.cta.sync": _r(dests=0, barrier=True, parks=True),
        "barrier.red": _r(dests=1, barrier=True, parks=True),
        "barrier.cta.red": _r(dests=1, barrier=True, parks=True),
        "barrier.arrive": _r(dests=0),
        "barrier.cta.arrive": _r(dests=0),
        "barrier.cluster": _r(dests=0, cluster_barrier=True, form="barrier_cluster_arrive_wait"),
        "barrier.cluster.wait": _r(
            dests=0, cluster_barrier=True, parks=True, form="barrier_cluster_arrive_wait"
        ),
        "bar.warp.sync": _r(dests=0, warp_collective=True),
        # warp collectives
        "shfl": _r(warp_collective=True),
        "shfl.sync": _r(warp_collective=True, form="shfl_sync_down_b32"),
        "vote": _r(warp_collective=True),
        "vote.sync": _r(warp_collective=True, form="vote_sync_ballot_b32"),
        "match": _r(warp_collective=True),
        "redux": _r(warp_collective=True, form="redux_sync_add_u32"),
        "elect": _r(warp_collective=True, form="elect_sync"),
        "mma": _r(warp_collective=True, form="mma_sync_m16n8k16_f32_f16"),
        "ldmatrix": _r(mem="read", warp_collective=True, form="ldmatrix_m8n8_x4_b16"),
        "stmatrix": _r(dests=0, mem="write", warp_collective=True, form="stmatrix_m8n8_x4_b16"),
        "wmma": _r(warp_collective=True, form="wmma_m16n16k16_f16_f32"),
        "wmma.load": _r(mem="read", warp_collective=True, form="wmma_m16n16k16_f16_f32"),
        "wmma.store": _r(dests=0, mem="write", warp_collective=True, form="wmma_m16n16k16_f16_f32"),
        "wmma.mma": _r(warp_collective=True, form="wmma_m16n16k16_f16_f32"),
        "wgmma": _r(dests=0, warp_collective=True, form="wgmma_m64n8k16_f32_f16_ss"),
        "wgmma.mma_async": _r(
            mem="read", warp_collective=True, is_async=True, form="wgmma_m64n8k16_f32_f16_ss"
        ),
        # async copies
        "cp.async": _r(dests=0, mem="readwrite", is_async=True, form="cp_async_ca_4"),
        "cp.async.commit_group": _r(dests=0, is_async=True, form="cp_async_ca_16_commit_wait"),
        "cp.async.wait_group": _r(dests=0, is_async=True, form="cp_async_ca_16_commit_wait"),
        "cp.async.wait_all": _r(dests=0, is_async=True, form="cp_async_ca_16_commit_wait"),
        "cp.async.mbarrier.arrive": _r(
            dests=0, mem="readwrite", is_async=True, form="cp_async_mbarrier_arrive_noinc"
        ),
        "cp.async.bulk": _r(dests=0, mem="readwrite", is_async=True, form="bulk_load_nontensor_cluster"),
        "cp.async.bulk.commit_group": _r(dests=0, is_async=True, form="bulk_wait_group_only"),
        "cp.async.bulk.wait_group": _r(dests=0, is_async=True, form="bulk_wait_group_only"),
        "cp.async.bulk.prefetch": _r(dests=0, is_async=True, form="bulk_load_nontensor_cluster"),
        "cp.async.bulk.tensor": _r(
            dests=0, mem="readwrite", is_async=True, form="tma_load_2d_cluster_u64_generic"
        ),
        "cp.reduce.async.bulk": _r(dests=0, mem="readwrite", is_async=True, form="tma_reduce_add_2d_cvta"),
        "cp.reduce.async.bulk.tensor": _r(
            dests=0, mem="readwrite", is_async=True, form="tma_reduce_add_2d_cvta"
        ),
        # mbarriers
        "mbarrier": _r(mem="readwrite", form="mbarrier_init_shared_b64_legacy"),
        "mbarrier.init": _r(dests=0, mem="write", form="mbarrier_init_shared_b64_legacy"),
        "mbarrier.inval": _r(dests=0, mem="write", form="mbarrier_inval"),
        "mbarrier.arrive": _r(mem="readwrite", form="mbarrier_arrive_shared_b64_state_legacy"),
        "mbarrier.arrive.expect_tx": _r(mem="readwrite", form="mbarrier_arrive_expect_tx_shared_cta_b64"),
        "mbarrier.arrive_drop": _r(mem="readwrite", form="mbarrier_arrive_shared_b64_state_legacy"),
        "mbarrier.expect_tx": _r(dests=0, mem="readwrite", form="mbarrier_expect_tx_relaxed_cta"),
        "mbarrier.complete_tx": _r(dests=0, mem="readwrite", form="mbarrier_expect_tx_relaxed_cta"),
        "mbarrier.test_wait": _r(mem="read", polls=True, form="mbarrier_test_wait_legacy_shared"),
        "mbarrier.try_wait": _r(mem="read", polls=True, form="mbarrier_try_wait_state_loop"),
        "mbarrier.try_wait.parity": _r(mem="read", polls=True, form="mbarrier_try_wait_parity_loop"),
        "mbarrier.pending_count": _r(pure=True),
        # tensor memory (sm_100a family); `.sync.aligned` forms are warp collectives (see `opcode_info`)
        "tcgen05": _r(dests=0, form="tcgen05_alloc_dealloc"),
        "tcgen05.alloc": _r(dests=0, mem="write", form="tcgen05_alloc_dealloc"),
        "tcgen05.dealloc": _r(dests=0, form="tcgen05_alloc_dealloc"),
        "tcgen05.relinquish_alloc_permit": _r(dests=0, form="tcgen05_alloc_dealloc"),
        "tcgen05.mma": _r(
            dests=0, mem="readwrite", spaces=("tmem",), is_async=True, form="tcgen05_mma_f16_ss"
        ),
        "tcgen05.commit": _r(dests=0, mem="readwrite", is_async=True, form="tcgen05_commit_mbarrier"),
        "tcgen05.cp": _r(
            dests=0, mem="readwrite", spaces=("tmem",), is_async=True, form="tcgen05_cp_128x256b"
        ),
        "tcgen05.shift": _r(dests=0, mem="readwrite", spaces=("tmem",), is_async=True, form="tcgen05_shift"),
        "tcgen05.ld": _r(mem="read", spaces=("tmem",), is_async=True, form="tcgen05_ld_32x32b_x1_wait"),
        "tcgen05.st": _r(
            dests=0, mem="write", spaces=("tmem",), is_async=True, form="tcgen05_st_32x32b_x1_wait"
        ),
        "tcgen05.wait": _r(dests=0, form="tcgen05_ld_32x32b_x1_wait"),
        "tcgen05.fence": _r(dests=0, fence=True, form="tcgen05_fences"),
        # misc
        "tensormap.replace": _r(dests=0, mem="write"),
        "tensormap.cp_fenceproxy": _r(dests=0, mem="readwrite", fence=True),
        "multimem.ld_reduce": _r(mem="read"),
        "multimem.st": _r(dests=0, mem="write"),
        "multimem.red": _r(dests=0, mem="readwrite"),
        "suld": _r(mem="read"),
        "sust": _r(dests=0, mem="write"),
        "sured": _r(dests=0, mem="readwrite"),
        "tex": _r(mem="read"),
        "tld4": _r(mem="read"),
        "txq": _r(mem="read"),
        "suq": _r(mem="read"),
        "istypep": _r(pure=True),
        "getctarank": _r(pure=True),
        "stacksave": _r(),
        "stackrestore": _r(dests=0),
        "alloca": _r(),
    }
)

# PTX ISA 9.x stems without a dedicated row (video, extended precision, ...): see `isa_list`
_TABLE.update({k: _r(**v) for k, v in EXTRA_ROWS.items() if k not in _TABLE})

_MEMORY_DEFAULT_SPACE = {"ld", "ldu", "st", "atom", "red", "prefetch", "prefetchu", "multimem", "cvta"}

_cache: dict[str, InstrInfo] = {}


def _lookup_key(opcode: str) -> str | None:
    """Longest table key that is a prefix of `opcode` ending at a `.` or `::` boundary."""
    best = None
    for i, ch in enumerate(opcode):
        if ch == "." or (ch == ":" and opcode[i : i + 2] == "::"):
            if opcode[:i] in _TABLE:
                best = opcode[:i]
    if opcode in _TABLE:
        best = opcode
    return best


def opcode_info(opcode: str) -> InstrInfo:
    """Facts for an opcode string, independent of operands (cached)."""
    hit = _cache.get(opcode)
    if hit is not None:
        return hit
    key = _lookup_key(opcode)
    mods = opcode.split(".")[1:]
    if key is None:
        res = InstrInfo(key=opcode.split(".", 1)[0], mem="readwrite", known=False)
    else:
        res = InstrInfo(key=key, **_TABLE[key])
    spaces = tuple(s for s in _SPACES if s in mods) or res.spaces
    if res.mem != "none" and not spaces and key is not None and key.split(".")[0] in _MEMORY_DEFAULT_SPACE:
        spaces = ("generic",)
    upd: dict = {"spaces": spaces}
    if "aligned" in mods:
        upd["warp_collective"] = True
    if key is not None and key.startswith("tcgen05") and "sync" in mods and "aligned" in mods:
        upd["warp_collective"] = True
    res = replace(res, **upd)
    _cache[opcode] = res
    return res


_COUNTED = {"bar.sync": 2, "bar.cta.sync": 2, "bar": 2, "barrier.sync": 2, "barrier.cta.sync": 2}
_COUNTED_RED = {"bar.red", "bar.cta.red", "barrier.red", "barrier.cta.red"}


def info(instr: Instr) -> InstrInfo:
    """Facts for `instr`. Barriers with an explicit thread count (`bar.sync 1, 64`) are not block-wide:
    they are `warp_granular_barrier` (only the counted warps take part)."""
    res = opcode_info(instr.opcode)
    if not res.barrier:
        return res
    n = len(instr.operands)
    counted = (res.key in _COUNTED and n >= 2) or (res.key in _COUNTED_RED and n >= 4)
    if counted:
        return replace(res, barrier=False, warp_granular_barrier=True)
    return res


def dest_operands(instr: Instr) -> int:
    """Leading operand positions that are destinations (`_` and `a|b` count as one position).
    Unknown opcodes: 1 if the first operand is a plain register, else 0. A `call` has 1 when it
    returns values (its first operand is the parenthesised return list)."""
    res = opcode_info(instr.opcode)
    ops = instr.operands
    if res.key == "call":
        return 1 if ops and isinstance(ops[0], Vec) else 0
    if not res.known:
        return 1 if ops and isinstance(ops[0], (Reg, Pair, Vec)) and not isinstance(ops[0], Addr) else 0
    return min(res.dests, len(ops))


def def_regs(instr: Instr) -> list[Reg]:
    """Registers written by `instr` (sinks skipped, pairs and vectors expanded)."""
    out: list[Reg] = []
    for op in instr.operands[: dest_operands(instr)]:
        _collect_defs(op, out)
    return out


def _collect_defs(op: Operand, out: list[Reg]) -> None:
    if isinstance(op, Reg):
        out.append(op)
    elif isinstance(op, Pair):
        _collect_defs(op.first, out)
        _collect_defs(op.second, out)
    elif isinstance(op, Vec):
        for i in op.items:
            _collect_defs(i, out)


def dest_count(instr: Instr) -> int:
    """Number of registers `instr` defines: `shfl.sync %r|%p` 2, `setp %p|%q` 2, `mbarrier.arrive _` 0,
    `st` 0, `ld.v4 {a,b,c,d}` 4."""
    return len(def_regs(instr))


def use_regs(instr: Instr) -> list[Reg]:
    """Registers read by `instr`: the guard predicate, every register in source operands, address bases
    and tensor coordinates (also in destination positions: `st [%rd1]` reads %rd1), and the accumulator
    of read-modify-write forms is *not* added (callers needing it check `info().mem`/opcode)."""
    out: list[Reg] = []
    if instr.pred is not None:
        out.append(instr.pred)
    nd = dest_operands(instr)
    for i, op in enumerate(instr.operands):
        _collect_uses(op, out, is_dest=i < nd)
    return out


def _collect_uses(op: Operand, out: list[Reg], is_dest: bool) -> None:
    if isinstance(op, Reg):
        if not is_dest:
            out.append(op)
    elif isinstance(op, Addr):
        if isinstance(op.base, Reg):
            out.append(op.base)
        if op.index is not None:
            _collect_uses(op.index, out, False)
    elif isinstance(op, Vec):
        for i in op.items:
            _collect_uses(i, out, is_dest)
    elif isinstance(op, Pair):
        _collect_uses(op.first, out, is_dest)
        _collect_uses(op.second, out, is_dest)
    elif isinstance(op, Neg):
        _collect_uses(op.inner, out, is_dest)
    elif isinstance(op, Sink):
        pass
