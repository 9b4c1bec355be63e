"""Target gates of PTX reference forms: which targets' ptxas accepts a form, from which `.version`.

The rows are the ptxas 13.0 results recorded in /work/shared/ptx-reference/targets-table.txt, copied here
as data (tests/test_ptx_isa.py re-parses that file and compares); the accepted targets are named by a gate
family of `irc.target` (the one place that lists architectures), the per-target minimum `.version` comes
from `irc.target.min_ptx_version`.
"""

from __future__ import annotations

from irc.ptxisa.facts import opcode_info
from irc.ptxisa.model import Instr
from irc.records import record
from irc.target import GATE_FAMILIES, format_version, min_ptx_version, parse_version

__all__ = ["Gate", "GATES", "gate", "gate_for"]


@record(frozen=True)
class Gate:
    """Targets (among `irc.target.ARCHES`) whose ptxas accepts a form, and the lowest `.version` it needs beyond the
    target's own minimum (None: the target's minimum suffices)."""

    targets: tuple[str, ...]
    min_version: str | None

    def version_for(self, target: str) -> str | None:
        """Lowest `.version` that works for this form on `target`, or None if the target rejects it."""
        if target not in self.targets:
            return None
        base = format_version(min_ptx_version(target))
        if self.min_version is None:
            return base
        return max(base, self.min_version, key=_vkey)

    def accepts(self, target: str, version: str) -> bool:
        need = self.version_for(target)
        return need is not None and _vkey(version) >= _vkey(need)


def _vkey(v: str) -> tuple[int, ...]:
    return parse_version(v)


