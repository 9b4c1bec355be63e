"""THE table of PTX instruction facts, shared by the lifter, the analyzer and the emulator.

Why one table: "which operands does this instruction define", "is it a block-wide barrier", "may it
diverge across a warp" and "which targets accept it" must have one answer across irc, or the analyzer
and the emulator disagree about the same PTX. Facts are keyed by opcode prefix on dot (or `::`)
boundaries, longest prefix wins: `mbarrier.arrive.expect_tx` refines `mbarrier.arrive` refines
`mbarrier`. Look-ups are cached per opcode string, so `info()` costs a dict hit in the hot loops.

Operand conventions follow `irc.frontend.ptx.parser`: destinations come first; `%r|%p` is a `Pair`,
`_` a `Sink`, `{...}` a `Vec`; in `call` the parenthesised lists are `Vec`s.

Target gates (`gate()`) are the ptxas 13.0 results recorded in /work/shared/ptx-reference/
targets-table.txt, copied here as data (a test re-parses that file and compares). The forms the backend
emits, with their measured minimum `.version`, are `EMITTED_FORMS`; `min_version_for()` is the single
source of the emitted `.version` (`emit.required_version`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from functools import cache

from irc.backends.ptx.model import Addr, Instr, Neg, Operand, Pair, Reg, Sink, Vec

__all__ = [
    "ARCHES",
    "TARGET_MIN_VERSION",
    "Gate",
    "InstrInfo",
    "info",
    "opcode_info",
    "dest_operands",
    "dest_count",
    "def_regs",
    "use_regs",
    "gate",
    "gate_for",
    "GATES",
    "EmittedForm",
    "EMITTED_FORMS",
    "emitted_form",
    "min_version_for",
]

ARCHES: list[str] = ["sm_80", "sm_86", "sm_89", "sm_90", "sm_90a", "sm_100", "sm_100a", "sm_103a", "sm_120a"]

# Lowest `.version` ptxas 13.0 accepts for each target (headers of the reference forms).
TARGET_MIN_VERSION: dict[str, str] = {
    "sm_80": "7.0", "sm_86": "7.1", "sm_89": "7.8", "sm_90": "7.8", "sm_90a": "8.0",
    "sm_100": "8.6", "sm_100a": "8.6", "sm_103a": "8.8", "sm_120a": "8.7",
}  # fmt: skip

_SPACES = ("global", "shared::cta", "shared::cluster", "shared", "local", "param", "const", "tex")


@dataclass(frozen=True)
class InstrInfo:
    """Facts about one opcode (and, for barriers, its operands).

    `dests`: leading operand positions that PTX writes (a `Sink` or `Pair` there still counts as one
    position; see `dest_count` for defined registers). `mem`: none/read/write/readwrite. `spaces`: the
    state spaces named in the opcode (`generic` when a memory op names none). `form`: the reference form
    whose target gate applies (see `gate`). `known=False` means the default guess was used."""

    key: str
    dests: int = 1
    mem: str = "none"
    spaces: tuple[str, ...] = ()
    barrier: bool = False
    warp_granular_barrier: bool = False
    cluster_barrier: bool = False
    warp_collective: bool = False
    terminator: bool = False
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
        "brkpt": _r(dests=0),
        "setmaxnreg": _r(dests=0, warp_collective=True, form="setmaxnreg_inc_240"),
        "griddepcontrol": _r(dests=0, form="griddepcontrol"),
        # barriers (operand-dependent refinement in `info`)
        "bar": _r(dests=0, barrier=True, form="bar_sync_0"),
        "bar.sync": _r(dests=0, barrier=True, form="bar_sync_0"),
        "bar.cta.sync": _r(dests=0, barrier=True),
        "bar.red": _r(dests=1, barrier=True),
        "bar.cta.red": _r(dests=1, barrier=True),
        "bar.arrive": _r(dests=0, form="bar_arrive_1_64"),
        "bar.cta.arrive": _r(dests=0),
        "barrier.sync": _r(dests=0, barrier=True, form="barrier_sync_0"),
        "barrier.cta.sync": _r(dests=0, barrier=True),
        "barrier.red": _r(dests=1, barrier=True),
        "barrier.cta.red": _r(dests=1, barrier=True),
        "barrier.arrive": _r(dests=0),
        "barrier.cta.arrive": _r(dests=0),
        "barrier.cluster": _r(dests=0, cluster_barrier=True, form="barrier_cluster_arrive_wait"),
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
        "mbarrier.test_wait": _r(mem="read", form="mbarrier_test_wait_legacy_shared"),
        "mbarrier.try_wait": _r(mem="read", form="mbarrier_try_wait_state_loop"),
        "mbarrier.try_wait.parity": _r(mem="read", form="mbarrier_try_wait_parity_loop"),
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


# ----------------------------------------------------------------------------------------------- gates


@dataclass(frozen=True)
class Gate:
    """Targets (among `ARCHES`) whose ptxas accepts a form, and the lowest `.version` it needs beyond the
    target's own minimum (None: the target's minimum suffices)."""

    targets: tuple[str, ...]
    min_version: str | None

    def version_for(self, target: str) -> str | None:
        """Lowest `.version` that works for this form on `target`, or None if the target rejects it."""
        if target not in self.targets:
            return None
        base = TARGET_MIN_VERSION[target]
        if self.min_version is None:
            return base
        return max(base, self.min_version, key=_vkey)

    def accepts(self, target: str, version: str) -> bool:
        need = self.version_for(target)
        return need is not None and _vkey(version) >= _vkey(need)


def _vkey(v: str) -> tuple[int, ...]:
    return tuple(int(x) for x in v.split(".") if x.isdigit())


# form | min .version ("-": the target's minimum) | accepted targets ("all", "none", or a list).
# Source: /work/shared/ptx-reference/targets-table.txt (ptxas 13.0); sm_100f is outside ARCHES.
_GATES_TEXT = """
bar_sync_0 | - | all
bar_sync_1_64 | - | all
bar_arrive_1_64 | - | all
barrier_sync_aligned_0 | - | all
barrier_sync_0 | - | all
barrier_sync_aligned_1_64 | - | all
barrier_cluster_arrive_wait | - | sm_90 sm_90a sm_100 sm_100a sm_103a sm_120a
barrier_cluster_arrive_release_wait_acquire_aligned | 8.0 | sm_90 sm_90a sm_100 sm_100a sm_103a sm_120a
shfl_sync_down_b32_pred | - | all
shfl_sync_down_b32 | - | all
shfl_sync_idx_b32 | - | all
shfl_sync_bfly_b32 | - | all
vote_sync_ballot_b32 | - | all
vote_sync_all_pred | - | all
activemask_b32 | - | all
redux_sync_add_u32 | - | all
mbarrier_init_shared_b64_legacy | - | all
mbarrier_init_shared_cta_b64 | 7.8 | all
mbarrier_init_shared_cta_b64_regaddr | 7.8 | all
mbarrier_arrive_shared_cta_b64_state | 7.8 | all
mbarrier_arrive_shared_b64_state_legacy | - | all
mbarrier_arrive_release_cta_shared_cta_b64_sink | 8.0 | all
mbarrier_arrive_expect_tx_shared_cta_b64 | 8.0 | sm_90 sm_90a sm_100 sm_100a sm_103a sm_120a
mbarrier_arrive_expect_tx_release_cta_sink | 8.0 | sm_90 sm_90a sm_100 sm_100a sm_103a sm_120a
mbarrier_expect_tx_relaxed_cta | 8.0 | sm_90 sm_90a sm_100 sm_100a sm_103a sm_120a
mbarrier_try_wait_parity_loop | - | sm_90 sm_90a sm_100 sm_100a sm_103a sm_120a
mbarrier_try_wait_parity_suspendhint_loop | - | sm_90 sm_90a sm_100 sm_100a sm_103a sm_120a
mbarrier_try_wait_state_loop | - | sm_90 sm_90a sm_100 sm_100a sm_103a sm_120a
mbarrier_test_wait_state_loop | 7.8 | all
mbarrier_test_wait_parity_loop | 7.8 | all
mbarrier_test_wait_legacy_shared | - | all
cp_async_ca_16_commit_wait | - | all
cp_async_ca_4 | - | all
cp_async_cg_16_l2prefetch | 7.4 | all
cp_async_mbarrier_arrive_noinc | 7.8 | all
tma_load_2d_cluster_param_direct | - | none
tma_load_2d_cluster_param_movaddr | 8.0 | sm_90 sm_90a sm_100 sm_100a sm_103a sm_120a
tma_load_2d_cluster_param_cvta | 8.0 | sm_90 sm_90a sm_100 sm_100a sm_103a sm_120a
tma_load_2d_cluster_u64_generic | 8.0 | sm_90 sm_90a sm_100 sm_100a sm_103a sm_120a
tma_load_2d_cluster_regaddrs | 8.0 | sm_90 sm_90a sm_100 sm_100a sm_103a sm_120a
tma_load_2d_cta_dst_param | - | none
tma_load_2d_cta_dst_u64 | 8.6 | sm_90 sm_90a sm_100 sm_100a sm_103a sm_120a
tma_load_2d_cluster_l2hint | - | none
tma_load_2d_cta_group_2 | - | none
tma_load_2d_multicast | - | none
tma_store_2d_param_bulk_group | - | none
tma_store_2d_u64_bulk_group | 8.0 | sm_90 sm_90a sm_100 sm_100a sm_103a sm_120a
tma_reduce_add_2d | - | none
bulk_load_nontensor_cluster | 8.0 | sm_90 sm_90a sm_100 sm_100a sm_103a sm_120a
bulk_load_nontensor_cta_dst | 8.6 | sm_90 sm_90a sm_100 sm_100a sm_103a sm_120a
bulk_store_nontensor | 8.0 | sm_90 sm_90a sm_100 sm_100a sm_103a sm_120a
prefetch_tensormap_param | - | none
prefetch_tensormap_generic | 8.0 | sm_90 sm_90a sm_100 sm_100a sm_103a sm_120a
fence_proxy_async_shared_cta | 8.0 | sm_90 sm_90a sm_100 sm_100a sm_103a sm_120a
fence_proxy_async | 8.0 | sm_90 sm_90a sm_100 sm_100a sm_103a sm_120a
fence_mbarrier_init_release_cluster | 8.0 | sm_90 sm_90a sm_100 sm_100a sm_103a sm_120a
fence_acq_rel_cluster | - | sm_90 sm_90a sm_100 sm_100a sm_103a sm_120a
mma_sync_m16n8k16_f32_f16 | - | all
mma_sync_m16n8k16_f32_bf16 | - | all
wmma_m16n16k16_f16_f32 | - | all
ldmatrix_m8n8_x4_b16 | - | all
ldmatrix_m8n8_x4_trans_b16_regaddr | - | all
stmatrix_m8n8_x4_b16 | - | sm_90 sm_90a sm_100 sm_100a sm_103a sm_120a
wgmma_m64n8k16_f32_f16_ss | - | sm_90a
elect_sync | 8.0 | sm_90 sm_90a sm_100 sm_100a sm_103a sm_120a
elect_sync_sink | 8.0 | sm_90 sm_90a sm_100 sm_100a sm_103a sm_120a
setmaxnreg_inc_240 | - | sm_90a sm_100a sm_103a sm_120a
setmaxnreg_dec_40 | - | sm_90a sm_100a sm_103a sm_120a
griddepcontrol | - | sm_90 sm_90a sm_100 sm_100a sm_103a sm_120a
cluster_sregs | - | sm_90 sm_90a sm_100 sm_100a sm_103a sm_120a
is_explicit_cluster | - | sm_90 sm_90a sm_100 sm_100a sm_103a sm_120a
mapa_shared_cluster | - | sm_90 sm_90a sm_100 sm_100a sm_103a sm_120a
st_async_u32 | 8.1 | sm_90 sm_90a sm_100 sm_100a sm_103a sm_120a
st_async_v4_b32 | 8.1 | sm_90 sm_90a sm_100 sm_100a sm_103a sm_120a
red_async_add_u32 | 8.1 | sm_90 sm_90a sm_100 sm_100a sm_103a sm_120a
tcgen05_alloc_dealloc | - | sm_100a sm_103a
tcgen05_mma_f16_ss | - | sm_100a sm_103a
tcgen05_commit_mbarrier | - | sm_100a sm_103a
tcgen05_commit_mbarrier_regaddr | - | sm_100a sm_103a
tcgen05_ld_32x32b_x1_wait | - | sm_100a sm_103a
tcgen05_st_32x32b_x1_wait | - | sm_100a sm_103a
tcgen05_fences | - | sm_100a sm_103a
tcgen05_full_pipeline | - | sm_100a sm_103a
cvta_param_u64 | 7.7 | all
mov_b64_param_addr | - | all
tma_load_2d_cluster_param128_cvta_tile | 8.0 | sm_90 sm_90a sm_100 sm_100a sm_103a sm_120a
tma_load_2d_cta_dst_param_cvta | 8.6 | sm_90 sm_90a sm_100 sm_100a sm_103a sm_120a
tma_load_2d_cta_dst_param_mov | 8.6 | sm_90 sm_90a sm_100 sm_100a sm_103a sm_120a
tma_load_2d_cluster_l2hint_cvta | 8.0 | sm_90 sm_90a sm_100 sm_100a sm_103a sm_120a
tma_load_2d_cta_group_2_cvta | - | sm_100a sm_103a
tma_load_2d_multicast_cvta | 8.0 | sm_90 sm_90a sm_100 sm_100a sm_103a sm_120a
tma_load_3d_cluster_cvta | 8.0 | sm_90 sm_90a sm_100 sm_100a sm_103a sm_120a
tma_store_2d_param_cvta_bulk_group | 8.0 | sm_90 sm_90a sm_100 sm_100a sm_103a sm_120a
tma_store_2d_param_mov_bulk_group | 8.0 | sm_90 sm_90a sm_100 sm_100a sm_103a sm_120a
tma_store_2d_tile_regaddr | 8.0 | sm_90 sm_90a sm_100 sm_100a sm_103a sm_120a
tma_reduce_add_2d_cvta | 8.0 | sm_90 sm_90a sm_100 sm_100a sm_103a sm_120a
prefetch_param_tensormap_direct | 8.0 | sm_90 sm_90a sm_100 sm_100a sm_103a sm_120a
prefetch_tensormap_cvta | 8.0 | sm_90 sm_90a sm_100 sm_100a sm_103a sm_120a
bulk_wait_group_read_only | 8.0 | sm_90 sm_90a sm_100 sm_100a sm_103a sm_120a
bulk_wait_group_only | 8.0 | sm_90 sm_90a sm_100 sm_100a sm_103a sm_120a
mbarrier_arrive_count_shared_cta | - | sm_90 sm_90a sm_100 sm_100a sm_103a sm_120a
mbarrier_try_wait_shared_legacy | - | sm_90 sm_90a sm_100 sm_100a sm_103a sm_120a
mbarrier_inval | 7.8 | all
tcgen05_mma_f16_disable_output_lane | - | sm_100a sm_103a
tcgen05_mma_tf32_ts | - | sm_100a sm_103a
tcgen05_alloc_cta_group_2 | - | sm_100a sm_103a
tcgen05_ld_32x32b_x8 | - | sm_100a sm_103a
tcgen05_ld_16x256b_x1 | - | sm_100a sm_103a
tcgen05_commit_multicast | - | sm_100a sm_103a
tcgen05_cp_128x256b | - | sm_100a sm_103a
tcgen05_shift | - | sm_100a sm_103a
"""


def _parse_gates(text: str) -> dict[str, Gate]:
    out: dict[str, Gate] = {}
    for line in text.strip().splitlines():
        name, ver, targets = (p.strip() for p in line.split("|"))
        tl = tuple(ARCHES) if targets == "all" else () if targets == "none" else tuple(targets.split())
        out[name] = Gate(tl, None if ver == "-" else ver)
    return out


GATES: dict[str, Gate] = _parse_gates(_GATES_TEXT)


def gate(form_name: str) -> Gate:
    """The target gate of a reference form (KeyError for an unknown form)."""
    return GATES[form_name]


def gate_for(instr: Instr) -> Gate | None:
    """The gate of the reference form that `instr`'s opcode family maps to, if any. Per-modifier refinements
    (`.cta_group::2`, `.multicast::cluster`) are not modelled; the family's base form is used."""
    form = opcode_info(instr.opcode).form
    return GATES.get(form) if form else None


