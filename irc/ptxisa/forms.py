"""The instruction forms the PTX backend emits, each with its measured target gate.

`min_version_for()` is the single source of the emitted `.version` (`irc.backends.ptx.emit`). Accepted
targets are gate families of `irc.target`.
"""

from __future__ import annotations

import re
from functools import cache

from irc.ptxisa.gates import Gate
from irc.ptxisa.model import Instr
from irc.records import record
from irc.target import GATE_FAMILIES, parse_version

__all__ = ["DIRECTIVE_VERSIONS", "EmittedForm", "EMITTED_FORMS", "emitted_form", "min_version_for"]

#: Kernel directives the backend emits that need a `.version` above the oldest (reqnctapercluster: 7.8).
DIRECTIVE_VERSIONS: dict[str, tuple[int, int]] = {"reqnctapercluster": (7, 8)}


@record(frozen=True)
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
    tl = GATE_FAMILIES[targets]
    return EmittedForm(name, re.compile(opcode), Gate(tl, version), sample)


#: Every version-relevant form the backend emits. An opcode no row matches needs nothing beyond the
#: target's minimum `.version` (the target minima are all >= 7.0, the oldest ISA irc emits for).
#: Add a row (and measure it) when instruction selection learns a new async/cluster/tcgen05 form.
EMITTED_FORMS: tuple[EmittedForm, ...] = (
    _ef(
        "mbarrier_init_shared_b64",
        r"mbarrier\.init\.shared\.b64",
        "7.0",
        "sm_80",
        "mbarrier.init.shared.b64 [%r2], 1;",
    ),
    _ef(
        "mbarrier_arrive_shared_b64",
        r"mbarrier\.arrive\.shared\.b64",
        "7.0",
        "sm_80",
        "mbarrier.arrive.shared.b64 %rd1, [%r0];",
    ),
    _ef(
        "mbarrier_test_wait_parity_shared_b64",
        r"mbarrier\.test_wait\.parity\.shared\.b64",
        "7.1",
        "sm_80",
        "mbarrier.test_wait.parity.shared.b64 %p0, [%r0], %r1;",
    ),
    _ef(
        "mbarrier_try_wait_parity_shared_b64",
        r"mbarrier\.try_wait\.parity\.shared\.b64",
        "7.8",
        "sm_90",
        "mbarrier.try_wait.parity.shared.b64 %p1, [%r8], %r9;",
    ),
    _ef(
        "mbarrier_inval_shared_b64",
        r"mbarrier\.inval\.shared\.b64",
        "7.0",
        "sm_80",
        "mbarrier.inval.shared.b64 [%r0];",
    ),
    _ef(
        "mbarrier_arrive_expect_tx_shared_b64",
        r"mbarrier\.arrive\.expect_tx\.shared\.b64",
        "8.0",
        "sm_90",
        "mbarrier.arrive.expect_tx.shared.b64 %rd3, [%r9], 6144;",
    ),
    _ef(
        "mbarrier_expect_tx_relaxed_cta_shared_b64",
        r"mbarrier\.expect_tx\.relaxed\.cta\.shared\.b64",
        "8.0",
        "sm_90",
        "mbarrier.expect_tx.relaxed.cta.shared.b64 [%r0], 0;",
    ),
    _ef(
        "elect_sync_sink_pred",
        r"elect\.sync",
        "8.0",
        "sm_90",
        "elect.sync _|%p1, 4294967295;",
    ),
    _ef(
        "redux_sync_u32",
        r"redux\.sync\.(add|min|max)\.(u32|s32)",
        "7.0",
        "sm_80",
        "redux.sync.add.u32 %r1, %r2, %r3;",
    ),
    _ef(
        "redux_sync_b32",
        r"redux\.sync\.(and|or|xor)\.b32",
        "7.0",
        "sm_80",
        "redux.sync.and.b32 %r1, %r2, %r3;",
    ),
    _ef(
        "fence_proxy_async_shared_cta",
        r"fence\.proxy\.async\.shared::cta",
        "8.0",
        "sm_90",
        "fence.proxy.async.shared::cta;",
    ),
    _ef(
        "fence_mbarrier_init_release_cluster",
        r"fence\.mbarrier_init\.release\.cluster",
        "8.0",
        "sm_90",
        "fence.mbarrier_init.release.cluster;",
    ),
    _ef(
        "cp_async_bulk_tensor_load_cluster_complete_tx",
        r"cp\.async\.bulk\.tensor\.[1-5]d\.shared::cluster\.global\.mbarrier::complete_tx::bytes",
        "8.0",
        "sm_90",
        "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%r12], [%rd1, {%r14, %r13}], [%r9];",
    ),
    _ef(
        "cp_async_bulk_tensor_store_bulk_group",
        r"cp\.async\.bulk\.tensor\.[1-5]d\.global\.shared::cta\.bulk_group",
        "8.0",
        "sm_90",
        "cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%rd0, {%r2, %r1}], [%r0];",
    ),
    _ef(
        "cp_async_bulk_commit_group",
        r"cp\.async\.bulk\.commit_group",
        "8.0",
        "sm_90",
        "cp.async.bulk.commit_group;",
    ),
    _ef(
        "cp_async_bulk_wait_group_read",
        r"cp\.async\.bulk\.wait_group\.read",
        "8.0",
        "sm_90",
        "cp.async.bulk.wait_group.read 0;",
    ),
    _ef(
        "cp_async_bulk_prefetch_tensor_l2",
        r"cp\.async\.bulk\.prefetch\.tensor\.[1-5]d\.L2\.global\.tile",
        "8.0",
        "sm_90",
        "cp.async.bulk.prefetch.tensor.2d.L2.global.tile [%rd0, {%r3, %r2}];",
    ),
    _ef(
        "cvta_param_u64_reg",
        r"cvta\.param\.u64",
        "7.7",
        "sm_80",
        "mov.b64 %rd1, p;\ncvta.param.u64 %rd1, %rd1;",
    ),
    _ef(
        "tcgen05_alloc_cta_group_1",
        r"tcgen05\.alloc\.cta_group::1\.sync\.aligned\.shared::cta\.b32",
        "8.6",
        "sm_100a",
        "tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%r2], 64;",
    ),
    _ef(
        "tcgen05_relinquish_alloc_permit_cta_group_1",
        r"tcgen05\.relinquish_alloc_permit\.cta_group::1\.sync\.aligned",
        "8.6",
        "sm_100a",
        "tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;",
    ),
    _ef(
        "tcgen05_dealloc_cta_group_1",
        r"tcgen05\.dealloc\.cta_group::1\.sync\.aligned\.b32",
        "8.6",
        "sm_100a",
        "tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r2, 64;",
    ),
    _ef(
        "tcgen05_fence_thread_sync",
        r"tcgen05\.fence::(before|after)_thread_sync",
        "8.6",
        "sm_100a",
        "tcgen05.fence::before_thread_sync;\ntcgen05.fence::after_thread_sync;",
    ),
    _ef(
        "tcgen05_mma_cta_group_1_f16",
        r"tcgen05\.mma\.cta_group::1\.kind::f16",
        "8.6",
        "sm_100a",
        "tcgen05.mma.cta_group::1.kind::f16 [%r2], %rd1, %rd2, %r3, %p1;",
    ),
    _ef(
        "tcgen05_commit_cta_group_1_shared_cluster",
        r"tcgen05\.commit\.cta_group::1\.mbarrier::arrive::one\.shared::cluster\.b64",
        "8.6",
        "sm_100a",
        "tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%r7];",
    ),
    _ef(
        "tcgen05_ld_32x32b",
        r"tcgen05\.ld\.sync\.aligned\.32x32b\.x(1|2|4|8|16|32|64|128)\.b32",
        "8.6",
        "sm_100a",
        "tcgen05.ld.sync.aligned.32x32b.x2.b32 {%r4, %r6}, [%r4];",
    ),
    _ef(
        "tcgen05_wait_ld",
        r"tcgen05\.wait::ld\.sync\.aligned",
        "8.6",
        "sm_100a",
        "tcgen05.wait::ld.sync.aligned;",
    ),
    _ef(
        "tcgen05_st_32x32b",
        r"tcgen05\.st\.sync\.aligned\.32x32b\.x(1|2|4|8|16|32|64|128)\.b32",
        "8.6",
        "sm_100a",
        "tcgen05.st.sync.aligned.32x32b.x2.b32 [%r4], {%r5, %r6};",
    ),
    _ef(
        "tcgen05_wait_st",
        r"tcgen05\.wait::st\.sync\.aligned",
        "8.6",
        "sm_100a",
        "tcgen05.wait::st.sync.aligned;",
    ),
    _ef("min_relu_s32", r"min\.relu\.s32", "8.0", "sm_90", "min.relu.s32 %r1, %r2, %r3;"),
    _ef("max_relu_s32", r"max\.relu\.s32", "8.0", "sm_90", "max.relu.s32 %r1, %r2, %r3;"),
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
    major, minor = parse_version(f.gate.min_version)
    return (major, minor)