# form | min .version ("-": the target's minimum) | accepting targets, as a gate family of irc.target.
# Source: /work/shared/ptx-reference/targets-table.txt (ptxas 13.0); sm_100f is outside irc.target.ARCHES.
_GATES_TEXT = """
bar_sync_0 | - | sm_80
bar_sync_1_64 | - | sm_80
bar_arrive_1_64 | - | sm_80
barrier_sync_aligned_0 | - | sm_80
barrier_sync_0 | - | sm_80
barrier_sync_aligned_1_64 | - | sm_80
barrier_cluster_arrive_wait | - | sm_90
barrier_cluster_arrive_release_wait_acquire_aligned | 8.0 | sm_90
shfl_sync_down_b32_pred | - | sm_80
shfl_sync_down_b32 | - | sm_80
shfl_sync_idx_b32 | - | sm_80
shfl_sync_bfly_b32 | - | sm_80
vote_sync_ballot_b32 | - | sm_80
vote_sync_all_pred | - | sm_80
activemask_b32 | - | sm_80
redux_sync_add_u32 | - | sm_80
mbarrier_init_shared_b64_legacy | - | sm_80
mbarrier_init_shared_cta_b64 | 7.8 | sm_80
mbarrier_init_shared_cta_b64_regaddr | 7.8 | sm_80
mbarrier_arrive_shared_cta_b64_state | 7.8 | sm_80
mbarrier_arrive_shared_b64_state_legacy | - | sm_80
mbarrier_arrive_release_cta_shared_cta_b64_sink | 8.0 | sm_80
mbarrier_arrive_expect_tx_shared_cta_b64 | 8.0 | sm_90
mbarrier_arrive_expect_tx_release_cta_sink | 8.0 | sm_90
mbarrier_expect_tx_relaxed_cta | 8.0 | sm_90
mbarrier_try_wait_parity_loop | - | sm_90
mbarrier_try_wait_parity_suspendhint_loop | - | sm_90
mbarrier_try_wait_state_loop | - | sm_90
mbarrier_test_wait_state_loop | 7.8 | sm_80
mbarrier_test_wait_parity_loop | 7.8 | sm_80
mbarrier_test_wait_legacy_shared | - | sm_80
cp_async_ca_16_commit_wait | - | sm_80
cp_async_ca_4 | - | sm_80
cp_async_cg_16_l2prefetch | 7.4 | sm_80
cp_async_mbarrier_arrive_noinc | 7.8 | sm_80
tma_load_2d_cluster_param_direct | - | none
tma_load_2d_cluster_param_movaddr | 8.0 | sm_90
tma_load_2d_cluster_param_cvta | 8.0 | sm_90
tma_load_2d_cluster_u64_generic | 8.0 | sm_90
tma_load_2d_cluster_regaddrs | 8.0 | sm_90
tma_load_2d_cta_dst_param | - | none
tma_load_2d_cta_dst_u64 | 8.6 | sm_90
tma_load_2d_cluster_l2hint | - | none
tma_load_2d_cta_group_2 | - | none
tma_load_2d_multicast | - | none
tma_store_2d_param_bulk_group | - | none
tma_store_2d_u64_bulk_group | 8.0 | sm_90
tma_reduce_add_2d | - | none
bulk_load_nontensor_cluster | 8.0 | sm_90
bulk_load_nontensor_cta_dst | 8.6 | sm_90
bulk_store_nontensor | 8.0 | sm_90
prefetch_tensormap_param | - | none
prefetch_tensormap_generic | 8.0 | sm_90
fence_proxy_async_shared_cta | 8.0 | sm_90
fence_proxy_async | 8.0 | sm_90
fence_mbarrier_init_release_cluster | 8.0 | sm_90
fence_acq_rel_cluster | - | sm_90
mma_sync_m16n8k16_f32_f16 | - | sm_80
mma_sync_m16n8k16_f32_bf16 | - | sm_80
wmma_m16n16k16_f16_f32 | - | sm_80
ldmatrix_m8n8_x4_b16 | - | sm_80
ldmatrix_m8n8_x4_trans_b16_regaddr | - | sm_80
stmatrix_m8n8_x4_b16 | - | sm_90
wgmma_m64n8k16_f32_f16_ss | - | sm_90a
elect_sync | 8.0 | sm_90
elect_sync_sink | 8.0 | sm_90
setmaxnreg_inc_240 | - | arch_specific
setmaxnreg_dec_40 | - | arch_specific
griddepcontrol | - | sm_90
cluster_sregs | - | sm_90
is_explicit_cluster | - | sm_90
mapa_shared_cluster | - | sm_90
st_async_u32 | 8.1 | sm_90
st_async_v4_b32 | 8.1 | sm_90
red_async_add_u32 | 8.1 | sm_90
tcgen05_alloc_dealloc | - | sm_100a
tcgen05_mma_f16_ss | - | sm_100a
tcgen05_commit_mbarrier | - | sm_100a
tcgen05_commit_mbarrier_regaddr | - | sm_100a
tcgen05_ld_32x32b_x1_wait | - | sm_100a
tcgen05_st_32x32b_x1_wait | - | sm_100a
tcgen05_fences | - | sm_100a
tcgen05_full_pipeline | - | sm_100a
cvta_param_u64 | 7.7 | sm_80
mov_b64_param_addr | - | sm_80
tma_load_2d_cluster_param128_cvta_tile | 8.0 | sm_90
tma_load_2d_cta_dst_param_cvta | 8.6 | sm_90
tma_load_2d_cta_dst_param_mov | 8.6 | sm_90
tma_load_2d_cluster_l2hint_cvta | 8.0 | sm_90
tma_load_2d_cta_group_2_cvta | - | sm_100a
tma_load_2d_multicast_cvta | 8.0 | sm_90
tma_load_3d_cluster_cvta | 8.0 | sm_90
tma_store_2d_param_cvta_bulk_group | 8.0 | sm_90
tma_store_2d_param_mov_bulk_group | 8.0 | sm_90
tma_store_2d_tile_regaddr | 8.0 | sm_90
tma_reduce_add_2d_cvta | 8.0 | sm_90
prefetch_param_tensormap_direct | 8.0 | sm_90
prefetch_tensormap_cvta | 8.0 | sm_90
bulk_wait_group_read_only | 8.0 | sm_90
bulk_wait_group_only | 8.0 | sm_90
mbarrier_arrive_count_shared_cta | - | sm_90
mbarrier_try_wait_shared_legacy | - | sm_90
mbarrier_inval | 7.8 | sm_80
tcgen05_mma_f16_disable_output_lane | - | sm_100a
tcgen05_mma_tf32_ts | - | sm_100a
tcgen05_alloc_cta_group_2 | - | sm_100a
tcgen05_ld_32x32b_x8 | - | sm_100a
tcgen05_ld_16x256b_x1 | - | sm_100a
tcgen05_commit_multicast | - | sm_100a
tcgen05_cp_128x256b | - | sm_100a
tcgen05_shift | - | sm_100a
"""


def _parse_gates(text: str) -> dict[str, Gate]:
    out: dict[str, Gate] = {}
    for line in text.strip().splitlines():
        name, ver, targets = (p.strip() for p in line.split("|"))
        tl = GATE_FAMILIES[targets]
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