# ------------------------------------------------------------------------------------- emitted forms


@dataclass(frozen=True)
class EmittedForm:
    """An instruction form exactly as the PTX backend spells it (which may differ from the reference form
    of its family: the backend emits `mbarrier.test_wait.parity.shared.b64`, legal from PTX 7.1, where the
    reference `mbarrier_test_wait_parity_loop` uses `.shared::cta` and needs 7.8).

    `opcode` is a regex that must match the whole opcode string; `gate` holds the accepted targets and the
    lowest `.version` ptxas 13.0 accepts on the lowest of them (measured: `sample` assembled inside a
    minimal `.entry k(.param .u64 p)` declaring `%p<4>`, `%r<16>`, `%rd<8>`; the previous version is
    rejected; tests/test_ptx_isa.py re-measures it)."""

    name: str
    opcode: re.Pattern[str]
    gate: Gate
    sample: str

    @property
    def lowest_target(self) -> str:
        return self.gate.targets[0]


def _ef(name: str, opcode: str, version: str, targets: str, sample: str) -> EmittedForm:
    tl = tuple(ARCHES) if targets == "all" else tuple(targets.split())
    return EmittedForm(name, re.compile(opcode), Gate(tl, version), sample)


#: Every version-relevant form the backend emits. An opcode no row matches needs nothing beyond the
#: target's minimum `.version` (the target minima are all >= 7.0, the oldest ISA irc emits for).
#: Add a row (and measure it) when instruction selection learns a new async/cluster/tcgen05 form.
EMITTED_FORMS: tuple[EmittedForm, ...] = (
    _ef(
        "mbarrier_init_shared_b64",
        r"mbarrier\.init\.shared\.b64",
        "7.0",
        "all",
        "mbarrier.init.shared.b64 [%r2], 1;",
    ),
    _ef(
        "mbarrier_arrive_shared_b64",
        r"mbarrier\.arrive\.shared\.b64",
        "7.0",
        "all",
        "mbarrier.arrive.shared.b64 %rd1, [%r0];",
    ),
    _ef(
        "mbarrier_test_wait_parity_shared_b64",
        r"mbarrier\.test_wait\.parity\.shared\.b64",
        "7.1",
        "all",
        "mbarrier.test_wait.parity.shared.b64 %p0, [%r0], %r1;",
    ),
    _ef(
        "mbarrier_try_wait_parity_shared_b64",
        r"mbarrier\.try_wait\.parity\.shared\.b64",
        "7.8",
        "sm_90 sm_90a sm_100 sm_100a sm_103a sm_120a",
        "mbarrier.try_wait.parity.shared.b64 %p1, [%r8], %r9;",
    ),
    _ef(
        "mbarrier_inval_shared_b64",
        r"mbarrier\.inval\.shared\.b64",
        "7.0",
        "all",
        "mbarrier.inval.shared.b64 [%r0];",
    ),
    _ef(
        "mbarrier_arrive_expect_tx_shared_b64",
        r"mbarrier\.arrive\.expect_tx\.shared\.b64",
        "8.0",
        "sm_90 sm_90a sm_100 sm_100a sm_103a sm_120a",
        "mbarrier.arrive.expect_tx.shared.b64 %rd3, [%r9], 6144;",
    ),
    _ef(
        "mbarrier_expect_tx_relaxed_cta_shared_b64",
        r"mbarrier\.expect_tx\.relaxed\.cta\.shared\.b64",
        "8.0",
        "sm_90 sm_90a sm_100 sm_100a sm_103a sm_120a",
        "mbarrier.expect_tx.relaxed.cta.shared.b64 [%r0], 0;",
    ),
    _ef(
        "elect_sync_sink_pred",
        r"elect\.sync",
        "8.0",
        "sm_90 sm_90a sm_100 sm_100a sm_103a sm_120a",
        "elect.sync _|%p1, 4294967295;",
    ),
    _ef(
        "redux_sync_u32",
        r"redux\.sync\.(add|min|max)\.u32",
        "7.0",
        "all",
        "redux.sync.add.u32 %r1, %r2, %r3;",
    ),
    _ef(
        "redux_sync_b32",
        r"redux\.sync\.(and|or|xor)\.b32",
        "7.0",
        "all",
        "redux.sync.and.b32 %r1, %r2, %r3;",
    ),
    _ef(
        "fence_proxy_async_shared_cta",
        r"fence\.proxy\.async\.shared::cta",
        "8.0",
        "sm_90 sm_90a sm_100 sm_100a sm_103a sm_120a",
        "fence.proxy.async.shared::cta;",
    ),
    _ef(
        "fence_mbarrier_init_release_cluster",
        r"fence\.mbarrier_init\.release\.cluster",
        "8.0",
        "sm_90 sm_90a sm_100 sm_100a sm_103a sm_120a",
        "fence.mbarrier_init.release.cluster;",
    ),
    _ef(
        "cp_async_bulk_tensor_load_cluster_complete_tx",
        r"cp\.async\.bulk\.tensor\.[1-5]d\.shared::cluster\.global\.mbarrier::complete_tx::bytes",
        "8.0",
        "sm_90 sm_90a sm_100 sm_100a sm_103a sm_120a",
        "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%r12], [%rd1, {%r14, %r13}], [%r9];",
    ),
    _ef(
        "cp_async_bulk_tensor_store_bulk_group",
        r"cp\.async\.bulk\.tensor\.[1-5]d\.global\.shared::cta\.bulk_group",
        "8.0",
        "sm_90 sm_90a sm_100 sm_100a sm_103a sm_120a",
        "cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%rd0, {%r2, %r1}], [%r0];",
    ),
    _ef(
        "cp_async_bulk_commit_group",
        r"cp\.async\.bulk\.commit_group",
        "8.0",
        "sm_90 sm_90a sm_100 sm_100a sm_103a sm_120a",
        "cp.async.bulk.commit_group;",
    ),
    _ef(
        "cp_async_bulk_wait_group_read",
        r"cp\.async\.bulk\.wait_group\.read",
        "8.0",
        "sm_90 sm_90a sm_100 sm_100a sm_103a sm_120a",
        "cp.async.bulk.wait_group.read 0;",
    ),
    _ef(
        "cp_async_bulk_prefetch_tensor_l2",
        r"cp\.async\.bulk\.prefetch\.tensor\.[1-5]d\.L2\.global\.tile",
        "8.0",
        "sm_90 sm_90a sm_100 sm_100a sm_103a sm_120a",
        "cp.async.bulk.prefetch.tensor.2d.L2.global.tile [%rd0, {%r3, %r2}];",
    ),
    _ef(
        "cvta_param_u64_reg",
        r"cvta\.param\.u64",
        "7.7",
        "all",
        "mov.b64 %rd1, p;\ncvta.param.u64 %rd1, %rd1;",
    ),
    _ef(
        "tcgen05_alloc_cta_group_1",
        r"tcgen05\.alloc\.cta_group::1\.sync\.aligned\.shared::cta\.b32",
        "8.6",
        "sm_100a sm_103a",
        "tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%r2], 64;",
    ),
    _ef(
        "tcgen05_relinquish_alloc_permit_cta_group_1",
        r"tcgen05\.relinquish_alloc_permit\.cta_group::1\.sync\.aligned",
        "8.6",
        "sm_100a sm_103a",
        "tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;",
    ),
    _ef(
        "tcgen05_dealloc_cta_group_1",
        r"tcgen05\.dealloc\.cta_group::1\.sync\.aligned\.b32",
        "8.6",
        "sm_100a sm_103a",
        "tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r2, 64;",
    ),
    _ef(
        "tcgen05_fence_thread_sync",
        r"tcgen05\.fence::(before|after)_thread_sync",
        "8.6",
        "sm_100a sm_103a",
        "tcgen05.fence::before_thread_sync;\ntcgen05.fence::after_thread_sync;",
    ),
    _ef(
        "tcgen05_mma_cta_group_1_f16",
        r"tcgen05\.mma\.cta_group::1\.kind::f16",
        "8.6",
        "sm_100a sm_103a",
        "tcgen05.mma.cta_group::1.kind::f16 [%r2], %rd1, %rd2, %r3, %p1;",
    ),
    _ef(
        "tcgen05_commit_cta_group_1_shared_cluster",
        r"tcgen05\.commit\.cta_group::1\.mbarrier::arrive::one\.shared::cluster\.b64",
        "8.6",
        "sm_100a sm_103a",
        "tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%r7];",
    ),
    _ef(
        "tcgen05_ld_32x32b",
        r"tcgen05\.ld\.sync\.aligned\.32x32b\.x(1|2|4|8|16|32|64|128)\.b32",
        "8.6",
        "sm_100a sm_103a",
        "tcgen05.ld.sync.aligned.32x32b.x2.b32 {%r4, %r6}, [%r4];",
    ),
    _ef(
        "tcgen05_wait_ld",
        r"tcgen05\.wait::ld\.sync\.aligned",
        "8.6",
        "sm_100a sm_103a",
        "tcgen05.wait::ld.sync.aligned;",
    ),
    _ef(
        "tcgen05_st_32x32b",
        r"tcgen05\.st\.sync\.aligned\.32x32b\.x(1|2|4|8|16|32|64|128)\.b32",
        "8.6",
        "sm_100a sm_103a",
        "tcgen05.st.sync.aligned.32x32b.x2.b32 [%r4], {%r5, %r6};",
    ),
    _ef(
        "tcgen05_wait_st",
        r"tcgen05\.wait::st\.sync\.aligned",
        "8.6",
        "sm_100a sm_103a",
        "tcgen05.wait::st.sync.aligned;",
    ),
)


def emitted_form(opcode: str) -> EmittedForm | None:
    """The emitted form whose opcode pattern matches all of `opcode` (modifier-aware: `.shared` is not
    `.shared::cta`, `mbarrier.test_wait.parity` is not `mbarrier.try_wait.parity`), or None."""
    return _emitted_form(opcode)


@cache
def _emitted_form(opcode: str) -> EmittedForm | None:
    for f in EMITTED_FORMS:
        if f.opcode.fullmatch(opcode):
            return f
    return None


def min_version_for(instr: Instr) -> tuple[int, int]:
    """The lowest PTX ISA version (major, minor) the emitted instruction `instr` needs on its lowest
    accepting target; (0, 0) when it needs nothing beyond the target's own minimum."""
    f = _emitted_form(instr.opcode)
    if f is None or f.gate.min_version is None:
        return (0, 0)
    major, minor = _vkey(f.gate.min_version)
    return (major, minor)
